"""Random positions for CPU tests: rounds played forward a random number of actions by random moves."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bot.engine import PRESETS, Round, get_preset


def seats_for(preset: str, rng: random.Random) -> int:
    ruleset = get_preset(preset)
    return rng.randint(ruleset.min_players, min(ruleset.max_players, 5))


def random_position(preset: str, seed: int) -> Round | None:
    """A live round of `preset` after a random number of random legal actions (None if it ended)."""
    rng = random.Random(seed)
    num = seats_for(preset, rng)
    rnd = Round.new(get_preset(preset), num, dealer=rng.randrange(num), seed=seed)
    for _ in range(rng.randrange(0, 60)):
        if rnd.over:
            return None
        seat = rnd.to_act
        assert seat is not None
        rnd.apply(rng.choice(rnd.legal_actions(seat)))
    return None if rnd.over else rnd


def positions(presets: list[str] | None = None, per_preset: int = 20, seed: int = 0) -> Iterator[Round]:
    for p, name in enumerate(presets or list(PRESETS)):
        made = 0
        k = 0
        while made < per_preset:
            rnd = random_position(name, seed * 1_000_003 + p * 10_007 + k)
            k += 1
            if rnd is not None:
                made += 1
                yield rnd
