"""crazier-abilities' lines for a beginning-of-turn ability that waits for its controller's choice: told once,
with its card's name and what it did, whether the choice is answered in the same batch of events (a CPU) or in
a later one (a person, the referee), and never as a bare card name."""

from __future__ import annotations

from bot.service.models import TableSnapshot
from bot.ui import render
from tests.ui.test_crazier import HANDS, ev, snap_of, table


def _snap() -> TableSnapshot:
    return snap_of(table(HANDS, "AB", [["JB", "5B", "4P"], ["6B"], []]))


def test_an_ability_waiting_for_a_choice_is_not_told_bare_and_its_answer_names_it() -> None:
    """The move that ends with Ana's Devious Dragon waiting for her choice tells no "Devious Dragon" line;
    her answer, a later move, reads "Devious Dragon: Ben's Castle is destroyed"."""
    snap = _snap()
    asked = [ev("turn", 0, seats=[0], turn=2), ev("ability", 0, card="JB", name="Devious Dragon")]
    assert render.event_lines(asked, snap) == []
    answered = [ev("destroyed", 1, card="6B", by="JB"), ev("drew", 0, count=1, by=None)]
    assert render.event_lines(answered, snap) == [
        "Devious Dragon: Ben's Castle is destroyed",
        "Ana drew 1 card",
    ]


def test_an_ability_asked_and_answered_in_one_batch_is_one_line() -> None:
    """A CPU answers at once: the heading and what it did are one line, as before, Elven Princess's look and
    her keep or move too."""
    snap = _snap()
    events = [
        ev("ability", 0, card="JB", name="Devious Dragon"),
        ev("destroyed", 1, card="6B", by="JB"),
        ev("ability", 0, card="5B", name="Angel of Hope"),
        ev("drew", 2, count=1, by="5B"),
        ev("ability", 0, card="4P", name="Elven Princess"),
        ev("looked", 0, count=1),
        ev("moved_to_bottom", 0, by="4P"),
    ]
    assert render.event_lines(events, snap) == [
        "Devious Dragon: Ben's Castle is destroyed",
        "Angel of Hope: Cleo draws a card",
        "Elven Princess: Ana looks at the top card of the draw pile; "
        "Ana puts it on the bottom of the draw pile",
    ]


def test_what_an_answer_did_is_not_told_as_part_of_another_cards_line() -> None:
    """An Elven Princess looked in one move, her keep answered in the next: "Elven Princess: Ana leaves it on
    top"; and what the Dragon did after the Angel's line (the order chosen between) heads its own line."""
    snap = _snap()
    assert render.event_lines([ev("kept_on_top", 0, by="4P")], snap) == [
        "Elven Princess: Ana leaves it on top"
    ]
    events = [
        ev("ability", 0, card="5B", name="Angel of Hope"),
        ev("drew", 2, count=1, by="5B"),
        ev("destroyed", 1, card="6B", by="JB"),
    ]
    assert render.event_lines(events, snap) == [
        "Angel of Hope: Cleo draws a card",
        "Devious Dragon: Ben's Castle is destroyed",
    ]
