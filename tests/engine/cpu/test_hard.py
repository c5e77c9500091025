"""The hard level: fair by construction, deals respect what the seat learned, budgets are counted."""

from __future__ import annotations

import math
import random

import pytest

from bot.engine import Action, Round, get_preset, parse_card
from bot.engine.cpu import choose_action, hard
from bot.engine.cpu.hard import SearchStats, decide, value
from bot.engine.cpu.inference import consistent, observe, sample_hidden
from bot.engine.cpu.knowledge import knowledge_of

from .helpers import dealt, positions

FAIRNESS_PRESETS = ["classic", "must-play", "switch", "party", "uno-lite"]


def permuted(rnd: Round, seat: int, rng: random.Random) -> Round:
    """The same round with the hidden cards (other hands and stock order) dealt differently."""
    pool = list(rnd.hidden_cards(seat))
    rng.shuffle(pool)
    hands: dict[int, list[int]] = {}
    for other, size in enumerate(rnd.hand_sizes):
        if other != seat:
            hands[other], pool = pool[:size], pool[size:]
    return rnd.with_hidden(seat, hands, pool)


def test_permuting_hidden_cards_never_changes_the_hard_decision() -> None:
    rng = random.Random(7)
    searched = 0
    for i, rnd in enumerate(positions(FAIRNESS_PRESETS, per_preset=8, seed=5)):
        seat = rnd.to_act
        assert seat is not None
        stats = SearchStats()
        decision = decide(rnd, seat, seed=i, time_budget=60.0, max_iterations=3, stats=stats)
        searched += stats.iterations > 0
        for _ in range(3):
            other = permuted(rnd, seat, rng)
            assert other.view(seat) == rnd.view(seat)
            assert other.history == rnd.history
            assert decide(other, seat, seed=i, time_budget=60.0, max_iterations=3) == decision
    assert searched >= 10  # the test covered real searches, not only forced moves


def test_deals_keep_sizes_and_the_hidden_multiset() -> None:
    rng = random.Random(8)
    exact = 0
    for rnd in positions([*FAIRNESS_PRESETS, "crazier", "parlett", "draw-one"], per_preset=6, seed=6):
        seat = rnd.to_act
        assert seat is not None
        obs = observe(rnd, seat)
        for _ in range(5):
            hands, stock, honoured = sample_hidden(obs, rng)
            assert len(stock) == rnd.stock_size
            for other, cards in hands.items():
                assert len(cards) == rnd.hand_sizes[other]
            dealt = sorted([c for cards in hands.values() for c in cards] + stock)
            assert dealt == sorted(rnd.hidden_cards(seat))
            if honoured:
                exact += 1
                assert consistent(obs, hands)
    assert exact >= 100  # random players draw when they could play, so some evidence is wrong


def test_time_budget_is_kept_by_counting_iterations() -> None:
    counted = 0
    for i, rnd in enumerate(positions(["classic", "party"], per_preset=10, seed=9)):
        seat = rnd.to_act
        assert seat is not None
        capped = SearchStats()
        decide(rnd, seat, seed=i, time_budget=60.0, max_iterations=5, stats=capped)
        if capped.candidates < 2:
            continue
        counted += 1
        assert capped.iterations == 5
        assert capped.rollouts == 5 * capped.candidates
        out_of_time = SearchStats()
        decide(rnd, seat, seed=i, time_budget=0.0, max_iterations=5, stats=out_of_time)
        assert out_of_time.iterations == 1  # an exhausted budget stops after the first deal
    assert counted >= 3


def test_choose_action_hard_uses_the_search() -> None:
    rnd = next(positions(["classic"], per_preset=1, seed=10))
    seat = rnd.to_act
    assert seat is not None
    assert choose_action(rnd, seat, "hard", seed=1, max_iterations=2) in rnd.legal_actions(seat)


CLASSIC = get_preset("classic")


