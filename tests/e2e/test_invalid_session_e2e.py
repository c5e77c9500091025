"""A shard's gateway session is replaced (an op 9 INVALID SESSION, not resumable: what Discord dispatched
meanwhile is lost, a GUILD_DELETE included). discord.py's sharded state keeps the guilds it had cached (its
READY parser never clears them), so ``get_guild`` cannot tell a server that removed the bot meanwhile; the
bot reads the new READY's own list of servers (``SessionGuilds``) at the shard's ready. README, *Discord's
rate limits*: a table whose server removed the bot is closed, and nothing is sent to the channel again."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_channel_refusals_e2e import ChannelCalls, cpu_table
from tests.e2e.test_hand_messages_e2e import fire

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


async def new_session(world: World) -> None:
    """Invalidate the bot's session and wait for its new IDENTIFY, READY and ready."""
    fake = world.fake
    identifies = len(fake.identifies)
    assert await fake.drop_gateway(kind="invalid_session") == 1
    await fake.wait_for(lambda: len(fake.identifies) > identifies, timeout=15.0, what="a new IDENTIFY")
    await asyncio.sleep(0.5)  # READY, the GUILD_CREATEs and the shard's ready
    await world.settle()


@SQLITE_ONLY
async def test_a_server_missing_from_the_new_ready_after_an_invalid_session_gets_its_tables_closed(
    world: World,
) -> None:
    """The server removed the bot while its session was being replaced (its GUILD_DELETE went to the dead
    session; the new READY does not list it): the table is closed, as after a restart, and the bot stops
    calling the channel of a server it is no longer in."""
    fake = world.fake
    await cpu_table(world)  # CPU seats only: the table plays on by itself
    table_id = await world.table_id()
    identifies = len(fake.identifies)
    assert await fake.drop_gateway(kind="invalid_session") == 1
    fake.guilds.pop(world.guild.id)  # removed meanwhile: its GUILD_DELETE went to the dead session
    calls = ChannelCalls(world)
    calls.refuse = 50001  # a channel of a server the bot is not in: 403 Missing Access
    await fake.wait_for(lambda: len(fake.identifies) > identifies, timeout=15.0, what="a new IDENTIFY")
    await asyncio.sleep(0.5)  # READY (without the server) and the shard's ready
    await world.settle()
    for _ in range(3):  # let it play a little
        if await world.service.table_in_channel(world.channel.id) is None:
            break
        if (await world.service.snapshot(table_id)).phase == "between_rounds":
            await fire(world, "_on_pause_over")
        await world.settle()
    fake.take_violations()
    assert await world.service.table_in_channel(world.channel.id) is None, (
        "the table of a server the bot is no longer in is still open after the new session",
        dict(calls.count),
        world.bot.get_guild(world.guild.id) if world.bot else None,
    )


@SQLITE_ONLY
async def test_a_server_still_listed_in_the_new_ready_keeps_its_tables(world: World) -> None:
    """The same new session, the server still the bot's (the READY lists it, as unavailable until its
    GUILD_CREATE): its table stays open and plays on."""
    await cpu_table(world)
    table_id = await world.table_id()
    await new_session(world)
    assert await world.service.table_in_channel(world.channel.id) == table_id
    assert (await world.service.snapshot(table_id)).open
