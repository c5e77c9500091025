"""A slow database for the end-to-end tests: one of the store's methods waits before it answers, as a SQLite
file held by another process for a few seconds or a PostgreSQL statement waiting on a lock would (it does not
depend on the backend)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.conftest import World

SLOW = 2.6  # seconds: past the deferral watchdog's 2 s, within Discord's 3 s and a bit


def slow_store_method(world: World, monkeypatch: pytest.MonkeyPatch, name: str, delay: float = SLOW) -> None:
    """The store's ``name`` waits ``delay`` seconds before it answers (a database busy or locked)."""
    assert world.bot is not None
    store = world.bot.store
    real = getattr(store, name)

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(delay)
        return await real(*args, **kwargs)

    monkeypatch.setattr(store, name, slow)
