"""The bot's command tree: every slash command and autocomplete is answered in its player's language.

discord.py runs ``interaction_check`` in the task that then runs the command (or the autocomplete), so the
language set here holds for everything the command says privately; what it publishes goes through the
delivery part, which writes in the server's language.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.ui.locales import use_player_locale


class EightsTree(app_commands.CommandTree[Any]):
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        use_player_locale(interaction)
        return True
