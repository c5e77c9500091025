from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.store import SeatRecord, Store
from bot.store.sqlite import SqliteStore

GUILD = 1000
CHANNEL = 2000
HOST = 3000


@pytest.fixture
def store(any_store: Store) -> Store:
    """The store of each backend (the tests run once per backend), migrated and empty."""
    return any_store


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    """For what only SQLite has (its file, WAL, online backup)."""
    opened = await SqliteStore.open(str(tmp_path / "bot.sqlite3"))
    await opened.migrate()
    yield opened
    await opened.close()


def host_seat(user_id: int = HOST, name: str = "Host") -> SeatRecord:
    return SeatRecord(position=0, user_id=user_id, display_name=name, joined_at=1.0)


async def new_table(
    store: Store,
    *,
    guild_id: int = GUILD,
    channel_id: int = CHANNEL,
    host: SeatRecord | None = None,
    state: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    now: float = 100.0,
) -> int:
    table = await store.create_table(
        guild_id=guild_id,
        channel_id=channel_id,
        host=host or host_seat(),
        ruleset={"name": "classic", "target": 100},
        options=options if options is not None else {"preset": "classic"},
        turn_timeout=60.0,
        state=state if state is not None else {"phase": "lobby"},
        deadline=now + 600,
        now=now,
    )
    return table.id
