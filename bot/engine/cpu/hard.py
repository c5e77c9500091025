"""The `hard` CPU level: determinized Monte Carlo search over deals consistent with what the seat knows.

Each iteration deals the hidden cards afresh (`inference.deal`, which honours the suits each opponent showed
it lacked), weighs the deal by how well it explains the opponents' own choices as the normal level makes them
(`likely_deal`: a deal that makes them look like they played otherwise is dealt again, per opponent, with
rejection), builds that world with `Round.with_hidden`, and plays every candidate action on
with the `normal` policy for every seat (the opponents' own policy, when they are normal CPU players) for
`ROLLOUT_DEPTH` steps, then judges the position by a fitted win-chance model (`value`); short playouts judged
this way are far less noisy than whole ones, so many more deals fit in the budget. All candidates share the
same deal and the same random stream in an iteration (common random numbers), so their difference is measured,
not their luck. The action with the best mean wins; the `expert` policy's choice (normal plus the chance that
the next seat cannot follow) is the baseline and wins ties.

In a partnership the search plays for the side: a playout scores a win when the seat's side wins (both
partners out, or the lower blocked total), `value` estimates the side's chance (a side is as close to winning
as its partner further from going out), a pending draw may be taken rather than stacked onto the partner, and
the baseline never hurts the partner while another play exists.

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
from .inference import Observation, deal, observe, player_surprises, redeal
from .knowledge import Knowledge, knowledge_of
from .partners import spare_partner

DEFAULT_TIME_BUDGET = 0.040  # seconds from the call, observation included (p99 target: 50 ms)
DEFAULT_MAX_ITERATIONS = 400
MAX_ROLLOUT_STEPS = 160
ROLLOUT_DEPTH: int | None = 12  # steps before a playout is judged by `value` (None: play to the end)
# Conditional-logit weights of `features` (size, wilds, turn distance, can follow, suits held, last card,
# cards owed), fitted by maximum likelihood on normal-vs-normal games: per preset, heads-up and more seats
# (classic 1,500 games each; switch and party 800 each). Other presets use classic's.
VALUE_WEIGHTS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "classic": (
        (-0.066, 0.811, -0.061, 0.300, -0.233, 0.649, 0.0),
        (-0.248, 0.986, -0.034, 0.225, -0.022, 0.632, 0.0),
    ),
    "switch": (
        (-0.112, 0.373, -0.081, 0.294, -0.245, 0.511, -0.094),
        (-0.310, 0.651, -0.144, 0.263, 0.046, 0.720, -0.200),
    ),
    "party": (
        (-0.104, 0.203, -0.058, 0.374, -0.208, 0.514, -0.086),
        (-0.361, 0.433, -0.222, 0.281, 0.184, 0.746, -0.073),
    ),
}
EXPERT_DEFAULT = True
SURPRISE_WEIGHT = 0.02  # a deal's weight is this to the power of its surprises (opponents' unlikely choices)
SURPRISE_TRIES = 12  # an opponent's hand is dealt again up to this often before the least surprising is kept
# Standard errors by which a searched action must beat the heuristic's. With likely deals the search is
# trusted outright: 0 over 1.0 measured +0.85 +- 0.91 points in 4-player classic (2,000 paired games).
CONFIDENCE = 0.0


@dataclass
class SearchStats:
    """What one decision did (tests assert budgets through these counts, not wall-clock time)."""

    iterations: int = 0
    rollouts: int = 0
    steps: int = 0
    candidates: int = 0


def features(rnd: Round, know: Knowledge) -> list[list[float]]:
    """Per seat, what a truncated playout is judged by: hand size, wilds held, how soon the seat moves,
    whether it can follow the target now, suits held, a last card, cards owed."""
    sizes = rnd.hand_sizes
    n = len(sizes)
    actor = rnd.to_act
    actor = 0 if actor is None else actor
    direction = rnd.direction
    target = rnd.target
    declared = rnd.declared_suit
    suit = target & 3 if declared is None else declared
    rank = target >> 2
    wild = know.wild_rank
    owed = rnd.pending_draw
    rows: list[list[float]] = []
    for seat in range(n):
        wilds = 0
        fits = 0
        held = 0
        for card in rnd.hand(seat):
            r = card >> 2
            if r == wild:
                wilds += 1
                continue
            held |= 1 << (card & 3)
            if card & 3 == suit or r == rank:
                fits = 1
        distance = ((seat - actor) * direction) % n
        rows.append(
            [
                float(sizes[seat]),
                float(wilds),
                distance / max(1, n - 1),
                float(fits),
                float(held.bit_count()),
                1.0 if sizes[seat] == 1 else 0.0,
                float(owed) if seat == actor else 0.0,
            ]
        )
    return rows


def candidates(rnd: Round, seat: int, legal: Sequence[Action], know: Knowledge) -> list[Action]:
    """The distinct actions worth searching: every play (in a partnership, none that hurts the partner while
    another move is left), suits the seat holds after a wild, a draw only when nothing but a wild fits (or,
    in a partnership, to take a pending draw rather than stack it onto the partner)."""
    if know.partnership:
        legal = spare_partner(rnd, seat, legal, know)  # never against the partner while another move is left
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
    if non_wild_play and not (know.partnership and rnd.pending_draw):
        out = [a for a in out if a.kind is not ActionKind.DRAW] or out
    return out


def rollout(rnd: Round, seat: int, rng: random.Random, know: Knowledge, stats: SearchStats) -> float:
    """Play `rnd` on with the normal policy; the seat's share of the win (a tie shares it), or after
    `ROLLOUT_DEPTH` steps its estimated chance to win (`value`)."""
    steps = 0
    limit = MAX_ROLLOUT_STEPS if ROLLOUT_DEPTH is None else ROLLOUT_DEPTH
    while not rnd.over and steps < limit:
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
        return share(rnd, seat)
    return value(rnd, seat, know)


def share(rnd: Round, seat: int) -> float:
    """The seat's share of a finished round's win: a tie shares it; in a partnership the side's share."""
    winners = rnd.winners
    if seat not in winners:
        return 0.0
    return 1.0 / len({rnd.side_of(w) for w in winners})


