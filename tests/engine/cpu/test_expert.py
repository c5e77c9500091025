"""The beliefs hard's default policy uses: the chance the next player cannot follow."""

from __future__ import annotations

import math

from bot.engine import parse_card
from bot.engine.cpu.expert import beliefs, stuck_chance
from bot.engine.cpu.inference import SUIT_MASKS, SlotGroup, mask_of


def cards(text: str) -> list[int]:
    return [parse_card(code) for code in text.split()]


HIDDEN = cards("2C 3C 4C 5C 6C 7C 9C 10C 2H 3H")


def test_stuck_chance_is_hypergeometric_over_the_hidden_cards() -> None:
    b = beliefs(HIDDEN, {1: [SlotGroup(3)]}, 1, 3)
    hearts = SUIT_MASKS[2]
    assert math.isclose(stuck_chance(b, hearts), (8 / 10) * (7 / 9) * (6 / 8))
    assert stuck_chance(b, SUIT_MASKS[3]) == 1.0  # no spade is hidden
    assert stuck_chance(b, SUIT_MASKS[0]) == 0.0  # 8 clubs among 10 cards: three cards cannot miss them


def test_known_voids_leave_the_pool() -> None:
    clubs = SUIT_MASKS[0]
    # Every slot of seat 1 is known to hold no club: it can only hold the two hearts.
    b = beliefs(HIDDEN, {1: [SlotGroup(1, clubs), SlotGroup(1, clubs)]}, 1, 2)
    assert stuck_chance(b, clubs) == 1.0
    assert stuck_chance(b, mask_of(cards("2H 3H"))) == 0.0
    # A slot drawn since the evidence may hold a club: the void is not certain any more.
    mixed = beliefs(HIDDEN, {1: [SlotGroup(2, clubs), SlotGroup(1)]}, 1, 3)
    assert stuck_chance(mixed, clubs) < 1.0
