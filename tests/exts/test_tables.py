"""bot.exts.tables: its cogs own their commands under /eights, and every one of them is watched by the
deferral watchdog by construction (a command added to a table cog needs no list to be answered in time)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest
from discord import app_commands
from discord.ext import commands

import bot.exts.server
import bot.exts.standings
import bot.exts.tables
from bot.delivery import answers
from bot.delivery.hands import HandMessages
from bot.delivery.publisher import TablePublisher
from bot.exts._group import EightsGroup
from bot.exts.tables._base import TableCog
from bot.service import TableService
from bot.service.standings import StandingsService
from bot.ui.appearance import Appearance

# What the standings and server features own: watched too (a database waiting on a lock can make any answer
# late).
FEATURE_COMMANDS = {"leaderboard", "stats", "history", "settings", "forget"}


async def features() -> tuple[commands.Bot, EightsGroup]:
    """The features as EightsBot.setup_hook adds them, over parts that are never called here."""
    client = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    group = EightsGroup()
    service = cast(TableService, object())
    publisher = cast(TablePublisher, SimpleNamespace(hands=object()))
    standings = cast(StandingsService, object())
    await bot.exts.tables.setup(client, group, service, publisher)
    await bot.exts.standings.setup(client, group, standings)
    await bot.exts.server.setup(client, group, standings, cast(Appearance, object()))
    client.tree.add_command(group)
    return client, group


def command_interaction(command: app_commands.Command[Any, ..., Any]) -> Any:
    return SimpleNamespace(type=discord.InteractionType.application_command, command=command, id=7)


async def watched(command: app_commands.Command[Any, ..., Any], monkeypatch: pytest.MonkeyPatch) -> bool:
    calls: list[object] = []
    monkeypatch.setattr(answers, "watch", lambda interaction, **kwargs: calls.append(interaction))
    interaction = command_interaction(command)
    assert await command._check_can_run(interaction)
    return calls == [interaction]


async def test_every_command_is_an_eights_subcommand_and_the_tree_has_only_the_group() -> None:
    client, group = await features()
    assert [command.name for command in client.tree.get_commands()] == ["eights"]
    names = {command.name for command in group.commands}
    assert names == {
        *FEATURE_COMMANDS,
        *("new", "join", "leave", "cpu", "start", "end", "kick", "hand", "play", "last", "catch", "draw"),
        *("pass", "suit", "status", "scores", "rules", "house", "effect"),
    }
    assert group.guild_only


async def test_every_command_is_watched(monkeypatch: pytest.MonkeyPatch) -> None:
    _, group = await features()
    for command in group.commands:
        assert isinstance(command, app_commands.Command)
        assert await watched(command, monkeypatch), command.name


async def test_a_command_added_to_a_table_cog_is_watched_without_being_listed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The defect of the old GAME_COMMANDS list: a command missing from it silently lost the watchdog.
    class Newcomer(TableCog):
        @app_commands.command(name="newcomer", description="A command nobody listed anywhere.")
        async def newcomer(self, interaction: discord.Interaction) -> None: ...

    client, group = await features()
    await client.add_cog(
        Newcomer(
            client,
            group,
            cast(TableService, object()),
            cast(TablePublisher, object()),
            cast(HandMessages, object()),
        )
    )
    command = group.get_command("newcomer")
    assert isinstance(command, app_commands.Command)
    assert await watched(command, monkeypatch)
