"""While the bot drains for a restart, the interactions it turns away are answered in the language every
other answer uses (``bot.ui.locales.use_player_locale``): the player's own, else the server's."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord

from bot.client import EightsBot
from bot.i18n import use_locale
from bot.service.models import CardDisplay
from bot.ui.appearance import Appearance
from bot.ui.locales import use_player_locale


class _Response:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_message(self, content: str, **_: Any) -> None:
        self.sent.append(content)


def _interaction(locale: str, appearance: Appearance) -> SimpleNamespace:
    return SimpleNamespace(
        id=1,
        type=discord.InteractionType.application_command,
        client=SimpleNamespace(appearance=appearance),
        guild_id=5,
        locale=locale,
        guild_locale=locale,
        response=_Response(),
    )


async def test_the_restart_refusal_is_in_the_servers_chosen_language_for_a_player_we_lack() -> None:
    """A Japanese-client player (no catalogue of ours) in a server whose managers chose French (``/eights
    settings language:``) reads every answer in French, and so "The bot is restarting, try again in a
    moment." too, not in English."""
    appearance = Appearance()
    appearance.set_switches(5, CardDisplay(language="fr"))
    interaction = _interaction("ja", appearance)
    with use_locale("en"):
        assert use_player_locale(interaction) == "fr"  # every other answer: French
        await EightsBot._turn_away(SimpleNamespace(), interaction)  # type: ignore[arg-type]
    assert interaction.response.sent == ["Le bot redémarre, réessaie dans un instant."]


async def test_the_restart_refusal_is_in_the_players_own_language() -> None:
    """A German-client player reads it in German whatever the server chose."""
    appearance = Appearance()
    appearance.set_switches(5, CardDisplay(language="fr"))
    interaction = _interaction("de", appearance)
    with use_locale("en"):
        await EightsBot._turn_away(SimpleNamespace(), interaction)  # type: ignore[arg-type]
    assert interaction.response.sent == ["Der Bot startet gerade neu, versuch es gleich noch einmal."]
