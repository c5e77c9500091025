"""A migrated PostgreSQL database of one test's own on the shared test server (``own_database``), so that the
test may ALTER DATABASE it (refuse connections, make it read-only) and terminate its sessions without
touching another test's; dropped at the end."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator

import asyncpg

from bot.store import open_store
from tests.backends import SERVER_URL, database_url, unreachable

__all__ = ["admin", "own_database", "terminate_bot"]


async def admin(sql: str, *args: object) -> object:
    """One statement on the server's maintenance database; its first value."""
    conn = await asyncpg.connect(SERVER_URL, timeout=5)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def own_database() -> AsyncIterator[tuple[str, str]]:
    """(name, url) of a new, migrated database of the caller's alone (skipped, or failed in CI, when the test
    server does not answer)."""
    name = f"falters_{secrets.token_hex(5)}"
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
        await admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        await admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


async def terminate_bot(name: str, *, pool_only: bool = False) -> int:
    """pg_terminate_backend on the bot's connections to database ``name`` (its pool's, named 'crazy-eights';
    and its shard claim's too unless ``pool_only``); how many."""
    pattern = "crazy-eights" if pool_only else "crazy-eights%"
    found = await admin(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
        "WHERE datname = $1 AND application_name LIKE $2 AND pid <> pg_backend_pid()",
        name,
        pattern,
    )
    assert isinstance(found, int)
    return found
