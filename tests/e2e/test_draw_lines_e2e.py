"""The public lines tell each draw once, however it was made: a draw the referee makes for a player
(auto-draw, on by default) that ends in a pass (draw-one: the drawn card does not fit) or pays cards owed
(uno-lite's 2) is one line ("bob had no card to play and drew 1 card", "carol takes 2 cards owed"), not two or
three ("carol drew 2 cards / carol takes 2 cards owed / carol had no card to play and drew 2 cards"). The
cards the channel says each player drew add up to the round's own history."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from tests.e2e.conftest import World

NAMES = ("alice", "bob", "carol")
DREW = re.compile(r"^(\w+) (?:had no card to play and )?drew (\d+) cards?$")
OWED = re.compile(r"^(\w+) takes (\d+) cards? owed$")


def keep_finished_rounds(world: World) -> dict[int, Any]:
    """The round of each table as it was when it ended (the match's state is dropped with the table)."""
    rounds: dict[int, Any] = {}

    def seen(table_id: int, _users: tuple[int | None, ...], match: Any) -> None:
        if match is not None and match.round.over and table_id not in rounds:
            rounds[table_id] = match.round.clone()

    world.service.observe(seen)
    return rounds


def told_draws(world: World) -> Counter[str]:
    """Cards the channel's lines say each player drew (a "drew N" line or a "takes N cards owed" line)."""
    told: Counter[str] = Counter()
    for message in world.public_texts():
        for line in message.splitlines():
            for pattern in (DREW, OWED):
                found = pattern.match(line.strip())
                if found and found.group(1) in NAMES:
                    told[found.group(1)] += int(found.group(2))
    return told


def actual_draws(history: list[tuple[Any, ...]]) -> Counter[str]:
    drawn: Counter[str] = Counter()
    for entry in history:
        if entry[0] in ("draw", "penalty"):  # ("draw", seat, 1) · ("penalty", seat, n_drawn)
            drawn[NAMES[entry[1]]] += int(entry[2])
    return drawn


@pytest.mark.parametrize("preset", ["uno-lite", "draw-one"])
async def test_each_draw_is_told_once_in_the_channel(world: World, preset: str) -> None:
    rounds = keep_finished_rounds(world)
    world.service.seed_deals(5)  # round 1 has auto-draws that end in a pass, and (uno-lite) a 2 paid
    board = await world.run(world.alice, "new", preset=preset, target=1000)
    for person in (world.bob, world.carol):
        await (await world.fake.click(person, board, label="Join")).callback()
    await world.settle()
    await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    table_id = await world.table_id()
    await world.play_round_by_buttons()
    await world.settle()
    assert (await world.snapshot()).phase == "between_rounds"

    actual = actual_draws(rounds[table_id].history)
    assert sum(actual.values()) > 0, "the seeded round has no draw"
    told = told_draws(world)
    assert dict(told) == dict(actual), f"the channel told {dict(told)} cards drawn; drawn: {dict(actual)}"
