"""README, *Database size and retention*: "Set MOVE_LOG_RETENTION_DAYS (e.g. 90) to delete the move logs of
matches closed longer ago than that. The bot does it itself, in batches of 500 moves ...". README, *Shards as
separate processes*: a big deployment runs several processes on one PostgreSQL database, each with the same
settings; every process runs the retention task (bot/service/tables.py starts it whatever the shards), and
they start together (compose.yaml), so their passes (a minute after start-up, then hourly) meet.

Two processes pruning the same closed table at once must still delete its whole log."""

from __future__ import annotations

import asyncio

import asyncpg

from bot.store import Store
from bot.store.postgres import PostgresStore
from tests.backends import open_migrated
from tests.store.conftest import new_table
from tests.store.test_retention import play

BATCH = 500  # bot/service/retention.py PRUNE_BATCH


async def one_pass(store: Store, cutoff: float, now: float) -> int:
    """What MoveLogRetention._step does in one pass: batches until one comes back short."""
    total = 0
    while True:
        deleted = await store.prune_closed_moves(cutoff, BATCH, now)
        total += deleted
        if deleted < BATCH:
            return total


async def test_two_processes_pruning_at_once_delete_a_closed_matchs_whole_log(pg_url: str) -> None:
    """After both processes' passes, the closed match's move log is empty (README: the move logs of matches
    closed longer ago than the setting are deleted). Process B's batch waits on process A's row locks and,
    when A commits, finds those rows gone: that is not "the log is empty now", so the table is not marked
    pruned while hundreds of its moves remain (no later pass would look at it again), and the next passes
    delete the rest."""
    first = await open_migrated(pg_url)
    second = await open_migrated(pg_url)
    assert isinstance(first, PostgresStore) and isinstance(second, PostgresStore)
    try:
        table = await new_table(first, channel_id=11)
        # 1,300 moves (a long four-seat match), closed at t=1,000 s.
        await play(first, table, 1_300, finish_at=1_000.0)
        assert len(await first.moves(table)) == 1_300

        # Process B's batch starts while process A's batch holds the rows it is deleting: A's transaction is
        # held open here (the same statements prune_closed_moves runs), B's runs meanwhile.
        conn = await asyncpg.connect(pg_url)
        try:
            async with conn.transaction():
                await conn.execute(
                    "DELETE FROM moves WHERE table_id = $1 AND seq IN "
                    "(SELECT seq FROM moves WHERE table_id = $1 ORDER BY seq LIMIT $2)",
                    table,
                    BATCH,
                )
                b_pass = asyncio.create_task(one_pass(second, 2_000.0, 9_000.0))
                await asyncio.sleep(1.0)  # B's DELETE is waiting on A's row locks by now
                assert not b_pass.done()
            # A committed its batch; A's pass goes on as its task would, B's finishes.
            await b_pass
            await one_pass(first, 2_000.0, 9_000.0)
        finally:
            await conn.close()
        # The next hourly passes of both processes.
        await one_pass(first, 2_000.0, 12_600.0)
        await one_pass(second, 2_000.0, 12_600.0)

        left = len(await first.moves(table))
        assert left == 0, (
            f"{left} moves of a match closed long ago were kept, and the table is marked pruned at "
            f"{await first.moves_pruned_at(table)}"
        )
    finally:
        await first.close()
        await second.close()
