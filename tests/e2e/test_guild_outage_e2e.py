"""A server in an outage: Discord's GUILD_DELETE with ``unavailable: true`` ("the guild has become
unavailable ... due to an outage"), then its GUILD_CREATE once it is back. Meanwhile nobody in that server can
reach the bot: no interaction of theirs is delivered. Its tables' times stand still (README, *Time*)."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.exts.tables._channels import ChannelsCog
from tests.e2e.conftest import World
from tests.e2e.test_channel_refusals_e2e import closed

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
TURN = 15  # the shortest turn /eights new takes


async def _alice_to_move(world: World) -> None:
    world.service.seed_deals(1)  # alice leads
    await world.run(world.alice, "new", target=1000, turn_timeout=TURN)
    await world.run(world.bob, "join")
    await world.run(world.alice, "start")
    await world.settle()
    assert await world.human_to_act() is world.alice


@SQLITE_ONLY
async def test_a_turn_does_not_run_out_while_discord_says_the_server_is_unavailable(world: World) -> None:
    """README (*Time*): a person's turn lasts the table's turn timeout, then the bot acts for them (three in a
    row give the seat to a CPU); while Discord says a server is unavailable, its tables' times stand still,
    and once it is back the player to move has at least 30 seconds (or the whole turn timeout), as after a
    restart. Alice's 15 s turn, with an outage longer than that: she is not timed out (she could not act),
    and when the server is back her turn ends no sooner than 15 s later, as the board says."""
    fake = world.fake
    await _alice_to_move(world)
    before = await world.snapshot()

    session = next(iter(fake.sessions.values()))
    session.dispatch("GUILD_DELETE", {"id": str(world.guild.id), "unavailable": True})
    await asyncio.sleep(0.5)
    assert world.bot is not None
    guild = world.bot.get_guild(world.guild.id)
    assert guild is None or guild.unavailable
    assert world.service.guilds_waiting() == {world.guild.id}
    await asyncio.sleep(TURN + 1.5)  # the outage lasts longer than a turn
    during = await world.snapshot()
    session.dispatch("GUILD_CREATE", fake._guild_create(session, world.guild))  # the server is back
    await asyncio.sleep(0.5)
    await world.settle()

    timed_out = [t for t in world.public_texts() if "ran out of time" in t]
    assert during.to_act == before.to_act and not timed_out, (
        "alice's turn ran out while Discord said her server was unavailable (she could not act)",
        timed_out,
    )
    assert world.service.guilds_waiting() == set()
    after = await world.snapshot()
    assert after.to_act == before.to_act
    assert after.deadline is not None and after.deadline >= time.time() + TURN - 2.0, (
        f"alice has {after.deadline - time.time():.1f} s once her server is back; at least {TURN} s are due"
    )
    assert not fake.take_violations()


@SQLITE_ONLY
async def test_the_bot_removed_from_a_server_in_an_outage_still_closes_its_tables(world: World) -> None:
    """GUILD_DELETE without ``unavailable`` (the bot removed, kicked) keeps today's rule, an outage before it
    or not: the server's tables are closed."""
    fake = world.fake
    await _alice_to_move(world)
    fake._dispatch_guild(world.guild, "GUILD_DELETE", {"id": str(world.guild.id), "unavailable": True})
    await asyncio.sleep(0.3)
    assert world.service.guilds_waiting() == {world.guild.id}
    fake._dispatch_guild(world.guild, "GUILD_DELETE", {"id": str(world.guild.id)})
    for _ in range(100):
        if await closed(world):
            break
    assert await closed(world)
    fake.take_violations()


@SQLITE_ONLY
async def test_a_server_still_unavailable_when_its_shard_is_ready_has_its_tables_wait(world: World) -> None:
    """A session's READY lists every server as unavailable, and a server in an outage sends no GUILD_CREATE
    before the shard is ready (at a start, after a session Discord could not resume): its tables wait as
    after GUILD_DELETE ``unavailable``, until its GUILD_CREATE comes."""
    fake = world.fake
    await _alice_to_move(world)
    assert world.bot is not None
    guild = world.bot.get_guild(world.guild.id)
    assert guild is not None
    cog = next(c for c in world.bot.cogs.values() if isinstance(c, ChannelsCog))
    guild.unavailable = True  # as discord.py's cache holds a server READY listed and no GUILD_CREATE followed
    await cog.on_shard_ready(0)
    assert world.service.guilds_waiting() == {world.guild.id}
    session = fake._session_for(world.guild.id)
    assert session is not None
    session.dispatch("GUILD_CREATE", fake._guild_create(session, world.guild))
    await asyncio.sleep(0.5)
    assert world.service.guilds_waiting() == set()
