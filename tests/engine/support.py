"""Helpers for engine tests: set up a round from explicit hands, starter and stock top."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.engine import Action, EngineError, Round, Ruleset, parse_card
from bot.engine.cards import CODES
from bot.engine.round import full_deck


def cards(text: str) -> list[int]:
    return [parse_card(w) for w in text.split()]


def codes(cs: list[int]) -> list[str]:
    return [CODES[c] for c in cs]


def deck_for(
    rs: Ruleset, hands: list[str], starter: str, stock: str = "", dealer: int | None = None
) -> list[int]:
    """A full deck order (top first) that deals ``hands`` (seat by seat), turns ``starter`` and puts ``stock``
    on top of the stock; every other card follows in a fixed order."""
    n = len(hands)
    if dealer is None:
        dealer = n - 1
    per_seat = [cards(h) for h in hands]
    size = rs.hand_size_for(n)
    assert all(len(h) == size for h in per_seat), f"each hand must hold {size} cards"
    order: list[int] = []
    for i in range(size):
        for k in range(1, n + 1):
            order.append(per_seat[(dealer + k) % n][i])
    order += cards(starter) + cards(stock)
    rest = Counter(full_deck(rs.decks_for(n)))
    rest.subtract(order)
    assert all(v >= 0 for v in rest.values()), "a card is used more often than the decks hold"
    order += sorted(rest.elements())
    return order


def make_round(
    rs: Ruleset,
    hands: list[str],
    starter: str,
    stock: str = "",
    dealer: int | None = None,
    **kw: object,
) -> Round:
    """A round dealt from ``deck_for``; by default the last seat deals, so seat 0 moves first."""
    n = len(hands)
    if dealer is None:
        dealer = n - 1
    return Round.new(rs, n, dealer, deck=deck_for(rs, hands, starter, stock, dealer), **kw)  # type: ignore[arg-type]


def play(seat: int, code: str, suit: str | None = None) -> Action:
    from bot.engine import parse_suit

    return Action.play(seat, parse_card(code), None if suit is None else parse_suit(suit))


def hand(r: Round, seat: int) -> list[str]:
    return codes(r.hand(seat))


def kinds(events: list) -> list[str]:  # type: ignore[type-arg]
    return [e.kind for e in events]


def position(
    rs: Ruleset,
    hands: list[str],
    discard: str,
    stock: str = "",
    to_act: int = 0,
    **state: object,
) -> Round:
    """A mid-round position (through the JSON form): ``discard`` bottom first, ``stock`` top first. Cards not
    listed are out of play, so a test can reach an empty stock and discard directly."""
    n = len(hands)
    js = Round.new(rs, n, n - 1, seed=0).to_json()
    js["hands"] = [codes(cards(h)) for h in hands]
    js["discard"] = codes(cards(discard))
    js["stock"] = codes(cards(stock))
    js["to_act"] = to_act
    js["history"] = []
    js["recent"] = []
    js.update(state)
    return Round.from_json(js)


def err(r: Round, action: Action) -> int:
    """The error code of an illegal ``action``, checking that it changed nothing."""
    before = r.to_json()
    with pytest.raises(EngineError) as info:
        r.apply(action)
    assert r.to_json() == before
    return info.value.code