def value(rnd: Round, seat: int, know: Knowledge) -> float:
    """The seat's estimated chance to win from here: a conditional logit over the seats' features."""
    rows = features(rnd, know)
    two, many = VALUE_WEIGHTS.get(rnd.ruleset.name, VALUE_WEIGHTS["classic"])
    weights = two if len(rows) == 2 else many
    scores = [math.exp(sum(w * x for w, x in zip(weights, row, strict=True))) for row in rows]
    if know.partnership:
        # A side wins when both partners are out: it is as strong as its partner still in that is weaker.
        sides = [min((scores[s] for s in (k, k + 2) if not rnd.is_out(s)), default=math.inf) for k in (0, 1)]
        mine = sides[seat & 1]
        return 1.0 if mine == math.inf else mine / (sides[0] + sides[1])
    return scores[seat] / sum(scores)


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
    partner_next = nxt == rnd.partner_of(seat)
    if EXPERT_DEFAULT:
        belief = expert.beliefs(obs.hidden, obs.groups, nxt, obs.hand_sizes[nxt], partner_next)
        default = expert.choose(rnd, seat, cands, random.Random(seed), know, belief)
    else:
        lacks = 0
        for suit in [] if partner_next else obs.void_suits(nxt):
            lacks |= 1 << suit
        default = normal.choose(rnd, seat, cands, random.Random(seed), know, lacks)
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


def likely_deal(
    obs: Observation, rng: random.Random, know: Knowledge
) -> tuple[dict[int, list[int]], list[int], dict[int, list[int]]]:
    """A deal of the hidden cards (hands, stock, and each dealt card's epoch) weighted by how well it explains
    the opponents' choices: each opponent's hand is dealt again from its cards and the stock's, up to
    `SURPRISE_TRIES` times, until its surprises pass rejection (else the least surprising hand is kept)."""
    hands, stock, _, epochs = deal(obs, rng)
    redealt = False
    for p in obs.evidence:
        n = player_surprises(obs, p, hands[p], epochs[p], know)
        if n == 0 or rng.random() < SURPRISE_WEIGHT**n:
            continue
        best = (hands[p], epochs[p], n)
        for _ in range(SURPRISE_TRIES):
            if not redeal(obs, p, hands, stock, epochs, rng):
                break
            redealt = True
            n = player_surprises(obs, p, hands[p], epochs[p], know)
            if n < best[2]:
                best = (hands[p], epochs[p], n)
            if n == 0 or rng.random() < SURPRISE_WEIGHT**n:
                break
        else:
            if best[0] is not hands[p]:
                # Put the least surprising hand back; its cards return from the stock.
                pool = hands[p] + stock
                for card in best[0]:
                    pool.remove(card)
                hands[p], epochs[p] = best[0], best[1]
                stock[:] = pool
    if redealt:
        rng.shuffle(stock)  # dealing moved the hands' cards to the stock's bottom
    return hands, stock, epochs


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
        hands, stock, _ = likely_deal(obs, rng, know)
        world = rnd.with_hidden(seat, hands, stock)
        stream = rng.getrandbits(62)
        for i, action in enumerate(cands):
            sim = world.clone()
            sim.seed_rng(stream)
            sim.step(action)
            outcome[i] = rollout(sim, seat, random.Random(stream), know, stats)
            # Run in a thread beside a bot's event loop (the scheduler), a search holding the interpreter
            # lock for its whole budget would make each of the loop's wake-ups wait up to the 5 ms switch
            # interval: it hands the lock over after each playout (a fraction of a millisecond) instead.
            time.sleep(0)
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
