"""The `easy` CPU level: a random legal action.

Moves are drawn uniformly among distinct moves, then a suit uniformly when the move is a wild that names one
in the same step, so a wild is not four times as likely as any other card.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.engine import Action


def choose(legal: Sequence[Action], rng: random.Random) -> Action:
    moves: dict[tuple[str, int | None, int | None], list[Action]] = {}
    for action in legal:
        key = (str(action.kind), action.card, action.target)
        variants = moves.setdefault(key, [])
        if action not in variants:
            variants.append(action)
    variants = rng.choice(list(moves.values()))
    return rng.choice(variants)
