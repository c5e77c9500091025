"""Which language an interaction is answered in.

A player's own messages (private replies, their hand, ephemeral errors) are in the interaction's ``locale``,
the language of their Discord client; a language we have no catalogue for falls back to the server's
(``guild_locale``), then English. Public text (boards, lines, rankings, the picture's alt text, the lobby)
is in the server's language instead: ``bot.ui.appearance.Appearance.language``.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import DEFAULT_LOCALE, from_discord, set_locale


def player_locale(interaction: discord.Interaction[Any]) -> str:
    """The catalogue for the player who sent ``interaction``."""
    return (
        from_discord(getattr(interaction, "locale", None))
        or from_discord(getattr(interaction, "guild_locale", None))
        or DEFAULT_LOCALE
    )


def use_player_locale(interaction: discord.Interaction[Any]) -> str:
    """Answer the rest of this interaction's handling in its player's language (the handler's own task).
    The server's language in Discord is noted on the way, for the public text of its tables (the bot's
    ``appearance``, when it has one)."""
    appearance = getattr(getattr(interaction, "client", None), "appearance", None)
    guild_id = getattr(interaction, "guild_id", None)
    note = getattr(appearance, "note_guild_locale", None)
    if note is not None:
        note(guild_id, getattr(interaction, "guild_locale", None))
    own = from_discord(getattr(interaction, "locale", None))
    if own is None and guild_id is not None and appearance is not None:
        # A language we have no catalogue for: the server's (its settings' choice, else Discord's).
        own = appearance.cached_language(guild_id)
    return set_locale(own or player_locale(interaction))
