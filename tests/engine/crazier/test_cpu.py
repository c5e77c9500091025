"""The CPU levels of crazier-abilities: every level makes every kind of choice, and none peeks."""

from __future__ import annotations

import random

import pytest

from bot.engine.crazier import CrazierRound, Move, cpu
from bot.engine.crazier.cpu import LEVELS, choose_action, determinized
from tests.engine.crazier.support import position

#: One position per kind of decision: (hands, discard, in_play, draw, the kind of move expected).
DECISIONS = {
    "order": (["9P 9G", "9O 9B"], "5O", ["5B JB", "6G"], "KB QB", "order"),
    "card": (["9P 9G", "9O 9B"], "5O", ["JB", "6G"], "KB", "card"),
    "player": (["9P 9G", "9O 9B"], "5O", ["5B", ""], "KB QB", "player"),
    "look": (["9P 9G", "9O 9B"], "5O", ["4B", ""], "KB QB", "keep/move"),
    "main": (["9G 2B 10B 8P", "9O 9B"], "5G", ["", "6P"], "KB", "discard/effect/end"),
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("decision", sorted(DECISIONS))
def test_every_level_makes_every_kind_of_decision(level: str, decision: str) -> None:
    hands, discard, in_play, draw, expected = DECISIONS[decision]
    g, _ = position(hands, discard, in_play=in_play, draw=draw)
    move = choose_action(g, 0, level, seed=3)
    assert move in g.legal_actions(0) and move.kind in expected.split("/")


def _hidden_shuffled(g: CrazierRound, seat: int, seed: int) -> CrazierRound:
    """The same game as ``seat`` sees it, with every card hidden from it dealt otherwise."""
    data = g.to_json()
    hidden = [c for s in range(g.n) if s != seat for c in data["hands"][s]] + data["draw"]
    random.Random(seed).shuffle(hidden)
    for s in range(g.n):
        if s != seat:
            k = len(data["hands"][s])
            data["hands"][s], hidden = hidden[:k], hidden[k:]
    data["draw"] = hidden
    data["seed"] = seed  # the reshuffles' seed is hidden too
    return CrazierRound.from_json(data)


@pytest.mark.parametrize("level", LEVELS)
def test_no_level_peeks_at_hidden_cards(level: str) -> None:
    # The hard level looks at every move here (tests/conftest.py): with its time budget, two calls could
    # differ on a loaded machine (seen in a parallel run), whatever they could see.
    assert cpu.HARD_TIME_BUDGET >= 60.0
    g, _ = position(["9G 2B 10B 8P 3G 5O", "9O 9B 2P", "4P KO"], "5G", in_play=["", "6P", "5B"], draw="KB")
    for seed in range(5):
        other = _hidden_shuffled(g, 0, 100 + seed)
        assert other.hands[1] != g.hands[1] or other.draw != g.draw
        assert choose_action(other, 0, level, seed=seed) == choose_action(g, 0, level, seed=seed)
    assert (
        determinized(g, 0, random.Random(1)).to_json() == determinized(other, 0, random.Random(1)).to_json()
    )


def test_hard_destroys_a_king_arthur_about_to_win() -> None:
    g, _ = position(["9B 2B 3O", "9O 9P 2P"], "5G", in_play=["", "KO 6P 6G 4O"], draw="KB")
    assert choose_action(g, 0, "hard", seed=1) == Move.effect(0, "9B", target_card="KO")


def test_hard_empties_its_hand_with_a_potion_and_three_discards() -> None:
    """Potion first, then three discards: hard finds the way to empty its hand this turn."""
    g, _ = position(["3B 5G 6G", "9O 9P 2P"], "4G", draw="7G")
    g.apply(choose_action(g, 0, "hard", seed=1))
    while not g.over and g.acting == [0]:
        g.apply(choose_action(g, 0, "hard", seed=1))
    assert g.over and g.winners == [0]


BIG_HAND = "8B 8G 8O 8P 2B 2G 2O 2P 9B 9G 9O 9P 10B 10G 10O 10P 3B 3G 3O 3P AB AG AO AP 7B 7G"


def big_position() -> CrazierRound:
    """27 cards against six seats with cards in play: 183 legal moves, each played out to the turn's end."""
    g, _ = position(
        [BIG_HAND, "KB", "KG", "KO", "KP", "QB"],
        "6B 6G",
        in_play=["", "4B 5B JB", "4G 5G JG", "4O 5O JO", "4P 5P JP", "6O 6P QG QO"],
        draw="QP",
    )
    return g


def test_hard_stops_looking_when_its_time_is_up(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its decisions take 1-15 ms; this hand's 183 playouts took 73 ms, past the hard level's 50 ms target.
    from bot.engine.crazier import cpu

    g = big_position()
    legal = g.legal_actions(0)
    assert len(legal) > 100
    looked = 0
    evaluate = cpu.evaluate

    def counted(game: CrazierRound, seat: int) -> float:
        nonlocal looked
        looked += 1
        return evaluate(game, seat)

    monkeypatch.setattr(cpu, "evaluate", counted)
    move = cpu._hard(g, 0, legal, random.Random(1), budget=0.0)
    assert move in legal and looked == 1  # the first move looked at, then no time left
    looked = 0
    cpu._hard(g, 0, legal, random.Random(1), budget=60.0)
    assert looked > 100  # with time, every move worth a look
