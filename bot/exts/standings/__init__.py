"""The standings feature: ``/eights leaderboard``, ``stats`` and ``history`` (``_cog``), rendered by
``bot.ui.standings``, whose leaderboard pages turn through persistent buttons."""

from __future__ import annotations

from discord.ext import commands

from bot.exts._group import EightsGroup
from bot.exts.standings._cog import StandingsCog
from bot.service.standings import StandingsService
from bot.ui.appearance import TEXT_ONLY, Appearance
from bot.ui.standings import LeaderboardPageButton


async def setup(
    bot: commands.Bot, group: EightsGroup, standings: StandingsService, appearance: Appearance = TEXT_ONLY
) -> None:
    await bot.add_cog(StandingsCog(group, standings, appearance))
    bot.add_dynamic_items(LeaderboardPageButton)
