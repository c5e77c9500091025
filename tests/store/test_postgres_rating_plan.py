"""The PostgreSQL match result reads each seat's rating by its key, whatever plan the server keeps.

asyncpg prepares a statement once per connection, and after five runs PostgreSQL may keep a generic plan,
made without the parameters' values and from the table's statistics of that moment. For the statement that
records the ranking and reads the seats' ratings, a generic plan made while the ratings table was small read
the guild's ratings whole at every match result (bench/store.py). The plan is checked here as the server
would keep it (``plan_cache_mode = force_generic_plan``), on a small table, where that happened, never
analyzed (in a schema of its own: other tests' stores analyze theirs). Once the table's statistics are
updated (autovacuum, or the store's own vacuum when autovacuum is off) the server plans the statement again.
"""

from __future__ import annotations

import asyncpg

from bot.store import parse_database_url, ratings, statements
from bot.store.postgres import PostgresStore
from bot.store.postgres_standings import _RECORD_RANKING, _SEATS_RATINGS
from tests.store.conftest import GUILD
from tests.store.test_store import finish_match


async def test_generic_plan_looks_each_rating_up_by_its_key(pg_schema_url: str) -> None:
    store = await PostgresStore.open(parse_database_url(pg_schema_url), pool_size=1, vacuum=False)
    try:
        await store.migrate()
        for i in range(3):  # a few ratings: a small table, as when the bot starts
            await finish_match(store, 10 + i, [(11 + i, 1, 0), (20 + i, 2, 5)], now=float(i))
        table_id = await finish_match(store, 30, [(11, 1, 0), (12, 2, 5)], now=9.0)
        sql, args = statements.numbered(
            _RECORD_RANKING + _SEATS_RATINGS,
            {
                "table": table_id,
                "positions": [0, 1],
                "users": [11, 12],
                "names": ["P11", "P12"],
                "places": [1, 2],
                "totals": [0, 5],
                "guild": GUILD,
                "cpu": ratings.CPU_USER,
                "person": ratings.PERSON_LEVEL,
            },
        )

        async def generic_plan(conn: asyncpg.Connection) -> str:
            await conn.execute("SET plan_cache_mode = force_generic_plan")
            try:
                return "\n".join(row[0] for row in await conn.fetch("EXPLAIN " + sql, *args))
            finally:
                await conn.execute("RESET plan_cache_mode")

        plan = await store.run_in_connection(generic_plan)
    finally:
        await store.close()
    # A person's rating is in their statistics row (migration 0013), a CPU level's in ratings: both by key.
    assert "Seq Scan on ratings" not in plan and "Seq Scan on player_stats" not in plan, plan
    assert "Index Scan using ratings_pkey on ratings" in plan, plan
    assert "Index Scan using player_stats_pkey on player_stats" in plan, plan


async def test_match_results_reuse_the_ranking_statements_plan(pg_url: str) -> None:
    """The statement is planned once per connection, not at every match result: a custom plan, which the
    server chose each time (its generic plan is costed for ten seats an array, a custom one for the real
    number), cost more of its time than the rest of the statement (bench/store.py)."""
    store = await PostgresStore.open(parse_database_url(pg_url), pool_size=1)
    try:
        await store.migrate()
        for i in range(12):  # more than the five custom plans the server makes before it weighs a generic one
            await finish_match(store, 10 + i, [(11 + i, 1, 0), (40 + i, 2, 5), (70 + i, 3, 9)], now=float(i))
        plans = await store.run_in_connection(
            lambda conn: conn.fetch(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                "WHERE statement LIKE 'WITH ranked AS (INSERT INTO match_rankings%'"
            )
        )
    finally:
        await store.close()
    assert len(plans) == 1, plans
    assert plans[0]["custom_plans"] == 0, plans
    assert plans[0]["generic_plans"] == 12, plans
