"""The engine's domain errors: every illegal action raises ``EngineError`` with a stable code.

Codes 901–907 are Volity's (seed 000) with the same meanings; 910 and up are this engine's own, for the rules
the presets add. ``ERROR_MESSAGES`` is the one table of them all: the service shows ``message`` to the player.
"""

from __future__ import annotations

from bot.engine.typed import TYPED_SHOWN, typed_shown
from bot.i18n import N_, _

__all__ = ["ERROR_MESSAGES", "TYPED_SHOWN", "EngineError", "RulesetError", "typed_shown"]


ILLEGAL_ACTION = N_("Illegal action.")  # an error code without a message of its own (none today)

ERROR_MESSAGES: dict[int, str] = {
    # Seed 000 (Volity).
    901: N_("It's not your turn."),
    902: N_("You don't have that card."),
    903: N_("Unknown card."),
    904: N_("You can't draw a card: the stock is empty."),
    905: N_("You can't choose a suit now."),
    906: N_("Unknown suit."),
    907: N_("That card doesn't match the target."),
    # This engine's own.
    910: N_("You must play the card you drew."),
    911: N_("You must answer the pending draw with the same rank, or draw the cards owed."),
    912: N_("You can't draw any more cards this turn."),
    913: N_("You must name a suit first."),
    914: N_("You can't draw while you have a card you can play."),
    915: N_("You can't pass now."),
    916: N_("You must draw a card first."),
    917: N_("After drawing you may only play the card you drew."),
    918: N_("Play another card of the same rank, or pass."),
    919: N_("You must answer with the same rank, or pass and miss your turn."),
    920: N_("You have no last card to call."),
    921: N_("There is nobody to catch."),
    922: N_("The round is over."),
    923: N_("There is no such seat."),
    924: N_("That is not an action of this game."),
    925: N_("You hold a card that answers the pending draw: you must play it."),
    926: N_("You may pass only after drawing the most cards allowed, or when nothing can be drawn."),
    927: N_("You can't catch your own partner."),
    # crazier-abilities.
    930: N_("You have already discarded this turn (a Potion of Vitality lets you discard two more)."),
    931: N_("That card has no effect to play: discard it instead."),
    932: N_("You have already played a card for its effect this turn."),
    933: N_("That card has nothing to choose now, so it can't be played."),
    934: N_("That choice is not offered."),
    935: N_("Make the choice you are asked for first."),
    936: N_("Name a colour for the 8."),
}


class EngineError(Exception):
    """An illegal action: ``code`` is stable (see ``ERROR_MESSAGES``); ``message`` is short, for players."""

    def __init__(self, code: int, message: str | None = None) -> None:
        self.code = code
        # In the language in force where it is raised: the player's, at an interaction.
        self.message = message if message is not None else _(ERROR_MESSAGES.get(code, ILLEGAL_ACTION))
        super().__init__(f"{code}: {self.message}")


class RulesetError(ValueError):
    """An impossible ruleset (or option value); the message says why."""
