"""The PostgreSQL store's standings: recording a finished match and reading leaderboards and statistics.

``PostgresStandings`` is the part of ``bot.store.postgres.PostgresStore`` that reads results (leaderboard
pages, a player's rank and statistics, recent matches, rankings, round scores); ``record_match`` writes a
match's result, ranking and the players' statistics inside the move's transaction that ends the match,
exactly once per table. The pool, the schema and the game-state writes stay in ``bot.store.postgres``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar, cast

import asyncpg

from bot.store import ratings, rows, statements
from bot.store.base import (
    RATED_TO_RANK,
    LeaderboardRow,
    LeaderboardSort,
    MatchResult,
    MatchSummary,
    PlayerRating,
    PlayerStats,
    RankingEntry,
    Rater,
    RatingRow,
    RoundResult,
)
from bot.store.forget import Statement
from bot.store.rows import dumps, loads
from bot.store.statements import BOARD_COLUMNS

T = TypeVar("T")

# The first half of the advisory lock key that serialises the results (statistics, ratings) of one guild.
RATINGS_LOCK = 0x52415445  # "RATE"

# Leaderboard orders (see BoardOrders): each matches an index in migrations/postgres/0002_results.sql.
_ORDERS = statements.BoardOrders("(CAST(matches_won AS DOUBLE PRECISION) / matches_played)")

# A match's statistics, with the person's new rating when it is rated (migration 0013: people's ratings are in
# player_stats): one new version of each row, as without ratings (a second update of the row would write every
# index entry again).
_UPSERT_STATS, _UPSERT_STATS_RATED = statements.stats_upserts(
    """
INSERT INTO player_stats (guild_id, user_id, display_name, matches_played, matches_won, rounds_played,
                          rounds_won, round_points, points, best_place, last_place, last_played_at{columns})
VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8, $9, $10, $11{values})
ON CONFLICT (guild_id, user_id) DO UPDATE SET
    display_name = excluded.display_name,
    matches_played = player_stats.matches_played + 1,
    matches_won = player_stats.matches_won + excluded.matches_won,
    rounds_played = player_stats.rounds_played + excluded.rounds_played,
    rounds_won = player_stats.rounds_won + excluded.rounds_won,
    round_points = player_stats.round_points + excluded.round_points,
    points = player_stats.points + excluded.points,
    best_place = LEAST(player_stats.best_place, excluded.best_place),
    last_place = excluded.last_place,
    last_played_at = excluded.last_played_at{updates}
