"""Which channels the publisher leaves alone after they refused the bot (bot.delivery.channel_refusals)."""

from __future__ import annotations

from types import SimpleNamespace

import discord

from bot.delivery.channel_refusals import KEPT_AFTER, REFUSED_FOR, REFUSED_MAX, ChannelRefusals, is_refusal


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


def test_a_pause_long_over_is_pruned_when_another_channel_is_noted() -> None:
    """A channel's pause is kept a while after it ends (a refusal then doubles it), then dropped when
    another refusal is noted: the refusals of a long-running bot do not pile up."""
    refusals = ChannelRefusals()
    refusals.note(1, 9, MISSING_ACCESS, 0.0)
    assert refusals.until(1) == REFUSED_FOR and refusals.until(2) is None
    refusals.note(2, 9, MISSING_ACCESS, REFUSED_FOR + KEPT_AFTER - 1)
    assert set(refusals._refused) == {1, 2}  # channel 1's pause only just over: kept
    refusals.note(3, 9, MISSING_ACCESS, REFUSED_FOR + KEPT_AFTER)
    assert set(refusals._refused) == {2, 3}
    refusals.pause(4, 9, 10 * KEPT_AFTER)  # the bot removed from a server: its channels paused
    assert set(refusals._refused) == {4}
    refusals.note(4, 9, MISSING_ACCESS, 12 * KEPT_AFTER)  # refused long after: it starts over
    assert refusals.until(4) == 12 * KEPT_AFTER + REFUSED_FOR


def test_a_channel_forgotten_is_neither_refused_nor_gone() -> None:
    """Once no table of the publisher's is in a channel, what was known of it goes (a deleted channel's id
    is never another channel's)."""
    refusals = ChannelRefusals()
    refusals.note(1, 9, MISSING_ACCESS, 0.0)
    refusals.note(2, 9, UNKNOWN_CHANNEL, 0.0)
    refusals.forget(1)
    refusals.forget(2)
    assert not refusals.refused(1, 0.0) and not refusals.gone(2) and not refusals.refused(2, 0.0)
    assert refusals._refused == {} and refusals._gone == set()
