"""Card and suit notation: liberal input, one canonical output."""

from __future__ import annotations

import time

import pytest

from bot.engine import (
    EngineError,
    card_code,
    card_label,
    card_name,
    make_card,
    parse_card,
    parse_suit,
    rank_of,
    sort_key,
    suit_code,
    suit_name,
    suit_of,
    suit_symbol,
)
from bot.engine.cards import MAX_TYPED, STANDARD_DECK, parse_rank


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("KH", "KH"),
        ("kh", "KH"),
        ("10S", "10S"),
        ("ts", "10S"),
        ("T♠", "10S"),
        ("3C", "3C"),
        ("K♥", "KH"),
        ("K♥\ufe0f", "KH"),
        ("♥K", "KH"),
        ("king of hearts", "KH"),
        ("10 of spades", "10S"),
        ("Ace of Diamonds", "AD"),
        ("a d", "AD"),
        ("queen hearts", "QH"),
        ("8 clubs", "8C"),
        (" 7d ", "7D"),
        ("jack of ♣", "JC"),
        ("two of spades", "2S"),
    ],
)
def test_parse_card_liberal(text: str, code: str) -> None:
    assert card_code(parse_card(text)) == code


@pytest.mark.parametrize("text", ["", "KX", "11H", "0S", "ZZ", "K", "hearts", "king of", "1 2 3", "KHH"])
def test_parse_card_unknown_is_903(text: str) -> None:
    with pytest.raises(EngineError) as info:
        parse_card(text)
    assert info.value.code == 903


def test_parse_card_rejects_non_text() -> None:
    with pytest.raises(EngineError) as info:
        parse_card(12)  # type: ignore[arg-type]
    assert info.value.code == 903


def test_a_long_paste_is_unknown_at_once() -> None:
    """Text longer than any card's name (``MAX_TYPED``, spaces around it aside) is refused (903) without being
    read: reading one word tries every place it may be cut, so 6,000 characters took seconds."""
    assert card_code(parse_card(" " * 5000 + "king of hearts" + " " * 500)) == "KH"
    assert card_code(parse_card("Cuatro de Diamantes")) == "4D"  # the longest card name we ship
    started = time.perf_counter()
    for text in ("x" * 6000, "king of hearts " * 400, "x" * (MAX_TYPED + 1)):
        with pytest.raises(EngineError) as info:
            parse_card(text)
        assert info.value.code == 903
        with pytest.raises(EngineError) as info:
            parse_suit(text)
        assert info.value.code == 906
        assert parse_rank(text) is None
    assert time.perf_counter() - started < 0.05


@pytest.mark.parametrize(
    ("text", "suit"), [("c", 0), ("Clubs", 0), ("♦", 1), ("diamond", 1), ("H", 2), ("♥️", 2), ("spades", 3)]
)
def test_parse_suit(text: str, suit: int) -> None:
    assert parse_suit(text) == suit


@pytest.mark.parametrize("text", ["", "x", "purple", "hh"])
def test_parse_suit_unknown_is_906(text: str) -> None:
    with pytest.raises(EngineError) as info:
        parse_suit(text)
    assert info.value.code == 906


def test_every_card_round_trips_through_its_code_label_and_name() -> None:
    assert len(STANDARD_DECK) == 52 and len(set(STANDARD_DECK)) == 52
    for c in STANDARD_DECK:
        assert parse_card(card_code(c)) == c
        assert parse_card(card_label(c)) == c
        assert parse_card(card_name(c)) == c
        assert make_card(rank_of(c), suit_of(c)) == c


def test_formats() -> None:
    kh = make_card(13, 2)
    assert (card_code(kh), card_label(kh), card_name(kh)) == ("KH", "K♥", "King of Hearts")
    ts = parse_card("10S")
    assert (card_code(ts), card_label(ts)) == ("10S", "10♠")
    assert [suit_code(s) for s in range(4)] == ["C", "D", "H", "S"]
    assert [suit_symbol(s) for s in range(4)] == ["♣", "♦", "♥", "♠"]
    assert suit_name(1) == "Diamonds"


def test_sort_key_orders_by_suit_then_rank() -> None:
    hand = [parse_card(c) for c in ("KS", "2C", "AH", "10C", "3D")]
    assert [card_code(c) for c in sorted(hand, key=sort_key)] == ["2C", "10C", "3D", "AH", "KS"]
