"""Fixtures of the shards-on-PostgreSQL tests: a migrated database of each test's own (dropped at its end)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.store import open_store
from tests.backends import SERVER_URL, database_url, unreachable


async def admin(sql: str) -> None:
    conn = await asyncpg.connect(SERVER_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture
async def own_db() -> AsyncIterator[tuple[str, str]]:
    """(name, url) of a new, migrated database of this test alone."""
    name = f"shards_test_{secrets.token_hex(5)}"
    try:
        await admin(f"CREATE DATABASE {name}")
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        unreachable(error)
    url = database_url(name)
    try:
        store = await open_store(url)
        try:
            await store.migrate()
        finally:
            await store.close()
        yield name, url
    finally:
        await admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
async def empty_db() -> AsyncIterator[tuple[str, str]]:
    """(name, url) of a new, empty (unmigrated) database of this test alone."""
    name = f"shards_test_{secrets.token_hex(5)}"
    try:
        await admin(f"CREATE DATABASE {name}")
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        unreachable(error)
    try:
        yield name, database_url(name)
    finally:
        await admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
