"""The 52 cards of ``crazier-abilities`` as data: colours, ranks, and one row per rank (name, kind, ability).

A card is its canonical code, rank then colour letter (``KB``, ``10G``, ``AO``, ``8P``): every card of the
deck is unique, so the code is the card. A rank's row holds its name, kind and the ability text the rules help
and the faces show; the ability's behaviour is the function of the same key in ``abilities.py``. A new card is
a row here and at most one function there.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from bot.engine.cards import MAX_TYPED, RANK_CODES, joining_words, parse_rank
from bot.engine.errors import EngineError
from bot.i18n import DEFAULT_LOCALE, N_, _, fold, read_typed, spellings, translations, use_locale

Colour = str

COLOURS: tuple[Colour, ...] = ("B", "G", "O", "P")
COLOUR_NAMES = {"B": N_("blue"), "G": N_("green"), "O": N_("orange"), "P": N_("purple")}
#: The suit each colour stands for on the faces (seed 001, "Card layout").
COLOUR_SUITS = {"B": N_("moon"), "G": N_("ankh"), "O": N_("sun"), "P": N_("eye")}
#: The kinds of card, as the rules help names them.
KIND_NAMES = {"event": N_("event"), "asset": N_("asset")}
COLOUR_SYMBOLS = {"B": "☾", "G": "☥", "O": "☀", "P": "👁"}
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
WILD_RANK = "8"
EVENT, ASSET = "event", "asset"


@dataclass(frozen=True)
class RankRow:
    """What every card of one rank is: its name, kind (event, asset or none) and ability text."""

    rank: str
    name: str
    kind: str | None
    ability: str
    #: The key of its behaviour in ``abilities.ABILITIES`` (None: no ability).
    key: str | None


RANK_ROWS: dict[str, RankRow] = {
    row.rank: row
    for row in (
        RankRow(
            "A",
            N_("Ace"),
            None,
            N_("No ability. Two colours: its own and the next one (blue → green → orange → purple → blue)."),
            None,
        ),
        RankRow(
            "2",
            N_("Forbidden Knowledge"),
            EVENT,
            N_("Choose a player: they draw two cards."),
            "forbidden_knowledge",
        ),
        RankRow(
            "3",
            N_("Potion of Vitality"),
            EVENT,
            N_("This turn you may discard up to two more cards."),
            "potion",
        ),
        RankRow(
            "4",
            N_("Elven Princess"),
            ASSET,
            N_(
                "At the beginning of your turn, look at the top card of the draw "
                "pile; you may put it on the bottom of the draw pile."
            ),
            "elven_princess",
        ),
        RankRow(
            "5",
            N_("Angel of Hope"),
            ASSET,
            N_("At the beginning of your turn, a player of your choice draws a card."),
            "angel_of_hope",
        ),
        RankRow(
            "6",
            N_("Castle"),
            ASSET,
            N_(
                "If an opponent would cause you to draw one or more cards, they cause you "
                "to draw one fewer. Castles add up."
            ),
            "castle",
        ),
        RankRow(
            "7",
            N_("Resurrection"),
            EVENT,
            N_(
                "Put the top card of the discard pile on the bottom of the draw "
                "pile; the card beneath it becomes the top card."
            ),
            "resurrection",
        ),
        RankRow(
            "8", N_("Eight"), None, N_("Wild: discard it on anything and name a colour. No effect."), None
        ),
        RankRow("9", N_("Death"), EVENT, N_("Destroy a card in play on the table of your choice."), "death"),
        RankRow(
            "10",
            N_("Crown of Kings"),
            EVENT,
            N_("Take control of a card in play that an opponent controls."),
            "crown_of_kings",
        ),
        RankRow(
            "J",
            N_("Devious Dragon"),
            ASSET,
            N_("At the beginning of your turn, destroy a card in play on the table."),
            "devious_dragon",
        ),
        RankRow(
            "Q",
            N_("Mordred"),
            ASSET,
            N_("At the beginning of your turn, every opponent holding 12 or more cards loses the game."),
            "mordred",
        ),
        RankRow(
            "K",
            N_("King Arthur"),
            ASSET,
            N_("At the beginning of your turn, if you control four or more cards in play, you win the game."),
            "king_arthur",
        ),
    )
}


def _colours_of(rank: str, colour: Colour) -> tuple[Colour, ...]:
    if rank == "A":
        return (colour, COLOURS[(COLOURS.index(colour) + 1) % 4])
    return (colour,)


#: The deck in a fixed order (by rank, then colour); ``CARD_COLOURS`` maps each card to its colours.
DECK: tuple[str, ...] = tuple(rank + colour for rank in RANKS for colour in COLOURS)
CARD_COLOURS: dict[str, tuple[Colour, ...]] = {r + c: _colours_of(r, c) for r in RANKS for c in COLOURS}


def rank_of(card: str) -> str:
    return card[:-1]


def row_of(card: str) -> RankRow:
    return RANK_ROWS[card[:-1]]


def colours_of(card: str) -> tuple[Colour, ...]:
    return CARD_COLOURS[card]


def is_wild(card: str) -> bool:
    return card[:-1] == WILD_RANK


def card_label(card: str) -> str:
    """``"9B Death (blue ☾)"``: code, name and colours, for lines players read (in the current language)."""
    row = row_of(card)
    colours = "/".join(f"{_(COLOUR_NAMES[c])} {COLOUR_SYMBOLS[c]}" for c in colours_of(card))
    name = "" if row.key is None else f" {_(row.name)}"
    return f"{card}{name} ({colours})"


_COLOUR_WORDS: dict[str, Colour] = {}
for _c in COLOURS:
    for _w in (_c, COLOUR_NAMES[_c], COLOUR_SUITS[_c], COLOUR_SYMBOLS[_c]):
        _COLOUR_WORDS[_w.lower()] = _c
_COLOUR_WORDS["moons"] = "B"
_COLOUR_WORDS["ankhs"] = "G"
_COLOUR_WORDS["suns"] = "O"
_COLOUR_WORDS["eyes"] = "P"
_RANK_WORDS = {r.lower(): r for r in RANKS} | {
    "t": "10",
    "1": "A",
    "ace": "A",
    "jack": "J",
    "queen": "Q",
    "king": "K",
    "eight": "8",
}


def _colour_words(locale: str) -> dict[str, Colour]:
    """The colours by their words in one language: English's letters, names, suit names and symbols, or the
    language's own colour and suit names (singular and plural, accents and umlauts optional)."""
    return _colour_words_of(translations(locale), locale)


