"""SQL text both backends share: the column lists the row converters of ``rows.py`` read, the open and
closed table conditions, the schema's data tables, the leaderboard orders, and statements written once with
named parameters (``numbered`` turns them into PostgreSQL's). What differs per dialect stays in ``sqlite.py``
and ``postgres.py``; one copy here keeps the two drivers, and the converters, in step."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from bot.store.base import WIN_RATE_MIN_MATCHES, LeaderboardSort

TABLE_COLUMNS = (
    "id, guild_id, channel_id, host_id, status, ruleset, options, turn_timeout, board_message_id, "
    "created_at, updated_at, target"
)
SEAT_COLUMNS = "position, user_id, display_name, cpu_level, cpu_takeover, joined_at, left_at"
BOARD_COLUMNS = "user_id, display_name, matches_played, matches_won, points"
STATS_COLUMNS = (
    "display_name, matches_played, matches_won, rounds_played, rounds_won, round_points, points, best_place, "
    "last_place, last_played_at"
)
# A person's rating in their statistics row (migration 0013), written by the rated statistics' upsert after
# the statistics' own values (a row of ``rows.stats_rows``): ``ratings.rate_seats``' row from the mu on, then
# when.
RATING_COLUMNS = ("mu", "sigma", "skill", "rated_matches", "last_change", "recent", "rated_at")
_STATS_VALUES = 11  # the values of a row of ``rows.stats_rows``


def stats_upserts(template: str, parameter: Callable[[int], str]) -> tuple[str, str]:
    """A backend's upsert of a match's statistics rows, without and with the person's new rating (one new
    version of the row either way). ``template`` is the statement without the rating, with ``{columns}``,
    ``{values}`` and ``{updates}`` where the rating's go; ``parameter(i)`` writes the i-th parameter (from
    1)."""
    plain = template.format(columns="", values="", updates="")
    rated = template.format(
        columns="".join(f", {column}" for column in RATING_COLUMNS),
        values="".join(f", {parameter(_STATS_VALUES + i)}" for i in range(1, len(RATING_COLUMNS) + 1)),
        updates="".join(f",\n    {column} = excluded.{column}" for column in RATING_COLUMNS),
    )
    return plain, rated


OPEN = "status IN ('lobby', 'playing')"
CLOSED = "status IN ('finished', 'abandoned')"

# Every table of the schema in an order that respects the foreign keys (copy-db writes them in this order).
DATA_TABLES = (
    "meta",
    "guild_settings",
    "guild_table_channels",
    "game_tables",
    "seats",
    "game_state",
    "moves",
    "round_results",
    "match_results",
    "match_rankings",
    "player_stats",
    "player_preset_counts",
    "heartbeats",
    "ratings",
    "move_outbox",
    "pruned_actors",
)


class BoardOrders:
    """The leaderboard's three orders for one SQL dialect. Each ORDER BY matches an index of the schema term
    for term, so a page is an index range scan; the user id makes the order total, so ranks are stable
    between pages."""

    def __init__(self, win_rate: str) -> None:
        self.order_by: dict[str, str] = {
            "wins": "matches_won DESC, points DESC, user_id",
            "points": "points DESC, matches_won DESC, user_id",
            "winrate": f"{win_rate} DESC, matches_won DESC, user_id",
        }
        # The same orders as (first key, second key), both descending, then user_id ascending.
        self.keys: dict[str, tuple[str, str]] = {
            "wins": ("matches_won", "points"),
            "points": ("points", "matches_won"),
            "winrate": (win_rate, "matches_won"),
        }

    def check(self, sort: LeaderboardSort) -> None:
        if sort not in self.order_by:
            raise ValueError(f"unknown leaderboard order {sort!r}")


def played_at_least(min_matches: int) -> str:
    """The win-rate board's condition on matches_played, written so that the board's partial index
    (migrations/0015: ``WHERE matches_played >= 5``) applies: the index's own condition as a literal (a
    parameter would not show the planner that the index holds every row asked for; PostgreSQL keeps one
    generic plan of a prepared statement), and a higher minimum added to it. A lower one (no caller of the bot
    asks for it) is read without that index: the guild's rows, sorted."""
    floor = int(min_matches)
    indexed = f"matches_played >= {WIN_RATE_MIN_MATCHES}"
    if floor == WIN_RATE_MIN_MATCHES:
        return indexed
    if floor > WIN_RATE_MIN_MATCHES:
        return f"{indexed} AND matches_played >= {floor}"
    return f"matches_played >= {floor}"


