"""Random positions for CPU tests: rounds played forward a random number of actions by random moves."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bot.engine import PRESETS, Round, Ruleset, get_preset, parse_card
from bot.engine.round import full_deck


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


def cards(text: str) -> list[int]:
    return [parse_card(code) for code in text.split()]


def dealt(
    ruleset: Ruleset, hands: dict[int, str], starter: str, stock_top: str = "", dealer: int = 0
) -> Round:
    """A round whose seats hold exactly `hands`, with `starter` turned and `stock_top` on top of the stock."""
    n = len(hands)
    size = ruleset.hand_size_for(n)
    held = {seat: cards(text) for seat, text in hands.items()}
    assert all(len(h) == size for h in held.values())
    order: list[int] = []
    for i in range(size):
        for k in range(1, n + 1):
            order.append(held[(dealer + k) % n][i])
    order.append(parse_card(starter))
    order.extend(cards(stock_top))
    rest = full_deck(ruleset.decks_for(n))
    for card in order:
        rest.remove(card)
    rnd = Round.new(ruleset, n, dealer, deck=order + rest, seed=1)
    for seat, h in held.items():
        assert sorted(rnd.hand(seat)) == sorted(h)
    return rnd
