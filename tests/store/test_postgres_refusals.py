"""How the PostgreSQL store reports a server it cannot use, and how long its statements wait for a lock.

- A connection the server refuses, or cannot be opened at all, is an outage like a server that is down, and
  one in which no statement was sent: StoreRefusedError ("nothing changed", for certain; the service does not
  ask the database about such a commit). A server that refuses connections (`ALTER DATABASE …
  ALLOW_CONNECTIONS false`: SQLSTATE 55000) used to leave the store as asyncpg's raw
  ObjectNotInPrerequisiteStateError, a traceback and "Something went wrong" for the player.
- A statement whose connection breaks while it runs is not "refused": it may have been committed
  (StoreUnavailableError; the service asks the database whether it was stored).
- Every session of the store waits for a row or lock another session holds at most LOCK_TIMEOUT (SQLite's
  busy timeout), unless DATABASE_URL sets lock_timeout; the migrations wait for another process's migrating
  however long it takes (their advisory lock is subject to lock_timeout too).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.store import open_store
from bot.store import postgres as postgres_store
from bot.store.base import MoveCommit, StoreRefusedError, StoreUnavailableError
from bot.store.migrations import advisory_lock_key
from bot.store.postgres import PostgresStore
from tests.service.db_faults import TcpProxy
from tests.store.conftest import new_table
from tests.store.pg_own_database import admin, own_database, terminate_bot


@pytest.fixture
async def own_db() -> AsyncIterator[tuple[str, str]]:
    """(name, url) of a new, migrated database of this test alone."""
    async with own_database() as database:
        yield database


async def open_postgres(url: str, **options: object) -> PostgresStore:
    store = await open_store(url, **options)  # type: ignore[arg-type]
    assert isinstance(store, PostgresStore)
    return store


def a_move(table_id: int) -> MoveCommit:
    return MoveCommit(
        table_id,
        0,
        actor_id=1,
        action={"kind": "draw"},
        events=[],
        new_state={"phase": "playing"},
        deadline=None,
        now=200.0,
    )


async def setting(store: PostgresStore, name: str) -> str:
    async def show(conn: asyncpg.Connection) -> str:
        return str(await conn.fetchval(f"SHOW {name}"))

    return await store.run_in_connection(show)


async def test_a_database_refusing_connections_is_refused_not_a_raw_driver_error(
    own_db: tuple[str, str],
) -> None:
    """ALLOW_CONNECTIONS false and the store's sessions terminated: a read and a commit both raise
    StoreRefusedError naming the server's refusal; once it accepts connections again the store works."""
    name, url = own_db
    store = await open_postgres(url)
    try:
        table_id = await new_table(store)
        await admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        try:
            assert await terminate_bot(name, pool_only=True) >= 1
            await asyncio.sleep(0.2)
            with pytest.raises(StoreRefusedError, match="ObjectNotInPrerequisiteStateError"):
                await store.get_state(table_id)
            with pytest.raises(StoreRefusedError):
                await store.commit_move(a_move(table_id))
        finally:
            await admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        assert await store.commit_move(a_move(table_id)) == 1
    finally:
        await store.close()


async def test_a_server_out_of_reach_is_refused(pg_url: str) -> None:
    """The server behind a proxy that is cut (every connection dropped, new ones refused): StoreRefusedError,
    and the store works again once the proxy is back."""
    proxy = TcpProxy(pg_url)
    await proxy.start()
    try:
        store = await open_postgres(proxy.url)
        try:
            table_id = await new_table(store)
            await proxy.cut()
            with pytest.raises(StoreRefusedError):
                await store.commit_move(a_move(table_id))
            await proxy.restore()
            assert await store.commit_move(a_move(table_id)) == 1
        finally:
            await store.close()
    finally:
        await proxy.close()


async def test_a_statement_whose_connection_breaks_while_it_runs_is_not_refused(pg_url: str) -> None:
    """A move waiting for a row another session holds, its session terminated meanwhile: StoreUnavailableError
    (the move may have been committed as far as the bot can tell), not StoreRefusedError."""
    store = await open_postgres(pg_url)
    holder = await asyncpg.connect(pg_url)
    try:
        table_id = await new_table(store)
        tx = holder.transaction()
        await tx.start()
        await holder.fetch("SELECT version FROM game_state WHERE table_id = $1 FOR UPDATE", table_id)
        try:
            move = asyncio.create_task(store.commit_move(a_move(table_id)))
            await asyncio.sleep(0.3)
            assert not move.done()
            killed = await holder.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND application_name = 'crazy-eights' "
                "AND wait_event_type = 'Lock'"
            )
            assert killed == 1
            with pytest.raises(StoreUnavailableError) as failed:
                await move
            assert not isinstance(failed.value, StoreRefusedError), failed.value
        finally:
            await tx.rollback()
    finally:
        await holder.close()
        await store.close()


async def test_sessions_wait_for_a_lock_at_most_the_lock_timeout_unless_the_url_sets_one(pg_url: str) -> None:
    store = await open_postgres(pg_url)
    try:
        assert await setting(store, "lock_timeout") == postgres_store.LOCK_TIMEOUT == "5s"
    finally:
        await store.close()
    store = await open_postgres(f"{pg_url}?lock_timeout=250ms")
    try:
        assert await setting(store, "lock_timeout") == "250ms"
    finally:
        await store.close()


async def test_a_move_on_a_row_held_past_the_lock_timeout_is_refused_as_unavailable(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The row held by another session longer than the lock timeout (here 200 ms): the move fails with
    StoreUnavailableError after about that long, and changed nothing."""
    monkeypatch.setattr(postgres_store, "LOCK_TIMEOUT", "200ms")
    store = await open_postgres(pg_url)
    holder = await asyncpg.connect(pg_url)
    try:
        table_id = await new_table(store)
        tx = holder.transaction()
        await tx.start()
        await holder.fetch("SELECT version FROM game_state WHERE table_id = $1 FOR UPDATE", table_id)
        try:
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(StoreUnavailableError, match="LockNotAvailableError"):
                await store.commit_move(a_move(table_id))
            assert loop.time() - started < 2.0
        finally:
            await tx.rollback()
        state = await store.get_state(table_id)
        assert state is not None and state.version == 0
    finally:
        await holder.close()
        await store.close()


async def test_a_migration_waits_for_another_process_migrating_past_the_lock_timeout(
    pg_schema_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the schema's migration lock for longer than the lock timeout (here 100 ms): this
    store's migrate waits for it, then migrates; its connection has the lock timeout again afterwards (the
    pool's RESET ALL)."""
    monkeypatch.setattr(postgres_store, "LOCK_TIMEOUT", "100ms")
    store = await open_postgres(pg_schema_url, pool_size=1)
    other = await asyncpg.connect(pg_schema_url)
    try:
        schema = str(await other.fetchval("SELECT current_schema()"))
        await other.execute("SELECT pg_advisory_lock($1)", advisory_lock_key(schema))
        migrating = asyncio.create_task(store.migrate())
        await asyncio.sleep(0.6)
        assert not migrating.done(), migrating
        await other.execute("SELECT pg_advisory_unlock($1)", advisory_lock_key(schema))
        assert await asyncio.wait_for(migrating, 60.0) > 0
        assert await setting(store, "lock_timeout") == "100ms"
    finally:
        await other.close()
        await store.close()
