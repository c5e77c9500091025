"""How a click on a persistent component reaches its feature, one way for all of them.

Every ``DynamicItem`` of the bot (the table's controls, the leaderboard's pages, the forget confirmation)
parses its custom id and hands the click to the cog that owns it, found by name: ``handler(interaction,
cog_name, Protocol)``. The cog then calls the service and answers, as its commands do; ``bot.ui`` only builds
and parses components.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar, cast

import discord
from discord.ext import commands

from bot.i18n import N_, _
from bot.ui.locales import use_player_locale

log = logging.getLogger(__name__)

NOT_AVAILABLE = N_("The game is not available right now.")
HandlerT = TypeVar("HandlerT")
# isinstance against a runtime-checkable Protocol walks the protocol's members every time (a few percent of
# a click's CPU under load); a cog's class either handles the protocol or not, so the answer is kept.
_HANDLES: dict[tuple[type, type], bool] = {}


def _handles(cog: object, protocol: type) -> bool:
    key = (type(cog), protocol)
    handles = _HANDLES.get(key)
    if handles is None:
        handles = _HANDLES[key] = isinstance(cog, protocol)
    return handles


async def handler(
    interaction: discord.Interaction[Any], cog_name: str, protocol: type[HandlerT]
) -> HandlerT | None:
    """The cog named ``cog_name`` if it handles ``protocol`` (a ``runtime_checkable`` Protocol); else None,
    and the user is told privately that the game is not available.

    Every click reaches its cog through here: from here on, what the click answers is in the clicker's
    language (``bot.ui.locales``)."""
    use_player_locale(interaction)
    client = interaction.client
    cog = client.get_cog(cog_name) if isinstance(client, commands.bot.BotBase) else None
    if cog is not None and _handles(cog, protocol):
        return cast(HandlerT, cog)
    log.warning("no %s for a click; is the %s cog loaded?", protocol.__name__, cog_name)
    await interaction.response.send_message(_(NOT_AVAILABLE), ephemeral=True)
    return None
