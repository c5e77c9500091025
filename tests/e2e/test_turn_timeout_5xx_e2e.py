"""REST 5xx bursts (Discord's edge answering 500/502/503/504) at the moment a turn timer fires: the timeout's
move is stored whatever Discord answers, and what it shows (its public line, the board, the next player's
"your turn") reaches the channel once, late at worst."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_hand_messages_e2e import fire

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


@SQLITE_ONLY
@pytest.mark.parametrize("burst", [3, 12])
async def test_a_turn_timeout_met_by_a_5xx_burst_is_shown_once_and_nothing_is_lost(
    world: World, burst: int
) -> None:
    """README (*Discord's rate limits*): "A line, board edit or hand refresh that still fails after
    discord.py's retries (a 429, a 5xx, a dropped connection) is tried again a little later with the latest
    state; a 'your turn' mention is carried into the next line, never lost", and a follow-up is never sent
    twice. The timeout line shows exactly once, bob's turn mention arrives once, the board shows bob to
    move."""
    fake = world.fake
    world.service.seed_deals(1)  # alice leads
    await world.run(world.alice, "new", target=1000)
    await world.run(world.bob, "join")
    await world.run(world.alice, "start")
    await world.settle()
    assert await world.human_to_act() is world.alice
    lines_before = len(world.public_texts())

    fake.server_errors.fail_next(burst, status=503)  # every REST call, whatever its route
    await fire(world, "_on_turn_timeout")
    await world.settle(timeout=60.0)
    fake.server_errors._next.clear()
    await world.settle(timeout=30.0)

    new_lines = world.public_texts()[lines_before:]
    told = [t for t in new_lines if "alice ran out of time" in t]
    assert len(told) == 1, new_lines
    assert sum(f"<@{world.bob.id}>" in t for t in new_lines) == 1, new_lines
    after = await world.snapshot()
    assert world.user_of(after, after.to_act or 0) is world.bob
    assert "**bob** to move" in world.board().text(), world.board().text()
    assert not fake.take_violations()
