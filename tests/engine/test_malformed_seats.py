"""A seat that is not a seat of the round (not an int, or out of range) is refused with the engine's own error
923, whether it comes in an action or asks for a view: never another exception, never another seat's hand."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.engine import Action, EngineError, Round, get_preset, parse_card


def _round() -> Round:
    return Round.new(get_preset("classic"), 3, 2, seed=1)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Action.draw(1.0),  # type: ignore[arg-type]
        lambda: Action.pass_(0.0),  # type: ignore[arg-type]
        lambda: Action.play("0", parse_card("KH")),  # type: ignore[arg-type]
        lambda: Action.name_suit(0.0, 1),  # type: ignore[arg-type]
        lambda: Action.call_last(0.0),  # type: ignore[arg-type]
        lambda: Action.catch(0, 1.0),  # type: ignore[arg-type]
    ],
    ids=["draw(1.0)", "pass_(0.0)", "play('0', KH)", "name_suit(0.0)", "call_last(0.0)", "catch(0, 1.0)"],
)
def test_an_action_for_a_malformed_seat_is_refused_with_an_engine_error(build: Callable[[], Action]) -> None:
    """Audit brief and bot/engine/errors.py: "every illegal action raises EngineError with a stable code" (923
    "There is no such seat."); DESIGN.md: "Illegal actions raise a domain error with a code". `apply` checks
    the seat's type (923), but the public constructors `Action.draw/pass_/play/name_suit/call_last/catch`
    index their shared tables with the seat first and crash with a TypeError for a seat that is not an int."""
    r = _round()
    with pytest.raises(EngineError):
        r.apply(build())


@pytest.mark.parametrize("seat", [-1, 3, 99])
def test_a_view_for_a_seat_that_does_not_exist_is_refused_not_another_players_hand(seat: int) -> None:
    """DESIGN.md: "a per-seat view (your hand; only counts for others)"; errors.py 923 "There is no such
    seat."
    `Round.view(-1)` answers with seat 2's hand (Python's negative index) and `view(3)` crashes with an
    IndexError; a wrong seat must be an EngineError (923) and never show someone else's cards."""
    r = _round()
    with pytest.raises(EngineError) as info:
        r.view(seat)
    assert info.value.code == 923
