"""The replays feature: ``/eights replay`` and the Replay select under ``/eights history`` (``_cog``), a
private view stepping through a finished match, rendered by ``bot.ui.replays`` with persistent controls."""

from __future__ import annotations

from discord.ext import commands

from bot.exts._group import EightsGroup
from bot.exts.replays._cog import ReplaysCog
from bot.service.replays import ReplayService
from bot.ui.appearance import Appearance
from bot.ui.replays import REPLAY_DYNAMIC_ITEMS


async def setup(
    bot: commands.Bot, group: EightsGroup, replays: ReplayService, appearance: Appearance
) -> None:
    await bot.add_cog(ReplaysCog(group, replays, appearance))
    bot.add_dynamic_items(*REPLAY_DYNAMIC_ITEMS)
