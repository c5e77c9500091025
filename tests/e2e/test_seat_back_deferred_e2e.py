"""A hand that a slow "Take my seat back" click showed (the board's button deferred as an update, the hand
sent as a private follow-up) is never refreshed onto the public board, the interaction's original."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.service import TableService
from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.fakediscord.interactions import DEFERRED_UPDATE_MESSAGE


async def test_a_seat_taken_back_by_a_slow_click_never_shows_the_hand_on_the_board(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README (intro): "each player sees their own hand privately (an ephemeral message only they can see
    ...), while the board and every play are public"; README (Time): "/eights join takes it back" (the
    board's "Take my seat back" button). Discord's documentation (Receiving and Responding, Edit Original
    Interaction Response): after a DEFERRED_UPDATE_MESSAGE (6) the original response is the message the
    component is on; the fake Discord models this.

    Bob left, a CPU plays his seat; he presses the board's "Take my seat back" while the bot is slow: the
    watchdog defers the click as an update of the board (callback type 6), and the hand goes out as an
    ephemeral follow-up. That interaction is then kept as Bob's hand message, and the next refresh of his
    hand edits the interaction's *original* message, which for a deferred update is the clicked message:
    the public board."""
    stack_classic_deal(
        monkeypatch,
        [["5H", "2C", "3C", "4C", "6C", "7C", "JC"], ["KS", "QS", "JS", "10S", "9S", "7S", "6S"]],
        "9H",
        leader=0,
    )
    board = await world.run(world.alice, "new", target=1000)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await world.fake.click(world.alice, world.board(), label="Start")).reply()
    await world.settle()
    left = await world.run(world.bob, "leave")
    assert left.ephemeral
    await world.settle()

    for cog in world.table_cogs:
        cog.defer_after = 0.0  # the bot is busy: the watchdog answers first
    join = TableService.join

    async def slow_join(self: TableService, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.3)
        return await join(self, *args, **kwargs)

    monkeypatch.setattr(TableService, "join", slow_join)
    board = world.board()
    click = await world.fake.click(world.bob, board, label="Take my seat back")
    assert await click.callback() == DEFERRED_UPDATE_MESSAGE

    def seat_back() -> bool:
        return any("You took your seat back" in m.content for m in world.fake.ephemeral_messages(world.bob))

    await world.fake.wait_for(seat_back, what="bob's hand, shown after the deferred click")
    await world.settle()
    for cog in world.table_cogs:
        cog.defer_after = 2.0
    monkeypatch.setattr(TableService, "join", join)

    # alice plays her 5♥: bob's turn comes, and his hand message is refreshed in place.
    try:
        assert await world.human_to_act() is world.alice
        assert await world.play_by_buttons(world.alice) == "play"
        await world.settle()
        publicly = [m.text() for m in world.fake.channel_messages(world.channel) if "Your hand" in m.text()]
    finally:
        violations = world.fake.take_violations()  # the privacy observer's findings, reported below
    assert not publicly, f"bob's hand is on the public board: {publicly[0][:200]!r}"
    assert not violations, violations[:2]
