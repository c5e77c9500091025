"""Which channels the publisher leaves alone after they refused the bot (bot.delivery.channel_refusals)."""

from __future__ import annotations

from types import SimpleNamespace

import discord

from bot.delivery.channel_refusals import REFUSED_FOR, REFUSED_MAX, ChannelRefusals, is_refusal


def http_error(kind: type[discord.HTTPException], status: int, code: int) -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason="", headers={})
    return kind(response, {"code": code, "message": "refused"})  # type: ignore[arg-type]


MISSING_ACCESS = http_error(discord.Forbidden, 403, 50001)
UNKNOWN_CHANNEL = http_error(discord.NotFound, 404, 10003)
UNKNOWN_MESSAGE = http_error(discord.NotFound, 404, 10008)
SERVER_ERROR = http_error(discord.DiscordServerError, 502, 0)


def test_what_counts_as_the_channel_refusing() -> None:
    assert is_refusal(MISSING_ACCESS) and is_refusal(http_error(discord.Forbidden, 403, 50013))
    assert is_refusal(UNKNOWN_CHANNEL)
    assert not is_refusal(UNKNOWN_MESSAGE)  # a board deleted: posted again, the channel is fine
    assert not is_refusal(SERVER_ERROR) and not is_refusal(ValueError())


def test_a_refusal_pauses_the_channel_longer_each_time_until_forgiven() -> None:
    refusals = ChannelRefusals()
    assert not refusals.note(1, 9, SERVER_ERROR, 0.0) and not refusals.refused(1, 0.0)
    assert refusals.note(1, 9, MISSING_ACCESS, 0.0)
    assert refusals.refused(1, REFUSED_FOR - 1) and not refusals.refused(1, REFUSED_FOR)
    assert not refusals.refused(2, 0.0)  # another channel
    refusals.note(1, 9, MISSING_ACCESS, REFUSED_FOR - 1)  # met again within the pause: the same pause
    assert not refusals.refused(1, REFUSED_FOR)
    now = REFUSED_FOR
    refusals.note(1, 9, MISSING_ACCESS, now)  # refused again after it: twice as long
    assert refusals.refused(1, now + 2 * REFUSED_FOR - 1) and not refusals.refused(1, now + 2 * REFUSED_FOR)
    for _ in range(20):
        now += REFUSED_MAX
        refusals.note(1, 9, MISSING_ACCESS, now)
    assert not refusals.refused(1, now + REFUSED_MAX)  # never longer than REFUSED_MAX
    refusals.forgive(guild_id=8)
    assert refusals.refused(1, now)
    refusals.forgive(guild_id=9)  # its server's roles changed
    assert not refusals.refused(1, now)
    refusals.note(1, 9, MISSING_ACCESS, now)
    refusals.forgive(channel_id=1)  # the channel's permissions changed
    assert not refusals.refused(1, now)


def test_a_deleted_channel_is_never_tried_again() -> None:
    refusals = ChannelRefusals()
    assert refusals.note(1, 9, UNKNOWN_CHANNEL, 0.0)
    assert refusals.gone(1) and refusals.refused(1, 10**9)
    refusals.forgive(channel_id=1, guild_id=9)
    assert refusals.refused(1, 10**9)