""",
    lambda i: f"${i}",
)


class PostgresStandings:
    """The Store protocol's standings reads over the pool that ``PostgresStore`` opens."""

    _pool: asyncpg.Pool

    async def leaderboard(
        self,
        guild_id: int,
        *,
        sort: LeaderboardSort = "wins",
        offset: int = 0,
        limit: int = 10,
        min_matches: int = 5,
    ) -> list[LeaderboardRow]:
        where, args = _board_filter(guild_id, sort, min_matches)
        n = len(args)
        found = await self._pool.fetch(
            f"SELECT {BOARD_COLUMNS} FROM player_stats WHERE {where} ORDER BY {_ORDERS.order_by[sort]} "
            f"LIMIT ${n + 1} OFFSET ${n + 2}",
            *args,
            max(0, limit),
            max(0, offset),
        )
        return [rows.board_row(max(0, offset) + i + 1, row) for i, row in enumerate(found)]

    async def leaderboard_size(
        self, guild_id: int, *, sort: LeaderboardSort = "wins", min_matches: int = 5
    ) -> int:
        where, args = _board_filter(guild_id, sort, min_matches)
        return int(await self._pool.fetchval(f"SELECT COUNT(*) FROM player_stats WHERE {where}", *args))

    async def leaderboard_rank(
        self, guild_id: int, user_id: int, *, sort: LeaderboardSort = "wins", min_matches: int = 5
    ) -> LeaderboardRow | None:
        where, args = _board_filter(guild_id, sort, min_matches)
        first, second = _ORDERS.keys[sort]
        n = len(args)
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            mine = await conn.fetchrow(
                f"SELECT {first}, {second}, {BOARD_COLUMNS} FROM player_stats "
                f"WHERE {where} AND user_id = ${n + 1}",
                *args,
                user_id,
            )
            if mine is None:
                return None
            # Rows ahead in ORDER BY first DESC, second DESC, user_id: three range counts on the sort's index.
            a, b, u = f"${n + 1}", f"${n + 2}", f"${n + 3}"
            ahead = await conn.fetchval(
                f"SELECT (SELECT COUNT(*) FROM player_stats WHERE {where} AND {first} > {a})"
                f" + (SELECT COUNT(*) FROM player_stats WHERE {where} AND {first} = {a} AND {second} > {b})"
                f" + (SELECT COUNT(*) FROM player_stats WHERE {where} AND {first} = {a} AND {second} = {b}"
                f" AND user_id < {u})",
                *args,
                mine[0],
                mine[1],
                user_id,
            )
        return rows.board_row(int(ahead) + 1, tuple(mine)[2:])

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            row = await conn.fetchrow(
                f"SELECT {statements.STATS_COLUMNS} FROM player_stats WHERE guild_id = $1 AND user_id = $2",
                guild_id,
                user_id,
            )
            if row is None:
                return None
            favourite = await conn.fetchval(
                "SELECT preset FROM player_preset_counts WHERE guild_id = $1 AND user_id = $2 "
                "ORDER BY matches DESC, preset LIMIT 1",
                guild_id,
                user_id,
            )
        return rows.player_stats_record(guild_id, user_id, row, favourite)

    async def rating_board(
        self, guild_id: int, *, ranked: bool = True, offset: int = 0, limit: int = 10
    ) -> list[RatingRow]:
        sql, args = statements.numbered(
            ratings.board_query(ranked), ratings.board_params(guild_id, offset, limit)
        )
        found = await self._pool.fetch(sql, *args)
        return [ratings.board_row(max(0, offset) + i + 1, tuple(row)) for i, row in enumerate(found)]

    async def rating_board_size(self, guild_id: int, *, ranked: bool = True) -> int:
        sql, args = statements.numbered(ratings.board_size_query(ranked), {"guild": guild_id})
        return int(await self._pool.fetchval(sql, *args))

    async def player_rating(
        self, guild_id: int, user_id: int, *, history: int = 20, ranked_count: int | None = None
    ) -> PlayerRating | None:
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            sql, args = statements.numbered(ratings.PLAYER_QUERY, {"guild": guild_id, "user": user_id})
            mine = await conn.fetchrow(sql, *args)
            if mine is None:
                return None
            ranked = ranked_count
            if ranked is None:
                sql, args = statements.numbered(ratings.board_size_query(True), {"guild": guild_id})
                ranked = await conn.fetchval(sql, *args)
            rank = None
            if mine[3] >= RATED_TO_RANK:
                sql, args = statements.numbered(
                    ratings.AHEAD_QUERY, {"guild": guild_id, "skill": mine[2], "user": user_id}
                )
                rank = int(await conn.fetchval(sql, *args)) + 1
        return ratings.player_rating(tuple(mine), rank, int(ranked), history)

    async def recent_matches(
        self, guild_id: int, *, limit: int = 10, before: tuple[float, int] | None = None
    ) -> list[MatchSummary]:
        sql, args = statements.numbered(*statements.recent_matches(guild_id, limit, before))
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            matches = await conn.fetch(sql, *args)
            rankings = await _rankings(conn, [match[0] for match in matches])
        return [
            MatchSummary(
                table_id=match[0],
                guild_id=match[1],
                channel_id=match[2],
                preset=match[3],
                finished_at=match[4],
                rounds_played=match[5],
                ranking=rankings.get(match[0], []),
                house_rules=loads(match[6]),
            )
            for match in matches
        ]

    async def match_ranking(self, table_id: int) -> list[RankingEntry]:
        async with self._pool.acquire() as conn:
            return (await _rankings(conn, [table_id])).get(table_id, [])

    async def round_results(self, table_id: int) -> list[RoundResult]:
        return rows.rounds_from_rows(
            await self._pool.fetch(
                "SELECT round_number, position, score, won FROM round_results WHERE table_id = $1 "
                "ORDER BY round_number, position",
                table_id,
            )
        )


def _board_filter(guild_id: int, sort: LeaderboardSort, min_matches: int) -> tuple[str, tuple[int, ...]]:
    _ORDERS.check(sort)
    if sort == "winrate":
        return f"guild_id = $1 AND {statements.played_at_least(min_matches)}", (guild_id,)
    return "guild_id = $1", (guild_id,)


async def _rankings(conn: asyncpg.Connection, table_ids: list[int]) -> dict[int, list[RankingEntry]]:
    found: dict[int, list[RankingEntry]] = {}
    for row in await conn.fetch(
        "SELECT table_id, position, user_id, display_name, place, total FROM match_rankings "
        "WHERE table_id = ANY($1::bigint[]) ORDER BY table_id, place, position",
        table_ids,
    ):
        found.setdefault(row[0], []).append(rows.ranking_entry(tuple(row)[1:]))
    return found


