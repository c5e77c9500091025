"""A server's own matters: ``/eights settings`` and ``/eights forget`` (``_cog``); the forget confirmation is
a persistent button of ``bot.ui.standings``."""

from __future__ import annotations

from discord.ext import commands

from bot.exts._group import EightsGroup
from bot.exts.server._cog import ServerCog, thread_parent
from bot.service.server import ServerService
from bot.ui.appearance import Appearance
from bot.ui.standings import ForgetButton

__all__ = ["ServerCog", "setup", "thread_parent"]


async def setup(bot: commands.Bot, group: EightsGroup, server: ServerService, appearance: Appearance) -> None:
    await bot.add_cog(ServerCog(group, server, appearance))
    bot.add_dynamic_items(ForgetButton)
