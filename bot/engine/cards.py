"""Cards and suits as small ints, in the Volity notation (``KH``, ``10S``, ``3C``).

A card is ``rank * 4 + suit`` with ranks A=1 … K=13 and suits C=0, D=1, H=2, S=3, so cards run from 4 (AC) to
55 (KS). Ints keep the engine's hot path cheap (hands are lists of ints, matching is two shifts and a mask).
Two decks simply hold every int twice: a card is identified by its rank and suit.

Input is read liberally (case, ``T`` for 10, suit symbols, names such as "10 of spades"), in English and in
the language in force (the catalogue's rank and suit names: "dame de cœur", "Herz Dame", "8 de picas");
output is canonical.
"""

from __future__ import annotations

import gettext
import re
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from bot.engine.errors import EngineError
from bot.i18n import (
    DEFAULT_LOCALE,
    LOCALES,
    N_,
    _,
    current_locale,
    fold,
    listed_words,
    pgettext,
    read_typed,
    spellings,
    translations,
    use_locale,
)

if TYPE_CHECKING:
    from bot.engine.rules import Ruleset

Card = int
Suit = int

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS: tuple[Suit, ...] = (CLUBS, DIAMONDS, HEARTS, SPADES)
RANKS: tuple[int, ...] = tuple(range(1, 14))
ACE, JACK, QUEEN, KING = 1, 11, 12, 13

SUIT_CODES = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
SUIT_NAMES = (N_("Clubs"), N_("Diamonds"), N_("Hearts"), N_("Spades"))
RANK_CODES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES = (
    "",
    N_("Ace"),
    N_("Two"),
    N_("Three"),
    N_("Four"),
    N_("Five"),
    N_("Six"),
    N_("Seven"),
    N_("Eight"),
    N_("Nine"),
    N_("Ten"),
    N_("Jack"),
    N_("Queen"),
    N_("King"),
)

MIN_CARD = 4
MAX_CARD = 55
#: One standard 52-card deck, in a fixed order (clubs to spades within each rank).
STANDARD_DECK: tuple[Card, ...] = tuple(range(MIN_CARD, MAX_CARD + 1))

# Canonical codes and labels, indexed by card int (index 0–3 unused).
CODES: tuple[str, ...] = (
    "",
    "",
    "",
    "",
    *tuple(RANK_CODES[c >> 2] + SUIT_CODES[c & 3] for c in STANDARD_DECK),
)
LABELS: tuple[str, ...] = (
    "",
    "",
    "",
    "",
    *tuple(RANK_CODES[c >> 2] + SUIT_SYMBOLS[c & 3] for c in STANDARD_DECK),
)

_SUIT_WORDS: dict[str, Suit] = {}
for _s, _words in enumerate(
    (
        ("c", "club", "clubs", "♣", "♧"),
        ("d", "diamond", "diamonds", "♦", "♢"),
        ("h", "heart", "hearts", "♥", "♡"),
        ("s", "spade", "spades", "♠", "♤"),
    )
):
    for _w in _words:
        _SUIT_WORDS[_w] = _s

_RANK_WORDS: dict[str, int] = {
    "a": 1,
    "ace": 1,
    "1": 1,
    "t": 10,
    "j": 11,
    "jack": 11,
    "q": 12,
    "queen": 12,
    "k": 13,
    "king": 13,
}
for _r in range(2, 11):
    _RANK_WORDS[str(_r)] = _r
    _RANK_WORDS[RANK_NAMES[_r].lower()] = _r

_SYMBOL_CHARS = "♣♧♦♢♥♡♠♤"
_SPLIT = re.compile(r"[\s,_\-]+")
#: The longest text read as a card or a suit, spaces around it aside: well above any card's name in the
#: languages we ship (the longest, "Cuatro de Diamantes", has 19 characters). Anything longer is unknown at
#: once, unread: reading a word tries each place it may be cut into a rank and a suit, so a long paste would
#: cost time quadratic in its length (seconds of the event loop for 6,000 characters).
MAX_TYPED = 32


def make_card(rank: int, suit: Suit) -> Card:
    """The card of ``rank`` (1–13) and ``suit`` (0–3)."""
    if not (1 <= rank <= 13 and 0 <= suit <= 3):
        raise EngineError(903)
    return rank * 4 + suit


def rank_of(card: Card) -> int:
    return card >> 2


def suit_of(card: Card) -> Suit:
    return card & 3


