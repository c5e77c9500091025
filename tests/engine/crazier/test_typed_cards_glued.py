"""Crazier Eights card input (RULESETS.md, "Crazier Eights with its ability cards", The deck: "Input is read
liberally (colour names, suit names moon/ankh/sun/eye); output is canonical"), for a rank and a colour
typed as one word, as the standard deck reads "10hearts" (``bot.engine.cards.parse_card``)."""

from __future__ import annotations

import pytest

from bot.engine import EngineError
from bot.engine.cards import parse_card as parse_standard_card
from bot.engine.crazier import parse_card
from bot.i18n import use_locale


@pytest.mark.parametrize(
    ("typed", "card"),
    [
        ("8purple", "8P"),
        ("10moon", "10B"),
        ("kmoons", "KB"),
        ("Tsun", "10O"),
        ("qankh", "QG"),
        ("aeyes", "AP"),
        ("aceorange", "AO"),
        ("eightblue", "8B"),
    ],
)
def test_a_rank_glued_to_a_colour_or_suit_name_is_read(typed: str, card: str) -> None:
    """A rank written against a colour's or a suit's name reads as the card, as "8 purple" and "10 moon" do
    and as the standard deck reads "10hearts": the word is tried at every place it may be cut. (Only a
    one-letter colour could be glued, "8p", "10b": the word was cut only before its last character, and
    these were refused with 903, unknown card.)"""
    assert parse_standard_card("10hearts") is not None  # the standard game reads the glued form
    assert parse_card(typed) == card


@pytest.mark.parametrize(
    ("typed", "card"),
    [("8p", "8P"), ("10b", "10B"), ("KB", "KB"), (" tp ", "10P"), ("8☾", "8B"), ("ace of suns", "AO")],
)
def test_what_was_read_glued_before_is_read_alike(typed: str, card: str) -> None:
    """A one-letter colour or a suit symbol glued, a code, and words apart read as before."""
    assert parse_card(typed) == card


@pytest.mark.parametrize(
    ("locale", "typed", "card"),
    [("de", "8blau", "8B"), ("de", "Monddame", "QB"), ("de", "Königmond", "KB"), ("fr", "roilune", "KB")],
)
def test_a_glued_card_in_the_players_language_is_read_either_way_round(
    locale: str, typed: str, card: str
) -> None:
    """As a two-word card is read in the player's language ("Dame Mond"), so is one glued, a rank then a
    colour or, as German glues "Herzdame", a colour then a rank."""
    with use_locale(locale):
        assert parse_card(typed) == card


@pytest.mark.parametrize("typed", ["8pink", "zz", "10", "moon", "purple8x", "8purplee"])
def test_a_glued_word_that_is_no_card_is_refused(typed: str) -> None:
    with pytest.raises(EngineError) as info:
        parse_card(typed)
    assert info.value.code == 903


def test_typed_text_longer_than_any_cards_name_is_refused_unread() -> None:
    """As the standard deck's parser does (``MAX_TYPED``, 32 characters, spaces around it aside): reading a
    word tries each place it may be cut, so a long paste is refused before it is read. A card's name with
    spaces around it still reads."""
    assert parse_card(" " * 40 + "8purple" + " " * 40) == "8P"
    assert parse_card("queen of moons") == "QB"
    for typed in ("queen" + " " * 30 + "of moons", "8" * 100_000, "k" + "b" * 40):
        with pytest.raises(EngineError) as info:
            parse_card(typed)
        assert info.value.code == 903
