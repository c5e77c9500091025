"""Steps the race tests share (not tests themselves)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_hand_messages_e2e import fire
from tests.fakediscord import FakeMessage
from tests.fakediscord.interactions import CHANNEL_MESSAGE, InteractionHandle

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


def slow_commits(world: World, monkeypatch: pytest.MonkeyPatch, delay: float = 0.05) -> None:
    """Every commit takes ``delay`` longer: racing requests all reach the bot before the first is stored."""
    assert world.bot is not None
    store = world.bot.store
    commit = store.commit_move

    async def slow_commit(*args: Any, **kwargs: Any) -> int:
        await asyncio.sleep(delay)
        return await commit(*args, **kwargs)

    monkeypatch.setattr(store, "commit_move", slow_commit)


def private_answer(handle: InteractionHandle) -> FakeMessage | None:
    """The new private message an interaction was answered with (its response, or its first follow-up)."""
    if handle.callback_type == CHANNEL_MESSAGE and handle.record.original is not None:
        return handle.record.original
    private = [m for m in handle.record.followups if m.ephemeral]
    return private[0] if private else None


def public_count(world: World, text: str) -> int:
    return sum(line.count(text) for line in world.public_texts())


def no_trace(caplog: pytest.LogCaptureFixture, world: World) -> None:
    """Nobody was answered "Something went wrong", nothing was logged as an unexpected error."""
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    for user in (world.alice, world.bob, world.carol):
        for message in world.fake.ephemeral_messages(user):
            assert "Something went wrong" not in message.content, message.content