def test_deals_respect_a_void_shown_by_a_forced_draw() -> None:
    # Seat 1 holds no spade, no 3 and no 8 on the 3S starter: it must draw, draws the 9S and plays it.
    rnd = dealt(
        CLASSIC,
        {0: "9H 2H 4H 5S KD QD JC", 1: "2C 4C 6C 7D 10D JD KC"},
        starter="3S",
        stock_top="9S",
    )
    rnd.apply(Action.draw(1))
    rnd.apply(Action.play(1, parse_card("9S")))
    obs = observe(rnd, 0)
    rng = random.Random(11)
    seen: set[int] = set()
    for _ in range(200):
        hands, _, honoured = sample_hidden(obs, rng)
        assert honoured
        for card in hands[1]:
            assert card & 3 != 3 and card >> 2 not in (3, 8)
        seen.update(hands[1])
    assert len(seen) > 20  # the deals still vary over every card the evidence allows


def test_deals_respect_what_a_wild_play_shows() -> None:
    # Seat 1 plays its 8 on the 3S starter: the normal assumption is that nothing else of its hand fitted.
    rnd = dealt(
        CLASSIC,
        {0: "9H 2H 4H 5S KD QD JC", 1: "8C 4C 6C 7D 10D JD KC"},
        starter="3S",
    )
    rnd.apply(Action.play(1, parse_card("8C"), 2))
    obs = observe(rnd, 0)
    rng = random.Random(12)
    for _ in range(100):
        hands, _, honoured = sample_hidden(obs, rng)
        assert honoured
        # No spade and no 3 (another 8 would have been played just the same).
        assert all(card >> 2 == 8 or (card & 3 != 3 and card >> 2 != 3) for card in hands[1])


def test_value_is_a_chance_per_seat_that_favours_wilds() -> None:
    know = knowledge_of(CLASSIC)
    rnd = dealt(CLASSIC, {0: "8H 8S 8D 2C 3C 4C 5C", 1: "2D 4D 6D 7D 10D JD KD"}, starter="3S")
    chances = [value(rnd, seat, know) for seat in (0, 1)]
    assert math.isclose(sum(chances), 1.0)
    assert chances[0] > 0.75
    for other in positions(["classic", "switch", "party"], per_preset=4, seed=13):
        total = sum(value(other, seat, knowledge_of(other.ruleset)) for seat in range(len(other.hand_sizes)))
        assert math.isclose(total, 1.0)


def test_deals_respect_that_a_card_following_suit_was_the_highest_of_it() -> None:
    # Seat 1 follows the 3S starter with the 6S by choice: as a normal player it holds no spade worth more.
    rnd = dealt(
        CLASSIC,
        {0: "9H 2H 4H 5S KD QD JC", 1: "6S 4C 6C 7D 10D JD KC"},
        starter="3S",
    )
    rnd.apply(Action.play(1, parse_card("6S")))
    obs = observe(rnd, 0)
    rng = random.Random(13)
    higher = {parse_card(code) for code in ("7S", "9S", "10S", "JS", "QS", "KS")}
    lower: set[int] = set()
    for _ in range(200):
        hands, _, honoured = sample_hidden(obs, rng)
        assert honoured
        assert not higher & set(hands[1])
        lower.update(c for c in hands[1] if c & 3 == 3)
    assert parse_card("8S") in lower and parse_card("2S") in lower  # wilds and lower spades stay possible


def test_the_search_hands_the_interpreter_lock_over_after_every_playout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot runs a hard decision in a thread beside its event loop. A search that kept the interpreter
    lock for its whole budget (~40 ms) made every wake-up of the loop (each table's clicks) wait up to the
    5 ms switch interval; it gives the lock up after each playout instead (``time.sleep(0)``), so the loop
    waits a fraction of a millisecond at most (bench/cpu.py --loop measures it)."""
    yields: list[int] = []
    stats = SearchStats()

    def sleep(seconds: float) -> None:
        assert seconds == 0
        yields.append(stats.rollouts)

    monkeypatch.setattr(hard.time, "sleep", sleep)
    searched = 0
    for i, rnd in enumerate(positions(["classic", "party"], per_preset=30, seed=3)):
        seat = rnd.to_act
        assert seat is not None
        yields.clear()
        stats.iterations = stats.rollouts = 0
        decide(rnd, seat, seed=i, time_budget=60.0, max_iterations=4, stats=stats)
        if stats.iterations:
            searched += 1
            assert len(yields) == stats.rollouts  # one hand-over per playout
            assert yields == list(range(1, stats.rollouts + 1))  # after each, never two playouts in a row
    assert searched >= 3
