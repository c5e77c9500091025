"""Both store backends for the tests: SQLite on a temporary file, and PostgreSQL in a database of its own.

The PostgreSQL server is EIGHTS_TEST_POSTGRES_URL (default ``postgresql://postgres@127.0.0.1:5432/test``, the
project's machines: trust authentication). A test session creates one database with a unique name, migrates
it once, empties its tables (TRUNCATE) after each test, and drops it at the end, so runs that share a server
never see each other's data. When no server answers, PostgreSQL tests are skipped with the reason; with
CI=true (.ci/run, CI services) they fail instead, because CI must test both backends.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from bot.store import Store, open_store
from bot.store.statements import DATA_TABLES

SERVER_URL = os.environ.get("EIGHTS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgresql")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def database_url(name: str, *, schema: str | None = None) -> str:
    """The test server's URL with another database (and schema) in it."""
    parts = urlsplit(SERVER_URL)
    query = f"search_path={schema}" if schema else ""
    return urlunsplit(parts._replace(path=f"/{name}", query=query))


async def _admin(sql: str) -> None:
    conn = await asyncpg.connect(SERVER_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def unreachable(error: BaseException) -> None:
    """Skip (locally) or fail (in CI) because the PostgreSQL test server does not answer."""
    reason = (
        f"PostgreSQL test server not reachable at {SERVER_URL} ({type(error).__name__}: {error}); "
        "start one or set EIGHTS_TEST_POSTGRES_URL"
    )
    if in_ci():
        pytest.fail(f"CI requires the PostgreSQL tests: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """The URL of a migrated database made for this test session (dropped at its end)."""
    name = f"eights_test_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        asyncio.run(_admin(f"CREATE DATABASE {name}"))
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        unreachable(error)
    url = database_url(name)

    async def migrate() -> None:
        store = await open_store(url)
        try:
            await store.migrate()
        finally:
            await store.close()

    try:
        asyncio.run(migrate())
        yield url
    finally:
        asyncio.run(_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


async def empty_tables(url: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"TRUNCATE {', '.join(DATA_TABLES)} RESTART IDENTITY CASCADE")
    finally:
        await conn.close()


@pytest.fixture
async def pg_url(pg_database: str) -> AsyncIterator[str]:
    """The session's PostgreSQL database, empty at the start of the test."""
    yield pg_database
    await empty_tables(pg_database)


@pytest.fixture
async def pg_schema_url(pg_database: str) -> AsyncIterator[str]:
    """A URL whose search_path is a new, empty schema of the session's database (for migration tests)."""
    schema = f"s_{secrets.token_hex(6)}"
    conn = await asyncpg.connect(pg_database)
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
        yield database_url(urlsplit(pg_database).path.lstrip("/"), schema=schema)
    finally:
        await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        await conn.close()


@pytest.fixture(params=BACKENDS)
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL of each backend, migrated and empty: a SQLite file, or the session's PostgreSQL
    database (emptied after the test)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'eights.sqlite3'}"
    return str(request.getfixturevalue("pg_url"))


async def open_migrated(url: str) -> Store:
    store = await open_store(url)
    try:
        await store.migrate()
    except BaseException:
        await store.close()
        raise
    return store


@pytest.fixture
async def any_store(backend_url: str) -> AsyncIterator[Store]:
    """The store of each backend, migrated."""
    store = await open_migrated(backend_url)
    yield store
    await store.close()


async def raw_execute(store: Store, sql: str) -> None:
    """Run one SQL statement on the store's own connection, bypassing its methods (to test what the schema
    itself refuses)."""
    from bot.store.postgres import PostgresStore
    from bot.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        await store.run_in_connection(lambda conn: conn.execute(sql))
    else:
        assert isinstance(store, PostgresStore)
        await store.run_in_connection(lambda conn: conn.execute(sql))


def integrity_error(store: Store) -> type[Exception]:
    """The exception the store's driver raises when the schema refuses a write."""
    import sqlite3

    from bot.store.sqlite import SqliteStore

    return (
        sqlite3.IntegrityError
        if isinstance(store, SqliteStore)
        else asyncpg.IntegrityConstraintViolationError
    )
