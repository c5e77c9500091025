"""Rows and records, for both backends: JSON encoding, rows to records, records to parameters, and the
statistics a match result adds. Everything computed in Python lives here once; the SQL text is in the drivers
(``sqlite.py``, ``postgres.py``), what both share in ``statements.py``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from bot.shards import ALL
from bot.store.base import (
    GuildSettings,
    LeaderboardRow,
    MatchResult,
    MoveRecord,
    OutboxRow,
    PlayerStats,
    RankingEntry,
    RoundResult,
    SeatRecord,
    TableRecord,
)

ANONYMOUS_NAME = "Deleted player"
ALL_SHARDS = ALL  # the heartbeat of a process that runs every shard


def dumps(value: Any) -> str:
    # Encoding the state is much of a move's cost: orjson is several times faster than json. Non-string keys
    # become strings, as json.dumps makes them.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


loads = orjson.loads


def target_of(ruleset: dict[str, Any], options: dict[str, Any]) -> int | None:
    """The match's target score: a table option overrides the ruleset's."""
    value = options["target"] if "target" in options else ruleset.get("target")
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def table_record(row: Sequence[Any]) -> TableRecord:
    """A row of ``SELECT {TABLE_COLUMNS} FROM game_tables``."""
    return TableRecord(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        host_id=row[3],
        status=row[4],
        ruleset=loads(row[5]),
        options=loads(row[6]),
        turn_timeout=row[7],
        board_message_id=row[8],
        created_at=row[9],
        updated_at=row[10],
        target=row[11],
    )


def seat_record(row: Sequence[Any]) -> SeatRecord:
    """A row of ``SELECT {SEAT_COLUMNS} FROM seats``."""
    return SeatRecord(
        position=row[0],
        user_id=row[1],
        display_name=row[2],
        cpu_level=row[3],
        cpu_takeover=bool(row[4]),
        joined_at=row[5],
        left_at=row[6],
    )


def seat_params(table_id: int, seat: SeatRecord) -> tuple[Any, ...]:
    """(table_id, then SEAT_COLUMNS' values) for an insert."""
    return (
        table_id,
        seat.position,
        seat.user_id,
        seat.display_name,
        seat.cpu_level,
        bool(seat.cpu_takeover),
        seat.joined_at,
        seat.left_at,
    )


def host_seat(host: SeatRecord, now: float) -> tuple[int, SeatRecord]:
    """The host's id and seat 0 of a new table; a table's host is a person."""
    if host.user_id is None:
        raise ValueError("a table's host is a person: host.user_id is required")
    seat = SeatRecord(
        position=0,
        user_id=host.user_id,
        display_name=host.display_name,
        cpu_level=host.cpu_level,
        cpu_takeover=host.cpu_takeover,
        joined_at=host.joined_at or now,
        left_at=host.left_at,
    )
    return host.user_id, seat


def new_table_record(
    table_id: int,
    guild_id: int,
    channel_id: int,
    host_id: int,
    ruleset: dict[str, Any],
    options: dict[str, Any],
    turn_timeout: float,
    now: float,
) -> TableRecord:
    """The record of a table just created (a copy of the documents, as a read would return them)."""
    return TableRecord(
        id=table_id,
        guild_id=guild_id,
        channel_id=channel_id,
        host_id=host_id,
        status="lobby",
        ruleset=loads(dumps(ruleset)),
        options=loads(dumps(options)),
        turn_timeout=turn_timeout,
        board_message_id=None,
        created_at=now,
        updated_at=now,
        target=target_of(ruleset, options),
    )


# --- leaderboard --------------------------------------------------------------------------------------------


def board_row(rank: int, row: Sequence[Any]) -> LeaderboardRow:
    """A row of ``SELECT {BOARD_COLUMNS}`` at ``rank``."""
    user_id, name, played, won, points = row
    return LeaderboardRow(
        rank=rank,
        user_id=user_id,
        display_name=name,
        matches_played=played,
        matches_won=won,
        win_rate=won / played if played else 0.0,
        points=points,
    )


def player_stats_record(
    guild_id: int, user_id: int, row: Sequence[Any], favourite: str | None
) -> PlayerStats:
    """A row of ``SELECT {STATS_COLUMNS} FROM player_stats``."""
    name, played, won, rounds_played, rounds_won, round_points, points, best, last, last_at = row
    return PlayerStats(
        guild_id=guild_id,
        user_id=user_id,
        display_name=name,
        matches_played=played,
        matches_won=won,
        rounds_played=rounds_played,
        rounds_won=rounds_won,
        round_points=round_points,
        points=points,
        best_place=best,
        last_place=last,
        last_played_at=last_at,
        favourite_preset=favourite,
    )


# --- results ------------------------------------------------------------------------------------------------


def round_rows(table_id: int, result: RoundResult) -> list[tuple[Any, ...]]:
    """(table_id, round_number, position, score, won) per seat."""
    winners = set(result.winners)
    return [
        (table_id, result.round_number, position, score, position in winners)
        for position, score in enumerate(result.scores)
    ]


def rounds_from_rows(rows: Iterable[Sequence[Any]]) -> list[RoundResult]:
    """Rows of (round_number, position, score, won), ordered by round then position."""
    rounds: dict[int, tuple[list[int], list[int]]] = {}
    for number, position, score, won in rows:
        scores, winners = rounds.setdefault(number, ([], []))
        scores.append(score)
        if won:
            winners.append(position)
    return [RoundResult(number, scores, winners) for number, (scores, winners) in rounds.items()]


def ranking_rows(table_id: int, result: MatchResult) -> list[tuple[Any, ...]]:
    return [(table_id, e.position, e.user_id, e.display_name, e.place, e.total) for e in result.ranking]


def ranking_entry(row: Sequence[Any]) -> RankingEntry:
    """A row of (position, user_id, display_name, place, total)."""
    return RankingEntry(row[0], row[1], row[2], row[3], row[4])


def stats_rows(guild_id: int, result: MatchResult, now: float) -> list[tuple[Any, ...]]:
    """What one match adds to each person's statistics, in the order of the upsert's columns: guild_id,
    user_id, display_name, matches_won, rounds_played, rounds_won, round_points, points (opponents finished
    ahead of), best_place, last_place, last_played_at. CPU seats get none."""
    return [
        (
            guild_id,
            entry.user_id,
            entry.display_name,
            int(entry.place == 1),
            result.rounds_played,
            result.round_wins.get(entry.position, 0),
            result.round_points.get(entry.position, 0),
            sum(1 for other in result.ranking if other.place > entry.place),
            entry.place,
            entry.place,
            now,
        )
        for entry in result.ranking
        if entry.user_id is not None
    ]


def preset_rows(guild_id: int, result: MatchResult) -> list[tuple[Any, ...]]:
    return [(guild_id, entry.user_id, result.preset) for entry in result.ranking if entry.user_id is not None]


def guild_settings(guild_id: int, row: Sequence[Any] | None, channels: Iterable[int]) -> GuildSettings:
    """From (default_preset, default_turn_timeout, manager_role_id, default_house_rules), or the defaults when
    there is no row."""
    if row is None:
        return GuildSettings(guild_id)
    return GuildSettings(
        guild_id=guild_id,
        default_preset=row[0],
        default_turn_timeout=row[1],
        allowed_channel_ids=tuple(channels),
        manager_role_id=row[2],
        default_house_rules=loads(row[3]),
    )


def move_record(table_id: int, row: Sequence[Any]) -> MoveRecord:
    """A row of (seq, version, actor_id, action, events, created_at)."""
    seq, version, actor, action, events, created = row
    return MoveRecord(table_id, seq, version, actor, loads(action), loads(events), created)


def outbox_row(row: Sequence[Any]) -> OutboxRow:
    """A row of (table_id, version, events, created_at, attempt)."""
    table_id, version, events, created, attempt = row
    noted = None if attempt is None else loads(attempt)
    return OutboxRow(int(table_id), int(version), loads(events), float(created), noted)
