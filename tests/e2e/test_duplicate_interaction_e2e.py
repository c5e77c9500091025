"""An INTERACTION_CREATE delivered twice (the same interaction id and token in two dispatches)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import World


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_an_interaction_delivered_twice_is_acted_on_once(world: World) -> None:
    """README (*Commands*): "Typed commands act on the table as it is: typing /eights draw twice draws twice"
    -- typing it once draws once. Discord's gateway gives no exactly-once promise (a dispatch may come again,
    e.g. on a new session or replayed after a resume); an interaction is identified by its id, and Discord
    takes only one answer to it (the second callback is refused 40060). The bot must not apply the same
    interaction twice. Expected: one card drawn, one line telling it."""
    world.service.seed_deals(1)  # alice leads, with a card she could play: she may draw too
    await world.run(world.alice, "new", target=1000)
    await world.run(world.alice, "house", option="draw_with_legal_play", value="on")
    await world.run(world.bob, "join")
    await world.run(world.alice, "start")
    user = await world.human_to_act()
    assert user is not None
    before = await world.snapshot()
    seat = next(s for s in before.seats if s.user_id == user.id)
    lines_before = len(world.public_texts())

    session = next(iter(world.fake.sessions.values()))
    original = session.dispatch
    doubled: list[str] = []

    def dispatch(event: str, data: dict[str, Any]) -> None:
        original(event, data)
        if event == "INTERACTION_CREATE" and not doubled:
            doubled.append(data["id"])
            original(event, data)  # delivered again

    session.dispatch = dispatch  # type: ignore[method-assign]
    await world.run(user, "draw")
    await world.settle()
    session.dispatch = original  # type: ignore[method-assign]
    world.fake.take_violations()  # the second answer, refused as already acknowledged
    after = await world.snapshot()
    seat_after = next(s for s in after.seats if s.user_id == user.id)
    new_lines = world.public_texts()[lines_before:]
    assert doubled
    assert seat_after.card_count == (seat.card_count or 0) + 1, (
        f"{user.name} had {seat.card_count} cards and has {seat_after.card_count} after one /eights draw",
        new_lines,
    )
