"""Matches: cumulative scores, end conditions, ranking with shared places, dealer and leader."""

from __future__ import annotations

import json
import random

import pytest

from bot.engine import EngineError, Match, get_preset


def finish_round(m: Match, rng: random.Random) -> None:
    while not m.round.over:
        m.apply(rng.choice(m.round.legal_actions()))


def test_scores_add_up_and_the_dealer_moves() -> None:
    m = Match.new(get_preset("classic"), 3, seed=11)
    rng = random.Random(1)
    assert m.round_number == 1 and m.dealer == 0 and m.round.to_act == 1
    with pytest.raises(EngineError):
        m.start_next_round()  # the round is not over
    finish_round(m, rng)
    assert m.totals == m.round.scores
    if not m.over:
        m.start_next_round()
        assert m.round_number == 2 and m.dealer == 1 and m.round.to_act == 2
        finish_round(m, rng)
        assert m.totals == [a + b for a, b in zip(*m.round_scores, strict=True)]


def test_match_ends_when_a_total_passes_the_target() -> None:
    rs = get_preset("classic").replace(target=30)
    m = Match.new(rs, 2, seed=5)
    rng = random.Random(5)
    while not m.over:
        finish_round(m, rng)
        if not m.over:
            assert max(m.totals) <= 30
            m.start_next_round()
    assert max(m.totals) > 30
    with pytest.raises(EngineError):
        m.start_next_round()
    ranking = m.ranking()
    assert [seat for _, seat, _ in ranking] == sorted(range(2), key=lambda s: m.totals[s])


def test_match_to_reach_the_target_highest_wins() -> None:
    m = Match.new(get_preset("switch").replace(target=40), 3, seed=8)
    rng = random.Random(8)
    while not m.over:
        finish_round(m, rng)
        if not m.over:
            m.start_next_round()
    assert max(m.totals) >= 40
    assert m.ranking()[0][2] == max(m.totals)


def test_fixed_number_of_rounds_and_one_round() -> None:
    m = Match.new(get_preset("classic").replace(match_end="rounds", rounds=3), 4, seed=2)
    rng = random.Random(2)
    while not m.over:
        finish_round(m, rng)
        if not m.over:
            m.start_next_round()
    assert m.round_number == 3 and len(m.round_scores) == 3
    one = Match.new(get_preset("classic").replace(match_end="one-round"), 2, seed=2)
    finish_round(one, rng)
    assert one.over and one.round_number == 1


def test_ranking_ties_share_a_place() -> None:
    m = Match.new(get_preset("classic"), 4, seed=1)
    m.totals = [10, 5, 10, 20]
    assert m.ranking() == [(1, 1, 5), (2, 0, 10), (2, 2, 10), (4, 3, 20)]
    sw = Match.new(get_preset("switch"), 3, seed=1)
    sw.totals = [30, -15, 30]
    assert sw.ranking() == [(1, 0, 30), (1, 2, 30), (3, 1, -15)]


def test_leader_left_of_dealer_or_most_points() -> None:
    m = Match.new(get_preset("classic"), 4, seed=1)
    m.round_scores = [[0, 0, 0, 0]]
    m.totals = [3, 9, 9, 1]
    assert m.next_leader(1) == 2
    c = Match.new(get_preset("crazier"), 4, seed=1)
    c.round_scores = [[3, 9, 9, 1]]
    c.totals = [3, 9, 9, 1]
    assert c.next_leader(0) == 1  # most points; tie broken from the dealer's left
    assert c.next_leader(1) == 2


def test_same_seed_same_match_and_json_round_trip() -> None:
    a = Match.new(get_preset("party"), 3, seed=77)
    b = Match.new(get_preset("party"), 3, seed=77)
    assert a.to_json() == b.to_json()
    rng = random.Random(3)
    for _ in range(40):
        if a.round.over:
            if a.over:
                break
            a.start_next_round()
        a.apply(rng.choice(a.round.legal_actions()))
        data = json.loads(json.dumps(a.to_json()))
        assert Match.from_json(data).to_json() == data
    c = Match.from_json(a.to_json())
    assert c.ranking() == a.ranking()
