"""The /eights commands that only show: status (the board again, at the bottom), scores and rules."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.delivery.answers import answer_privately, answer_publicly
from bot.exts.tables._base import PRESET_CHOICES, TableCog
from bot.ui import render

log = logging.getLogger(__name__)


class InformationCog(TableCog, name="Eights information"):
    @app_commands.command(name="status", description="Show this channel's table again, at the bottom.")
    async def status(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        snapshot = await self.service.snapshot(table_id)
        # A move meanwhile waits for this board and is shown on it (not on the board it replaces).
        async with self.publisher.board_coming(table_id):
            message_id = await answer_publicly(interaction, **await self.publisher.board_message(snapshot))
            if message_id is None:
                return
            # One board per table: the old one goes (its buttons would only repeat the new one's).
            await self.publisher.replace_board(snapshot, message_id, interaction)

    @app_commands.command(name="scores", description="The scores of this channel's match so far, privately.")
    async def scores(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        snapshot = await self.service.scores(table_id)
        await answer_privately(interaction, render.scores_text(snapshot))

    @app_commands.command(name="rules", description="The rules of this table, or of a preset, privately.")
    @app_commands.describe(preset="A preset's rules instead of this table's")
    @app_commands.choices(preset=PRESET_CHOICES)
    async def rules(self, interaction: discord.Interaction, preset: str | None = None) -> None:
        table_id = None
        if preset is None and interaction.channel_id is not None:
            table_id = await self.service.table_in_channel(interaction.channel_id)
        text = await self.service.rules_text(preset, table_id)
        # A long rules help (crazier-abilities lists its 13 cards) goes in several private messages.
        for part in _parts(text, 2000):
            await answer_privately(interaction, part)


def _parts(text: str, limit: int) -> list[str]:
    """The text in pieces of at most ``limit`` characters, cut between lines."""
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        line = line[:limit]
        if current and len(current) + 1 + len(line) > limit:
            parts.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        parts.append(current)
    return parts
