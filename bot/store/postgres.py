"""The PostgreSQL backend of the store, through asyncpg and its connection pool.

The same guarantees as the SQLite store, from any number of processes on any number of machines:

- One game action is one transaction. Its first statement is ``UPDATE game_state … WHERE version = $n``: the
  row lock makes a second mover wait for the first to commit, and PostgreSQL then re-checks the condition
  against the committed row, so exactly one of two racing moves updates it and the other gets ConflictError.
  A plain move (no seats, options or results) is that statement alone, with the move log entry and the
  table's ``updated_at`` written by data-modifying CTEs of the same statement: one round trip, one commit.
- A match result is recorded by ``INSERT … ON CONFLICT (table_id) DO NOTHING`` in the move's transaction, and
  the statistics are updated only when that insert wrote its row: exactly once per table.
- Durability, as SQLite's ``synchronous=NORMAL``: sessions run with ``synchronous_commit = off``, so a move's
  COMMIT returns once its WAL record is written to the server's memory, not after an fsync. Killing the bot at
  any moment loses nothing committed; a crash of the database server or machine may roll back the last moments
  of play (at most 3 × wal_writer_delay, 0.6 s by default), always whole moves, never a half one. A match
  result is committed with ``synchronous_commit = on`` (SET LOCAL): results and statistics are on disk before
  the bot announces them. Waiting for an fsync on every move measured 150–800 moves/s over 100 tables on the
  development machine against 1,100–1,600 without; ``?synchronous_commit=on`` in DATABASE_URL restores it.
- Connections come from a pool of at most ``pool_size`` (DATABASE_POOL_SIZE, default 10). asyncpg prepares
  and caches every statement per connection.
- The URL's password never appears in an error: connection failures are re-raised as StoreError with the
  masked URL (``bot.store.urls``).
- A PostgreSQL ``schema`` other than the default (``search_path``) keeps test runs apart in one database.

This file holds the pool, the schema and operations (migrations, meta, heartbeats, copy-db), the tables and
their moves, and guild settings; ``bot.store.postgres_standings`` holds match results and the standings reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import parse_qs, urlsplit

import asyncpg

from bot.shards import ShardSet
from bot.store import forget, postgres_standings, postgres_vacuum, ratings, rows, statements
from bot.store import migrations as migration_runner
from bot.store.base import (
    BulkWriter,
    ConflictError,
    GameState,
    GuildSettings,
    GuildSettingsChange,
    Heartbeat,
    MoveCommit,
    MoveRecord,
    OpenTable,
    OutboxRow,
    Rater,
    SeatRecord,
    StoreError,
    StoreRefusedError,
    StoreTimedOutError,
    StoreUnavailableError,
    TableExistsError,
    TableRecord,
    default_rater,
)
from bot.store.postgres_standings import PostgresStandings, record_match, run_steps
from bot.store.rows import dumps, loads
from bot.store.statements import SEAT_COLUMNS, TABLE_COLUMNS
from bot.store.urls import DatabaseTarget, for_libpq

T = TypeVar("T")
log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0  # seconds
APPLICATION_NAME = "crazy-eights"
VACUUM_EVERY = 2000  # moves this process commits between looks at what autovacuum would do, when it is off

_UPSERT_SEAT = """
INSERT INTO seats (table_id, position, user_id, display_name, cpu_level, cpu_takeover, joined_at, left_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (table_id, position) DO UPDATE SET
    user_id = excluded.user_id, display_name = excluded.display_name, cpu_level = excluded.cpu_level,
    cpu_takeover = excluded.cpu_takeover, joined_at = excluded.joined_at, left_at = excluded.left_at
"""

# A move: the version check, the new state, the log entry and the table's status in one statement. The CTEs
# that write depend on `moved`, so when the version check fails nothing at all is written. seq is the next
# number of this table's log: the row lock on game_state serialises the table's moves, so no other
# transaction can be adding one.
_MOVE = """
WITH moved AS (
    UPDATE game_state SET version = version + 1, state = $1, deadline = $2
    WHERE table_id = $3 AND version = $4
    RETURNING table_id, version
), logged AS (
    INSERT INTO moves (table_id, seq, version, actor_id, action, events, created_at)
    SELECT table_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM moves WHERE table_id = $3), version,
           $5, $6, $7, $8
    FROM moved
), touched AS (
    UPDATE game_tables SET updated_at = $8, status = COALESCE($9::text, status)
    WHERE id = $3 AND EXISTS (SELECT 1 FROM moved)
)
SELECT version FROM moved
"""
# The same, with the move's outbox row (what the channel must be told of it) in the same statement.
_MOVE_TOLD = _MOVE.replace(
    "\nSELECT version FROM moved",
    """, told AS (
    INSERT INTO move_outbox (table_id, version, events, created_at)
    SELECT table_id, version, $10, $8 FROM moved
)
SELECT version FROM moved""",
)

_CREATE_TABLE = """
WITH created AS (
    INSERT INTO game_tables (guild_id, channel_id, host_id, status, ruleset, options, target, turn_timeout,
                             created_at, updated_at)
    VALUES ($1, $2, $3, 'lobby', $4, $5, $6, $7, $8, $8)
    RETURNING id
), host AS (
    INSERT INTO seats (table_id, position, user_id, display_name, cpu_level, cpu_takeover, joined_at, left_at)
    SELECT id, 0, $3, $9, $10, $11, $12, $13 FROM created
), state AS (
    INSERT INTO game_state (table_id, version, state, deadline) SELECT id, 0, $14, $15 FROM created
)
SELECT id FROM created
"""


# Seconds a statement may take before the store gives it up as the server's fault (a move waits no longer).
COMMAND_TIMEOUT = 60.0
# How long a statement waits for a row or a lock another session holds (a DBA's script, a report taking FOR
# UPDATE) before the server gives it up, changing nothing (LockNotAvailableError: "could not save, nothing
# changed"): SQLite's busy timeout (``sqlite.BUSY_TIMEOUT_MS``). Without it a move would wait up to
# COMMAND_TIMEOUT, holding its table. ``?lock_timeout=`` in DATABASE_URL sets another (0: wait as long as it
# takes). The migrations, which wait for another process's migrating, set it off on their connection.
LOCK_TIMEOUT = "5s"

# Where asyncpg opens a connection: an error raised there was raised before any statement was sent.
_CONNECTING = {("asyncpg.pool", "_get_new_connection"), ("asyncpg.connection", "connect")}


def _while_connecting(error: BaseException) -> bool:
    """Whether ``error`` was raised while a connection was being opened (the pool's, a connection of the
    store's own), or on a connection already closed: no statement of the store's was sent."""
    if isinstance(error, asyncpg.InterfaceError) and "connection is closed" in str(error):
        return True  # asyncpg checks before it sends anything
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if (frame.f_globals.get("__name__"), frame.f_code.co_name) in _CONNECTING:
            return True
        if frame.f_globals.get("__name__") == "asyncpg.connect_utils":
            return True
        tb = tb.tb_next
    return False


def _is_unavailable(error: BaseException) -> bool:
    """The server cannot be used now (restarting, unreachable, connections cut, disk full, a standby after
    a failover); the statement did not commit, or its commit is in doubt (a connection cut in flight: the
    service asks), and the same work may succeed once it is back."""
    if _while_connecting(error) and isinstance(
        error, OSError | TimeoutError | asyncpg.PostgresError | asyncpg.InterfaceError
    ):
        # The server out of reach, or refusing this connection: not accepting connections (ALTER DATABASE
        # … ALLOW_CONNECTIONS false, 55000), out of slots (53300), starting up or shutting down (57P03), a
        # login refused (28000, 28P01: pg_hba.conf or the password changed under the running bot). The store
        # opened on it, so none of these is a wrong URL.
        return True
    if isinstance(error, asyncpg.InterfaceError):
        # A connection the server or the network closed; other interface errors are the bot's own bugs.
        return isinstance(error, asyncpg.ConnectionDoesNotExistError) or "closed" in str(error)
    if isinstance(error, asyncpg.exceptions.InternalClientError):
        # A connection the server terminated while it was idle in the pool: its protocol still holds the
        # server's last error when the next query comes ("another operation is in progress").
        return True
    return isinstance(
        error,
        OSError
        | TimeoutError
        | asyncpg.PostgresConnectionError
        | asyncpg.OperatorInterventionError  # admin shutdown, pg_terminate_backend, starting up, and a
        # statement cancelled (57014: statement_timeout, pg_cancel_backend): rolled back, or its commit in
        # doubt if the connection went too (the service asks)
        | asyncpg.InsufficientResourcesError  # disk full, too many connections
        | asyncpg.ReadOnlySQLTransactionError  # a standby after a failover
        | asyncpg.LockNotAvailableError  # lock_timeout (LOCK_TIMEOUT): a row held by another session
        | asyncpg.TransactionRollbackError,  # a serialization failure or a deadlock: rolled back
    )


def _server_settings(target: DatabaseTarget, schema: str | None) -> dict[str, str]:
    """The session settings of every connection the store opens."""
    settings = {"application_name": APPLICATION_NAME}
    query = parse_qs(urlsplit(target.url).query)
    if "synchronous_commit" not in query:  # why: see the module docstring
        settings["synchronous_commit"] = "off"
    if not any("lock_timeout" in part for part in [*query, *query.get("options", [])]):  # ?options=-c …
        settings["lock_timeout"] = LOCK_TIMEOUT
    if schema is not None:
        settings["search_path"] = schema
    return settings


_Method = TypeVar("_Method", bound=Callable[..., Awaitable[Any]])
_S = TypeVar("_S", bound=type)


def _unavailable_as_store_error(method: _Method) -> _Method:
    @functools.wraps(method)
    async def run(self: PostgresStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return await method(self, *args, **kwargs)
        except StoreError:
            raise
        except Exception as error:
            if not _is_unavailable(error):
                raise
            reason = self._target.scrub(f"{type(error).__name__}: {error}")
            # from None: the driver's own error may quote the DSN.
            unavailable = (
                StoreRefusedError
                if _while_connecting(error)
                else StoreTimedOutError
                if isinstance(error, TimeoutError)
                else StoreUnavailableError
            )
            raise unavailable(f"PostgreSQL at {self._target.shown} cannot be used now: {reason}") from None

    return cast(_Method, run)


def _faults_as_store_errors(cls: _S) -> _S:
    """Every public coroutine method of the store (its own and PostgresStandings') raises a lost server as
    StoreUnavailableError, as the SQLite store does, so that the service sees one error for both. The pool
    itself drops a connection the server closed and opens a new one at the next acquire."""
    for name, method in inspect.getmembers(cls, inspect.iscoroutinefunction):
        if not name.startswith("_") and name != "open":
            setattr(cls, name, _unavailable_as_store_error(method))
    return cls


@_faults_as_store_errors
class PostgresStore(PostgresStandings):
    """The Store protocol over a PostgreSQL database (one schema of it)."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        target: DatabaseTarget,
        migrations_dir: Path,
        schema: str | None,
        rater: Rater | None = None,
        vacuum: bool | None = None,
    ) -> None:
        self._pool = pool
        self._target = target
        self._migrations_dir = migrations_dir
        self._schema = schema
        self._rater = rater or default_rater()
        self._rates = True  # as SqliteStore's: False after migrating to a schema older than the ratings'
        self._folded = True  # as SqliteStore's: people's ratings in player_stats from migration 0013 on
        self._tells = True  # as SqliteStore's: False on a schema older than the outbox's
        self._notes_pruned = True  # as SqliteStore's: retention's pruned_actors from migration 0014 on
        self.migrations_applied = 0  # by the last migrate() (the Store protocol's)
        # Whether the store vacuums its own tables (postgres_vacuum): None until the server's autovacuum
        # setting has been read. The first move looks at once (a restart may find a backlog).
        self._vacuums = vacuum
        self._moves_unvacuumed = VACUUM_EVERY
        self._vacuuming: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls,
        target: DatabaseTarget,
        *,
        pool_size: int = 10,
        schema: str | None = None,
        migrations_dir: Path | None = None,
        rater: Rater | None = None,
        vacuum: bool | None = None,
    ) -> PostgresStore:
        """Connect (without migrating). ``schema``: work in that schema (it must exist), not the default.
        ``rater``: the rating model (default: the service's OpenSkill). ``vacuum``: whether the store
        vacuums its own tables as autovacuum would (default: when the server's autovacuum is off)."""
        settings = _server_settings(target, schema)
        pool: asyncpg.Pool | None = None
        try:
            pool = await asyncpg.create_pool(
                target.url,
                # No floor: asyncpg restores a floor in the background while the server is away, logging a
                # traceback at every attempt; without one, a connection is opened when a query needs it.
                min_size=0,
                max_size=max(1, pool_size),
                timeout=CONNECT_TIMEOUT,
                command_timeout=COMMAND_TIMEOUT,
                server_settings=settings,
            )
            async with pool.acquire():
                pass  # a first connection now: a wrong URL or an absent server is reported at open
        # OverflowError: a port out of range that got past parse_database_url (asyncpg's own parsing).
        except (
            OSError,
            TimeoutError,
            OverflowError,
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
            ValueError,
        ) as error:
            if pool is not None:
                pool.terminate()
            # The driver's message can quote the DSN; ours names the masked URL only.
            reason = target.scrub(f"{type(error).__name__}: {error}")
            raise StoreError(f"cannot connect to PostgreSQL at {target.shown}: {reason}") from None
        return cls(
            pool,
            target,
            migrations_dir or migration_runner.DEFAULT_POSTGRES_MIGRATIONS_DIR,
            schema,
            rater,
            vacuum,
        )

    async def run_in_connection(self, work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """Run ``work`` with one connection of the pool (the only one when ``pool_size`` is 1) and return its
        result.

        For tests, benchmarks and diagnostics (a query logger, EXPLAIN, a raw statement): ``work`` bypasses
        the store's methods, so their transactions and checks are its own business. The bot never calls
        it."""
        async with self._pool.acquire() as conn:
            return await work(conn)

    async def close(self) -> None:
        if self._vacuuming is not None:
            # A VACUUM cut short leaves nothing half done; the next start looks again.
            self._vacuuming.cancel()
            await asyncio.gather(self._vacuuming, return_exceptions=True)
        try:
            await self._pool.close()
        except Exception:
            log.debug("closing the PostgreSQL pool failed; terminating it", exc_info=True)
            self._pool.terminate()

    def terminate(self) -> None:
        """Close every connection now, waiting for nothing (``bot.store.base.terminate_store``): a statement
        in flight fails, and asyncpg's cancel requests (each bounded only by COMMAND_TIMEOUT) are dropped."""
        self._pool.terminate()
        if self._vacuuming is not None:
            self._vacuuming.cancel()

    # --- schema and operations -------------------------------------------------------------------------

    async def migrate(self) -> int:
        known = migration_runner.discover(self._migrations_dir)
        rater = self._rater

        async def backfill(conn: asyncpg.Connection) -> None:
            await run_steps(conn, ratings.backfill(rater))

        async with self._pool.acquire() as conn:
            # Another process's migration is waited for (its advisory lock), however long: no lock_timeout
            # on this connection (the pool sets it again when the connection comes back to it: RESET ALL).
            await conn.execute("SET lock_timeout = 0")
            migrated = await migration_runner.migrate_postgres(conn, known, {ratings.MIGRATION: backfill})
        version, self.migrations_applied = migrated.version, migrated.applied
        self._rates = version >= ratings.MIGRATION
        self._folded = version >= ratings.FOLDED_MIGRATION
        self._tells = version >= statements.OUTBOX_MIGRATION
        self._notes_pruned = version >= forget.PRUNED_ACTORS_MIGRATION
        return version

    async def schema_version(self) -> int:
        async with self._pool.acquire() as conn:
            return await migration_runner.schema_version_postgres(conn)

    async def integrity_check(self) -> list[str]:
        """What PostgreSQL can tell without extensions: the ledger and every table its applied migrations
        made are readable. A table of a migration not yet applied is not looked for: an empty database, or
        one of an older bot, is sound, and migrating makes it (SQLite's check knows no schema either). (The
        server checks its own pages: enable data checksums with initdb -k.)"""
        known = migration_runner.discover(self._migrations_dir)
        problems = []
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            version = await migration_runner.schema_version_postgres(conn)
            made = migration_runner.created_tables(known[:version])
            for table in (table for table in statements.DATA_TABLES if table in made):
                try:
                    # A savepoint: after a table that cannot be read, the next ones are still read (an error
                    # aborts the whole transaction otherwise).
                    async with conn.transaction():
                        await conn.fetchval(f"SELECT 1 FROM {table} LIMIT 1")
                except asyncpg.PostgresError as error:
                    problems.append(f"{table}: {error}")
        return problems or ["ok"]

    async def check_writable(self) -> None:
        """A standby, or a session read-only by default (``default_transaction_read_only``), takes no write:
        ``migrate`` fails there at once."""
        async with self._pool.acquire() as conn:
            read_only = await conn.fetchval("SELECT current_setting('transaction_read_only')")
        if read_only == "on":
            raise StoreUnavailableError(
                f"PostgreSQL at {self._target.shown} accepts no writes (transaction_read_only is on: a "
                "standby, or default_transaction_read_only set for this user or database)"
            )

    async def backup(self, path: str) -> None:
        raise StoreError(backup_advice(self._target, path))

    async def get_meta(self, key: str) -> str | None:
        value = await self._pool.fetchval("SELECT value FROM meta WHERE key = $1", key)
        return None if value is None else str(value)

    async def set_meta(self, key: str, value: str) -> None:
        await self._pool.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
            key,
            value,
        )

    async def delete_meta(self, key: str) -> None:
        await self._pool.execute("DELETE FROM meta WHERE key = $1", key)

    async def write_heartbeat(
        self, now: float, process: str = rows.ALL_SHARDS, *, pid: int | None = None, host: str | None = None
    ) -> None:
        await self._pool.execute(
            "INSERT INTO heartbeats (process, beat_at, pid, host) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (process) DO UPDATE SET beat_at = $2, pid = $3, host = $4, stopped_at = NULL",
            process,
            float(now),
            pid,
            host,
        )

    async def read_heartbeat(self, process: str = rows.ALL_SHARDS) -> float | None:
        value = await self._pool.fetchval("SELECT beat_at FROM heartbeats WHERE process = $1", process)
        return None if value is None else float(value)

    async def heartbeat(self, process: str) -> Heartbeat | None:
        row = await self._pool.fetchrow(
            "SELECT process, beat_at, pid, host, stopped_at FROM heartbeats WHERE process = $1", process
        )
        return None if row is None else Heartbeat(*row)

    async def mark_stopped(self, process: str, now: float) -> None:
        await self._pool.execute(
            "UPDATE heartbeats SET stopped_at = $1 WHERE process = $2", float(now), process
        )

    async def heartbeats(self) -> list[Heartbeat]:
        found = await self._pool.fetch(
            "SELECT process, beat_at, pid, host, stopped_at FROM heartbeats ORDER BY beat_at"
        )
        return [Heartbeat(*row) for row in found]

    async def forget_user(self, user_id: int, guild_id: int | None = None) -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            # A match of theirs recorded meanwhile (by another process) reads their rating before the forget
            # deletes it, and writes it back after: each guild's ratings lock, the one match results take,
            # makes one wait for the other (taken in order: no two forgets wait for each other).
            guilds = (
                [guild_id]
                if guild_id is not None
                else sorted(
                    int(row[0])
                    for row in await conn.fetch(
                        "SELECT DISTINCT guild_id FROM player_stats WHERE user_id = $1", user_id
                    )
                )
            )
            for guild in guilds:
                await conn.execute(
                    "SELECT pg_advisory_xact_lock($1, ($2::bigint & 2147483647)::integer)",
                    postgres_standings.RATINGS_LOCK,
                    guild,
                )
            return await run_steps(conn, forget.procedure(user_id, guild_id))

    async def open_tables_of_user(self, user_id: int) -> list[int]:
        found = await self._pool.fetch(*_numbered(forget.OPEN_TABLES_OF_USER, {"user": user_id}))
        return [int(row[0]) for row in found]

    # --- copy-db -----------------------------------------------------------------------------------------

    async def row_counts(self) -> dict[str, int]:
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read"):
            return {
                table: int(await conn.fetchval(f"SELECT COUNT(*) FROM {table}"))
                for table in statements.DATA_TABLES
            }

    async def export_rows(self, table: str, batch: int = 2000) -> AsyncIterator[tuple[list[str], list[Any]]]:
        if table not in statements.DATA_TABLES:
            raise ValueError(f"unknown table {table!r}")
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            statement = await conn.prepare(f"SELECT * FROM {table}")
            columns = [attribute.name for attribute in statement.get_attributes()]
            cursor = await statement.cursor()
            while found := await cursor.fetch(batch):
                yield columns, [tuple(row) for row in found]

    @contextlib.asynccontextmanager
    async def bulk_writer(self) -> AsyncIterator[BulkWriter]:
        async with self._pool.acquire() as conn, conn.transaction():
            types: dict[str, dict[str, str]] = {}

            async def write(table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
                if table not in statements.DATA_TABLES:
                    raise ValueError(f"unknown table {table!r}")
                if table not in types:
                    found = await conn.fetch(
                        "SELECT column_name, data_type FROM information_schema.columns "
                        "WHERE table_schema = current_schema() AND table_name = $1",
                        table,
                    )
                    types[table] = {row[0]: row[1] for row in found}
                kinds = [types[table].get(column, "") for column in columns]
                records = [
                    tuple(_coerce(kind, value) for kind, value in zip(kinds, row, strict=True))
                    for row in values
                ]
                await conn.copy_records_to_table(table, records=records, columns=list(columns))

            yield write
            # The identity must continue after the ids brought along, never hand one out again.
            await conn.execute(
                "SELECT setval(pg_get_serial_sequence('game_tables', 'id'), "
                "COALESCE((SELECT MAX(id) FROM game_tables), 0) + 1, false)"
            )

    # --- tables ------------------------------------------------------------------------------------------

    async def create_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host: SeatRecord,
        ruleset: dict[str, Any],
        options: dict[str, Any],
        turn_timeout: float,
        state: dict[str, Any],
        deadline: float | None,
        now: float,
    ) -> TableRecord:
        host_id, seat = rows.host_seat(host, now)
        try:
            table_id = await self._pool.fetchval(
                _CREATE_TABLE,
                guild_id,
                channel_id,
                host_id,
                dumps(ruleset),
                dumps(options),
                rows.target_of(ruleset, options),
                turn_timeout,
                now,
                seat.display_name,
                seat.cpu_level,
                seat.cpu_takeover,
                seat.joined_at,
                seat.left_at,
                dumps(state),
                deadline,
            )
        except asyncpg.UniqueViolationError:
            existing = await self.open_table_in_channel(channel_id)
            raise TableExistsError(channel_id, existing.id if existing else 0) from None
        return rows.new_table_record(
            table_id, guild_id, channel_id, host_id, ruleset, options, turn_timeout, now
        )

    async def get_table(self, table_id: int) -> TableRecord | None:
        row = await self._pool.fetchrow(f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE id = $1", table_id)
        return None if row is None else rows.table_record(row)

    async def open_table_in_channel(self, channel_id: int) -> TableRecord | None:
        row = await self._pool.fetchrow(
            f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE channel_id = $1 AND {statements.OPEN}", channel_id
        )
        return None if row is None else rows.table_record(row)

    async def list_seats(self, table_id: int) -> list[SeatRecord]:
        found = await self._pool.fetch(
            f"SELECT {SEAT_COLUMNS} FROM seats WHERE table_id = $1 ORDER BY position", table_id
        )
        return [rows.seat_record(row) for row in found]

    async def get_state(self, table_id: int) -> GameState | None:
        row = await self._pool.fetchrow(
            "SELECT version, state, deadline FROM game_state WHERE table_id = $1", table_id
        )
        return None if row is None else GameState(table_id, row[0], loads(row[1]), row[2])

    async def load_open_tables(self, shards: ShardSet | None = None) -> list[OpenTable]:
        mine, shard_args = "", []
        if shards is not None and not shards.everything:
            mine = " AND ((guild_id >> 22) % $1) = ANY($2::integer[])"
            shard_args = [shards.count, list(shards.ids or ())]
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            tables = [
                rows.table_record(row)
                for row in await conn.fetch(
                    f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE {statements.OPEN}{mine} ORDER BY id",
                    *shard_args,
                )
            ]
            ids = [table.id for table in tables]
            seats: dict[int, list[SeatRecord]] = {table_id: [] for table_id in ids}
            for row in await conn.fetch(
                f"SELECT table_id, {SEAT_COLUMNS} FROM seats WHERE table_id = ANY($1::bigint[]) "
                "ORDER BY table_id, position",
                ids,
            ):
                seats[row[0]].append(rows.seat_record(row[1:]))
            states = {
                row[0]: GameState(row[0], row[1], loads(row[2]), row[3])
                for row in await conn.fetch(
                    "SELECT table_id, version, state, deadline FROM game_state "
                    "WHERE table_id = ANY($1::bigint[])",
                    ids,
                )
            }
        return [OpenTable(table, seats[table.id], states[table.id]) for table in tables]

    async def set_board_message(self, table_id: int, message_id: int | None, now: float) -> None:
        await self._pool.execute(
            "UPDATE game_tables SET board_message_id = $1, updated_at = $2 WHERE id = $3",
            message_id,
            now,
            table_id,
        )

    async def mark_held(self, table_ids: Sequence[int], now: float) -> None:
        await self._pool.execute(
            "UPDATE game_tables SET updated_at = $1 "
            "WHERE id = ANY($2::bigint[]) AND status IN ('lobby', 'playing')",
            now,
            list(table_ids),
        )

    async def commit_move(self, move: MoveCommit) -> int:
        """See :meth:`bot.store.base.Store.commit_move`."""
        version = await self._commit_move(move)
        self._moves_unvacuumed += 1
        if self._moves_unvacuumed >= VACUUM_EVERY and self._vacuums is not False and self._vacuuming is None:
            self._moves_unvacuumed = 0
            self._vacuuming = asyncio.create_task(self._vacuum_in_background())
        return version

    async def _commit_move(self, move: MoveCommit) -> int:
        table_id, expected_version, now = move.table_id, move.expected_version, move.now
        seats, round_result, match_result = move.seats, move.round_result, move.match_result
        params = (
            dumps(move.new_state),
            move.deadline,
            table_id,
            expected_version,
            move.actor_id,
            dumps(move.action),
            dumps(list(move.events)),
            now,
            move.status,
        )
        # Without an outbox row (a caller that tells nothing, e.g. on a schema older than the outbox's):
        # the statement without it.
        statement, args = _MOVE, list(params)
        if move.told is not None and self._tells:
            statement, args = _MOVE_TOLD, [*params, dumps(list(move.told))]
        more = seats is not None or round_result is not None or match_result is not None
        async with self._pool.acquire() as conn:
            if not more:
                version = await conn.fetchval(statement, *args)
                if version is None:
                    raise await self._conflict(conn, table_id, expected_version)
                return int(version)
            async with conn.transaction():
                version = await conn.fetchval(statement, *args)
                if version is None:
                    raise await self._conflict(conn, table_id, expected_version)
                if seats is not None:
                    await conn.execute(
                        "DELETE FROM seats WHERE table_id = $1 AND position <> ALL($2::integer[])",
                        table_id,
                        [seat.position for seat in seats],
                    )
                    await conn.executemany(_UPSERT_SEAT, [rows.seat_params(table_id, seat) for seat in seats])
                if round_result is not None:
                    await conn.executemany(
                        "INSERT INTO round_results (table_id, round_number, position, score, won) "
                        "VALUES ($1, $2, $3, $4, $5) "
                        "ON CONFLICT (table_id, round_number, position) DO NOTHING",
                        rows.round_rows(table_id, round_result),
                    )
                if match_result is not None:
                    # The ranking statement that reads the seats' ratings (postgres_standings) was planned
                    # anew at every result: its generic plan, costed for ten seats an array, looked dearer
                    # than a custom one for three, so the server kept making custom plans (0.27 ms of its
                    # CPU per result in bench/store.py's flow; the generic plan is the same nested loop of
                    # lookups by key). Set with the commit's durability, in the same round trip; the
                    # transaction's other statements had generic plans already.
                    await conn.execute(
                        "SET LOCAL synchronous_commit = on; SET LOCAL plan_cache_mode = force_generic_plan"
                        if self._rates
                        else "SET LOCAL synchronous_commit = on"
                    )
                    await record_match(
                        conn,
                        table_id,
                        match_result,
                        now,
                        self._rater if self._rates else None,
                        folded=self._folded,
                    )
                return int(version)

    @staticmethod
    async def _conflict(conn: asyncpg.Connection, table_id: int, expected_version: int) -> ConflictError:
        actual = await conn.fetchval("SELECT version FROM game_state WHERE table_id = $1", table_id)
        return ConflictError(table_id, expected_version, None if actual is None else int(actual))

    async def moves(self, table_id: int) -> list[MoveRecord]:
        found = await self._pool.fetch(
            "SELECT seq, version, actor_id, action, events, created_at FROM moves WHERE table_id = $1 "
            "ORDER BY seq",
            table_id,
        )
        return [rows.move_record(table_id, row) for row in found]

    # --- the outbox ------------------------------------------------------------------------------------

    async def untold(self, shards: ShardSet | None = None) -> list[OutboxRow]:
        if not self._tells:
            return []
        mine, shard_args = "", []
        if shards is not None and not shards.everything:
            # Only this process's guilds: the tables of other shards are told by their own process.
            mine = (
                " WHERE o.table_id IN (SELECT id FROM game_tables "
                "WHERE ((guild_id >> 22) % $1) = ANY($2::integer[]))"
            )
            shard_args = [shards.count, list(shards.ids or ())]
        found = await self._pool.fetch(
            f"{statements.OUTBOX_SELECT}{mine} ORDER BY o.table_id, o.version", *shard_args
        )
        return [rows.outbox_row(row) for row in found]

    async def note_telling(self, table_id: int, first: int, last: int, attempt: dict[str, Any]) -> None:
        if not self._tells:
            return
        values = {"table": table_id, "first": first, "last": last, "attempt": dumps(attempt)}
        async with self._pool.acquire() as conn, conn.transaction():
            for sql in (statements.OUTBOX_TOLD_BEFORE, statements.OUTBOX_NOTE):
                await conn.execute(*_numbered(sql, values))

    async def mark_told(self, told: Mapping[int, int]) -> None:
        if not told or not self._tells:
            return
        sql, _ = statements.numbered(statements.OUTBOX_TOLD, {"table": 0, "version": 0})
        async with self._pool.acquire() as conn:
            await conn.executemany(sql, list(told.items()))

    async def drop_untold(self, created_before: float) -> int:
        if not self._tells:
            return 0
        done = await self._pool.execute(*_numbered(statements.OUTBOX_DROP_OLD, {"before": created_before}))
        return int(done.split()[-1])  # "DELETE n"

    # --- retention of closed tables' move logs ---------------------------------------------------------

    async def prune_closed_moves(self, closed_before: float, limit: int, now: float) -> int:
        deleted = 0
        async with self._pool.acquire() as conn, conn.transaction():
            while deleted < limit:
                # Several processes of a deployment prune at the same hour: each takes a table the others
                # are not pruning (its row locked until this transaction ends), never the same one.
                table_id = await conn.fetchval(
                    "SELECT id FROM game_tables WHERE status IN ('finished', 'abandoned') "
                    "AND moves_pruned_at IS NULL AND updated_at < $1 ORDER BY updated_at LIMIT 1 "
                    "FOR UPDATE SKIP LOCKED",
                    closed_before,
                )
                if table_id is None:
                    break
                wanted = limit - deleted
                delete = (
                    "DELETE FROM moves WHERE table_id = $1 AND seq IN "
                    "(SELECT seq FROM moves WHERE table_id = $1 ORDER BY seq LIMIT $2)"
                )
                if self._notes_pruned:
                    # Who acted in the moves that go (bot.store.forget: forget-user finds the table by it
                    # afterwards), read from the rows as deleted: a forget holding some of them commits
                    # first, and the actor it took out is not noted.
                    gone = int(
                        await conn.fetchval(
                            f"WITH gone AS ({delete} RETURNING table_id, actor_id), "
                            "noted AS (INSERT INTO pruned_actors (user_id, table_id) "
                            "SELECT DISTINCT actor_id, table_id FROM gone WHERE actor_id IS NOT NULL "
                            "ON CONFLICT DO NOTHING) "
                            "SELECT count(*) FROM gone",
                            table_id,
                            wanted,
                        )
                    )
                else:
                    done = await conn.execute(delete, table_id, wanted)
                    gone = int(done.split()[-1])  # "DELETE n"
                deleted += gone
                if gone < wanted:  # the table's log is empty now: marked so only once it really is
                    marked = await conn.execute(
                        "UPDATE game_tables SET moves_pruned_at = $1 WHERE id = $2 "
                        "AND NOT EXISTS (SELECT 1 FROM moves WHERE table_id = $2)",
                        now,
                        table_id,
                    )
                    if marked.split()[-1] == "0":
                        break  # some of its moves are held elsewhere: a later pass finishes them
        return deleted

    async def moves_pruned_at(self, table_id: int) -> float | None:
        value = await self._pool.fetchval("SELECT moves_pruned_at FROM game_tables WHERE id = $1", table_id)
        return None if value is None else float(value)

    async def reclaim_space(self) -> None:
        # Autovacuum makes the deleted rows' space reusable; when it is off, the store does it.
        await self.vacuum()

    async def vacuum(self) -> list[str]:
        """When the store vacuums its own tables (the server's autovacuum is off, or ``vacuum=True`` at open):
        VACUUM (ANALYZE) each of them that autovacuum would have by now, and return their names. Otherwise,
        or while another process of the schema is at it, nothing ([])."""
        if self._vacuums is None:
            async with self._pool.acquire() as conn:
                self._vacuums = await postgres_vacuum.autovacuum_off(conn)
            if self._vacuums:
                log.warning(
                    "PostgreSQL's autovacuum is off on this server: the bot vacuums and analyzes its own "
                    "tables as autovacuum would, every %d moves; turn autovacuum on to leave it to the "
                    "server",
                    VACUUM_EVERY,
                )
        if not self._vacuums:
            return []
        # A connection of its own, not one of the pool's: a VACUUM paced as autovacuum's may take minutes on a
        # big table, and no move may wait for a connection meanwhile (a pool may have only one).
        conn = await asyncpg.connect(
            self._target.url,
            timeout=CONNECT_TIMEOUT,
            server_settings=_server_settings(self._target, self._schema),
        )
        try:
            done = await postgres_vacuum.vacuum_due(conn)
        except BaseException:
            conn.terminate()  # at once, also when cancelled mid-statement; the session's lock goes with it
            raise
        await conn.close()
        return done

    async def _vacuum_in_background(self) -> None:
        try:
            done = await self.vacuum()
            if done:
                log.debug("vacuumed and analyzed %s", ", ".join(done))
        except StoreUnavailableError:
            pass  # the moves meet the outage themselves; the next look comes after more of them
        except Exception as error:
            # Never the message: a driver's error may quote the DSN.
            log.warning("vacuuming the store's tables failed (%s); trying again later", type(error).__name__)
        finally:
            self._vacuuming = None

    # --- guild settings ----------------------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            return await _guild_settings(conn, guild_id)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            await _save_guild_settings(conn, settings)

    async def change_guild_settings(
        self, guild_id: int, meta_key: str, change: GuildSettingsChange
    ) -> tuple[GuildSettings, str | None]:
        """See :meth:`bot.store.base.Store.change_guild_settings`: the guild's row is locked FOR UPDATE (made
        first when missing, so that there is a row to lock) before anything is read; READ COMMITTED, so each
        read after the lock sees what the change before this one committed. A change that changes nothing is
        rolled back (no row is left behind for a guild without settings)."""
        async with self._pool.acquire() as conn:
            try:
                async with conn.transaction():
                    # Two changes of a guild without a row: the second insert waits for the first's commit.
                    await conn.execute(
                        "INSERT INTO guild_settings (guild_id) VALUES ($1) ON CONFLICT (guild_id) DO NOTHING",
                        guild_id,
                    )
                    settings = await _guild_settings(conn, guild_id, lock=True)
                    stored = await conn.fetchval("SELECT value FROM meta WHERE key = $1", meta_key)
                    value = None if stored is None else str(stored)
                    new, new_value = change(settings, value)
                    if new.guild_id != guild_id:
                        raise ValueError(f"guild {guild_id}'s settings changed into guild {new.guild_id}'s")
                    if new == settings and new_value == value:
                        raise _Unchanged(settings, value)
                    if new != settings:
                        await _save_guild_settings(conn, new)
                    if new_value != value and new_value is None:
                        await conn.execute("DELETE FROM meta WHERE key = $1", meta_key)
                    elif new_value != value:
                        await conn.execute(
                            "INSERT INTO meta (key, value) VALUES ($1, $2) "
                            "ON CONFLICT (key) DO UPDATE SET value = $2",
                            meta_key,
                            new_value,
                        )
            except _Unchanged as unchanged:
                return unchanged.settings, unchanged.value
        return new, new_value


class _Unchanged(Exception):
    """A change of a guild's settings that changed nothing: its transaction is rolled back, its reads
    returned."""

    def __init__(self, settings: GuildSettings, value: str | None) -> None:
        super().__init__(settings.guild_id)
        self.settings = settings
        self.value = value


async def _guild_settings(conn: asyncpg.Connection, guild_id: int, *, lock: bool = False) -> GuildSettings:
    row = await conn.fetchrow(
        "SELECT default_preset, default_turn_timeout, manager_role_id, default_house_rules "
        "FROM guild_settings WHERE guild_id = $1" + (" FOR UPDATE" if lock else ""),
        guild_id,
    )
    channels = await conn.fetch(
        "SELECT channel_id FROM guild_table_channels WHERE guild_id = $1 ORDER BY channel_id",
        guild_id,
    )
    return rows.guild_settings(guild_id, row, (channel[0] for channel in channels))


async def _save_guild_settings(conn: asyncpg.Connection, settings: GuildSettings) -> None:
    """The settings written whole, inside the caller's transaction."""
    await conn.execute(
        "INSERT INTO guild_settings "
        "(guild_id, default_preset, default_turn_timeout, manager_role_id, default_house_rules) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (guild_id) DO UPDATE SET "
        "default_preset = $2, default_turn_timeout = $3, manager_role_id = $4, "
        "default_house_rules = $5",
        settings.guild_id,
        settings.default_preset,
        settings.default_turn_timeout,
        settings.manager_role_id,
        dumps(settings.default_house_rules),
    )
    await conn.execute("DELETE FROM guild_table_channels WHERE guild_id = $1", settings.guild_id)
    await conn.executemany(
        "INSERT INTO guild_table_channels (guild_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [(settings.guild_id, channel) for channel in settings.allowed_channel_ids],
    )


def backup_advice(target: DatabaseTarget, path: str) -> str:
    """How to back up (and restore) a PostgreSQL database: pg_dump, which the bot does not replace."""
    # No password in the URL at all: a masked one (user:***@) would be sent instead of PGPASSWORD's. Nor
    # asyncpg's server settings (?synchronous_commit=on), which libpq refuses.
    url = for_libpq(target.url)
    return (
        "the bot backs up SQLite only; for PostgreSQL use pg_dump, which takes a consistent snapshot while "
        f"the bot runs:\n  pg_dump --format=custom --file={path} '{url}'\n"
        "(give the password through PGPASSWORD or ~/.pgpass, not on the command line). To restore: stop the "
        f"bot, then pg_restore --clean --if-exists --dbname='{url}' {path}"
    )


def _numbered(sql: str, values: dict[str, Any]) -> list[Any]:
    """A statement of ``bot.store.statements`` with its arguments, as asyncpg's ``execute`` takes them."""
    text, args = statements.numbered(sql, statements.params_of(sql, values))
    return [text, *args]


def _coerce(kind: str, value: Any) -> Any:
    """A value read from the other backend, as this column's type wants it (SQLite keeps booleans as 0/1)."""
    if value is None:
        return None
    if kind == "boolean":
        return bool(value)
    if kind == "double precision":
        return float(value)
    if kind in ("bigint", "integer", "smallint"):
        return int(value)
    return value
