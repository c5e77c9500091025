"""Persistence: the Store interface (base.py) and its backends, SQLite (sqlite.py) and PostgreSQL
(postgres.py), chosen by DATABASE_URL (urls.py).

All SQL lives in this package."""

from __future__ import annotations

from pathlib import Path

from bot.store.base import (
    OPEN_STATUSES,
    ConflictError,
    DamagedDatabaseError,
    GameState,
    GuildSettings,
    Heartbeat,
    LeaderboardRow,
    LeaderboardSort,
    MatchResult,
    MatchSummary,
    MigrationError,
    MissingDatabaseError,
    MoveCommit,
    MoveRecord,
    OpenTable,
    PlayerStats,
    RankingEntry,
    RoundResult,
    SeatRecord,
    Store,
    StoreError,
    StoreUnavailableError,
    TableExistsError,
    TableRecord,
    TableStatus,
    UnsupportedDatabaseError,
)
from bot.store.claims import ShardClaim, ShardsClaimedError, claim_shards
from bot.store.folders import creation_failure
from bot.store.urls import DatabaseTarget, mask_password, parse_database_url

__all__ = [
    "OPEN_STATUSES",
    "ConflictError",
    "DamagedDatabaseError",
    "DatabaseTarget",
    "GameState",
    "GuildSettings",
    "Heartbeat",
    "LeaderboardRow",
    "LeaderboardSort",
    "MatchResult",
    "MatchSummary",
    "MigrationError",
    "MissingDatabaseError",
    "MoveCommit",
    "MoveRecord",
    "OpenTable",
    "PlayerStats",
    "RankingEntry",
    "RoundResult",
    "SeatRecord",
    "ShardClaim",
    "ShardsClaimedError",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "TableExistsError",
    "TableRecord",
    "TableStatus",
    "UnsupportedDatabaseError",
    "claim_shards",
    "mask_password",
    "open_store",
    "parse_database_url",
]

DEFAULT_POOL_SIZE = 10


async def open_store(database_url: str, *, pool_size: int = DEFAULT_POOL_SIZE, create: bool = True) -> Store:
    """Connect to the database a DATABASE_URL names (see ``bot.store.urls``): SQLite, creating the file's
    folder, or PostgreSQL with a pool of at most ``pool_size`` connections. Does not migrate: callers run
    ``await store.migrate()``. Errors never show the URL's password.

    ``create`` False: an SQLite file that does not exist raises MissingDatabaseError instead of being created
    (with its folder), for a database that is only read from."""
    target = parse_database_url(database_url)
    if target.backend == "postgresql":
        from bot.store.postgres import PostgresStore

        return await PostgresStore.open(target, pool_size=pool_size)
    from bot.store.sqlite import SqliteStore

    assert target.path is not None
    if not target.is_memory:
        if not create and not Path(target.path).is_file():
            raise MissingDatabaseError(target.path)
        folder = Path(target.path).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:  # a file where the folder should be: said as `check` says it
            reason = creation_failure(folder, error)
            raise StoreError(f"cannot create the database file {target.path}: {reason}") from None
    return await SqliteStore.open(target.path)
