"""Seats of the wrong type or out of range given to the public API of ``bot.engine.crazier`` raise the
engine's own error, ``EngineError(923)`` ("There is no such seat."), never another exception and never
another seat's data: a view of a seat the game does not have, a player target that is not a seat number
(``True`` and ``1.0`` equal 1, and the move's logged JSON would not read back as a move), and a new game's
seat count or first seat of the wrong type."""

from __future__ import annotations

import pytest

from bot.engine import EngineError
from bot.engine.crazier import CrazierMatch, CrazierRound, Move, get_preset
from tests.engine.crazier.support import position, refused


@pytest.mark.parametrize("seat", [-1, 2, "0", 1.5, True])
def test_a_view_of_a_seat_the_game_does_not_have_is_refused(seat: object) -> None:
    """``view(-1)`` would show the last seat's hand; ``view(True)`` seat 1's."""
    g, _ = position(["9G 2B", "9P 3B"], "5G", draw="KB")
    with pytest.raises(EngineError) as info:
        g.view(seat)  # type: ignore[arg-type]
    assert info.value.code == 923
    assert g.view(1)["hand"] == ["9P", "3B"]


@pytest.mark.parametrize("target", [True, 1.0])
def test_a_player_target_that_is_not_a_seat_number_is_refused(target: object) -> None:
    """Forbidden Knowledge aimed at ``True`` or ``1.0`` is refused, as a move's own seat of those types is."""
    g, _ = position(["2B 9O", "3O 3G"], "5O", draw="KB")
    move = Move.effect(0, "2B", target=target)  # type: ignore[arg-type]
    assert not g.is_legal(move)
    refused(g, move, 923)
    assert g.is_legal(Move.effect(0, "2B", target=1))


def test_an_angel_of_hope_choice_of_a_bool_player_is_refused() -> None:
    """The answer to a pending "a player of your choice" (Angel of Hope) must be a seat number too."""
    g, _ = position(["9P 9G", "9O 9B"], "5G", in_play=["5B", ""], draw="KB QB")
    assert g.choice is not None and g.choice["kind"] == "player"
    refused(g, Move.player(0, True), 923)
    assert g.is_legal(Move.player(0, 1))


@pytest.mark.parametrize(
    ("n", "first"), [("4", None), (4.0, None), (None, None), (True, None), (3, "0"), (3, 1.0), (3, True)]
)
def test_a_new_game_with_seats_of_the_wrong_type_is_refused(n: object, first: object) -> None:
    """A seat count or first seat of the wrong type is refused as one out of range is."""
    with pytest.raises(EngineError) as info:
        CrazierRound.new(get_preset("crazier-abilities"), n, seed=1, first=first)  # type: ignore[arg-type]
    assert info.value.code == 923


@pytest.mark.parametrize("n", ["4", 4.0, None, True])
def test_a_new_match_with_a_seat_count_of_the_wrong_type_is_refused(n: object) -> None:
    with pytest.raises(EngineError) as info:
        CrazierMatch.new(get_preset("crazier-abilities"), n, seed=1)  # type: ignore[arg-type]
    assert info.value.code == 923
