"""hard reads the opponents' own choices: a deal in which they did not play as the normal level does is
weighed down. Checked against the true hands of normal players, which must never surprise it."""

from __future__ import annotations

import random

import pytest

from bot.engine import Round, get_preset
from bot.engine.cpu import choose_action, react
from bot.engine.cpu.hard import likely_deal
from bot.engine.cpu.inference import deal, observe, surprises
from bot.engine.cpu.knowledge import knowledge_of


def _takes(rnd: Round, seat: int) -> int:
    """How many times `seat` has taken cards (the epochs of the slot-group model)."""
    count = 0
    for entry in rnd.history:
        taker = entry[2] if entry[0] == "catch" else entry[1] if entry[0] in ("draw", "penalty") else None
        count += taker == seat
    return count


def _note_takes(rnd: Round, taken: list[dict[int, int]]) -> None:
    """Give each newly held card the epoch it was taken in."""
    for p, known in enumerate(taken):
        epoch = _takes(rnd, p)
        taken[p] = {card: known.get(card, epoch) for card in rnd.hand(p)}


def normal_games(preset: str, seats: int, games: int) -> list[tuple[Round, dict[int, list[int]]]]:
    """Positions where seat 0 is to act in games of normal players, each with every opponent's true epochs
    (when it took each card it holds)."""
    ruleset = get_preset(preset)
    out: list[tuple[Round, dict[int, list[int]]]] = []
    for game in range(games):
        rnd = Round.new(ruleset, seats, dealer=game % seats, seed=game)
        taken: list[dict[int, int]] = [dict.fromkeys(rnd.hand(p), 0) for p in range(seats)]

        decision = 0
        while not rnd.over:
            seat = rnd.to_act
            assert seat is not None
            decision += 1
            if seat == 0 and decision % 3 == 0:
                out.append((rnd.clone(), {p: [taken[p][c] for c in rnd.hand(p)] for p in range(1, seats)}))
            rnd.apply(choose_action(rnd, seat, "normal", seed=game * 1_000 + decision))
            _note_takes(rnd, taken)
            for other in range(seats):
                if rnd.over:
                    break
                reaction = react(rnd, other, "normal", seed=decision)
                if reaction is not None:
                    rnd.apply(reaction)
                    _note_takes(rnd, taken)
    return out


@pytest.mark.parametrize(("preset", "seats"), [("classic", 4), ("classic", 2), ("must-play", 3)])
def test_normal_players_true_hands_never_surprise_and_random_deals_often_do(preset: str, seats: int) -> None:
    know = knowledge_of(get_preset(preset))
    rng = random.Random(3)
    evidence = 0
    true_total = 0
    random_total = 0
    for rnd, epochs in normal_games(preset, seats, 25):
        obs = observe(rnd, 0)
        evidence += sum(len(v) for v in obs.evidence.values())
        hands = {p: list(rnd.hand(p)) for p in range(1, seats)}
        true_total += surprises(obs, hands, epochs, know)
        for _ in range(3):
            dealt_hands, _, _, dealt_epochs = deal(obs, rng)
            random_total += surprises(obs, dealt_hands, dealt_epochs, know)
    assert evidence > 100  # the opponents' choices were read
    assert true_total == 0  # the model of the normal level's choices is exact
    assert random_total > 50  # and it tells deals apart


def test_likely_deals_are_less_surprising_than_plain_deals() -> None:
    know = knowledge_of(get_preset("classic"))
    rng = random.Random(4)
    plain = 0
    likely = 0
    for rnd, _ in normal_games("classic", 4, 12):
        obs = observe(rnd, 0)
        for _ in range(4):
            hands, _, _, epochs = deal(obs, rng)
            plain += surprises(obs, hands, epochs, know)
            hands, _, epochs = likely_deal(obs, rng, know)
            likely += surprises(obs, hands, epochs, know)
    assert likely * 3 < plain
