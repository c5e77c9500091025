"""Every query the store makes is served by an index: no full table scans, no sorting the leaderboard.

The statistics' leaderboard (wins, points, win rate) reads its page from an index in its order. The rating
board's people are read by player_stats' primary key and sorted on SQLite (migrations/0013: no index there
moves at every match), from their ordered index on PostgreSQL (checked here: no sequential scan).
These few rows show that an index can serve each query; tests/store/test_board_plans_realistic.py shows the
leaderboards' plans a real server picks, with its statistics, on a guild of 100,000 matches.

SQLite: EXPLAIN QUERY PLAN of every statement traced. PostgreSQL: EXPLAIN of every statement logged, with
sequential scans and sorts disabled for the session, so that a plan that still has one has no index to use.
"""

from __future__ import annotations

import re
import sqlite3

import asyncpg

from bot.store import GuildSettings, MoveCommit, SeatRecord, Store, parse_database_url
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.store.conftest import GUILD, new_table
from tests.store.test_store import finish_match


def _statistics_board(query: str) -> bool:
    """A page of the statistics' leaderboard: each of its orders has matches_won descending."""
    return "player_stats" in query and "ORDER BY" in query and "matches_won DESC" in query


_BARE_SCAN = re.compile(r"\bSCAN (\w+)$")
# The schema ledger and sqlite_master (read by the migration runner) are tiny; json_each is a function; people
# and levels are the rating board's two lists, subqueries of a few rows each (ratings.board_query).
_SCAN_ALLOWED = {"sqlite_master", "json_each", "schema_migrations", "people", "levels"}


async def exercise_every_query(store: Store) -> None:
    await store.schema_version()
    await store.set_meta("k", "v")
    await store.get_meta("k")
    await store.write_heartbeat(1.0)
    await store.read_heartbeat()
    await store.save_guild_settings(GuildSettings(GUILD, allowed_channel_ids=(1, 2)))
    await store.get_guild_settings(GUILD)
    table_id = await finish_match(store, 1, [(11, 1, 0), (12, 2, 5)], now=1.0)
    live = await new_table(store, channel_id=2)
    await store.commit_move(MoveCommit(
        live, 0, actor_id=1, action={}, events=[], new_state={}, deadline=1.0, now=1.0,
        seats=[SeatRecord(0, 1, "A"), SeatRecord(1, None, "CPU", cpu_level="easy")],
        status="playing",
    ))  # fmt: skip
    await store.set_board_message(live, 9, now=2.0)
    await store.get_table(live)
    await store.open_table_in_channel(2)
    await store.list_seats(live)
    await store.get_state(live)
    await store.load_open_tables()
    await store.moves(table_id)
    await store.round_results(table_id)
    await store.match_ranking(table_id)
    for sort in ("wins", "winrate", "points"):
        await store.leaderboard(GUILD, sort=sort, offset=1, limit=5)  # type: ignore[arg-type]
        await store.leaderboard_size(GUILD, sort=sort)  # type: ignore[arg-type]
        await store.leaderboard_rank(GUILD, 11, sort=sort)  # type: ignore[arg-type]
    await store.player_stats(GUILD, 11)
    for ranked in (True, False):
        await store.rating_board(GUILD, ranked=ranked, offset=1, limit=5)
        await store.rating_board_size(GUILD, ranked=ranked)
    for _ in range(5):  # 11 ranked: their rank is counted too
        await finish_match(store, 3, [(11, 1, 0), (12, 2, 5)], now=3.0)
    await store.player_rating(GUILD, 11)
    await store.recent_matches(GUILD)
    await store.recent_matches(GUILD, limit=5, before=(2.0, table_id))  # a next page of /eights history
    await store.open_tables_of_user(1)
    # A move naming 11 in its action, events and state: forget rewrites them (by primary key).
    await store.commit_move(MoveCommit(
        table_id, 1, actor_id=11, action={"kind": "kick", "member": 11},
        events=[{"kind": "kicked", "data": {"user_id": 11, "name": "P11"}, "to": 11}],
        new_state={"host_id": 11}, deadline=None, now=2.0,
    ))  # fmt: skip
    await store.forget_user(12, guild_id=GUILD)
    await store.forget_user(11)
    # Retention notes who acted in the moves it deletes (pruned_actors); forget finds the table by it.
    await store.commit_move(MoveCommit(
        table_id, 2, actor_id=13, action={}, events=[], new_state={"kicked": [13]}, deadline=None, now=3.0,
    ))  # fmt: skip
    while await store.prune_closed_moves(10.0, 2, now=11.0):
        pass
    await store.forget_user(13)


