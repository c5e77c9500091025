"""bot.ui.routing: a persistent component's click goes to the cog that owns it, or is told the game is off."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
from discord.ext import commands

from bot.ui import routing
from bot.ui.standings import STANDINGS_COG, LeaderboardPages


class Response:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_message(self, content: str, **kwargs: Any) -> None:
        self.sent.append(content)


class Pages(commands.Cog, name=STANDINGS_COG):
    async def on_leaderboard_page(self, *args: Any) -> None: ...


async def test_a_click_reaches_the_cog_that_owns_it_or_is_answered_privately() -> None:
    client = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    interaction: Any = SimpleNamespace(client=client, response=Response())
    assert await routing.handler(interaction, STANDINGS_COG, LeaderboardPages) is None  # type: ignore[type-abstract]
    assert interaction.response.sent == [routing.NOT_AVAILABLE]
    cog = Pages()
    await client.add_cog(cog)
    assert await routing.handler(interaction, STANDINGS_COG, LeaderboardPages) is cog  # type: ignore[type-abstract]
    assert interaction.response.sent == [routing.NOT_AVAILABLE]
