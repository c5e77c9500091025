"""Properties over many random games of crazier-abilities, with random CPU levels, player counts and teams:
every game ends, the 52 cards are always all somewhere once, a legal move always exists until the end, an
illegal move changes nothing, and a JSON round trip at any point plays on exactly as the original."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import EngineError
from bot.engine.crazier import DECK, CrazierRound, Move, get_preset
from bot.engine.crazier.cpu import LEVELS, choose_action

MOVE_LIMIT = 20_000  # far above what the turn cap allows


def _setup(seed: int, teams: bool) -> CrazierRound:
    rng = random.Random(seed)
    n = rng.choice((4, 6)) if teams else rng.randint(2, 6)
    return CrazierRound.new(get_preset("crazier-abilities", teams=teams), n, seed=seed)


def _random_game(seed: int, teams: bool) -> CrazierRound:
    g = _setup(seed, teams)
    rng = random.Random(seed)
    for _ in range(MOVE_LIMIT):
        if g.over:
            return g
        legal = g.legal_actions()
        assert legal, "no legal move in a game that is not over"
        g.apply(rng.choice(legal))
        assert sorted(g.all_cards()) == sorted(DECK)
    raise AssertionError("the game did not end")


def test_hundreds_of_random_games_end_and_conserve_cards() -> None:
    for seed in range(300):
        g = _random_game(seed, teams=seed % 3 == 0)
        assert g.winners and g.scores is not None and all(g.scores[s] == 0 for s in g.winners)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    teams=st.booleans(),
    levels=st.lists(st.sampled_from(LEVELS), min_size=6, max_size=6),
    cut=st.integers(0, 60),
)
def test_cpu_games_end_and_survive_a_json_round_trip_at_any_point(
    seed: int, teams: bool, levels: list[str], cut: int
) -> None:
    g = _setup(seed, teams)
    copy: CrazierRound | None = None
    for k in range(MOVE_LIMIT):
        if g.over:
            break
        acting = g.acting
        assert acting and g.legal_actions(acting[0])
        if k == cut:
            copy = CrazierRound.from_json(json.loads(json.dumps(g.to_json())))
            assert copy.legal_actions() == g.legal_actions()
        seat = acting[k % len(acting)]
        move = choose_action(g, seat, levels[seat], seed=seed + k)
        _illegal_changes_nothing(g, seat)
        events = g.apply(move)
        if copy is not None:
            assert copy.apply(move) == events
        assert sorted(g.all_cards()) == sorted(DECK)
    assert g.over
    if copy is not None:
        assert copy.to_json() == g.to_json()


def _illegal_changes_nothing(g: CrazierRound, seat: int) -> None:
    """A move of a seat that cannot act, or a card it does not hold, is refused and changes nothing."""
    before = g.to_json()
    others = [s for s in range(g.n) if s not in g.acting]
    for move in ([Move.end(others[0])] if others else []) + [Move.discard(seat, "ZZ")]:
        try:
            g.apply(move)
        except EngineError:
            pass
        else:
            raise AssertionError(f"{move} was accepted")
    assert g.to_json() == before
