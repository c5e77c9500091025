"""Migration 0006 on both backends: partnership matches recorded before places were by side (the losing
partners 3rd) read as the final ranking showed them (2nd), with the players' best and last finishes; other
matches keep their places."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.store import Store, parse_database_url
from bot.store.migrations import DEFAULT_MIGRATIONS_DIR, DEFAULT_POSTGRES_MIGRATIONS_DIR
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.backends import BACKENDS
from tests.store.conftest import GUILD
from tests.store.test_migrations import copy_migrations
from tests.store.test_store import finish_match

BEFORE = 5  # the schema version whose code recorded places among seats
PARTNERSHIP = {"partnership": True}


async def open_at(backend: str, tmp_path: Path, pg_schema_url: str | None, upto: int | None) -> Store:
    if backend == "sqlite":
        source = DEFAULT_MIGRATIONS_DIR
        folder = source if upto is None else copy_migrations(tmp_path / "old", upto, source)
        store: Store = await SqliteStore.open(str(tmp_path / "old.sqlite3"), migrations_dir=folder)
    else:
        assert pg_schema_url is not None
        source = DEFAULT_POSTGRES_MIGRATIONS_DIR
        folder = source if upto is None else copy_migrations(tmp_path / "old_pg", upto, source)
        store = await PostgresStore.open(parse_database_url(pg_schema_url), migrations_dir=folder)
    version = await store.migrate()
    assert upto is None or version == upto
    return store


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """The backend, and for PostgreSQL an empty schema of its own (migrated here from nothing)."""
    if request.param == "sqlite":
        return "sqlite", None
    return "postgresql", str(request.getfixturevalue("pg_schema_url"))


async def test_old_partnership_places_are_read_by_side(
    database: tuple[str, str | None], tmp_path: Path
) -> None:
    backend, pg = database
    old = await open_at(backend, tmp_path, pg, BEFORE)
    try:
        # 12 was 3rd of four in a classic match, then lost a partnership; 15 lost one, then was 3rd of four.
        await finish_match(old, 1, [(11, 1, 0), (12, 3, 9), (13, 2, 5), (14, 4, 20)], now=1.0)
        partnership = await finish_match(
            old, 2, [(11, 1, 0), (12, 3, 30), (13, 1, 0), (15, 3, 30)], now=2.0, house_rules=PARTNERSHIP
        )
        await finish_match(old, 3, [(16, 1, 0), (17, 2, 4), (15, 3, 8)], now=3.0)
        tie = await finish_match(
            old, 4, [(16, 1, 10), (17, 1, 10), (18, 1, 10), (19, 1, 10)], now=4.0, house_rules=PARTNERSHIP
        )
    finally:
        await old.close()
    store = await open_at(backend, tmp_path, pg, None)
    try:
        assert [e.place for e in await store.match_ranking(partnership)] == [1, 1, 2, 2]
        assert [e.place for e in await store.match_ranking(tie)] == [1, 1, 1, 1]
        history = {m.table_id: m for m in await store.recent_matches(GUILD, limit=10)}
        assert [e.place for e in history[partnership].ranking] == [1, 1, 2, 2]
        assert sorted(e.place for e in history[partnership - 1].ranking) == [1, 2, 3, 4]  # not a partnership
        found = {user: await store.player_stats(GUILD, user) for user in (11, 12, 14, 15, 16)}
        finishes = {user: (s.best_place, s.last_place) for user, s in found.items() if s is not None}
        assert finishes == {11: (1, 1), 12: (2, 2), 14: (4, 4), 15: (2, 3), 16: (1, 1)}
    finally:
        await store.close()