def is_card(value: object) -> bool:
    """Whether ``value`` is a card int (not a bool)."""
    return type(value) is int and MIN_CARD <= value <= MAX_CARD


# The spellings players type besides the names shown, listed by each catalogue (plurals, forms without
# accents or hyphens...). English's are in the code's tables above.
# TRANSLATORS: what a player may type for this suit besides its name, comma-separated (plural and singular,
# other spellings); accents may always be left out, and umlauts written "ae", "oe", "ue".
_SUIT_SPELLINGS = (
    lambda: pgettext("typed words for a suit", "Clubs, Club"),
    lambda: pgettext("typed words for a suit", "Diamonds, Diamond"),
    lambda: pgettext("typed words for a suit", "Hearts, Heart"),
    lambda: pgettext("typed words for a suit", "Spades, Spade"),
)
# TRANSLATORS: what a player may type for this rank besides its name, comma-separated.
_RANK_SPELLINGS = {
    ACE: lambda: pgettext("typed words for a rank", "Ace, Aces"),
    JACK: lambda: pgettext("typed words for a rank", "Jack, Jacks, Knave"),
    QUEEN: lambda: pgettext("typed words for a rank", "Queen, Queens"),
    KING: lambda: pgettext("typed words for a rank", "King, Kings"),
}


def _clean(text: str) -> str:
    # Emoji suits often carry a variation selector; dots and stray punctuation carry no meaning.
    return fold(text.replace("\ufe0f", "").replace(".", " "))


class _Words(NamedTuple):
    ranks: dict[str, int]
    suits: dict[str, Suit]
    joins: frozenset[str]


def _vocabulary(locale: str) -> _Words:
    """The rank words, suit words and joining words ("of", "de") of one language: English's codes, symbols
    and names, or the language's own from its catalogue (its rank and suit names, the words of its
    "{rank} of {suit}", and the spellings it lists)."""
    return _words_of(translations(locale), locale)


@cache
def _words_of(_catalogue: gettext.NullTranslations, locale: str) -> _Words:
    if locale == DEFAULT_LOCALE:
        ranks, suits, joins = dict(_RANK_WORDS), dict(_SUIT_WORDS), {"of"}
    else:
        ranks, suits, joins = {}, {}, set()
    with use_locale(locale):
        for rank in range(1, 14):
            for word in spellings(_(RANK_NAMES[rank])):
                ranks.setdefault(word, rank)
        for suit in SUITS:
            for name in spellings(_(SUIT_NAMES[suit])):
                suits.setdefault(name, suit)
                # "Cœurs" / "coeur", "Picas" / "pica": the name with and without a plural ending.
                for ending in ("es", "s"):
                    if name.endswith(ending) and len(name) > len(ending) + 2:
                        suits.setdefault(name[: -len(ending)], suit)
                        break
                else:
                    suits.setdefault(name + "s", suit)
        pattern = _("{rank} of {suit}")
    for suit, listed in zip(SUITS, _SUIT_SPELLINGS, strict=True):
        for word in listed_words(locale, listed):
            suits.setdefault(word, suit)
    for rank, listed in _RANK_SPELLINGS.items():
        for word in listed_words(locale, listed):
            ranks.setdefault(word, rank)
    between = fold(pattern.replace("{rank}", " ").replace("{suit}", " "))
    joins.update(w for w in _SPLIT.split(between) if w)
    return _Words(ranks, suits, frozenset(joins))


def _rank_word(word: str) -> int | None:
    return read_typed(word, lambda locale: _vocabulary(locale).ranks)


def _suit_word(word: str) -> Suit | None:
    return read_typed(word, lambda locale: _vocabulary(locale).suits)


def joining_words() -> frozenset[str]:
    """The words that join a rank and a suit in any language we ship ("of", "de"), as typed."""
    return _joins_for(current_locale(), tuple(translations(code) for code in LOCALES))


@cache
def _joins_for(locale: str, _catalogues: tuple[gettext.NullTranslations, ...]) -> frozenset[str]:
    # Any language's joining words are dropped ("rei de copas" from an English client), unless one is a card
    # word for the player.
    own = _vocabulary(locale)
    joins = frozenset().union(*(_vocabulary(code).joins for code in LOCALES))
    return joins - own.ranks.keys() - own.suits.keys()


