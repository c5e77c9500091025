"""The leaderboards' query plans on a realistic guild (tests/store/realistic_guild.py: 100,000 finished
matches, 30,463 players of whom 7,509 have 5 or more matches; most of the others provisional on the rating
board), with the planner's statistics a running bot has.

tests/store/test_query_plans.py shows, on a handful of rows, that every query can use an index; here the plans
are those a real server picks, through the service's own calls (``StandingsService.leaderboard``), for the
promises that hold the page under its 20 ms target as a server grows: a page is read from its index in order
(no sort of the guild's players), and a count (the board's size, a viewer's rank) reads an index alone, not
the rows. The rating board on SQLite is the exception, by design (migrations/0013: no ordered index there).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.service.standings import StandingsService
from bot.store import open_store, parse_database_url
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.backends import database_url
from tests.store import realistic_guild as R


async def _browse(service: StandingsService) -> None:
    """A regular looks at the boards: the win-rate and rating boards' first pages (their rank is not on
    them) and a page in the middle of each."""
    for sort in ("winrate", "rating"):
        await service.leaderboard(R.GUILD, viewer_id=R.REGULAR, sort=sort, page=1)
        await service.leaderboard(R.GUILD, viewer_id=R.REGULAR, sort=sort, page=50)


def _win_rate_board(query: str) -> bool:
    """A read of the win-rate board's players: not the viewer's own row, read by its key first."""
    return "player_stats" in query and "matches_played >=" in query and "user_id =" not in query


def _counts(query: str) -> bool:
    return "COUNT(*)" in query


@pytest.fixture(scope="module")
def sqlite_guild(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("realistic") / "eights.sqlite3"
    R.sqlite_database(path, R.guild())
    return path


async def test_sqlite_win_rate_board_reads_its_index_in_order_and_counts_it_alone(sqlite_guild: Path) -> None:
    """The win-rate board lists the players with at least 5 matches. Its page is read from the board's
    index in the page's order, and its size and a viewer's rank are counted in that index alone (COVERING):
    not the guild's rows, which the counts read when the index did not hold matches_played (every casual
    player's row tested, on every page)."""
    store = await SqliteStore.open(str(sqlite_guild))
    statements: list[str] = []
    try:
        await store.run_in_connection(lambda conn: conn.set_trace_callback(statements.append))
        await _browse(StandingsService(store))
        await store.run_in_connection(lambda conn: conn.set_trace_callback(None))
        board = sorted({s for s in statements if _win_rate_board(s) and s.lstrip().startswith("SELECT")})

        def plans(conn: sqlite3.Connection) -> dict[str, list[str]]:
            return {q: [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + q)] for q in board}

        found = await store.run_in_connection(plans)
    finally:
        await store.close()
    counted = [q for q in found if _counts(q)]
    pages = [q for q in found if "ORDER BY" in q]
    # The size, and the rank of a viewer off the page (three range counts).
    assert any("user_id <" in q for q in counted) and any("user_id <" not in q for q in counted), counted
    assert pages, found
    problems = []
    for query, plan in found.items():
        reads = [step for step in plan if step.startswith(("SEARCH player_stats", "SCAN player_stats"))]
        index = (
            "COVERING INDEX player_stats_by_winrate" if _counts(query) else "INDEX player_stats_by_winrate"
        )
        problems += [f"{step!r} in {query}" for step in reads if index not in step]
        problems += [f"{step!r} in {query}" for step in plan if "TEMP B-TREE" in step]
    assert problems == [], "\n".join(problems)


@pytest.fixture(scope="module")
def pg_guild(pg_database: str) -> Iterator[str]:
    """The realistic guild in a schema of its own in the session's PostgreSQL database (other tests empty
    the default schema's tables after each test)."""
    schema = f"realistic_{secrets.token_hex(4)}"
    url = database_url(urlsplit(pg_database).path.lstrip("/"), schema=schema)

    async def make() -> None:
        conn = await asyncpg.connect(pg_database)
        try:
            await conn.execute(f"CREATE SCHEMA {schema}")
        finally:
            await conn.close()
        store = await open_store(url)
        try:
            await store.migrate()
        finally:
            await store.close()
        await R.load_postgres(url, R.guild())

    async def drop() -> None:
        conn = await asyncpg.connect(pg_database)
        try:
            await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        finally:
            await conn.close()

    asyncio.run(make())
    try:
        yield url
    finally:
        asyncio.run(drop())


def _nodes(
    plan: dict[str, Any], above: tuple[dict[str, Any], ...] = ()
) -> Iterator[tuple[dict[str, Any], tuple[dict[str, Any], ...]]]:
    """Every node of a plan with the nodes above it (nearest last)."""
    yield plan, above
    for child in plan.get("Plans", ()):
        yield from _nodes(child, (*above, plan))


