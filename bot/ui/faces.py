"""How a card or a suit is written: as text ("K♥"), or with the card's emoji beside the text.

The text always stays (screen readers read it, and it is what players type); the emoji is added when the bot's
application emojis are ready and the server has card emojis on. ``TEXT`` writes text only. A ``CardFaces``
with emojis is made by ``bot.delivery.emojis.CardEmojis.faces``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import discord

from bot.engine import card_code, card_label, parse_card, parse_suit, suit_code, suit_name, suit_symbol
from bot.ui.art.emoji_set import crazier_card_key, crazier_colour_key

BACK = "back"


def suit_key(code: str) -> str:
    """The emoji key of a suit: "H" -> "sH"."""
    return "s" + suit_code(parse_suit(code))


@dataclass(frozen=True, slots=True)
class CardFaces:
    """``emojis``: emoji key ("KH", "back", "sH") -> the application emoji; empty for text only."""

    emojis: Mapping[str, discord.PartialEmoji] = field(default_factory=dict)

    @property
    def with_emojis(self) -> bool:
        return bool(self.emojis)

    def card_emoji(self, code: str) -> discord.PartialEmoji | None:
        if not self.emojis:
            return None
        return self.emojis.get(card_code(parse_card(code)))

    def suit_emoji(self, code: str) -> discord.PartialEmoji | None:
        return self.emojis.get(suit_key(code)) if self.emojis else None

    def card(self, code: str) -> str:
        """ "KH" -> "K♥", or "<:e8f2_KH:…> K♥"."""
        text = card_label(parse_card(code))
        emoji = self.card_emoji(code)
        return f"{emoji} {text}" if emoji else text

    def cards(self, codes: list[str] | tuple[str, ...]) -> str:
        return " ".join(self.card(code) for code in codes)

    def suit(self, code: str) -> str:
        """ "H" -> "♥ Hearts", or "<:e8f2_sH:…> Hearts"."""
        suit = parse_suit(code)
        emoji = self.suit_emoji(code)
        return f"{emoji} {suit_name(suit)}" if emoji else f"{suit_symbol(suit)} {suit_name(suit)}"

    # crazier-abilities: its own faces and colour badges (keys "zKB", "zcB"); codes are canonical ("9B").
    def crazier_card_emoji(self, code: str) -> discord.PartialEmoji | None:
        return self.emojis.get(crazier_card_key(code)) if self.emojis else None

    def crazier_colour_emoji(self, colour: str) -> discord.PartialEmoji | None:
        return self.emojis.get(crazier_colour_key(colour)) if self.emojis else None

    def crazier_card(self, code: str, text: str) -> str:
        """ "9B", "9B Death (blue ☾)" -> the text, or "<:e8z1_9B:…> 9B Death (blue ☾)"."""
        emoji = self.crazier_card_emoji(code)
        return f"{emoji} {text}" if emoji else text

    def crazier_colour(self, colour: str, text: str) -> str:
        """ "B", "blue" -> the text, or "<:e8z1_cB:…> blue"."""
        emoji = self.crazier_colour_emoji(colour)
        return f"{emoji} {text}" if emoji else text


TEXT = CardFaces()

# A note atop a hand message: text, or made for the faces the hand is shown with and, ``brief``, with its
# drawn cards counted rather than listed (a draw of sixty cards would push the hand out of the message).
Note = str | Callable[[CardFaces, bool], str | None]


def note_text(note: Note | None, faces: CardFaces = TEXT, *, brief: bool = False) -> str | None:
    return note(faces, brief) if callable(note) else note
