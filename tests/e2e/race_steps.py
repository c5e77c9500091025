"""Steps the race tests share (not tests themselves)."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.e2e.conftest import World
from tests.e2e.test_hand_messages_e2e import fire

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


async def fire_turn_timeout(world: World) -> None:
    """The turn timer of the channel's table runs out now (the e2e tests use real time)."""
    await fire(world, "_on_turn_timeout")
