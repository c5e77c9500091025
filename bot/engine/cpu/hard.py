"""The `hard` CPU level: determinized Monte Carlo search over deals consistent with what the seat knows.

Each iteration deals the hidden cards afresh (`inference.sample_hidden`, which honours the suits each
opponent showed it lacked), builds that world with `Round.with_hidden`, and plays every candidate action out
to the end of the round with the `normal` policy for every seat. All candidates share the same deal and the
same random stream in an iteration (common random numbers), so their difference is measured, not their luck.
The heuristic's own choice stands unless another action beats it by a confident margin.

Its only inputs are the `Observation` (view, public history, own hand) and the real round's public state, so
permuting the hidden cards cannot change a decision made with the same seed and iteration count.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.engine import Action, ActionKind, Round

from . import expert, normal
from .inference import Observation, observe, sample_hidden
from .knowledge import Knowledge, knowledge_of

DEFAULT_TIME_BUDGET = 0.035  # seconds from the call, observation included (p99 target: 50 ms)
DEFAULT_MAX_ITERATIONS = 400
MAX_ROLLOUT_STEPS = 160
CONFIDENCE = 1.0  # standard errors by which a searched action must beat the heuristic's


@dataclass
class SearchStats:
    """What one decision did (tests assert budgets through these counts, not wall-clock time)."""

    iterations: int = 0
    rollouts: int = 0
    steps: int = 0
    candidates: int = 0


def candidates(rnd: Round, seat: int, legal: Sequence[Action], know: Knowledge) -> list[Action]:
    """The distinct actions worth searching: every play, suits the seat holds after a wild, a draw only when
    nothing but a wild fits."""
    hand = rnd.hand(seat)
    held_suits = {card & 3 for card in hand if card >> 2 != know.wild_rank}
    out: list[Action] = []
    non_wild_play = False
    for action in legal:
        if action in out:
            continue
        if action.kind is ActionKind.PLAY and action.card is not None:
            if action.card >> 2 != know.wild_rank or know.wild_must_match:
                non_wild_play = True
            if action.suit is not None and held_suits and action.suit not in held_suits:
                continue
        if action.kind is ActionKind.SUIT and held_suits and action.suit not in held_suits:
            continue
        out.append(action)
    if non_wild_play:
        out = [a for a in out if a.kind is not ActionKind.DRAW] or out
    return out


def rollout(rnd: Round, seat: int, rng: random.Random, know: Knowledge, stats: SearchStats) -> float:
    """Play `rnd` out with the normal policy; the seat's share of the win (a tie shares it)."""
    steps = 0
    while not rnd.over and steps < MAX_ROLLOUT_STEPS:
        actor = rnd.to_act
        assert actor is not None
        legal = rnd.legal_actions(actor)
        rnd.step(normal.choose(rnd, actor, legal, rng, know))
        steps += 1
        if know.has_last_card:
            _call_pending_last_cards(rnd)
    stats.steps += steps
    stats.rollouts += 1
    if rnd.over:
        winners = rnd.winners
        return 1.0 / len(winners) if seat in winners else 0.0
    # Unfinished (a long cycle): fewer cards is better.
    sizes = rnd.hand_sizes
    mine = sizes[seat]
    return sum(1 for n in sizes if n > mine) / max(1, len(sizes) - 1) * 0.5


def _call_pending_last_cards(rnd: Round) -> None:
    # Every simulated player calls its own last card at once, as the normal level does.
    seat = rnd.last_card_open
    if seat is not None:
        rnd.step(Action.call_last(seat))


def decide(
    rnd: Round,
    seat: int,
    *,
    seed: int,
    time_budget: float | None = None,
    max_iterations: int | None = None,
    stats: SearchStats | None = None,
) -> Action:
    started = time.perf_counter()
    legal = rnd.legal_actions(seat)
    if not legal:
        raise ValueError("the seat has no action")
    know = knowledge_of(rnd.ruleset)
    for action in legal:
        if action.kind is ActionKind.CALL_LAST or action.kind is ActionKind.CATCH:
            return action
    cands = candidates(rnd, seat, legal, know)
    if stats is None:
        stats = SearchStats()
    stats.candidates = len(cands)
    if len(cands) == 1:
        return cands[0]
    obs = observe(rnd, seat)
    nxt = normal.next_seat(rnd, seat)
    belief = expert.beliefs(obs.hidden, obs.groups, nxt, obs.hand_sizes[nxt])
    default = expert.choose(rnd, seat, cands, random.Random(seed), know, belief)
    return search(
        rnd,
        obs,
        cands,
        know,
        default=cands.index(default),
        started=started,
        seed=seed,
        time_budget=time_budget,
        max_iterations=max_iterations,
        stats=stats,
    )


def search(
    rnd: Round,
    obs: Observation,
    cands: list[Action],
    know: Knowledge,
    *,
    default: int,
    started: float,
    seed: int,
    time_budget: float | None,
    max_iterations: int | None,
    stats: SearchStats,
) -> Action:
    budget = DEFAULT_TIME_BUDGET if time_budget is None else time_budget
    iterations = DEFAULT_MAX_ITERATIONS if max_iterations is None else max_iterations
    deadline = started + budget
    rng = random.Random(seed)
    count = len(cands)
    # Per candidate: sum and sum of squares of its outcome minus the default's, deal by deal (paired).
    diff_sum = [0.0] * count
    diff_sq = [0.0] * count
    seat = obs.seat
    done = 0
    outcome = [0.0] * count
    slowest = 0.0
    while done < iterations:
        begun = time.perf_counter()
        hands, stock, _ = sample_hidden(obs, rng)
        world = rnd.with_hidden(seat, hands, stock)
        stream = rng.getrandbits(62)
        for i, action in enumerate(cands):
            sim = world.clone()
            sim.seed_rng(stream)
            sim.step(action)
            outcome[i] = rollout(sim, seat, random.Random(stream), know, stats)
        base = outcome[default]
        for i in range(count):
            d = outcome[i] - base
            diff_sum[i] += d
            diff_sq[i] += d * d
        done += 1
        now = time.perf_counter()
        slowest = max(slowest, now - begun)
        if now + slowest >= deadline:
            break  # another deal would likely overrun the budget
    stats.iterations = done
    best = max(range(count), key=lambda i: (diff_sum[i], i == default, -i))
    if best == default or done < 2:
        return cands[default]
    mean = diff_sum[best] / done
    var = max(0.0, diff_sq[best] / done - mean * mean) * done / (done - 1)
    # Leave the heuristic's choice only when the search is confident it is worse.
    if mean > CONFIDENCE * math.sqrt(var / done):
        return cands[best]
    return cands[default]