@functools.cache
def _colour_words_of(_catalogue: object, locale: str) -> dict[str, Colour]:
    if locale == DEFAULT_LOCALE:
        return _COLOUR_WORDS
    words: dict[str, Colour] = {}
    with use_locale(locale):
        for c in COLOURS:
            for name in spellings(_(COLOUR_NAMES[c])) | spellings(_(COLOUR_SUITS[c])):
                words.setdefault(name, c)
                words.setdefault(name.removesuffix("s") if name.endswith("s") else name + "s", c)
    return words


def _colour_word(word: str) -> Colour | None:
    return read_typed(word, _colour_words)


def _rank_word(word: str) -> str | None:
    rank = _RANK_WORDS.get(word)
    if rank is None:  # a rank's name in the player's language ("Dame", "roi")
        number = parse_rank(word)
        rank = RANK_CODES[number] if number is not None else None
    return rank


def _glued_card(w: str) -> str | None:
    """A card typed as one word, a rank then a colour (``8p``, ``10moon``, ``kmoons``, ``Tsun``, ``aeyes``):
    each place the word may be cut, from the left, in English first; then in the player's language (or
    another we ship), either way round (a colour, then a rank, as German glues "Herzdame")."""
    for cut in range(1, len(w)):
        rank, colour = _RANK_WORDS.get(w[:cut]), _COLOUR_WORDS.get(w[cut:])
        if rank and colour:
            return rank + colour
    for cut in range(1, len(w)):
        colour, rank = _colour_word(w[:cut]), _rank_word(w[cut:])
        if not (rank and colour):
            rank, colour = _rank_word(w[:cut]), _colour_word(w[cut:])
        if rank and colour:
            return rank + colour
    return None


def parse_colour(text: object) -> Colour:
    """A colour from a letter, name, suit name or symbol, in English or the language in force (then any other
    language we ship); ``EngineError(906)`` otherwise."""
    if isinstance(text, str):
        colour = _colour_word(text)
        if colour is not None:
            return colour
    raise EngineError(906, _("Unknown colour: name blue, green, orange or purple."))


def parse_card(text: object) -> str:
    """A card from liberal input (``kb``, ``10 green``, ``queen of suns``, ``T-P``, ``10moon``, ``8purple``);
    ``EngineError(903)``. Text longer than ``MAX_TYPED`` (spaces around it aside) is unknown at once, unread,
    as the standard deck's parser does: a word is tried at each place it may be cut."""
    if isinstance(text, str):
        stripped = text.strip()
        code = stripped.upper()
        if code in CARD_COLOURS:  # a code, as the controls send it: the common case, and cheap
            return code
        if len(stripped) > MAX_TYPED:  # no card's name is that long
            raise EngineError(903)
        joins = joining_words()  # "Dame de lune": the languages' "of"
        words = [w for w in re.split(r"[\s,\-_]+|\bof\b", fold(text)) if w and w not in joins]
        if len(words) == 1:
            card = _glued_card(words[0])
            if card is not None:
                return card
        if len(words) == 2:
            for a, b in (words, words[::-1]):
                rank, colour = _rank_word(a), _colour_word(b)
                if rank and colour:
                    return rank + colour
    raise EngineError(903)
