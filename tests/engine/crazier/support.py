"""Helpers for the crazier-abilities tests: a game set up card by card, at the start of a seat's turn."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine import EngineError
from bot.engine.crazier import DECK, CrazierRound, CrazierRules, Move, get_preset
from bot.engine.crazier.game import START
from bot.engine.events import Event


def words(text: str) -> list[str]:
    return text.split()


def position(
    hands: list[str],
    discard: str,
    *,
    draw: str = "",
    in_play: list[str] | None = None,
    first: int = 0,
    teams: bool = False,
    rest: str | int = "draw",
    follow: str | None = None,
    rules: CrazierRules | None = None,
) -> tuple[CrazierRound, list[Event]]:
    """A game whose seat ``first`` (with teams: its team) is about to begin its turn, then run to the first
    decision. ``discard`` lists the discard pile bottom to top, ``draw`` the draw pile from its top; every
    other card goes under the draw pile (``rest="draw"``), under the discard pile (``"discard"``) or into a
    seat's hand (an int). ``rules``: a table's own (else the preset's)."""
    n = len(hands)
    if rules is None:
        rules = get_preset("crazier-abilities", teams=teams)
    hand_lists = [words(h) for h in hands]
    plays = [words(p) for p in (in_play or [""] * n)]
    pile = words(discard)
    top_of_draw = words(draw)
    used = [c for h in hand_lists for c in h] + [c for p in plays for c in p] + pile + top_of_draw
    assert len(used) == len(set(used)), "a card is used twice"
    assert set(used) <= set(DECK), f"unknown cards: {set(used) - set(DECK)}"
    others = [c for c in DECK if c not in used]
    draw_pile = top_of_draw[::-1]
    if rest == "draw":
        draw_pile = others + draw_pile
    elif rest == "discard":
        pile = others + pile
    else:
        assert isinstance(rest, int)
        hand_lists[rest] += others
    active = [s for s in ((first + k) % n for k in range(n)) if s % 2 == first % 2] if teams else [first]
    top = pile[-1]
    data: dict[str, Any] = {
        "format": 1,
        "game": rules.name,
        "rules": rules.to_json(),
        "n": n,
        "seed": 7,
        "reshuffles": 0,
        "hands": hand_lists,
        "draw": draw_pile,
        "discard": pile,
        "in_play": plays,
        "follow": follow if follow is not None else (top[-1] if top[:-1] == "8" else None),
        "alive": [True] * n,
        "lost_with": [None] * n,
        "turn": 1,
        "lead": first,
        "active": active,
        "stage": [START if s in active else "done" for s in range(n)],
        "discards_left": [1 if s in active else 0 for s in range(n)],
        "effect_used": [False] * n,
        "batch": [],
        "choice": None,
        "over": False,
        "winners": [],
        "scores": None,
        "reason": "",
        "recent": [],
    }
    g = CrazierRound.from_json(data)
    return g, g.resume()


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def refused(g: CrazierRound, move: Move, code: int) -> None:
    """``move`` raises ``code`` and changes nothing."""
    before = g.to_json()
    with pytest.raises(EngineError) as info:
        g.apply(move)
    assert info.value.code == code
    assert g.to_json() == before