async def test_no_query_scans_a_table_or_sorts_the_leaderboard(sqlite_store: SqliteStore) -> None:
    store = sqlite_store
    statements: list[str] = []
    await store.run_in_connection(lambda conn: conn.set_trace_callback(statements.append))
    await exercise_every_query(store)
    await store.run_in_connection(lambda conn: conn.set_trace_callback(None))

    queries = sorted(
        {s for s in statements if s.split(None, 1)[0].upper() in ("SELECT", "UPDATE", "DELETE", "INSERT")}
    )
    assert len(queries) > 30  # the workload really ran the store's queries

    def plans(conn: sqlite3.Connection) -> dict[str, list[str]]:
        return {q: [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + q)] for q in queries}

    problems = []
    for query, plan in (await store.run_in_connection(plans)).items():
        for step in plan:
            scan = _BARE_SCAN.search(step)
            if scan and scan.group(1) not in _SCAN_ALLOWED:
                problems.append(f"{step!r} in {query}")
            if _statistics_board(query) and "TEMP B-TREE" in step:
                problems.append(f"{step!r} in {query}")
    assert problems == [], "\n".join(problems)


_STATEMENTS = ("SELECT", "UPDATE", "DELETE", "INSERT", "WITH")
# The ledger is read whole at start-up, by design; advisory locks and catalog lookups are not table reads.
_PG_SKIP = ("schema_migrations", "pg_advisory", "to_regclass", "current_schema", "information_schema")


def _pg_plan_problems(query: str, plan: list[str]) -> list[str]:
    problems = []
    for line in (step.strip() for step in plan):
        if "Seq Scan on" in line:
            problems.append(f"{line!r} in {query}")
        sorts = line.startswith(("Sort", "-> Sort", "->  Sort"))
        if sorts and _statistics_board(query):
            problems.append(f"{line!r} in {query}")
    return problems


async def test_postgres_plans_use_indexes_for_every_query(pg_url: str) -> None:
    store = await PostgresStore.open(parse_database_url(pg_url), pool_size=1)
    logged: dict[str, tuple[object, ...]] = {}

    def log(record: object) -> None:
        query: str = record.query  # type: ignore[attr-defined]
        if query.lstrip().split(None, 1)[0].upper() in _STATEMENTS:
            args = tuple(record.args or ())  # type: ignore[attr-defined]
            if args and isinstance(args[0], tuple):  # executemany: one row's arguments will do
                args = args[0]
            logged[query] = args

    problems: list[str] = []
    try:

        async def start_logging(conn: asyncpg.Connection) -> None:
            conn.add_query_logger(log)

        async def explain_logged(conn: asyncpg.Connection) -> None:
            conn.remove_query_logger(log)
            assert len(logged) > 30  # the workload really ran the store's queries
            await conn.execute("SET enable_seqscan = off; SET enable_sort = off")
            for query, args in sorted(logged.items()):
                if any(word in query for word in _PG_SKIP):
                    continue
                plan = [row[0] for row in await conn.fetch("EXPLAIN " + query, *args)]
                problems.extend(_pg_plan_problems(query, plan))
            await conn.execute("RESET enable_seqscan; RESET enable_sort")

        await store.run_in_connection(start_logging)  # the pool's one connection
        await exercise_every_query(store)
        await store.run_in_connection(explain_logged)
    finally:
        await store.close()
    assert problems == [], "\n".join(problems)