async def run_steps(conn: asyncpg.Connection, steps: Generator[Statement, Any, T]) -> T:
    """Run a procedure of ``bot.store.forget`` or ``bot.store.ratings`` inside the caller's transaction."""
    answer: Any = None
    try:
        while True:
            step = steps.send(answer)
            sql, args = statements.numbered(step.sql, step.params)
            if step.rows:
                answer = [tuple(row) for row in await conn.fetch(sql, *args)]
            else:
                status = await conn.execute(sql, *args)  # "UPDATE 3", "DELETE 1"
                answer = int(status.rsplit(" ", 1)[-1])
    except StopIteration as done:
        return cast(T, done.value)


async def record_match(
    conn: asyncpg.Connection,
    table_id: int,
    result: MatchResult,
    now: float,
    rater: Rater | None,
    *,
    folded: bool = True,
) -> None:
    """The match's result, its ranking, the players' statistics and ratings — or nothing if already
    recorded."""
    # The row is inserted already rated when it is rated below: the insert is the guard (a second one does
    # nothing, and rates nothing). Matches of one guild ending at once in several processes would each read
    # the ratings, then write what they computed from them, the later commit undoing the earlier one's update;
    # and their statistics' upserts, the same players in another seat order, would lock rows in opposite
    # orders: a deadlock. The advisory lock taken by RETURNING (held until the transaction ends; in the same
    # statement, to save a round trip) makes the second wait, then read what the first one committed.
    # Without a rater (a schema older than the ratings') the column does not exist.
    rated = ", rated" if rater is not None else ""
    guild_id = await conn.fetchval(
        "INSERT INTO match_results "
        f"(table_id, guild_id, channel_id, preset, rounds_played, finished_at, house_rules{rated}) "
        f"SELECT id, guild_id, channel_id, $2, $3, $4, $5{', TRUE' if rated else ''} FROM game_tables "
        "WHERE id = $1 ON CONFLICT (table_id) DO NOTHING "
        "RETURNING guild_id, pg_advisory_xact_lock($6, (guild_id & 2147483647)::integer)",
        table_id,
        result.preset,
        result.rounds_played,
        now,
        dumps(result.house_rules),
        RATINGS_LOCK,
    )
    if guild_id is None:
        return
    # The ranking is recorded by a statement that also reads the seats' ratings for the rater, and the
    # ratings are written by the statement that counts the presets: a rated result makes no round trip more
    # than an unrated one. Both statements come after the lock above, so the read sees what an earlier match
    # of the guild committed.
    ranking = rows.ranking_rows(table_id, result)
    sql, args = statements.numbered(
        _RECORD_RANKING
        + ((_SEATS_RATINGS if folded else _SEATS_RATINGS_BEFORE_0013) if rater is not None else "SELECT 1"),
        {
            "table": table_id,
            "positions": [row[1] for row in ranking],
            "users": [row[2] for row in ranking],
            "names": [row[3] for row in ranking],
            "places": [row[4] for row in ranking],
            "totals": [row[5] for row in ranking],
            "guild": guild_id,
            "cpu": ratings.CPU_USER,
            "person": ratings.PERSON_LEVEL,
        },
    )
    found = await conn.fetch(sql, *args)
    stats = rows.stats_rows(guild_id, result, now)
    # The seats' rows as ``ratings.seats_query`` gives them, for the rater. The people's new ratings go in
    # their statistics' upsert; the CPU levels' (and on a schema before 0013 everyone's) are sent in the
    # preset counts' statement.
    writes: list[Statement] = []
    if rater is not None and folded:
        # The rows are the seats as ``ratings.rate_seats`` takes them.
        partnership = result.by_sides
        users = [row[2] for row in found]
        new: list[tuple[Any, ...]] = []
        if None not in users and len(set(users)) == len(users) and not partnership:
            # The usual match: people only, each at one seat, free for all (rate_seats' rows, straight).
            after = ratings.rate_people_alone(rater, [row[5:] for row in found], [row[1] for row in found])
            people = dict(zip(users, after, strict=True))
        else:
            new = ratings.rate_seats(rater, found, partnership)
            people = {row[0]: row[3:] for row in new if row[0] != ratings.CPU_USER}
        # Every person of the ranking is rated; a row without a rating would keep the one it has.
        with_rating = [(*row, *people[row[1]], now) for row in stats if row[1] in people]
        unrated = [row for row in stats if row[1] not in people]
        await conn.executemany(_UPSERT_STATS_RATED, with_rating)
        if unrated:
            await conn.executemany(_UPSERT_STATS, unrated)
        levels = ratings.levels_write(guild_id, now, new)
        if levels is not None:
            writes.append(levels)
    else:
        await conn.executemany(_UPSERT_STATS, stats)
        if rater is not None:
            writes = ratings.planned_writes(
                rater, [(guild_id, now, result.house_rules, *row) for row in found]
            )
    written: dict[str, Any] = {}
    for write in writes:
        written.update(write.params)
    # One statement counts the preset for every player (grouped: a player at two seats counts twice, as one
    # row a seat would).
    users = [row[1] for row in rows.preset_rows(guild_id, result)]
    sql, args = statements.numbered(
        "WITH counted AS (INSERT INTO player_preset_counts (guild_id, user_id, preset, matches) "
        "SELECT :guild, u, :preset, COUNT(*) FROM unnest(CAST(:users AS bigint[])) AS u GROUP BY u "
        "ON CONFLICT (guild_id, user_id, preset) "
        "DO UPDATE SET matches = player_preset_counts.matches + excluded.matches)"
        + "".join(f", rated{i} AS ({write.sql})" for i, write in enumerate(writes))
        + " SELECT 1",
        {**written, "guild": guild_id, "preset": result.preset, "users": users},
    )
    await conn.execute(sql, *args)


