"""CPU players for every preset: `easy` (random), `normal` (heuristic) and `hard` (search).

A CPU player decides from what its seat could know only: its view, the public history and its own hand.

`choose_action` is for the seat to act; `react` for a CPU seat's out-of-turn moves (calling its own last card,
catching an opponent who forgot to call). Both are pure and synchronous; run `hard` off the event loop.
"""

from __future__ import annotations

import random

from bot.engine import Action, ActionKind, Round

from . import easy, hard, normal
from .inference import opponent_groups, void_suits
from .knowledge import knowledge_of
from .partners import spare_partner

LEVELS = ("easy", "normal", "hard")

# How often an easy seat notices an out-of-turn chance (call or catch) each time it is asked.
EASY_REACTION_CHANCE = 0.5


def choose_action(
    round: Round,
    seat: int,
    level: str,
    *,
    seed: int,
    time_budget: float | None = None,
    max_iterations: int | None = None,
) -> Action:
    """The action `level` takes for `seat`, which must be the seat to act. Deterministic for a given seed when
    `hard`'s search ends on `max_iterations` rather than on `time_budget` (seconds, default 0.04)."""
    if level not in LEVELS:
        raise ValueError(f"unknown CPU level {level!r}")
    if round.to_act != seat:
        raise ValueError("this seat is not to act")
    legal = round.legal_actions(seat)
    if not legal:
        raise ValueError("the seat has no action")
    rng = random.Random(seed)
    if level == "easy":
        # Random, but never against its own partner while another move is left (partnership).
        return easy.choose(spare_partner(round, seat, legal, knowledge_of(round.ruleset)), rng)
    if level == "normal":
        choices = sum(1 for a in legal if a.kind in (ActionKind.PLAY, ActionKind.SUIT))
        lacks = next_lacks(round, seat) if choices > 1 else 0
        return normal.choose(round, seat, legal, rng, knowledge_of(round.ruleset), lacks)
    return hard.decide(round, seat, seed=seed, time_budget=time_budget, max_iterations=max_iterations)


def next_lacks(round: Round, seat: int) -> int:
    """Bit mask of the suits the next seat showed it lacks (from the public history)."""
    nxt = normal.next_seat(round, seat)
    if nxt == seat or nxt == round.partner_of(seat):
        return 0  # a suit the partner lacks is no reason to play it
    mask = 0
    for suit in void_suits(opponent_groups(round, seat), nxt):
        mask |= 1 << suit
    return mask


def react(round: Round, seat: int, level: str, *, seed: int) -> Action | None:
    """An out-of-turn action for `seat` (call its own last card, catch a forgotten one), or None."""
    if level not in LEVELS:
        raise ValueError(f"unknown CPU level {level!r}")
    options = [a for a in round.legal_actions(seat) if a.kind in (ActionKind.CALL_LAST, ActionKind.CATCH)]
    if not options:
        return None
    if level == "easy":
        rng = random.Random(seed)
        if rng.random() >= EASY_REACTION_CHANCE:
            return None
        return rng.choice(options)
    for action in options:
        if action.kind is ActionKind.CALL_LAST:
            return action
    return options[0]


__all__ = ["LEVELS", "choose_action", "react"]