async def _pg_plans(url: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The service's standings queries while a regular browses the boards, each with its plan as the
    server makes it for these values ("custom") and as it keeps it for a prepared statement run many times
    ("generic": asyncpg prepares each statement once per connection)."""
    store = await PostgresStore.open(parse_database_url(url), pool_size=1)
    logged: dict[str, tuple[Any, ...]] = {}

    def log(record: Any) -> None:
        if record.query.lstrip().upper().startswith("SELECT") and "player_stats" in record.query:
            logged[record.query] = tuple(record.args or ())

    async def start(conn: asyncpg.Connection) -> None:
        conn.add_query_logger(log)

    async def explain(conn: asyncpg.Connection) -> dict[str, dict[str, dict[str, Any]]]:
        conn.remove_query_logger(log)
        found: dict[str, dict[str, dict[str, Any]]] = {}
        for query, args in logged.items():
            found[query] = {}
            for mode in ("custom", "generic"):
                await conn.execute(f"SET plan_cache_mode = force_{mode}_plan")
                raw = await conn.fetchval("EXPLAIN (FORMAT JSON) " + query, *args)
                found[query][mode] = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]
            await conn.execute("RESET plan_cache_mode")
        return found

    try:
        await store.run_in_connection(start)
        await _browse(StandingsService(store))
        return await store.run_in_connection(explain)
    finally:
        await store.close()


def _reads(plan: dict[str, Any]) -> list[tuple[dict[str, Any], tuple[dict[str, Any], ...]]]:
    return [(node, above) for node, above in _nodes(plan) if node.get("Relation Name") == "player_stats"]


def _describe(node: dict[str, Any]) -> str:
    return f"{node['Node Type']} using {node.get('Index Name')}"


async def test_postgres_win_rate_board_reads_its_index_in_order_and_counts_it_alone(pg_guild: str) -> None:
    """The same promise on PostgreSQL: the page is an index scan of the board's index in order (no sort),
    and its size and a viewer's rank are index-only scans of it. With a real server's statistics the
    counts were a sequential scan of player_stats (every row of every guild) when no index held
    matches_played."""
    plans = await _pg_plans(pg_guild)
    board = {query: modes for query, modes in plans.items() if _win_rate_board(query)}
    assert any(_counts(q) and "user_id <" in q for q in board), list(board)  # the viewer's rank
    assert any("ORDER BY" in q for q in board), list(board)  # the page
    problems = []
    for query, modes in board.items():
        for mode, plan in modes.items():
            wanted = ("Index Only Scan",) if _counts(query) else ("Index Scan", "Index Only Scan")
            problems += [
                f"{mode}: {_describe(node)} in {query}"
                for node, _ in _reads(plan)
                if node["Node Type"] not in wanted or node.get("Index Name") != "player_stats_by_winrate"
            ]
            problems += [
                f"{mode}: a Sort in {query}" for node, _ in _nodes(plan) if node["Node Type"] == "Sort"
            ]
    assert problems == [], "\n".join(problems)


async def test_postgres_rating_lists_are_read_in_their_ordered_indexes(pg_guild: str) -> None:
    """The rating board's people are read from their list's skill-ordered index (bot/store/ratings.py,
    ``board_query``), the provisional list's too: a page reads its rows and stops. The provisional index
    held only which rows are provisional, so every page read all of the guild's provisional players (22,954
    here, most of a server with many casual players) and sorted them, past the page's 20 ms target.
    (The two lists' few rows are then merged, a sort of at most twice a page: not checked.)"""
    plans = await _pg_plans(pg_guild)
    lists = {
        "rated_matches >= 5": "player_stats_rated",
        "rated_matches BETWEEN 1 AND 4": "player_stats_provisional",
    }
    problems = []
    seen = set()
    for query, modes in plans.items():
        if "LIMIT" not in query:
            continue  # a count, not a page
        for condition, index in lists.items():
            if condition not in query:
                continue
            seen.add(condition)
            for mode, plan in modes.items():
                for node, above in _reads(plan):
                    # The nearest Limit or Sort above the read: the people's own LIMIT, with no sort below it.
                    nearest = next(
                        (n["Node Type"] for n in reversed(above) if n["Node Type"] in ("Limit", "Sort")), None
                    )
                    if (
                        node["Node Type"] != "Index Scan"
                        or node.get("Index Name") != index
                        or nearest != "Limit"
                    ):
                        problems.append(f"{mode}: {_describe(node)} under {nearest} in {query}")
    assert seen == set(lists), seen
    assert problems == [], "\n".join(problems)
