"""Every CPU level returns only legal actions, in many random positions of every preset."""

from __future__ import annotations

import pytest

from bot.engine import PRESETS
from bot.engine.cpu import LEVELS, choose_action, react

from .helpers import positions


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_level_chooses_a_legal_action(preset: str) -> None:
    for i, rnd in enumerate(positions([preset], per_preset=12, seed=1)):
        seat = rnd.to_act
        assert seat is not None
        legal = rnd.legal_actions(seat)
        for level in LEVELS:
            action = choose_action(rnd, seat, level, seed=i, max_iterations=2)
            assert action in legal, (preset, level, action)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_react_returns_nothing_or_a_legal_out_of_turn_action(preset: str) -> None:
    for i, rnd in enumerate(positions([preset], per_preset=12, seed=2)):
        for seat in range(len(rnd.hand_sizes)):
            for level in LEVELS:
                action = react(rnd, seat, level, seed=i)
                if action is not None:
                    assert action in rnd.legal_actions(seat)
                    assert action.kind in ("call_last", "catch")


def test_levels_are_deterministic_for_a_seed() -> None:
    for i, rnd in enumerate(positions(["classic", "switch"], per_preset=6, seed=3)):
        seat = rnd.to_act
        assert seat is not None
        for level in LEVELS:
            first = choose_action(rnd, seat, level, seed=i, max_iterations=3, time_budget=60.0)
            again = choose_action(rnd.clone(), seat, level, seed=i, max_iterations=3, time_budget=60.0)
            assert first == again


def test_unknown_level_and_wrong_seat_are_refused() -> None:
    rnd = next(positions(["classic"], per_preset=1, seed=4))
    seat = rnd.to_act
    assert seat is not None
    with pytest.raises(ValueError):
        choose_action(rnd, seat, "expert", seed=0)
    with pytest.raises(ValueError):
        choose_action(rnd, (seat + 1) % len(rnd.hand_sizes), "easy", seed=0)
