"""The board between rounds names the card each earlier round was won with.

README, *Discord's rate limits*: the board's *Last plays* list "holds the moves since" the last line, and the
round's end reads "Round over: Ana went out" with the card she went out with (bot/ui/render.py words it
"Round over: {names} went out with {card}"). Between rounds 2 and 3 the board still lists round 1's end
(short rounds: one card dealt each, a house rule every preset takes), and that line must name the card
round 1 was won with, not the card that ended round 2.
"""

from __future__ import annotations

import pytest

from tests.e2e.classic_deals import first_round_won
from tests.e2e.conftest import World


async def test_the_board_between_rounds_names_the_card_each_round_was_won_with(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await first_round_won(world, monkeypatch)  # alice went out with K♥; bob goes out with 7♥ next
    await (await world.fake.click(world.carol, world.board(), label="Next round")).reply()
    await world.settle()
    assert await world.play_by_buttons(world.bob) == "play"
    await world.settle()

    snapshot = await world.snapshot()
    assert snapshot.phase == "between_rounds" and snapshot.round_number == 2
    text = world.board().text()
    assert "Round over: bob went out with 7♥" in text
    assert "Round over: alice went out with 7♥" not in text, (
        "the board says alice won round 1 with 7♥, the card bob played in round 2 (she went out with K♥):\n"
        + text
    )
