"""Whom the line telling a seat taken back from the CPU pings: only a turn that reached someone is announced
(``bot.ui.render.turn_line``), so a person leaving and coming back during another's turn pings nobody, and
one coming back during their own turn is told once that it is theirs."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World

# Long enough that the CPU playing a seat taken over never moves during a test: the turn stays the person's.
SLOW_CPU = 600.0


async def with_a_slow_cpu(world: World) -> None:
    """Restart the world's bot with CPU seats that wait ``SLOW_CPU`` seconds before moving."""
    base = World.config

    def config() -> Any:
        return dataclasses.replace(base(world), cpu_delay=SLOW_CPU)

    world.config = config  # type: ignore[method-assign]
    await world.restart()


def mentions(world: World, user_id: int) -> list[str]:
    """The public messages that mention ``user_id``."""
    return [text for text in world.public_texts() if f"<@{user_id}>" in text]


async def test_leaving_and_rejoining_does_not_ping_the_player_to_move_again(world: World) -> None:
    """bot/ui/render.py ``turn_line``: "Only a turn that passed is announced"; README's example shows
    "▶ @Ana, your turn." once per turn that reaches a player. An adversary must not be able to turn the bot
    against other players.

    During alice's turn, bob types /eights leave then /eights join, three times. Each "bob took their seat
    back" is told in the channel, but none of those lines mentions alice again: her turn never passed."""
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await (await world.fake.click(world.carol, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    assert (
        await world.snapshot()
    ).to_act == 0  # the host leads the first round (the dealer is the last seat)
    before = mentions(world, world.alice.id)
    assert len(before) == 1
    for _ in range(3):
        await world.run(world.bob, "leave")
        await world.settle()
        back = await world.run(world.bob, "join")
        assert back.ephemeral and "took your seat back" in back.content, back.content
        await world.settle()
    assert (await world.snapshot()).to_act == 0  # still alice's turn: it never passed
    after = mentions(world, world.alice.id)
    assert after == before, f"alice was pinged {len(after) - len(before)} more times: {after[len(before) :]}"
    told = [text for text in world.public_texts() if "bob took their seat back" in text]
    assert len(told) == 3, world.public_texts()
    assert not any("<@" in text for text in told), told


async def test_taking_ones_seat_back_during_ones_own_turn_pings_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob leads the round; he leaves (a CPU takes his seat, and waits before moving) and types /eights join
    while the turn is still his seat's. The line telling his seat taken back tells him it is his turn: one
    new mention of bob, none of alice."""
    stack_classic_deal(
        monkeypatch,
        [["5H", "2C", "3C", "4C", "6C", "7C", "JC"], ["KS", "QS", "JS", "10S", "9S", "7S", "6S"]],
        "9H",
        leader=1,
    )
    await with_a_slow_cpu(world)
    board = await world.run(world.alice, "new", target=1000)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await world.fake.click(world.alice, world.board(), label="Start")).reply()
    await world.settle()
    assert (await world.snapshot()).to_act == 1
    bob_before, alice_before = mentions(world, world.bob.id), mentions(world, world.alice.id)
    assert len(bob_before) == 1  # the round's first turn, announced as it was dealt

    await world.run(world.bob, "leave")
    await world.settle()
    assert (await world.snapshot()).seats[1].is_cpu
    back = await world.run(world.bob, "join")
    assert back.ephemeral and "took your seat back" in back.content, back.content
    await world.settle()

    snapshot = await world.snapshot()
    assert snapshot.to_act == 1 and not snapshot.seats[1].is_cpu  # the CPU never moved: still bob's turn
    new = mentions(world, world.bob.id)[len(bob_before) :]
    assert len(new) == 1, f"bob was pinged {len(new)} times on taking his seat back: {new}"
    assert "bob took their seat back" in new[0] and "your turn" in new[0], new[0]
    assert mentions(world, world.alice.id) == alice_before
