"""Round trips of a match result on PostgreSQL (issue 27): the rating update's read of the seats' ratings
rides the statement that records the ranking, and its write the preset counts' statement, so rating a match
costs no round trip more than not rating it."""

from __future__ import annotations

from typing import Any

import asyncpg

from bot.engine.ratings import OPENSKILL
from bot.store import open_store
from bot.store.base import Rater
from bot.store.postgres import PostgresStore
from bot.store.postgres_standings import record_match
from tests.store.conftest import new_table
from tests.store.test_ratings import match_result, ratings_of

SEATS = [(11, None, 2), (12, None, 1), (13, None, 3)]


class Counting:
    """An asyncpg connection that counts the statements sent through it (an executemany is one)."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self.sent = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.conn, name)
        if name in ("execute", "executemany", "fetch", "fetchval", "fetchrow"):
            self.sent += 1
        return method


async def statements(store: PostgresStore, table_id: int, rater: Rater | None) -> int:
    async def work(conn: asyncpg.Connection) -> int:
        counting = Counting(conn)
        async with conn.transaction():
            await record_match(counting, table_id, match_result(SEATS), 200.0, rater)  # type: ignore[arg-type]
        return counting.sent

    return await store.run_in_connection(work)


async def test_a_rated_result_costs_no_statement_more_than_an_unrated_one(pg_url: str) -> None:
    store = await open_store(pg_url)
    try:
        await store.migrate()
        assert isinstance(store, PostgresStore)
        unrated = await statements(store, await new_table(store, channel_id=1), None)
        rated = await statements(store, await new_table(store, channel_id=2), OPENSKILL)
        assert rated == unrated
        # And the ratings were written from what the ranking's statement read: all three players, once.
        held = await ratings_of(store)
        assert {key: matches for key, (_, matches) in held.items()} == {
            (11, None): 1,
            (12, None): 1,
            (13, None): 1,
        }
    finally:
        await store.close()
