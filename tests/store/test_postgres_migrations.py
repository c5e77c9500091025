"""PostgreSQL's migrations: the twins of the SQLite files, applied under an advisory lock, with the same
refusals. Each test works in a new schema of the session's test database."""

from __future__ import annotations

import asyncio
import multiprocessing
from pathlib import Path

import asyncpg
import pytest

from bot.store import MigrationError, parse_database_url, postgres
from bot.store.migrations import (
    DEFAULT_MIGRATIONS_DIR,
    DEFAULT_POSTGRES_MIGRATIONS_DIR,
    advisory_lock_key,
    discover,
)
from bot.store.postgres import PostgresStore
from tests.store.test_migrations import copy_migrations as copy_sqlite_style

SQLITE = discover(DEFAULT_MIGRATIONS_DIR)
REAL = discover(DEFAULT_POSTGRES_MIGRATIONS_DIR)
LATEST = REAL[-1].version


def copy_migrations(destination: Path, upto: int | None = None) -> Path:
    return copy_sqlite_style(destination, upto, DEFAULT_POSTGRES_MIGRATIONS_DIR)


async def migrate(url: str, migrations_dir: Path = DEFAULT_POSTGRES_MIGRATIONS_DIR) -> int:
    store = await PostgresStore.open(parse_database_url(url), migrations_dir=migrations_dir)
    try:
        return await store.migrate()
    finally:
        await store.close()


async def fetch(url: str, sql: str) -> list[tuple[object, ...]]:
    conn = await asyncpg.connect(url)
    try:
        return [tuple(row) for row in await conn.fetch(sql)]
    finally:
        await conn.close()


async def schema(url: str) -> set[tuple[object, ...]]:
    """Every table, column, index and trigger of the URL's schema."""
    columns = await fetch(
        url,
        "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
        "WHERE table_schema = current_schema()",
    )
    indexes = await fetch(
        url,
        "SELECT indexname, replace(indexdef, schemaname || '.', '') FROM pg_indexes "
        "WHERE schemaname = current_schema()",
    )
    triggers = await fetch(
        url, "SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = current_schema()"
    )
    return {*columns, *indexes, *triggers}


def test_both_backends_have_the_same_numbered_migrations() -> None:
    assert [m.name for m in REAL] == [m.name for m in SQLITE]
    assert [m.version for m in REAL] == list(range(1, len(REAL) + 1))


async def test_fresh_schema_gets_every_migration_recorded(pg_schema_url: str) -> None:
    assert await migrate(pg_schema_url) == LATEST
    ledger = await fetch(pg_schema_url, "SELECT version, name, checksum FROM schema_migrations ORDER BY 1")
    assert ledger == [(m.version, m.name, m.checksum) for m in REAL]
    before = await schema(pg_schema_url)
    assert await migrate(pg_schema_url) == LATEST
    assert await schema(pg_schema_url) == before


@pytest.mark.parametrize("start", range(1, LATEST))
async def test_upgrade_from_every_earlier_version(
    pg_schema_url: str, pg_database: str, tmp_path: Path, start: int
) -> None:
    assert await migrate(pg_schema_url, copy_migrations(tmp_path / "old", upto=start)) == start
    conn = await asyncpg.connect(pg_schema_url)
    await conn.execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')")
    await conn.close()
    assert await migrate(pg_schema_url) == LATEST
    # The session's database was migrated from nothing: the upgraded schema is the same.
    assert await schema(pg_schema_url) == await schema(pg_database)
    assert await fetch(pg_schema_url, "SELECT value FROM meta WHERE key = 'kept'") == [("yes",)]


async def test_unknown_and_changed_migrations_are_refused(pg_schema_url: str, tmp_path: Path) -> None:
    newer = copy_migrations(tmp_path / "newer")
    future = f"{LATEST + 1:04d}_from_the_future.sql"
    (newer / future).write_text("CREATE TABLE from_the_future (id INTEGER PRIMARY KEY);\n")
    assert await migrate(pg_schema_url, newer) == LATEST + 1
    with pytest.raises(MigrationError, match="does not know"):
        await migrate(pg_schema_url)
    (newer / future).write_text("CREATE TABLE from_the_future (id BIGINT PRIMARY KEY);\n")
    with pytest.raises(MigrationError, match="checksum"):
        await migrate(pg_schema_url, newer)


async def test_a_failing_migration_is_rolled_back_whole(pg_schema_url: str, tmp_path: Path) -> None:
    code = copy_migrations(tmp_path / "code")
    broken = code / f"{LATEST + 1:04d}_broken.sql"
    broken.write_text("CREATE TABLE half_done (id INTEGER);\nINSERT INTO no_such_table VALUES (1);\n")
    with pytest.raises(MigrationError, match="rolled back"):
        await migrate(pg_schema_url, code)
    assert await fetch(pg_schema_url, "SELECT to_regclass('half_done')") == [(None,)]
    assert await fetch(pg_schema_url, "SELECT COUNT(*) FROM schema_migrations") == [(LATEST,)]


def _migrate_in_process(url: str, results: multiprocessing.Queue) -> None:
    results.put(asyncio.run(migrate(url)))


async def test_processes_migrating_at_once_apply_each_migration_once(pg_schema_url: str) -> None:
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue = context.Queue()
    workers = [context.Process(target=_migrate_in_process, args=(pg_schema_url, results)) for _ in range(3)]
    for process in workers:
        process.start()
    versions = await asyncio.to_thread(lambda: [results.get(timeout=60) for _ in workers])
    for process in workers:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert versions == [LATEST] * 3
    ledger = await fetch(pg_schema_url, "SELECT version FROM schema_migrations ORDER BY 1")
    assert ledger == [(m.version,) for m in REAL]


def test_the_wheel_ships_the_postgres_migrations() -> None:
    pyproject = (DEFAULT_MIGRATIONS_DIR.parent / "pyproject.toml").read_text()
    assert '"share/crazy-eights-bot/migrations/postgres" = ["migrations/postgres/*.sql"]' in pyproject


async def test_a_process_starting_beside_a_long_migration_waits_past_the_statement_limit(
    pg_schema_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "processes starting at once wait for each other (an advisory lock)". The pool's limit on a
    statement (a minute; 0.5 s here) must not end that wait: a big deployment's data migration takes
    longer."""
    monkeypatch.setattr(postgres, "COMMAND_TIMEOUT", 0.5)
    store = await PostgresStore.open(parse_database_url(pg_schema_url))
    first = await asyncpg.connect(parse_database_url(pg_schema_url).url)
    try:
        async with store._pool.acquire() as conn:  # the key of the schema the store migrates
            key = advisory_lock_key(str(await conn.fetchval("SELECT current_schema()")))
        await first.execute("SELECT pg_advisory_lock($1)", key)  # the first process, migrating
        waiting = asyncio.create_task(store.migrate())
        await asyncio.sleep(1.5)  # three times the statement limit
        assert not waiting.done(), waiting.exception()
        await first.execute("SELECT pg_advisory_unlock($1)", key)
        assert await asyncio.wait_for(waiting, 30) == LATEST
    finally:
        await first.close()
        await store.close()
