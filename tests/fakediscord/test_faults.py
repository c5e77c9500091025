"""Gateway faults of every kind, resumed by the real discord.py client with the missed events replayed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import discord
import pytest
from discord.ext import commands

from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, fast_bot_options, running_bot


@dataclass
class World:
    fake: FakeDiscord
    bot: commands.Bot
    channel: FakeChannel
    alice: FakeUser
    resumed: asyncio.Event


@pytest.fixture
async def world() -> AsyncIterator[World]:
    # Heartbeats every 0.2 s and a client that gives up on a silent connection after 1 s: a half-open
    # connection is noticed quickly (Discord's are 41 s and discord.py's default timeout 60 s).
    async with FakeDiscord(heartbeat_interval=0.2) as fake:
        guild = fake.create_guild("Cards")
        channel = fake.create_channel(guild, "table")
        alice = fake.create_user("alice")
        fake.add_member(guild, alice)
        bot = commands.Bot(
            command_prefix="!", intents=discord.Intents.default(), heartbeat_timeout=1.0, **fast_bot_options()
        )

        @bot.tree.command(name="ping", description="pong")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

        resumed = asyncio.Event()

        async def on_resumed() -> None:
            resumed.set()

        bot.add_listener(on_resumed)
        async with running_bot(fake, bot):
            await bot.tree.sync()
            yield World(fake, bot, channel, alice, resumed)
        fake.assert_clean()


async def ping(world: World) -> str:
    handle = await world.fake.invoke(world.alice, world.channel, "ping")
    return (await handle.reply(timeout=10.0)).content


@pytest.mark.parametrize("kind", ["close", "abrupt", "half_open", "reconnect"])
async def test_each_drop_is_resumed_and_what_was_sent_meanwhile_arrives(world: World, kind: str) -> None:
    fake = world.fake
    assert await fake.drop_gateway(kind=kind) == 1
    # Sent while the connection is down (or silent): replayed by the RESUME, in order.
    created = fake.create_channel(fake.guilds[world.channel.guild_id], "made-meanwhile")
    answer = asyncio.create_task(ping(world))
    await asyncio.wait_for(world.resumed.wait(), 10.0)
    assert await answer == "pong"
    assert world.bot.get_channel(created.id) is not None
    assert fake.identifies == [(0, 1)]  # resumed, never identified again
    assert len(fake.resumes) == 1 and fake.refused_resumes == 0
    assert fake.faults.injected[kind] == 1
    [outage] = fake.faults.outages
    assert outage.kind == kind and outage.end is not None and outage.end >= outage.start
    assert await ping(world) == "pong"


async def test_a_half_open_connection_stops_acknowledging_heartbeats() -> None:
    async with FakeDiscord(heartbeat_interval=0.2) as fake:
        fake.create_guild("g")
        bot = commands.Bot(command_prefix="!", intents=discord.Intents.none(), **fast_bot_options())
        async with running_bot(fake, bot):
            await asyncio.sleep(0.5)
            before = bot.latency
            await fake.drop_gateway(kind="half_open")
            await asyncio.sleep(1.0)
            # discord.py's latency is the time from its last heartbeat to the ACK; with no ACK it stays put
            # while the gateway stays connected (no resume yet: the client's timeout is 60 s here).
            assert bot.latency == before and fake.resumes == []
            assert fake.gateway_connections == 1


async def test_an_invalid_session_makes_the_client_identify_again(world: World) -> None:
    fake = world.fake
    assert await fake.drop_gateway(kind="invalid_session") == 1
    await fake.wait_for(lambda: len(fake.identifies) == 2, timeout=10.0, what="a second IDENTIFY")
    assert fake.resumes == []
    assert await ping(world) == "pong"
    assert fake.faults.outages[0].end is not None


async def test_the_fault_runner_injects_kinds_in_turn_until_stopped(world: World) -> None:
    fake = world.fake
    stop = asyncio.Event()
    runner = asyncio.create_task(fake.faults.run(0.3, ["close", "reconnect"], stop=stop))
    await fake.wait_for(lambda: len(fake.resumes) >= 2, timeout=10.0, what="two resumes")
    stop.set()
    await runner
    assert fake.faults.injected["close"] >= 1 and fake.faults.injected["reconnect"] >= 1
    assert await ping(world) == "pong"
