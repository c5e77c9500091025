"""CPU seats in partnerships: no level makes its partner draw or miss a turn while another play is left, and
hard plays for its side."""

from __future__ import annotations

import random

import pytest

from bot.engine import Action, ActionKind, Round, get_preset
from bot.engine.cpu import LEVELS, choose_action, react
from bot.engine.cpu.hard import share, value
from bot.engine.cpu.knowledge import knowledge_of
from bot.engine.cpu.partners import hits_partner, spare_partner
from tests.engine.support import play, position

UNO = get_preset("uno-lite").replace(partnership=True)
PARTY = get_preset("party").replace(partnership=True)


def decide(r: Round, seat: int, level: str, seed: int) -> Action:
    return choose_action(r, seat, level, seed=seed, time_budget=10.0, max_iterations=40)


def skip_partner_position() -> Round:
    # Seat 0 is out: after seat 3 the next player still in is seat 1, its partner. JC would skip seat 1.
    return position(
        UNO, ["", "9H KH 3D", "QH 4C 6S", "JC 5C KS"], discard="7C", stock="6D 7D 8S", to_act=3, out=[0]
    )


@pytest.mark.parametrize("level", LEVELS)
def test_no_level_skips_its_partner_while_another_play_is_left(level: str) -> None:
    r = skip_partner_position()
    assert hits_partner(r, 3, play(3, "JC").card or 0, knowledge_of(UNO))
    for seed in range(30):
        chosen = decide(r, 3, level, seed)
        # easy may draw (it is random among the rest); nobody skips the partner.
        assert chosen == play(3, "5C") or (level == "easy" and chosen == Action.draw(3))


@pytest.mark.parametrize("level", LEVELS)
def test_no_level_makes_its_partner_draw_while_another_play_is_left(level: str) -> None:
    r = position(
        UNO, ["", "9H KH 3D", "QH 4C 6S", "2C 5C KS"], discard="7C", stock="6D 7D 8S", to_act=3, out=[0]
    )
    for seed in range(30):
        chosen = decide(r, 3, level, seed)
        assert chosen == play(3, "5C") or (level == "easy" and chosen == Action.draw(3))


@pytest.mark.parametrize("level", LEVELS)
def test_a_pending_draw_is_taken_rather_than_stacked_onto_the_partner(level: str) -> None:
    r = position(
        PARTY,
        ["", "9H KH 3D", "QH 4C 6S", "2C 5D KS"],
        discard="7C 2H",
        stock="6D 7D 8S 9S",
        to_act=3,
        out=[0],
        pending=2,
        pending_rank=2,
    )
    assert set(r.legal_actions()) == {play(3, "2C"), Action.draw(3)}
    for seed in range(20):
        assert decide(r, 3, level, seed) == Action.draw(3)


def test_against_an_opponent_the_attack_is_still_played() -> None:
    # All four in: the next player is an opponent, who is down to one card; normal plays the skip on it.
    r = position(UNO, ["KH", "9D 8D 6D", "QH 4C 6S", "JC 5C KS"], discard="7C", stock="6D 7D 8S", to_act=3)
    assert not hits_partner(r, 3, play(3, "JC").card or 0, knowledge_of(UNO))
    assert decide(r, 3, "normal", 1) == play(3, "JC")


def test_spare_partner_keeps_everything_without_partnership_or_without_harm() -> None:
    know = knowledge_of(get_preset("uno-lite"))
    r = position(
        get_preset("uno-lite"), ["9D 8D", "KH 3D", "QH 4C", "JC 5C"], discard="7C", stock="6D", to_act=3
    )
    legal = r.legal_actions()
    assert spare_partner(r, 3, legal, know) == legal
    r = skip_partner_position()
    kept = spare_partner(r, 3, r.legal_actions(), knowledge_of(UNO))
    assert play(3, "JC") not in kept and play(3, "5C") in kept


def test_hard_scores_a_side_win_for_both_partners() -> None:
    classic = get_preset("classic").replace(partnership=True)
    r = position(classic, ["", "KH 3H", "9C", "2S 5S"], discard="5C", stock="6D", to_act=2, out=[0])
    know = knowledge_of(classic)
    for seat in range(4):
        assert 0.0 < value(r, seat, know) < 1.0
    assert value(r, 0, know) == value(r, 2, know) and value(r, 1, know) == value(r, 3, know)
    assert abs(value(r, 0, know) + value(r, 1, know) - 1.0) < 1e-9
    r.apply(play(2, "9C"))
    assert [share(r, s) for s in range(4)] == [1.0, 0.0, 1.0, 0.0]


def test_cpu_partnership_games_at_every_level_play_to_the_end() -> None:
    lineup = ("hard", "easy", "normal", "normal")
    for preset in ("classic", "switch", "party"):
        rs = get_preset(preset).replace(partnership=True)
        r = Round.new(rs, 4, 0, seed=11)
        step = 0
        while not r.over:
            seat = r.to_act
            assert seat is not None
            step += 1
            r.apply(choose_action(r, seat, lineup[seat], seed=step, time_budget=10.0, max_iterations=8))
            for other in range(4):
                if r.over:
                    break
                reaction = react(r, other, lineup[other], seed=step * 5 + other)
                if reaction is not None:
                    assert not (reaction.kind is ActionKind.CATCH and reaction.target == (other + 2) % 4)
                    r.apply(reaction)
            assert step < 3000
        assert r.scores is not None and r.scores[0] == r.scores[2]


def test_rollouts_of_random_partnership_positions_stay_legal() -> None:
    rng = random.Random(3)
    rs = get_preset("uno-lite").replace(partnership=True)
    for seed in range(30):
        r = Round.new(rs, 4, seed % 4, seed=seed)
        for _ in range(rng.randrange(0, 80)):
            if r.over:
                break
            r.step(rng.choice(r.legal_actions()))
        if r.over:
            continue
        seat = r.to_act
        assert seat is not None
        for level in LEVELS:
            assert r.is_legal(decide(r, seat, level, seed))