# A guild's finished matches, newest first: ``match_results_recent`` (migrations/0002) term for term; a next
# page starts after the last match of the one before (a keyset: a range of the index, whatever the page's
# number).
RECENT_MATCHES = (
    "SELECT table_id, guild_id, channel_id, preset, finished_at, rounds_played, house_rules "
    "FROM match_results WHERE guild_id = :guild{after} ORDER BY finished_at DESC, table_id DESC LIMIT :limit"
)
RECENT_AFTER = " AND (finished_at, table_id) < (:at, :table)"


def recent_matches(guild_id: int, limit: int, before: tuple[float, int] | None) -> tuple[str, dict[str, Any]]:
    """``RECENT_MATCHES`` (:name parameters) and its values."""
    values: dict[str, Any] = {"guild": guild_id, "limit": max(0, limit)}
    if before is None:
        return RECENT_MATCHES.format(after=""), values
    return RECENT_MATCHES.format(after=RECENT_AFTER), {**values, "at": before[0], "table": before[1]}


# --- statements both dialects share -------------------------------------------------------------------------
# Written with named parameters (:name), which sqlite3 takes as they are; ``numbered`` turns them into
# PostgreSQL's $1, $2 … for asyncpg.

_NAMED = re.compile(r"(?<!:):([a-z_][a-z0-9_]*)\b")


def numbered(sql: str, params: dict[str, Any]) -> tuple[str, list[Any]]:
    """``sql`` with :name parameters turned into $1, $2 … and the values in that order."""
    text, order = _numbering(sql)
    return text, [params[name] for name in order]


def params_of(sql: str, values: dict[str, Any]) -> dict[str, Any]:
    """The values of the :name parameters ``sql`` uses."""
    return {name: values[name] for name in _names(sql)}


# Cached per statement text: a match result's statements are parsed once, not on every result (the regex
# cost as much as the statement it prepared; bench/store.py).
@lru_cache(maxsize=512)
def _numbering(sql: str) -> tuple[str, tuple[str, ...]]:
    order: list[str] = []

    def place(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in order:
            order.append(name)
        return f"${order.index(name) + 1}"

    return _NAMED.sub(place, sql), tuple(order)


@lru_cache(maxsize=512)
def _names(sql: str) -> tuple[str, ...]:
    return tuple(_NAMED.findall(sql))


# --- the outbox (what the channel must still be told; migrations/0011_move_outbox.sql) --------------------
# The schema version that made the outbox. A store migrated to an older schema (a test making a database as an
# old bot would have) writes no outbox rows and has none to tell.
OUTBOX_MIGRATION = 11
# Positional in commit_move (one more statement in the move's transaction), named elsewhere.
OUTBOX_INSERT = "INSERT INTO move_outbox (table_id, version, events, created_at) VALUES (?, ?, ?, ?)"
OUTBOX_SELECT = "SELECT o.table_id, o.version, o.events, o.created_at, o.attempt FROM move_outbox AS o"
OUTBOX_TOLD = "DELETE FROM move_outbox WHERE table_id = :table AND version <= :version"
OUTBOX_TOLD_BEFORE = "DELETE FROM move_outbox WHERE table_id = :table AND version < :first"
OUTBOX_NOTE = (
    "UPDATE move_outbox SET attempt = :attempt WHERE table_id = :table AND version >= :first "
    "AND version <= :last"
)
# Old news of closed tables only (their channel gone, or finished long ago): an open table's untold moves are
# told however long its process was down.
OUTBOX_DROP_OLD = (
    "DELETE FROM move_outbox WHERE created_at < :before AND NOT EXISTS (SELECT 1 FROM game_tables AS t "
    "WHERE t.id = move_outbox.table_id AND t.status IN ('lobby', 'playing'))"
)
