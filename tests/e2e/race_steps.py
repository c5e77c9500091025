"""Steps the race tests share (not tests themselves)."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage

# The bot's default EIGHTS_CPU_DELAY (README, Configuration): the service then gathers automatic moves (CPU
# moves, timeouts) for min(0.3 s, the delay) before handing them on (bot/client.py, _build_features).
DEFAULT_CPU_DELAY = 1.0


async def with_default_cpu_delay(world: World) -> None:
    """Restart the world's bot with the default CPU delay instead of the tests' 0 (everything else as the
    e2e fixture has it)."""
    base = World.config

    def config() -> Any:
        return dataclasses.replace(base(world), cpu_delay=DEFAULT_CPU_DELAY)

    world.config = config  # type: ignore[method-assign]
    await world.restart()


async def two_people(world: World, **options: object) -> FakeMessage:
    """alice (host) and bob at a classic table, started; alice leads with a playable card (seed 1: 10♦, 7♥,
    J♥ playable). Returns alice's hand message."""
    world.service.seed_deals(1)
    board = await world.run(world.alice, "new", **options)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    assert "Your turn" in hand.content and any(":play:" in b["custom_id"] for b in hand.buttons)
    return hand


async def fire_turn_timeout(world: World) -> None:
    """The turn timer of the channel's table runs out now: its handler run as its timer runs it (as
    tests/e2e/test_hand_messages_e2e.py does; the e2e tests use real time)."""
    table_id = await world.table_id()
    registry: Any = world.service._registry
    live = registry.get(table_id)
    assert live is not None
    scheduler = registry.scheduler
    await scheduler._guarded(scheduler._on_turn_timeout, table_id, live.version)()
