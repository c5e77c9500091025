"""A player who left the table does not deal the next round for those still playing.

README, Commands: `/eights leave` — "leave the table (during a game a CPU takes over your seat)"; between
rounds the board says "The next round starts <t:…:R>, or press **Next round**" to the players at the table.
Every other game control refuses a seat the CPU has taken over ("A CPU player has your seat; use
/eights join to take it back.", bot/service/play.py:act). Carol, who left during the pause, still presses
the board's **Next round** and deals round 2 at once, cutting the pause short for alice and bob.
"""

from __future__ import annotations

import pytest

from tests.e2e.classic_deals import first_round_won
from tests.e2e.conftest import World


async def test_a_player_who_left_cannot_deal_the_next_round(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await first_round_won(world, monkeypatch)  # round 1 over: the pause runs
    assert (await world.snapshot()).phase == "between_rounds"

    left = await world.run(world.carol, "leave")
    assert "You left" in left.content
    await world.settle()
    reply = await (await world.fake.click(world.carol, world.board(), label="Next round")).reply()
    await world.settle()

    snapshot = await world.snapshot()
    assert snapshot.phase == "between_rounds" and snapshot.round_number == 1, (
        f"carol, who left the table, dealt round {snapshot.round_number} for the others "
        f"(she was answered {reply.content!r})"
    )
