"""Retention of closed matches' move logs in the store (issue 26): only closed tables older than the cutoff
lose their moves, at most a batch per call; results and statistics stay; the store tells which logs are
gone; an open table's log is still append-only; SQLite gives the space back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import MatchResult, MoveCommit, RankingEntry, Store
from bot.store.sqlite import SqliteStore
from tests.backends import raw_execute
from tests.store.conftest import GUILD, HOST, new_table


async def play(store: Store, table_id: int, moves: int, *, finish_at: float | None = None) -> None:
    """``moves`` moves at times 1, 2, …; with ``finish_at`` the last one finishes the match then."""
    for version in range(moves):
        last = version == moves - 1 and finish_at is not None
        await store.commit_move(
            MoveCommit(
                table_id,
                version,
                actor_id=HOST,
                action={"n": version, "padding": "x" * 400},
                events=[{"kind": "played", "n": version}],
                new_state={"n": version + 1},
                deadline=None,
                now=finish_at if last else float(version + 1),
                status="finished" if last else None,
                match_result=MatchResult("classic", 1, [RankingEntry(0, HOST, "Host", 1, 0)])
                if last
                else None,
            )
        )


def integrity_error(store: Store) -> type[Exception]:
    if isinstance(store, SqliteStore):
        return sqlite3.IntegrityError
    import asyncpg

    return asyncpg.IntegrityConstraintViolationError


async def test_prunes_only_closed_tables_older_than_the_cutoff_in_batches(store: Store) -> None:
    old = await new_table(store, channel_id=1)
    await play(store, old, 12, finish_at=1_000.0)
    recent = await new_table(store, channel_id=2)
    await play(store, recent, 5, finish_at=5_000.0)
    still_open = await new_table(store, channel_id=3)
    await play(store, still_open, 7)

    assert await store.prune_closed_moves(2_000.0, 5, now=9_000.0) == 5  # one batch, not more
    assert len(await store.moves(old)) == 7 and await store.moves_pruned_at(old) is None
    assert await store.prune_closed_moves(2_000.0, 5, now=9_000.0) == 5
    assert await store.prune_closed_moves(2_000.0, 5, now=9_000.0) == 2  # the rest: the log is empty now
    assert await store.prune_closed_moves(2_000.0, 5, now=9_000.0) == 0  # nothing left
    assert await store.moves(old) == []
    assert await store.moves_pruned_at(old) == 9_000.0

    # Kept: the recent match's log, the open table's, and every result and statistic.
    assert len(await store.moves(recent)) == 5 and await store.moves_pruned_at(recent) is None
    assert len(await store.moves(still_open)) == 7 and await store.moves_pruned_at(still_open) is None
    assert [entry.user_id for entry in await store.match_ranking(old)] == [HOST]
    stats = await store.player_stats(GUILD, HOST)
    assert stats is not None and stats.matches_played == 2
    table = await store.get_table(old)
    assert table is not None and table.status == "finished"
    state = await store.get_state(old)
    assert state is not None and state.version == 12  # the last state stays: the log is what went

    # The open table's log is still append-only.
    with pytest.raises(integrity_error(store), match="append-only"):
        await raw_execute(store, f"DELETE FROM moves WHERE table_id = {still_open}")


async def test_sqlite_gives_the_space_back(tmp_path: Path) -> None:
    store = await SqliteStore.open(str(tmp_path / "space.sqlite3"))
    try:
        await store.migrate()
        assert (await store.run_in_connection(lambda c: c.execute("PRAGMA auto_vacuum").fetchone()))[0] == 2
        for channel in range(10):
            table_id = await new_table(store, channel_id=channel)
            await play(store, table_id, 40, finish_at=100.0)

        def pages(conn: sqlite3.Connection) -> tuple[int, int]:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return (
                conn.execute("PRAGMA page_count").fetchone()[0],
                conn.execute("PRAGMA freelist_count").fetchone()[0],
            )

        before, _ = await store.run_in_connection(pages)
        while await store.prune_closed_moves(1_000.0, 100, now=2_000.0):
            pass
        await store.reclaim_space()
        after, free = await store.run_in_connection(pages)
        assert free == 0 and after < before * 0.6, (before, after)
        assert (tmp_path / "space.sqlite3").stat().st_size == after * 4096
    finally:
        await store.close()
