"""A turn timeout fires, and at that moment the next player's move lands (with the bot's default CPU delay).

The service holds every automatic move (a timeout, a CPU's move) for up to 0.3 s before it hands it to the
publisher (``OutcomeFeed``, batch window ``min(0.3, EIGHTS_CPU_DELAY)``), while a person's move is published
at once (``TableCog.play_move``). A person's move committed inside that window is told before the automatic
move committed before it, and the outbox is told that every move before the person's is told already.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.e2e.conftest import World
from tests.e2e.race_steps import fire_turn_timeout, with_default_cpu_delay
from tests.e2e.test_hand_messages_e2e import two_people


def line_index(world: World, words: str) -> int:
    """Where the channel first says ``words``, in the order its messages and their lines read."""
    told = "\n".join(world.public_texts())
    if words not in told:
        raise AssertionError(f"no public line says {words!r}: {world.public_texts()}")
    return told.index(words)


async def test_the_timed_out_play_is_told_before_the_move_that_followed_it(world: World) -> None:
    await with_default_cpu_delay(world)
    await two_people(world, target=1000)
    # alice's time runs out: the referee plays for her (10♦) and it is bob's turn; bob's typed draw lands at
    # once (README: "Typed commands act on the table as it is").
    await fire_turn_timeout(world)
    drew = await world.run(world.bob, "draw")
    assert drew.ephemeral and "You drew" in drew.content
    await asyncio.sleep(0.5)  # past the service's batch window
    await world.settle()

    # Committed in this order: alice's timed-out play, then bob's draw. The channel must tell them in it
    # (README: "Every committed play is told once, in order").
    timed_out = line_index(world, "alice ran out of time")
    bob_drew = line_index(world, "bob drew")
    assert timed_out < bob_drew, (
        f"bob's draw was told before alice's timed-out play that came before it: {world.public_texts()}"
    )


async def test_a_restart_right_after_does_not_lose_the_timed_out_play(world: World) -> None:
    await with_default_cpu_delay(world)
    await two_people(world, target=1000)
    await fire_turn_timeout(world)
    drew = await world.run(world.bob, "draw")
    assert drew.ephemeral and "You drew" in drew.content
    await world.fake.wait_for(lambda: any("bob drew" in t for t in world.public_texts()), what="bob's line")
    # The bot is restarted (SIGTERM, README: "the move in flight finishes") right then.
    await world.restart()
    await asyncio.sleep(0.5)
    await world.settle()

    # alice's timed-out play was committed (it is in the move log) and must be told once, even across a
    # restart (README, "Every committed play is told once, in order"; a restart "first tells the channels
    # what its predecessor committed and had not told yet").
    assert world.bot is not None
    kinds = [move.action.get("kind") for move in await world.bot.store.moves(await world.table_id())]
    assert "timeout" in kinds
    texts = world.public_texts()
    assert any("alice ran out of time" in t for t in texts), f"alice's timed-out play was never told: {texts}"


async def test_a_cpu_move_is_told_before_the_move_that_followed_it(world: World) -> None:
    """The same with a CPU seat: the CPU moves, and the next person's typed move lands within 0.3 s."""
    await with_default_cpu_delay(world)
    world.service.seed_deals(1)
    board = await world.run(world.alice, "new", target=1000)
    await (await world.fake.click(world.alice, board, label="Add CPU")).callback()
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    table_id = await world.table_id()
    registry: Any = world.service._registry
    card = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    await (await world.fake.click(world.alice, hand, card["custom_id"])).reply()
    version = registry.get(table_id).version

    async def cpu_moved() -> bool:
        return bool(registry.get(table_id).version > version)

    await world.until(cpu_moved, "CPU 1's move")  # CPU 1 moved (after its 1 s): it is bob's turn
    assert (await world.snapshot()).to_act == 2
    drew = await world.run(world.bob, "draw")
    assert drew.ephemeral and "You drew" in drew.content
    await asyncio.sleep(0.5)
    await world.settle()

    # Committed in this order: CPU 1's play, then bob's draw; told in it (README: "in order").
    told = "\n".join(world.public_texts())
    assert told.index("CPU 1 played") < told.index("bob drew"), (
        f"bob's draw was told before CPU 1's play that came before it: {world.public_texts()}"
    )