def parse_suit(text: str) -> Suit:
    """A suit from "h", "H", "hearts", "♥", "Herz", "cœurs" …; raises ``EngineError`` 906 otherwise."""
    if not isinstance(text, str) or (len(text) > MAX_TYPED and len(text.strip()) > MAX_TYPED):
        raise EngineError(906)
    suit = _suit_word(_clean(text))
    if suit is None:
        raise EngineError(906)
    return suit


def parse_rank(text: str) -> int | None:
    """A rank (1–13) from a code ("K", "10", "T") or a rank's name in the player's language or English
    ("king", "König", "roi"); None otherwise."""
    if not isinstance(text, str) or (len(text) > MAX_TYPED and len(text.strip()) > MAX_TYPED):
        return None
    return _rank_word(_clean(text))


def _parse_card(text: str) -> Card | None:
    stripped = text.strip()
    card = _BY_CODE.get(stripped.upper())
    if card is not None:  # a code, as buttons and selects send it: the common case, and cheap
        return card
    if len(stripped) > MAX_TYPED:  # no card's name is that long (``MAX_TYPED``)
        return None
    t = _clean(stripped)
    if not t:
        return None
    joins = joining_words()
    words = [w for w in _SPLIT.split(t) if w and w not in joins]
    if len(words) == 2:
        rank = _rank_word(words[0])
        suit = _suit_word(words[1])
        if rank is None or suit is None:  # "♥ K" / "hearts king" / "Herz Dame"
            rank = _rank_word(words[1])
            suit = _suit_word(words[0])
        if rank is None or suit is None:
            return None
        return rank * 4 + suit
    if len(words) != 1:
        return None
    w = words[0]
    # A suit symbol may come first ("♥K") or last ("K♥").
    if w[0] in _SYMBOL_CHARS:
        w = w[1:] + w[0]
    # Longest suit word that ends the token: "kh", "10hearts", "q♠".
    for cut in range(1, len(w)):
        rank = _RANK_WORDS.get(w[:cut])
        suit = _SUIT_WORDS.get(w[cut:])
        if rank is not None and suit is not None:
            return rank * 4 + suit
    # A card written as one word in the player's language: German writes "Herzdame", "Pikass".
    for cut in range(1, len(w)):
        suit, rank = _suit_word(w[:cut]), _rank_word(w[cut:])
        if suit is None or rank is None:
            rank, suit = _rank_word(w[:cut]), _suit_word(w[cut:])
        if rank is not None and suit is not None:
            return rank * 4 + suit
    return None


def parse_card(text: str) -> Card:
    """A card from "KH", "kh", "TS", "10♠", "K♥", "king of hearts" …; raises ``EngineError`` 903 otherwise."""
    card = _parse_card(text) if isinstance(text, str) else None
    if card is None:
        raise EngineError(903)
    return card


def card_code(card: Card) -> str:
    """Canonical Volity code: "KH", "10S"."""
    return CODES[card]


def card_label(card: Card) -> str:
    """Short label with the suit symbol: "K♥", "10♠"."""
    return LABELS[card]


def card_name(card: Card) -> str:
    """Full name in the current language: "King of Hearts"."""
    return _("{rank} of {suit}", rank=_(RANK_NAMES[card >> 2]), suit=_(SUIT_NAMES[card & 3]))


def card_title(card: Card) -> str:
    """Label and full name, as choices and selects show a card: "K♥ King of Hearts"."""
    return f"{LABELS[card]} {card_name(card)}"


def suit_code(suit: Suit) -> str:
    return SUIT_CODES[suit]


def suit_symbol(suit: Suit) -> str:
    return SUIT_SYMBOLS[suit]


def suit_name(suit: Suit) -> str:
    """The suit's name in the current language."""
    return _(SUIT_NAMES[suit])


def sort_key(card: Card) -> int:
    """Order for showing a hand: by suit (clubs, diamonds, hearts, spades), then rank (A … K)."""
    return (card & 3) * 16 + (card >> 2)


_BY_CODE: dict[str, Card] = {CODES[c]: c for c in STANDARD_DECK}


def card_from_code(code: str) -> Card:
    """Read a canonical code (as written by ``card_code``) fast; anything else goes through ``parse_card``."""
    card = _BY_CODE.get(code)
    return card if card is not None else parse_card(code)


def card_value(card: Card, ruleset: Ruleset) -> int:
    """The card's scoring value under the ruleset's card values."""
    return ruleset.value_table[card >> 2]
