"""Persistence: the Store interface (base.py) and its SQLite backend (sqlite.py).

All SQL lives in this package."""

from __future__ import annotations

from pathlib import Path

from bot.store.base import (
    OPEN_STATUSES,
    ConflictError,
    GameState,
    GuildSettings,
    LeaderboardRow,
    LeaderboardSort,
    MatchResult,
    MatchSummary,
    MigrationError,
    MoveRecord,
    OpenTable,
    PlayerStats,
    RankingEntry,
    RoundResult,
    SeatRecord,
    Store,
    StoreError,
    TableExistsError,
    TableRecord,
    TableStatus,
    UnsupportedDatabaseError,
)

__all__ = [
    "OPEN_STATUSES",
    "ConflictError",
    "GameState",
    "GuildSettings",
    "LeaderboardRow",
    "LeaderboardSort",
    "MatchResult",
    "MatchSummary",
    "MigrationError",
    "MoveRecord",
    "OpenTable",
    "PlayerStats",
    "RankingEntry",
    "RoundResult",
    "SeatRecord",
    "Store",
    "StoreError",
    "TableExistsError",
    "TableRecord",
    "TableStatus",
    "UnsupportedDatabaseError",
    "open_store",
    "parse_database_url",
]

_SQLITE_PREFIX = "sqlite:///"


def parse_database_url(url: str) -> str:
    """The SQLite file path a DATABASE_URL names.

    ``sqlite:///relative/path.sqlite3`` is relative to the working directory, ``sqlite:////abs/path.db`` is
    absolute, and ``sqlite:///:memory:`` is an in-memory database (tests). Anything else raises
    UnsupportedDatabaseError.
    """
    text = url.strip()
    scheme = text.split(":", 1)[0].lower() if ":" in text else ""
    if scheme.startswith("postgres"):
        raise UnsupportedDatabaseError(
            "PostgreSQL support is planned; use sqlite:///path/to/file.sqlite3 for now"
        )
    if not text.lower().startswith(_SQLITE_PREFIX) or len(text) == len(_SQLITE_PREFIX):
        raise UnsupportedDatabaseError(
            f"unsupported DATABASE_URL {_redact(text)!r}; use sqlite:///relative/path.sqlite3 or "
            "sqlite:////absolute/path.sqlite3"
        )
    return text[len(_SQLITE_PREFIX) :]


def _redact(url: str) -> str:
    """Hide a password in a URL before it goes into an error message."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://…@{rest.rsplit('@', 1)[1]}"
    return url


async def open_store(database_url: str) -> Store:
    """Connect to the database a DATABASE_URL names, creating the file's folder. Does not migrate: callers
    run ``await store.migrate()``."""
    from bot.store.sqlite import SqliteStore

    path = parse_database_url(database_url)
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    return await SqliteStore.open(path)
