"""Typed cards and suits are read in the player's language as well as in English."""

from __future__ import annotations

import pytest

from bot.engine import EngineError, parse_card, parse_suit
from bot.i18n import use_locale
from tests.i18n.fixtures import Writer, catalogues  # noqa: F401  (the fixture)

CARD_WORDS = {
    "de": {
        "Queen": "Dame",
        "King": "König",
        "Jack": "Bube",
        "Hearts": "Herz",
        "Spades": "Pik",
        "{rank} of {suit}": "{suit}-{rank}",
    },
    "fr": {
        "Queen": "Dame",
        "King": "Roi",
        "Jack": "Valet",
        "Hearts": "Cœur",
        "Spades": "Pique",
        "{rank} of {suit}": "{rank} de {suit}",
    },
    "es": {
        "Queen": "Reina",
        "King": "Rey",
        "Eight": "Ocho",
        "Spades": "Picas",
        "Hearts": "Corazones",
        "{rank} of {suit}": "{rank} de {suit}",
    },
    "pt_BR": {
        "King": "Rei",
        "Ace": "Ás",
        "Hearts": "Copas",
        "Diamonds": "Ouros",
        "{rank} of {suit}": "{rank} de {suit}",
    },
}


@pytest.fixture
def words(catalogues: Writer) -> None:  # noqa: F811
    for locale, messages in CARD_WORDS.items():
        catalogues(locale, messages)


@pytest.mark.parametrize(
    ("locale", "typed", "code"),
    [
        ("fr", "dame de cœur", "QH"),
        ("fr", "Dame de coeur", "QH"),  # without the ligature
        ("fr", "roi de pique", "KS"),
        ("de", "Herz Dame", "QH"),
        ("de", "Pik-König", "KS"),
        ("de", "Bube Herz", "JH"),
        ("es", "8 de picas", "8S"),
        ("es", "reina de corazones", "QH"),
        ("pt_BR", "rei de copas", "KH"),
        ("pt_BR", "ás de ouros", "AD"),
        ("pt_BR", "as de ouros", "AD"),  # without the accent
    ],
)
def test_a_card_typed_in_the_players_language(words: None, locale: str, typed: str, code: str) -> None:
    expected = parse_card(code)
    with use_locale(locale):
        assert parse_card(typed) == expected
        assert parse_card(code) == expected  # English and codes still work
        assert parse_card("queen of hearts") == parse_card("QH")


def test_a_suit_typed_in_the_players_language(words: None) -> None:
    with use_locale("de"):
        assert parse_suit("Herz") == parse_suit("H")
    with use_locale("es"):
        assert parse_suit("picas") == parse_suit("spades")
    with use_locale("fr"):
        assert parse_suit("cœurs") == parse_suit("hearts")


def test_another_languages_words_come_after_ones_own_and_english(words: None) -> None:
    # A German player whose Discord is in French: "Herz Dame" is read, German agreeing on both words; a
    # word no language knows is still no card.
    with use_locale("fr"):
        assert parse_card("Herz Dame") == parse_card("QH")
        with pytest.raises(EngineError):
            parse_card("Herz Kaiser")
    with use_locale("en"):
        assert parse_card("dame de cœur") == parse_card("QH")


@pytest.mark.parametrize(
    ("typed", "code"),
    [("Herzdame", "QH"), ("Pikass", "AS"), ("Kreuzbube", "JC"), ("Karokönig", "KD"), ("karokoenig", "KD")],
)
def test_a_german_card_written_as_one_word_is_read(typed: str, code: str) -> None:
    # German writes a card as one word ("Herzdame") as often as hyphenated ("Herz-Dame").
    with use_locale("de"):
        assert parse_card(typed) == parse_card(code)
