"""A match played in a channel some members cannot read: it is not replayed for them, nor listed for them."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_replays_e2e import play_match

VIEW_CHANNEL = 1 << 10


async def _make_private(world: World) -> None:
    """The table's channel becomes one @everyone cannot see: only alice, bob and the bot may (a staff or
    a friends-only channel). The fake keeps no overwrites of its own, so the change is told to the bot as
    Discord tells it: a CHANNEL_UPDATE with the channel's permission overwrites."""
    payload = world.channel.payload()
    payload["permission_overwrites"] = [
        {"id": str(world.guild.id), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)},  # @everyone
        *(
            {"id": str(user.id), "type": 1, "allow": str(VIEW_CHANNEL), "deny": "0"}
            for user in (world.alice, world.bob, world.fake.bot_user)
        ),
    ]
    world.fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", payload)
    assert world.bot is not None
    for _ in range(500):
        channel = world.bot.get_channel(world.channel.id)
        if channel is not None and len(getattr(channel, "overwrites", {})) == 4:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the bot did not learn the channel's overwrites")


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_member_who_cannot_see_the_channel_cannot_replay_its_match(world: World) -> None:
    """README, /eights replay: "each step shows what the channel saw then (its lines and the board …)"; the
    brief: "of a finished one, is what it shows allowed?". The lines of a channel a member may not read are
    not theirs to read: Discord hides that channel from them, and the bot knows it (the channel's overwrites
    and the member's roles are in its cache; no privileged intent is needed).

    Found: carol, who cannot see #eights, runs /eights replay from #general and steps through the match
    played there, every public line and board of it (who played what, when, the scores); /eights history
    lists it too, with its players. Cause: bot/service/replays.py ``ReplayService.step`` and ``recent``
    check only that the match is a finished one of this server (``record.guild_id``), never whether the
    viewer may view ``record.channel_id`` (bot/exts/replays/_cog.py passes no member or permissions)."""
    await _make_private(world)
    table_id, _ = await play_match(world, cpu=False)

    handle = await world.fake.invoke(world.carol, world.other_channel, "eights replay", match=table_id)
    answer = await handle.reply()
    assert answer.ephemeral
    shown = answer.text()
    assert "Replay of match" not in shown, (
        f"carol, who cannot see #{world.channel.name}, replays its match: {shown[:400]!r}"
    )
    # Nor is it listed in a history asked where everyone can read.
    history = await world.run(world.carol, "history", channel=world.other_channel)
    assert f"<#{world.channel.id}>" not in history.text(), history.text()
    assert "No match has finished" in history.text(), history.text()
    # Asked in the channel it was played in, it is listed there.
    here = await world.run(world.alice, "history")
    assert f"<#{world.channel.id}>" in here.text(), here.text()
    # Its players may replay it from anywhere.
    mine = await (
        await world.fake.invoke(world.bob, world.other_channel, "eights replay", match=table_id)
    ).reply()
    assert "Replay of match" in mine.text(), mine.text()
