"""The standings commands end to end: the real bot (EightsBot with its real cogs) against the fake Discord.

Finished matches are recorded straight into the bot's database, the way the table service records them
(``commit_move`` with a ``MatchResult``), before the bot starts; everything after that goes through Discord.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import EightsBot
from bot.config import Config, Secret
from bot.endpoints import apply_endpoints
from bot.store import open_store
from bot.store.base import GuildSettings
from bot.ui.standings import FORGOTTEN
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser, fast_bot_options, running_bot
from tests.service.test_standings import record_match

MANAGE_GUILD = discord.Permissions(manage_guild=True).value


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        yield server
        server.assert_clean()


@pytest.fixture(autouse=True)
def discord_endpoints_restored() -> Iterator[None]:
    yield
    apply_endpoints(None, None)


class World:
    def __init__(self, fake: FakeDiscord, tmp_path: Path) -> None:
        self.fake = fake
        self.database_url = f"sqlite:///{tmp_path / 'eights.sqlite3'}"
        self.guild = fake.create_guild("Card Club")
        self.channel = fake.create_channel(self.guild, "cards")
        self.ann = fake.create_user("ann")
        self.bob = fake.create_user("bob")
        self.cy = fake.create_user("cy")  # never played
        self.admin = fake.create_user("admin")
        for user in (self.ann, self.bob, self.cy):
            fake.add_member(self.guild, user)
        fake.add_member(self.guild, self.admin, permissions=MANAGE_GUILD)

    def config(self) -> Config:
        return Config(
            token=Secret(self.fake.token),
            database_url=self.database_url,
            api_base_url=self.fake.api_base_url,
            gateway_url=self.fake.gateway_url,
            cpu_delay=0.0,
        )

    async def seed(self, *matches: dict[str, Any]) -> None:
        store = await open_store(self.database_url)
        try:
            await store.migrate()
            for match in matches:
                await record_match(store, guild_id=self.guild.id, channel_id=self.channel.id, **match)
        finally:
            await store.close()

    @asynccontextmanager
    async def bot(self) -> AsyncIterator[EightsBot]:
        client = EightsBot(self.config(), **fast_bot_options())
        async with running_bot(self.fake, client):
            yield client

    async def run(self, user: FakeUser, command: str, **options: Any) -> FakeMessage:
        handle = await self.fake.invoke(user, self.channel, f"eights {command}", **options)
        return await handle.reply()


@pytest.fixture
def world(fake: FakeDiscord, tmp_path: Path) -> World:
    return World(fake, tmp_path)


def two_matches(world: World) -> tuple[dict[str, Any], ...]:
    """Ann wins both; Bob is second then last behind a CPU."""
    ann, bob = world.ann, world.bob
    return (
        {
            "ranking": [(ann.id, "ann", 1, 12), (bob.id, "bob", 2, 40), (None, "CPU (hard)", 3, 75)],
            "preset": "classic",
            "rounds": 3,
            "now": 1_700_000_000.0,
            "round_points": {0: 12, 1: 40, 2: 75},
        },
        {
            "ranking": [(ann.id, "ann", 1, 0), (None, "CPU (easy)", 2, 9), (bob.id, "bob", 3, 30)],
            "preset": "switch",
            "rounds": 1,
            "now": 1_700_000_600.0,
        },
    )


def description(message: FakeMessage) -> list[str]:
    (embed,) = message.embeds
    return str(embed.get("description", "")).splitlines()


def fields(message: FakeMessage) -> dict[str, str]:
    (embed,) = message.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def buttons(message: FakeMessage) -> list[dict[str, Any]]:
    return [c for row in message.components for c in row.get("components", []) if c.get("type") == 2]


async def test_leaderboard_and_stats_after_two_matches(world: World) -> None:
    await world.seed(*two_matches(world))
    ann, bob = world.ann, world.bob
    async with world.bot():
        board = await world.run(ann, "leaderboard")
        assert not board.ephemeral  # people share it
        assert description(board) == [
            f"**1.** <@{ann.id}> — **2** wins · 2 played · 100%",
            f"**2.** <@{bob.id}> — **0** wins · 2 played · 0%",
            "",
            f"<@{ann.id}> is **1st** of 2 — **2** wins · 2 played · 100%",
        ]
        assert board.embeds[0]["footer"]["text"] == "Page 1 of 1 · 2 players"
        previous, following = buttons(board)
        assert previous["disabled"] and following["disabled"]  # one page only

        by_points = await world.run(bob, "leaderboard", sort="points")
        assert description(by_points)[:2] == [
            f"**1.** <@{ann.id}> — **4** points · 2 won · 2 played",  # beat two opponents in each match
            f"**2.** <@{bob.id}> — **1** points · 0 won · 2 played",
        ]
        assert description(by_points)[-1] == f"<@{bob.id}> is **2nd** of 2 — **1** points · 0 won · 2 played"

        stats = await world.run(ann, "stats", member=bob)
        assert not stats.ephemeral
        assert f"<@{bob.id}>" in stats.embeds[0]["description"]
        shown = fields(stats)
        assert shown["Matches"] == "2 played · 0 won"
        assert shown["Win rate"] == "0%"
        assert shown["Rounds won"] == "0 of 4"
        assert shown["Average round score"] == "17.5"  # (40 + 30) / 4 rounds
        assert shown["Best finish"] == "2nd"
        assert shown["Last played"] == "<t:1700000600:R>"
        own = fields(await world.run(ann, "stats"))
        assert own["Matches"] == "2 played · 2 won"
        assert own["Rounds won"] == "4 of 4"
        assert own["Best finish"] == "1st"

        history = await world.run(bob, "history")
        assert not history.ephemeral
        names = [f["name"] for f in history.embeds[0]["fields"]]
        assert names == ["switch · 1 round", "classic · 3 rounds"]  # newest first


async def test_mistaken_requests_get_short_private_answers(world: World) -> None:
    async with world.bot():
        empty = await world.run(world.ann, "leaderboard")
        assert empty.ephemeral
        assert empty.content == "Nobody has finished a match in this server yet."
        assert (await world.run(world.ann, "history")).ephemeral
    await world.seed(*two_matches(world))
    async with world.bot():
        past_the_end = await world.run(world.ann, "leaderboard", page=2)
        assert past_the_end.ephemeral
        assert past_the_end.content == "The leaderboard has only 1 page."
        nobody = await world.run(world.ann, "stats", member=world.cy)
        assert nobody.ephemeral
        assert nobody.content == "That member hasn't finished a match in this server yet."
        too_few = await world.run(world.cy, "leaderboard", sort="winrate")
        assert too_few.ephemeral
        assert "5 matches" in too_few.content
    assert world.fake.channel_messages(world.channel) == []  # nothing public came of any of it


async def test_leaderboard_pages_in_place_and_after_a_restart(world: World) -> None:
    players = [world.fake.create_user(f"p{i}") for i in range(12)]
    for player in players:
        world.fake.add_member(world.guild, player)
    # Player i has won i + 1 matches against a CPU: player 11 leads, player 0 is 12th.
    await world.seed(
        *(
            {"ranking": [(player.id, player.name, 1, 0), (None, "CPU", 2, 10)], "now": 1_700_000_000.0 + i}
            for i, player in enumerate(players)
            for _ in range(i + 1)
        )
    )
    asker = players[0]
    async with world.bot():
        board = await world.run(asker, "leaderboard")
        lines = description(board)
        assert lines[0] == f"**1.** <@{players[11].id}> — **12** wins · 12 played · 100%"
        assert lines[-1] == f"<@{asker.id}> is **12th** of 12 — **1** win · 1 played · 100%"  # off the page
        assert board.embeds[0]["footer"]["text"] == "Page 1 of 2 · 12 players"

        # Someone else pages: the message changes in place and still carries the asker's rank.
        clicked = await world.fake.click(players[5], board, label="Next")
        assert await clicked.callback() == 7
        page_two = await clicked.reply()
        assert page_two.id == board.id
        assert description(page_two)[:2] == [
            f"**11.** <@{players[1].id}> — **2** wins · 2 played · 100%",
            f"**12.** <@{asker.id}> — **1** win · 1 played · 100%",
        ]
        assert description(page_two)[-1].startswith(f"<@{asker.id}> is **12th**")
        previous, following = buttons(page_two)
        assert not previous["disabled"] and following["disabled"]
        assert re.fullmatch(rf"eights-lb:{world.guild.id}:wins:1:{asker.id}", previous["custom_id"])

    # The buttons are persistent: a new bot process answers a click on the old message.
    async with world.bot():
        back = await world.fake.click(players[7], page_two, label="Previous")
        assert await back.callback() == 7
        assert description(await back.reply())[0].startswith(f"**1.** <@{players[11].id}>")
        assert world.fake.ephemeral_messages(players[7]) == []


async def test_settings_need_manage_server_and_persist(world: World) -> None:
    other = world.fake.create_channel(world.guild, "more-cards")
    role = world.fake.create_role(world.guild, "dealers")
    async with world.bot() as bot:
        refused = await world.run(world.ann, "settings")
        assert refused.ephemeral
        assert refused.content == "You need the Manage Server permission to use this command."
        refused_change = await world.run(world.ann, "settings", default_preset="party")
        assert refused_change.ephemeral
        assert await bot.store.get_guild_settings(world.guild.id) == GuildSettings(guild_id=world.guild.id)

        shown = await world.run(world.admin, "settings")
        assert shown.ephemeral
        assert fields(shown)["Table channels"] == "any channel"

        changed = await world.run(
            world.admin,
            "settings",
            default_preset="party",
            turn_timeout=120,
            allow_channel=other,
            manager_role=role,
        )
        assert changed.ephemeral
        assert fields(changed) == {
            "Default preset": "party",
            "Default turn timeout": "2 min",
            "Table channels": f"<#{other.id}>",
            "Table manager role": f"<@&{role.id}>",
        }
        assert await bot.store.get_guild_settings(world.guild.id) == GuildSettings(
            guild_id=world.guild.id,
            default_preset="party",
            default_turn_timeout=120.0,
            allowed_channel_ids=(other.id,),
            manager_role_id=role.id,
        )
        bad = await world.run(world.admin, "settings", disallow_channel=world.channel)
        assert bad.ephemeral
        assert bad.content == "That channel is not on the list of table channels."
    assert world.fake.channel_messages(world.channel) == []


async def test_forget_asks_then_deletes_everywhere(world: World) -> None:
    await world.seed(*two_matches(world))
    async with world.bot() as bot:
        question = await world.run(world.ann, "forget")
        assert question.ephemeral
        assert "every server" in question.content
        kept = await world.fake.click(world.ann, question, label="Keep them")
        assert (await kept.reply()).content == "Your statistics are kept."
        assert await bot.store.player_stats(world.guild.id, world.ann.id) is not None

        again = await world.run(world.ann, "forget")
        confirmed = await world.fake.click(world.ann, again, label="Delete my statistics")
        assert await confirmed.callback() == 7
        done = await confirmed.reply()
        assert done.content == FORGOTTEN
        assert done.components == []
        assert await bot.store.player_stats(world.guild.id, world.ann.id) is None

        board = await world.run(world.bob, "leaderboard")
        assert description(board)[0] == f"**1.** <@{world.bob.id}> — **0** wins · 2 played · 0%"
        gone = await world.run(world.ann, "stats")
        assert gone.ephemeral