# The match's ranking, from arrays (one statement, whatever the number of seats).
_RECORD_RANKING = (
    "WITH ranked AS (INSERT INTO match_rankings (table_id, position, user_id, display_name, place, total) "
    "SELECT :table, u.position, u.user_id, u.name, u.place, u.total "
    "FROM unnest(CAST(:positions AS integer[]), CAST(:users AS bigint[]), CAST(:names AS text[]), "
    "CAST(:places AS integer[]), CAST(:totals AS integer[])) AS u(position, user_id, name, place, total)) "
)

# The seats' ratings as they are, from the same arrays (the statement's ranking insert is not visible to its
# own query): ``ratings.seats_query``'s columns from the position on; a CPU seat's key is (0, its level).
# Each seat's rating is looked up by its key (a LATERAL subquery with LIMIT 1, which the planner cannot turn
# into a join): asyncpg prepares the statement once per connection and after five runs the server keeps a
# generic plan, which, planned as a join while the ratings table was small, read the guild's ratings whole
# at every result (auto_explain in bench/store.py's flow: 1.9 ms of the statement's time, growing with the
# guild).
_SEATS_RATINGS = (
    "SELECT u.position, u.place, u.user_id, u.name, s.cpu_level, COALESCE(p.mu, g.mu), "
    "COALESCE(p.sigma, g.sigma), COALESCE(p.matches, g.matches), COALESCE(p.recent, g.recent) "
    "FROM unnest(CAST(:positions AS integer[]), CAST(:users AS bigint[]), CAST(:names AS text[]), "
    "CAST(:places AS integer[])) AS u(position, user_id, name, place) "
    "LEFT JOIN seats AS s ON s.table_id = :table AND s.position = u.position "
    # A person's rating is in their statistics row (migration 0013; a CPU level's in ratings).
    "LEFT JOIN LATERAL (SELECT mu, sigma, rated_matches AS matches, recent FROM player_stats "
    "WHERE guild_id = :guild AND user_id = u.user_id LIMIT 1) AS p ON TRUE "
    "LEFT JOIN LATERAL (SELECT mu, sigma, matches, recent FROM ratings "
    "WHERE u.user_id IS NULL AND user_id = :cpu AND cpu_level = s.cpu_level "
    "AND guild_id = :guild LIMIT 1) AS g ON TRUE "
    "ORDER BY u.position"
)

# The same on a schema older than 0013 (every rating in ratings), for a store migrated only that far.
_SEATS_RATINGS_BEFORE_0013 = (
    "SELECT u.position, u.place, u.user_id, u.name, s.cpu_level, g.mu, g.sigma, g.matches, g.recent "
    "FROM unnest(CAST(:positions AS integer[]), CAST(:users AS bigint[]), CAST(:names AS text[]), "
    "CAST(:places AS integer[])) AS u(position, user_id, name, place) "
    "LEFT JOIN seats AS s ON s.table_id = :table AND s.position = u.position "
    "LEFT JOIN LATERAL (SELECT mu, sigma, matches, recent FROM ratings "
    "WHERE user_id = COALESCE(u.user_id, :cpu) "
    "AND cpu_level = CASE WHEN u.user_id IS NULL THEN COALESCE(s.cpu_level, :person) ELSE :person END "
    "AND guild_id = :guild LIMIT 1) AS g ON TRUE "
    "ORDER BY u.position"
)
