"""The PostgreSQL store vacuums its own tables when the server's autovacuum is off: every match result
rewrites its players' statistics rows (and a skill-ordered index entry), and nothing else would clear the
old ones."""

from __future__ import annotations

import asyncio
import logging
import time
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.store import postgres
from bot.store.postgres import PostgresStore
from bot.store.urls import parse_database_url
from tests.store.test_ratings import finish

PLAYERS = [(11, None, 1), (12, None, 2), (13, None, 3)]


async def open_schema_store(url: str, *, vacuum: bool | None, pool_size: int = 10) -> PostgresStore:
    store = await PostgresStore.open(parse_database_url(url), vacuum=vacuum, pool_size=pool_size)
    await store.migrate()
    return store


async def play_matches(store: PostgresStore, count: int, first: int = 0) -> None:
    for match in range(first, first + count):
        await finish(store, 5000 + match, PLAYERS, now=1000.0 + match)


async def table_stats(url: str, table: str) -> tuple[int, int, int]:
    """The server's statistics of one table of the URL's schema: dead rows, live rows, manual vacuums. Read
    on a new connection, after the writers' connections are closed, so that their counts have reached the
    server's shared statistics."""
    conn = await asyncpg.connect(url)
    try:
        row = await conn.fetchrow(
            "SELECT n_dead_tup, n_live_tup, vacuum_count FROM pg_stat_user_tables "
            "WHERE schemaname = current_schema() AND relname = $1",
            table,
        )
        assert row is not None
        return int(row[0]), int(row[1]), int(row[2])
    finally:
        await conn.close()


async def rewritten_stats(url: str, matches: int) -> None:
    """``matches`` results of the same three players: their statistics rows rewritten as many times."""
    store = await open_schema_store(url, vacuum=False)
    try:
        await play_matches(store, matches)
    finally:
        await store.close()  # its connections end, and with them their statistics reach the server
    dead, live, vacuums = await table_stats(url, "player_stats")
    assert (live, vacuums) == (3, 0)
    assert dead >= matches * 2  # old versions of the three rows, well past autovacuum's 50 + 20% of 3


async def test_a_store_that_vacuums_clears_the_rewritten_rows_once(pg_schema_url: str) -> None:
    await rewritten_stats(pg_schema_url, 120)
    store = await open_schema_store(pg_schema_url, vacuum=True)
    try:
        done = await store.vacuum()
        assert "player_stats" in done
        assert "game_tables" in done  # 120 tables made and finished: past the analyze threshold
        assert await store.vacuum() == []  # nothing is due any more
        # What the tables hold is unchanged: the three players, each with their 120 matches.
        for user in (11, 12, 13):
            stats = await store.player_stats(1000, user)
            assert stats is not None and stats.matches_played == 120
    finally:
        await store.close()
    dead, live, vacuums = await table_stats(pg_schema_url, "player_stats")
    assert (dead, live, vacuums) == (0, 3, 1)


async def test_vacuuming_takes_no_connection_of_the_pool(pg_schema_url: str) -> None:
    # A VACUUM may take minutes on a big table: the moves keep the pool (here its only connection, held).
    await rewritten_stats(pg_schema_url, 80)
    store = await open_schema_store(pg_schema_url, vacuum=True, pool_size=1)
    held, release = asyncio.Event(), asyncio.Event()

    async def hold(conn: asyncpg.Connection) -> None:
        held.set()
        await release.wait()

    holder = asyncio.create_task(store.run_in_connection(hold))
    try:
        await held.wait()
        assert "player_stats" in await asyncio.wait_for(store.vacuum(), 30)
    finally:
        release.set()
        await holder
        await store.close()


async def test_a_store_that_does_not_vacuum_leaves_the_tables_to_autovacuum(pg_schema_url: str) -> None:
    await rewritten_stats(pg_schema_url, 80)
    store = await open_schema_store(pg_schema_url, vacuum=False)
    try:
        assert await store.vacuum() == []
        await store.reclaim_space()
        await play_matches(store, 5, first=80)
        assert store._vacuuming is None  # no look was started by the moves either
    finally:
        await store.close()
    dead, _, vacuums = await table_stats(pg_schema_url, "player_stats")
    assert vacuums == 0 and dead >= 160


async def test_reclaiming_space_after_pruning_vacuums_when_autovacuum_is_off(pg_schema_url: str) -> None:
    await rewritten_stats(pg_schema_url, 80)
    store = await open_schema_store(pg_schema_url, vacuum=True)
    try:
        await store.reclaim_space()
    finally:
        await store.close()
    dead, _, vacuums = await table_stats(pg_schema_url, "player_stats")
    assert (dead, vacuums) == (0, 1)


async def test_the_moves_start_a_look_every_so_many(
    pg_schema_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres, "VACUUM_EVERY", 40)
    store = await open_schema_store(pg_schema_url, vacuum=True)
    looks = 0
    vacuum = store.vacuum

    async def counted() -> list[str]:
        nonlocal looks
        looks += 1
        return await vacuum()

    monkeypatch.setattr(store, "vacuum", counted)
    try:
        # The writers' connections report their counts to the server at most once a second: play on until a
        # look has found the rows due (within 30 s), never more than one look under way at a time.
        played, started = 0, time.monotonic()
        while (await table_stats(pg_schema_url, "player_stats"))[2] == 0:
            assert time.monotonic() - started < 30, f"no vacuum after {played} matches and {looks} looks"
            await play_matches(store, 40, first=played)
            played += 40
            await asyncio.sleep(0.2)
        # The first move looks at once (a restart may find a backlog), then every 40th: with two moves a
        # match (the table's creation is no move), one look for each 40 moves, or fewer while one is running.
        assert 1 <= looks <= 1 + played // 40
    finally:
        await store.close()
    assert store._vacuuming is None


async def test_another_process_at_it_makes_the_store_skip_its_turn(pg_schema_url: str) -> None:
    await rewritten_stats(pg_schema_url, 80)
    store = await open_schema_store(pg_schema_url, vacuum=True)
    other = await asyncpg.connect(pg_schema_url)  # a second shard process's session, holding the lock
    try:
        await other.execute("SELECT pg_advisory_lock(hashtext(current_schema() || '/crazy-eights-vacuum'))")
        assert await store.vacuum() == []
        await other.execute("SELECT pg_advisory_unlock_all()")
        assert "player_stats" in await store.vacuum()
    finally:
        await other.close()
        await store.close()


async def test_by_default_the_store_vacuums_exactly_when_the_servers_autovacuum_is_off(
    pg_schema_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    conn = await asyncpg.connect(pg_schema_url)
    try:
        off = await conn.fetchval("SELECT setting <> 'on' FROM pg_settings WHERE name = 'autovacuum'")
    finally:
        await conn.close()
    await rewritten_stats(pg_schema_url, 80)
    store = await open_schema_store(pg_schema_url, vacuum=None)
    try:
        with caplog.at_level(logging.WARNING, logger="bot.store.postgres"):
            first = await store.vacuum()
            await store.vacuum()
    finally:
        await store.close()
    warnings = [
        record.getMessage() for record in caplog.records if "autovacuum is off" in record.getMessage()
    ]
    if off:
        assert "player_stats" in first
        assert len(warnings) == 1  # said once, not at every look
        assert urlsplit(pg_schema_url).hostname not in warnings[0]
    else:
        assert first == [] and warnings == []
