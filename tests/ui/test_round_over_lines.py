"""The public "Round over" line of a round nobody went out of: why it ended (everyone passed, a card that
could not be drawn, the turn limit) and who won by what the scoring counts (RULESETS.md: the lowest hand, or
the fewest cards with card-count scoring)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.engine import Action, Round, Ruleset, get_preset, parse_card
from bot.service import TableEvent, TableSnapshot
from bot.ui import render
from tests.engine.support import position
from tests.ui.snapshots import seat, snapshot

FOUR = (seat(0, "alice", 1001), seat(1, "bob", 1002), seat(2, "carol", 1003), seat(3, "dave", 1004))


def _over_line(events: list[Any], snap: TableSnapshot) -> str:
    over = next(e for e in events if e.kind == "round_over")
    lines = render.event_lines([TableEvent("round_over", None, dict(over.data), "engine")], snap)
    assert lines, "the round's end is told"
    return lines[-1]


def _between_rounds(preset: str, seats: tuple[Any, ...], **changes: Any) -> TableSnapshot:
    zeros = tuple(0 for _ in seats)
    values: dict[str, Any] = {
        "preset": preset,
        "seats": seats,
        "totals": zeros,
        "phase": "between_rounds",
        "to_act": None,
    }
    values.update(changes)
    return snapshot(**values)


def _turn_cap_round(rs: Ruleset) -> tuple[Round, list[Any]]:
    """Four seats, a turn cap of 3: after three plays seat 0 holds 2C (1 card, 2 points), seat 1 KH (1, 10),
    seat 2 4D (1, 4), seat 3 3H 5S (2, 8)."""
    r = position(
        rs.replace(turn_cap=3), ["9C 2C", "9H KH", "QH 4D", "3H 5S"], discard="5C", stock="6D 7D 10S"
    )
    r.apply(Action.play(0, parse_card("9C"), None))
    r.apply(Action.play(1, parse_card("9H"), None))
    events = r.apply(Action.play(2, parse_card("QH"), None))
    assert r.over and r.end_reason == "turn-cap"
    return r, events


def test_crazier_impossible_draw_line_says_fewest_cards_not_lowest_hand() -> None:
    """RULESETS.md, preset `crazier`: "the round ends at the first draw that cannot be made, and fewest cards
    wins". Seat 0 (KH QS: 2 cards worth 20) wins over seat 1 (AC AD 2C: 3 cards worth 4) when seat 0 cannot
    draw: the line says no card could be drawn and alice has the fewest cards, not that she was blocked
    with the lowest hand."""
    r = position(get_preset("crazier"), ["KH QS", "AC AD"], discard="5D", stock="2C", to_act=1)
    r.apply(Action.draw(1))
    events = r.apply(Action.pass_(1))
    assert r.over and r.end_reason == "no-draw"
    assert r.winners == [0] and r.scores == [0, 3]
    snap = _between_rounds(
        "crazier", (seat(0, "alice", 1001), seat(1, "bob", 1002)), round_scores=((0, 3),), status="playing"
    )
    line = _over_line(events, snap)
    assert line == "Round over: no card could be drawn; alice has the fewest cards", line


def test_an_impossible_draw_with_hand_values_names_the_lowest_hand() -> None:
    """A draw that cannot be made with penalty scoring (the option "empty_draw_ends_round" on classic): the
    lowest hand wins, and the line says so."""
    rs = get_preset("classic").replace(reshuffle=False, empty_draw_ends_round=True)
    r = position(rs, ["KH QS", "AC AD"], discard="5D", stock="", to_act=1)
    events = r.apply(Action.play(1, parse_card("AD"), None))  # alice cannot follow AD nor draw
    assert r.over and r.end_reason == "no-draw" and r.winners == [1], (r.over, r.end_reason, r.winners)
    snap = _between_rounds("classic", (seat(0, "alice", 1001), seat(1, "bob", 1002)), ruleset=rs)
    assert _over_line(events, snap) == "Round over: no card could be drawn; bob has the lowest hand"


def test_the_turn_limit_names_the_lowest_hand() -> None:
    """The turn cap settles the round as a blocked one (RULESETS.md, turn cap); the line says the turn limit
    ended it, not that anyone was blocked."""
    rs = get_preset("classic")
    r, events = _turn_cap_round(rs)
    assert r.winners == [0]
    line = _over_line(events, _between_rounds("classic", FOUR, ruleset=rs))
    assert line == "Round over: the turn limit; alice has the lowest hand", line


def test_the_turn_limit_with_card_count_scoring_names_every_seat_with_the_fewest_cards() -> None:
    """Card-count scoring at the turn cap: the fewest cards win, shared by three seats of one card each; the
    line takes the plural."""
    rs = get_preset("classic").replace(scoring="card-count")
    r, events = _turn_cap_round(rs)
    assert r.winners == [0, 1, 2]
    line = _over_line(events, _between_rounds("classic", FOUR, ruleset=rs))
    assert line == "Round over: the turn limit; alice and bob and carol have the fewest cards", line


@pytest.mark.parametrize(
    ("scoring", "hands", "line"),
    [
        # After 9S: alice 3D (3 points), bob 2D AH (3), the CPU QH 5D (15).
        ("penalty", ["9S 3D", "2D AH", "QH 5D"], "Round over: alice and bob blocked, lowest hand wins"),
        # After 9S: alice 3D QD (2 cards), bob 2D (1 card), the CPU QH 5D (2 cards).
        ("card-count", ["9S 3D QD", "2D", "QH 5D"], "Round over: blocked; bob has the fewest cards"),
    ],
)
def test_a_blocked_round_names_what_its_scoring_counts(scoring: str, hands: list[str], line: str) -> None:
    """Everyone passed in a row (RULESETS.md rule 8): the lowest hand wins, or with card-count scoring the
    fewest cards (what the round scores count); the line says which."""
    rs = get_preset("classic").replace(reshuffle=False, scoring=scoring)
    r = position(rs, hands, discard="4C 9C", stock="")
    events = r.apply(Action.play(0, parse_card("9S"), None))
    assert r.over and r.blocked and r.end_reason == "blocked"
    snap = _between_rounds(
        "classic", (seat(0, "alice", 1001), seat(1, "bob", 1002), seat(2, "CPU 1", None)), ruleset=rs
    )
    assert _over_line(events, snap) == line


def test_round_results_board_after_blocked_tie_names_every_winner() -> None:
    """Guard: RULESETS.md rule 8, a blocked round is won by the lowest hand value; with two equal lowest hands
    both win, each scores their hand (rule 9), and the line names both."""
    r = position(
        get_preset("classic").replace(reshuffle=False), ["9S 3D", "2D AH", "QH 5D"], discard="4C 9C", stock=""
    )
    events = r.apply(Action.play(0, parse_card("9S"), None))
    assert r.over and r.blocked and r.winners == [0, 1] and r.scores == [3, 3, 15]
    snap = replace(snapshot(), phase="between_rounds", to_act=None)
    line = _over_line(events, snap)
    assert "alice" in line and "bob" in line and "CPU" not in line, line
