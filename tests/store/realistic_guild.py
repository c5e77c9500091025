"""A realistic guild for the standings' query plans: 100,000 finished matches, a core of 2,000 regulars and
many casual players (30,463 players, 7,509 of them with 5 or more matches; most of the others rated but
provisional), and a small second guild, written straight into the schema (the per-match path is measured
elsewhere: bench/store.py), then the planner's statistics refreshed as a running bot has them (SQLite:
``ANALYZE``, which ``PRAGMA optimize`` at close runs; PostgreSQL: ``VACUUM ANALYZE``, which autovacuum or the
bot's own vacuum runs).

A handful of rows (tests/store/test_query_plans.py) shows whether a query can use an index; these numbers show
which plan a real server picks, where reading the whole guild is what the planner finds cheapest.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import asyncpg

from bot.store import open_store

GUILD = 1_000
OTHER_GUILD = 2_000
MATCHES = 100_000
CORE = 2_000
CASUAL = 30_000
CHANNELS = 50
REGULAR = 5  # a core player's id (1 .. CORE), on every board


@dataclass
class Data:
    tables: list[tuple[Any, ...]] = field(default_factory=list)
    results: list[tuple[Any, ...]] = field(default_factory=list)
    rankings: list[tuple[Any, ...]] = field(default_factory=list)
    stats: list[tuple[Any, ...]] = field(default_factory=list)
    cpu_ratings: list[tuple[Any, ...]] = field(default_factory=list)


def build(matches: int = MATCHES, seed: int = 1) -> Data:
    """The rows of ``matches`` finished matches in GUILD (and 200 in OTHER_GUILD), with the statistics and
    ratings they leave: each match seats 2 to 4 players, 70% of seats a regular's."""
    rng = random.Random(seed)
    data = Data()
    agg: dict[tuple[int, int], list[Any]] = {}
    now = 1_700_000_000.0
    table_id = 0
    for guild, count in ((GUILD, matches), (OTHER_GUILD, 200)):
        for _ in range(count):
            table_id += 1
            now += 1.0
            n = rng.choice((2, 3, 4))
            seated: list[int] = []
            while len(seated) < n:
                user = 1 + rng.randrange(CORE) if rng.random() < 0.7 else 1_000_000 + rng.randrange(CASUAL)
                if user not in seated:
                    seated.append(user)
            totals = [rng.randrange(0, 120) for _ in seated]
            places = [1 + sum(1 for o in totals if o < t) for t in totals]
            channel = 10_000 + table_id % CHANNELS
            data.tables.append(
                (table_id, guild, channel, seated[0], "finished", '{"name": "classic"}',
                 '{"preset": "classic"}', 90.0, now, now)
            )  # fmt: skip
            data.results.append((table_id, guild, channel, "classic", 1, now, "{}", True))
            for pos, user in enumerate(seated):
                data.rankings.append((table_id, pos, user, f"Player {user}", places[pos], totals[pos]))
                row = agg.setdefault((guild, user), [0, 0, 0, 0, 0, 99, 0, 0.0])
                row[0] += 1
                row[1] += int(places[pos] == 1)
                row[2] += int(places[pos] == 1)
                row[3] += totals[pos]
                row[4] += sum(1 for o in places if o > places[pos])
                row[5] = min(row[5], places[pos])
                row[6] = places[pos]
                row[7] = now
    for (guild, user), (played, won, rwon, rpoints, points, best, last, at) in agg.items():
        mu = 25 + rng.gauss(0, 3)
        sigma = max(0.8, 8.3 / (1 + played) ** 0.5)
        skill = mu - 3 * sigma
        recent = json.dumps([round(skill, 3)] * min(played, 20))
        data.stats.append(
            (guild, user, f"Player {user}", played, won, played, rwon, rpoints, points, best, last, at,
             mu, sigma, skill, played, 0.1, recent, at)
        )  # fmt: skip
    for guild in (GUILD, OTHER_GUILD):
        for level in ("easy", "normal", "hard"):
            data.cpu_ratings.append((0, level, guild, level, 20.0, 2.0, 14.0, 300, 0.0, "[14.0]", now))
    return data


@cache
def guild() -> Data:
    """``build()``, made once per test process."""
    return build()


TABLES_SQL = (
    "INSERT INTO game_tables (id, guild_id, channel_id, host_id, status, ruleset, options, turn_timeout, "
    "created_at, updated_at) VALUES ({})"
)
RESULTS_SQL = (
    "INSERT INTO match_results (table_id, guild_id, channel_id, preset, rounds_played, finished_at, "
    "house_rules, rated) VALUES ({})"
)
RANKINGS_SQL = (
    "INSERT INTO match_rankings (table_id, position, user_id, display_name, place, total) VALUES ({})"
)
STATS_SQL = (
    "INSERT INTO player_stats (guild_id, user_id, display_name, matches_played, matches_won, rounds_played, "
    "rounds_won, round_points, points, best_place, last_place, last_played_at, mu, sigma, skill, "
    "rated_matches, last_change, recent, rated_at) VALUES ({})"
)
CPU_SQL = (
    "INSERT INTO ratings (user_id, cpu_level, guild_id, display_name, mu, sigma, skill, matches, "
    "last_change, recent, rated_at) VALUES ({})"
)


def statements(
    data: Data, placeholder: Callable[[int], str], *, boards_only: bool = False
) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """The inserts of ``data`` with their rows, in foreign-key order; ``boards_only``: the statistics and
    the CPU levels' ratings alone (all the leaderboards read)."""

    def sql(template: str, width: int) -> str:
        return template.format(", ".join(placeholder(i + 1) for i in range(width)))

    boards = [(sql(STATS_SQL, 19), data.stats), (sql(CPU_SQL, 11), data.cpu_ratings)]
    if boards_only:
        return boards
    return [
        (sql(TABLES_SQL, 10), data.tables),
        (sql(RESULTS_SQL, 8), data.results),
        (sql(RANKINGS_SQL, 6), data.rankings),
        *boards,
    ]


def sqlite_database(path: Path, data: Data, *, boards_only: bool = True) -> None:
    """A migrated SQLite database at ``path`` holding ``data``, analyzed (call outside an event loop)."""

    async def migrate() -> None:
        store = await open_store(f"sqlite:///{path}")
        try:
            await store.migrate()
        finally:
            await store.close()

    asyncio.run(migrate())
    conn = sqlite3.connect(path)
    try:
        for sql, rows in statements(data, lambda i: "?", boards_only=boards_only):
            conn.executemany(sql, rows)
        conn.commit()
        conn.execute("ANALYZE")
        conn.commit()
    finally:
        conn.close()


async def load_postgres(url: str, data: Data, *, boards_only: bool = True) -> None:
    """``data`` written into the migrated PostgreSQL database (or schema) of ``url``, vacuumed and
    analyzed."""
    conn = await asyncpg.connect(url)
    try:
        for sql, rows in statements(data, lambda i: f"${i}", boards_only=boards_only):
            await conn.executemany(sql, rows)
            await conn.execute(f"VACUUM ANALYZE {sql.split()[2]}")  # INSERT INTO <table>
    finally:
        await conn.close()
