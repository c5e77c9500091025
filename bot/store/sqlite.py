"""The SQLite backend of the store, through aiosqlite.

Durability and atomicity:

- Every write is one ``BEGIN IMMEDIATE … COMMIT`` run as a single function on aiosqlite's worker thread, so
  statements of two coroutines never interleave inside a transaction and a cancelled caller cannot leave one
  half-done: the function runs to COMMIT or ROLLBACK regardless. BEGIN IMMEDIATE takes SQLite's write lock
  before the version check, so two processes racing on one table serialise too.
- ``journal_mode=WAL``: readers (leaderboards, backups) never block the writer, and a commit is one append to
  the WAL file. ``synchronous=NORMAL``: a commit is in the WAL (the operating system's page cache) before
  COMMIT returns, so killing the process at any instant — the crash this bot must survive — loses nothing
  committed and never corrupts the database; only a power cut or kernel panic can roll back the last few
  commits (still atomically, never a half-applied move). FULL adds an fsync per move: ``bench/store.py
  --synchronous FULL`` measured about 300 moves/s against 2,100–3,000 with NORMAL on the development machine,
  far below the 2,000 moves/s target, for protection against power loss that a game bot does not need.
- ``foreign_keys=ON`` and a ``busy_timeout`` so that another process (``python -m bot forget-user``) holding
  the write lock briefly makes us wait instead of failing.

Why one file, longer than the others: it is one backend of one interface (``bot.store.base.Store``), as
Red-DiscordBot keeps one module per driver; its methods share the connection, the transaction helper and
the row mappers, and each is a few SQL statements. Split by topic (tables, moves, standings) the pieces would
share all of that through a fourth module while the PostgreSQL backend, the other implementation of the same
interface, is read side by side with this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Mapping, Sequence
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite
import orjson

from bot.shards import ShardSet
from bot.store import forget, ratings, rows, statements
from bot.store import migrations as migration_runner
from bot.store.base import (
    RATED_TO_RANK,
    BulkWriter,
    ConflictError,
    DamagedDatabaseError,
    GameState,
    GuildSettings,
    GuildSettingsChange,
    Heartbeat,
    LeaderboardRow,
    LeaderboardSort,
    MatchResult,
    MatchSummary,
    MoveCommit,
    MoveRecord,
    OpenTable,
    OutboxRow,
    PlayerRating,
    PlayerStats,
    RankingEntry,
    Rater,
    RatingRow,
    RoundResult,
    SeatRecord,
    StoreError,
    StoreRefusedError,
    StoreUnavailableError,
    TableExistsError,
    TableRecord,
    default_rater,
)
from bot.store.claims import lock_file
from bot.store.rows import dumps, loads
from bot.store.statements import BOARD_COLUMNS, SEAT_COLUMNS, TABLE_COLUMNS

T = TypeVar("T")
log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
_AUTO_VACUUM_INCREMENTAL = 2
VACUUM_PAGES = 2000  # pages given back per step of reclaim_space (8 MB of 4 KB pages)

# Leaderboard orders (see BoardOrders): each matches an index in migrations/0002_results.sql term for term.
_ORDERS = statements.BoardOrders("(CAST(matches_won AS REAL) / matches_played)")

_UPSERT_SEAT = """
INSERT INTO seats (table_id, position, user_id, display_name, cpu_level, cpu_takeover, joined_at, left_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (table_id, position) DO UPDATE SET
    user_id = excluded.user_id,
    display_name = excluded.display_name,
    cpu_level = excluded.cpu_level,
    cpu_takeover = excluded.cpu_takeover,
    joined_at = excluded.joined_at,
    left_at = excluded.left_at
"""

# A match's statistics, with the person's new rating when it is rated (migration 0013: people's ratings are in
# player_stats), so that rating a match costs no statement or page of its own for its people.
_UPSERT_STATS, _UPSERT_STATS_RATED = statements.stats_upserts(
    """
INSERT INTO player_stats (guild_id, user_id, display_name, matches_played, matches_won, rounds_played,
                          rounds_won, round_points, points, best_place, last_place, last_played_at{columns})
VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?{values})
ON CONFLICT (guild_id, user_id) DO UPDATE SET
    display_name = excluded.display_name,
    matches_played = matches_played + 1,
    matches_won = matches_won + excluded.matches_won,
    rounds_played = rounds_played + excluded.rounds_played,
    rounds_won = rounds_won + excluded.rounds_won,
    round_points = round_points + excluded.round_points,
    points = points + excluded.points,
    best_place = MIN(COALESCE(best_place, excluded.best_place), excluded.best_place),
    last_place = excluded.last_place,
    last_played_at = excluded.last_played_at{updates}
""",
    lambda i: "?",
)


def _run_steps(conn: sqlite3.Connection, steps: Generator[forget.Statement, Any, T]) -> T:
    """Run a procedure of ``bot.store.forget`` or ``bot.store.ratings`` inside the caller's transaction."""
    answer: Any = None
    try:
        while True:
            step = steps.send(answer)
            cursor = conn.execute(step.sql, step.params)
            answer = cursor.fetchall() if step.rows else cursor.rowcount
    except StopIteration as done:
        return cast(T, done.value)


def _write(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``work`` in one write transaction: all of it commits, or none of it does."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


def _read(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """Run several SELECTs against one snapshot of the database."""
    conn.execute("BEGIN")
    try:
        return work(conn)
    finally:
        conn.execute("COMMIT")


# SQLite's primary result codes for a file that is damaged or not a database at all.
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_DAMAGE_MESSAGES = ("file is not a database", "database disk image is malformed")


def _is_damage(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    return any(text in str(error) for text in _DAMAGE_MESSAGES)


def _unwritable(path: str, error: OSError | sqlite3.Error) -> StoreError:
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return StoreError(f"cannot write the backup to {path} ({reason}): choose a folder this user can write to")


# The files beside a database that belong to it: SQLite's write-ahead log (the moves committed since the last
# checkpoint live only there) and its shared-memory index, the rollback journal (a fresh file's, before it
# switches to WAL), and the shard claim's lock file (bot/store/claims.py). A backup renamed over one of them
# while the bot runs loses committed moves, or lets a second bot claim the same shards.
COMPANIONS = {
    "-wal": "the database's write-ahead log, which holds its latest moves",
    "-shm": "the index of the database's write-ahead log",
    "-journal": "the database's rollback journal",
}
CLAIM_LOCK = "the lock file of the bot's shard claim"


def database_files(database: str) -> dict[Path, str]:
    """The database file and every file beside it that belongs to it, each with what it is, under the name
    given and with symlinks resolved (SQLite and the claim keep theirs beside the real file)."""
    files: dict[Path, str] = {}
    for base in (Path(os.path.abspath(database)), Path(database).resolve()):
        files[base] = "the database itself"
        for suffix, role in COMPANIONS.items():
            files[base.with_name(base.name + suffix)] = role
        files[lock_file(base)] = CLAIM_LOCK
    return files


def backup_path_problem(database: str, path: str) -> str | None:
    """Why a backup of the SQLite file ``database`` cannot be written to ``path`` (one sentence), or None.

    Refused: the database itself and the files that belong to it (``database_files``), whether ``path`` names
    them or reaches them through a symlink or another spelling of the same file, and a ``path`` whose
    partial copy (``PATH.partial``, written first, then renamed over ``path``) would be one of them."""
    if database == ":memory:":
        return None
    own = database_files(database)
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    try:
        found_own = ((_stat(file), role) for file, role in own.items())
        existing = {(found.st_dev, found.st_ino): role for found, role in found_own if found is not None}
        for candidate in (target, partial):
            role = own.get(candidate.resolve())
            found = _stat(candidate)
            if role is None and found is not None:
                role = existing.get((found.st_dev, found.st_ino))
            if role is None:
                continue
            if candidate is partial:
                return (
                    f"the backup path {path} would write its partial copy over {role} ({partial}): "
                    "choose another path"
                )
            return f"the backup path {path} is {role}: choose another path"
    except (OSError, RuntimeError) as error:  # a symlink loop, a folder this user cannot search
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return f"the backup path {path} cannot be used ({reason}): choose another path"
    return None


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _configure(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # Space freed by pruning old move logs can be given back (reclaim_space). It takes effect only in a new
    # file, before its first table; an existing file keeps its mode (a VACUUM would switch it). Only asked of
    # an empty file: setting it writes the file's header, which opening an existing database must not.
    if conn.execute("PRAGMA page_count").fetchone()[0] == 0:
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    _switch_to_wal(conn)
    conn.execute("PRAGMA synchronous = NORMAL")  # why: see the module docstring
    conn.execute("PRAGMA foreign_keys = ON")


_SQLITE_BUSY = 5
# Primary result codes of a database that is there but cannot be used right now: BUSY, LOCKED, NOMEM,
# READONLY, IOERR, FULL, CANTOPEN, PROTOCOL.
_UNAVAILABLE_CODES = frozenset({5, 6, 7, 8, 10, 13, 14, 15})
_UNAVAILABLE_MESSAGES = ("database is locked", "database or disk is full", "disk I/O error")
WAL_RETRY_PAUSE = 0.01  # seconds between attempts to switch a fresh file to WAL


def _is_busy(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF == _SQLITE_BUSY
    return "database is locked" in str(error)


def _is_unavailable(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _UNAVAILABLE_CODES
    return any(text in str(error) for text in _UNAVAILABLE_MESSAGES)


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    """``journal_mode = WAL``, waiting as long as the busy timeout for another connection's write lock.

    On a file still in rollback-journal mode (a fresh one) the switch reads the file, then needs the write
    lock; SQLite refuses that upgrade at once, without the busy handler, when another connection (a second
    process opening the same new file) holds it. So the wait is done here."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if not _is_busy(error) or time.monotonic() >= deadline:
                raise
        time.sleep(WAL_RETRY_PAUSE)


class SqliteStore:
    """The Store protocol over one SQLite file (or ``:memory:`` in tests)."""

    def __init__(
        self, db: aiosqlite.Connection, path: str, migrations_dir: Path, rater: Rater | None = None
    ) -> None:
        self._db = db
        self._path = path
        self._migrations_dir = migrations_dir
        self._rater = rater or default_rater()
        # False after migrating to a schema older than the ratings' (a test making a database as an old bot
        # would have): then results are recorded without ratings, which migration 0009 backfills.
        self._rates = True
        self._folded = True  # likewise: people's ratings in player_stats from migration 0013 on
        self._tells = True  # likewise: False on a schema older than the outbox's (no rows written or read)
        self._notes_pruned = True  # likewise: retention notes who acted in what it prunes from migration 0014
        self.migrations_applied = 0  # by the last migrate() (the Store protocol's)

    @classmethod
    async def open(
        cls, path: str, *, migrations_dir: Path | None = None, rater: Rater | None = None
    ) -> SqliteStore:
        """Connect (without migrating). ``path`` is a file path or ``:memory:``. ``rater``: the rating model
        (default: the service's OpenSkill).

        A file that is not an SQLite database or is damaged raises DamagedDatabaseError, any other failure to
        open it (a folder, no permission) StoreError; the file is left as it was."""
        # Connect first, then hand the connection to aiosqlite: when its own connect fails, aiosqlite stops
        # its worker thread without waiting for it, and the thread then reports to an event loop that may be
        # gone ("Event loop is closed" in a thread).
        try:
            conn = await asyncio.to_thread(
                sqlite3.connect, path, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the database file {path}: {error}") from error
        db = await aiosqlite.Connection(lambda: conn, iter_chunk_size=64)
        store = cls(db, path, migrations_dir or migration_runner.DEFAULT_MIGRATIONS_DIR, rater)
        try:
            await store._call(_configure)
        except (sqlite3.Error, StoreUnavailableError) as error:
            await db.close()
            reason = error.__cause__ if isinstance(error, StoreUnavailableError) else error
            raise StoreError(f"cannot open the database file {path}: {reason}") from error
        except BaseException:
            await db.close()
            raise
        return store

    @property
    def path(self) -> str:
        return self._path

    async def _call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        # One hop to aiosqlite's worker thread per transaction (not per statement): faster, and nothing else
        # can run on this connection between BEGIN and COMMIT. aiosqlite has no public "run this function on
        # your thread" call; _execute is that call, stable across its releases since 0.17.
        db = self._db
        run_on_worker: Callable[..., Awaitable[Any]] = db._execute
        try:
            return cast(T, await run_on_worker(work, db._conn))
        except orjson.JSONDecodeError as error:
            # The bot writes only valid JSON: a stored value that does not read back is a damaged page.
            raise DamagedDatabaseError(self._path) from error
        except sqlite3.DatabaseError as error:
            # A damaged file shows up in whichever query first reads a bad page: the same one-line error
            # everywhere (the transaction was rolled back, nothing was written).
            if _is_damage(error):
                raise DamagedDatabaseError(self._path) from error
            # A file held by another process past the busy timeout, a full disk, an I/O error: the
            # transaction was rolled back (in this process: nothing is in flight), so nothing changed for
            # certain, and the same work may succeed later.
            if _is_unavailable(error):
                reason = f"the database {self._path} cannot be used now: {error}"
                raise StoreRefusedError(reason) from error
            raise

    async def run_in_connection(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` with the store's own sqlite3 connection, on its worker thread, and return its result.

        For tests, benchmarks and diagnostics (a trace callback, EXPLAIN QUERY PLAN, a PRAGMA): ``work``
        bypasses the store's methods, so their transactions and checks are its own business. The bot never
        calls it."""
        return await self._call(work)

    async def close(self) -> None:
        try:
            await self._call(lambda conn: conn.execute("PRAGMA optimize"))
        except (sqlite3.OperationalError, StoreError):
            # Only a statistics refresh: when another process holds the database locked (or the file is
            # damaged, which the caller has been told), closing matters more.
            log.debug("PRAGMA optimize skipped at close: the database is busy or damaged")
        finally:
            await self._db.close()

    # --- schema and operations -------------------------------------------------------------------------

    async def migrate(self) -> int:
        known = migration_runner.discover(self._migrations_dir)
        rater = self._rater
        steps: migration_runner.SqliteDataSteps = {
            ratings.MIGRATION: lambda conn: _run_steps(conn, ratings.backfill(rater))
        }
        migrated = await self._call(lambda conn: migration_runner.migrate(conn, known, steps))
        version, self.migrations_applied = migrated.version, migrated.applied
        self._rates = version >= ratings.MIGRATION
        self._folded = version >= ratings.FOLDED_MIGRATION
        self._tells = version >= statements.OUTBOX_MIGRATION
        self._notes_pruned = version >= forget.PRUNED_ACTORS_MIGRATION
        return version

    async def schema_version(self) -> int:
        return await self._call(migration_runner.schema_version)

    async def integrity_check(self) -> list[str]:
        """SQLite's own check of the whole file; ``["ok"]`` when sound."""
        rows = await self._call(lambda conn: conn.execute("PRAGMA integrity_check").fetchall())
        return [str(row[0]) for row in rows]

    async def check_writable(self) -> None:
        """The write lock, taken (waiting the busy timeout, as every write does) and let go: ``migrate``
        takes it first at every start, and a bot started without it could save no move."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")

        await self._call(work)

    async def backup(self, path: str) -> None:
        """Copy the database to ``path`` with SQLite's online backup API.

        The copy is made from a separate read connection in one step, which in WAL mode is a consistent
        snapshot that does not block the bot's writes. It is written beside ``path`` first and renamed into
        place, so ``path`` is never a half-written file.
        """
        target = Path(path)
        if (problem := backup_path_problem(self._path, path)) is not None:
            raise StoreError(problem)
        # The folders this call creates are removed again if the backup cannot be written.
        created = [folder for folder in [target.parent, *target.parent.parents] if not folder.exists()]
        partial = target.with_name(target.name + ".partial")
        done = False

        def copy(source: sqlite3.Connection) -> None:
            try:
                destination = sqlite3.connect(partial)
                destination.execute("PRAGMA user_version")  # sqlite3 opens the file lazily: open it now
            except sqlite3.Error as error:
                raise _unwritable(path, error) from None
            try:
                try:
                    source.backup(destination, pages=-1)
                except sqlite3.OperationalError as error:  # the disk filled up, an I/O error
                    raise StoreError(
                        f"the backup to {path} could not be written ({error}): free some space or choose "
                        "another folder; nothing was kept"
                    ) from None
                check = destination.execute("PRAGMA quick_check").fetchone()
                if check is None or check[0] != "ok":
                    raise StoreError(f"backup at {partial} failed its integrity check")
                # The copy is a self-contained rollback-journal file: no -wal to carry around.
                destination.execute("PRAGMA journal_mode = DELETE")
            finally:
                destination.close()

        try:
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                partial.unlink(missing_ok=True)
            except OSError as error:
                existing = next((folder for folder in target.parents if folder.exists()), None)
                if existing is not None and not existing.is_dir():
                    raise StoreError(
                        f"cannot write the backup to {path}: {existing} is a file, not a folder"
                    ) from None
                raise _unwritable(path, error) from None
            if self._path == ":memory:":
                await self._call(copy)
            else:

                def copy_from_file() -> None:
                    source = sqlite3.connect(self._path)
                    try:
                        source.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                        copy(source)
                    finally:
                        source.close()

                try:
                    await asyncio.to_thread(copy_from_file)
                except sqlite3.DatabaseError as error:
                    if _is_damage(error):
                        raise DamagedDatabaseError(self._path) from error
                    raise
            try:
                os.replace(partial, target)
            except OSError as error:
                raise _unwritable(path, error) from None
            done = True
        finally:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
            if not done:
                for folder in created:  # deepest first
                    with contextlib.suppress(OSError):
                        folder.rmdir()

    async def get_meta(self, key: str) -> str | None:
        def work(conn: sqlite3.Connection) -> str | None:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])

        return await self._call(work)

    async def set_meta(self, key: str, value: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

        await self._call(work)

    async def delete_meta(self, key: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))

        await self._call(work)

    async def write_heartbeat(
        self, now: float, process: str = rows.ALL_SHARDS, *, pid: int | None = None, host: str | None = None
    ) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO heartbeats (process, beat_at, pid, host) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (process) DO UPDATE SET beat_at = excluded.beat_at, pid = excluded.pid, "
                "host = excluded.host, stopped_at = NULL",
                (process, float(now), pid, host),
            )

        await self._call(work)

    async def read_heartbeat(self, process: str = rows.ALL_SHARDS) -> float | None:
        def work(conn: sqlite3.Connection) -> float | None:
            row = conn.execute("SELECT beat_at FROM heartbeats WHERE process = ?", (process,)).fetchone()
            return None if row is None else float(row[0])

        return await self._call(work)

    async def heartbeat(self, process: str) -> Heartbeat | None:
        def work(conn: sqlite3.Connection) -> Heartbeat | None:
            row = conn.execute(
                "SELECT process, beat_at, pid, host, stopped_at FROM heartbeats WHERE process = ?", (process,)
            ).fetchone()
            return None if row is None else Heartbeat(*row)

        return await self._call(work)

    async def mark_stopped(self, process: str, now: float) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE heartbeats SET stopped_at = ? WHERE process = ?", (float(now), process))

        await self._call(work)

    async def heartbeats(self) -> list[Heartbeat]:
        def work(conn: sqlite3.Connection) -> list[Heartbeat]:
            found = conn.execute(
                "SELECT process, beat_at, pid, host, stopped_at FROM heartbeats ORDER BY beat_at"
            )
            return [Heartbeat(*row) for row in found]

        return await self._call(work)

    # --- copy-db -----------------------------------------------------------------------------------------

    async def row_counts(self) -> dict[str, int]:
        def work(conn: sqlite3.Connection) -> dict[str, int]:
            return {
                table: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
                for table in statements.DATA_TABLES
            }

        return await self._call(lambda conn: _read(conn, work))

    async def export_rows(self, table: str, batch: int = 2000) -> AsyncIterator[tuple[list[str], list[Any]]]:
        if table not in statements.DATA_TABLES:
            raise ValueError(f"unknown table {table!r}")
        cursor = await self._db.execute(f"SELECT * FROM {table}")
        try:
            columns = [column[0] for column in cursor.description]
            while found := await cursor.fetchmany(batch):
                yield columns, list(found)
        finally:
            await cursor.close()

    @contextlib.asynccontextmanager
    async def bulk_writer(self) -> AsyncIterator[BulkWriter]:
        async def write(table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
            if table not in statements.DATA_TABLES:
                raise ValueError(f"unknown table {table!r}")
            marks = ", ".join("?" for _ in columns)
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            await self._call(lambda conn: conn.executemany(sql, values))

        # copy-db owns this connection: nothing else runs on it between BEGIN and COMMIT.
        await self._call(lambda conn: conn.execute("BEGIN IMMEDIATE"))
        try:
            yield write
        except BaseException:
            await self._call(lambda conn: conn.execute("ROLLBACK"))
            raise
        await self._call(lambda conn: conn.execute("COMMIT"))

    async def forget_user(self, user_id: int, guild_id: int | None = None) -> int:
        return await self._call(
            lambda conn: _write(conn, lambda c: _run_steps(c, forget.procedure(user_id, guild_id)))
        )

    async def open_tables_of_user(self, user_id: int) -> list[int]:
        """Open tables that hold the user (a seat, or a move: ``forget.OPEN_TABLES_OF_USER``): forget_user
        leaves those alone (their game needs them)."""

        def work(conn: sqlite3.Connection) -> list[int]:
            rows = conn.execute(forget.OPEN_TABLES_OF_USER, {"user": user_id}).fetchall()
            return [int(row[0]) for row in rows]

        return await self._call(work)

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
        host_id, host_row = rows.host_seat(host, now)
        ruleset_json, options_json, state_json = dumps(ruleset), dumps(options), dumps(state)
        target = rows.target_of(ruleset, options)

        def work(conn: sqlite3.Connection) -> TableRecord:
            existing = conn.execute(
                "SELECT id FROM game_tables WHERE channel_id = ? AND status IN ('lobby', 'playing')",
                (channel_id,),
            ).fetchone()
            if existing is not None:
                raise TableExistsError(channel_id, int(existing[0]))
            cursor = conn.execute(
                "INSERT INTO game_tables (guild_id, channel_id, host_id, status, ruleset, options, target, "
                "turn_timeout, created_at, updated_at) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?)",
                (guild_id, channel_id, host_id, ruleset_json, options_json, target, turn_timeout, now, now),
            )
            table_id = cursor.lastrowid
            assert table_id is not None
            conn.execute(_UPSERT_SEAT, rows.seat_params(table_id, host_row))
            conn.execute(
                "INSERT INTO game_state (table_id, version, state, deadline) VALUES (?, 0, ?, ?)",
                (table_id, state_json, deadline),
            )
            return rows.new_table_record(
                table_id, guild_id, channel_id, host_id, ruleset, options, turn_timeout, now
            )

        return await self._call(lambda conn: _write(conn, work))

    async def get_table(self, table_id: int) -> TableRecord | None:
        def work(conn: sqlite3.Connection) -> TableRecord | None:
            row = conn.execute(
                f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE id = ?", (table_id,)
            ).fetchone()
            return None if row is None else rows.table_record(row)

        return await self._call(work)

    async def open_table_in_channel(self, channel_id: int) -> TableRecord | None:
        def work(conn: sqlite3.Connection) -> TableRecord | None:
            row = conn.execute(
                f"SELECT {TABLE_COLUMNS} FROM game_tables "
                "WHERE channel_id = ? AND status IN ('lobby', 'playing')",
                (channel_id,),
            ).fetchone()
            return None if row is None else rows.table_record(row)

        return await self._call(work)

    async def list_seats(self, table_id: int) -> list[SeatRecord]:
        def work(conn: sqlite3.Connection) -> list[SeatRecord]:
            found = conn.execute(
                f"SELECT {SEAT_COLUMNS} FROM seats WHERE table_id = ? ORDER BY position", (table_id,)
            ).fetchall()
            return [rows.seat_record(row) for row in found]

        return await self._call(work)

    async def get_state(self, table_id: int) -> GameState | None:
        def work(conn: sqlite3.Connection) -> GameState | None:
            row = conn.execute(
                "SELECT version, state, deadline FROM game_state WHERE table_id = ?", (table_id,)
            ).fetchone()
            if row is None:
                return None
            return GameState(table_id=table_id, version=row[0], state=loads(row[1]), deadline=row[2])

        return await self._call(work)

    async def load_open_tables(self, shards: ShardSet | None = None) -> list[OpenTable]:
        mine, shard_args = _shard_filter(shards)

        def work(conn: sqlite3.Connection) -> list[OpenTable]:
            # The WHERE clause repeats the partial index's, so these scan only open tables.
            open_ids = f"SELECT id FROM game_tables WHERE status IN ('lobby', 'playing'){mine}"
            tables = [
                rows.table_record(row)
                for row in conn.execute(
                    f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE status IN ('lobby', 'playing'){mine}",
                    shard_args,
                )
            ]
            tables.sort(key=lambda table: table.id)  # here, not in SQL: ORDER BY id would skip the index
            seats: dict[int, list[SeatRecord]] = {table.id: [] for table in tables}
            states: dict[int, GameState] = {}
            for row in conn.execute(
                f"SELECT table_id, {SEAT_COLUMNS} FROM seats WHERE table_id IN ({open_ids}) "
                "ORDER BY table_id, position",
                shard_args,
            ):
                seats[row[0]].append(rows.seat_record(row[1:]))
            for row in conn.execute(
                f"SELECT table_id, version, state, deadline FROM game_state WHERE table_id IN ({open_ids})",
                shard_args,
            ):
                states[row[0]] = GameState(row[0], row[1], loads(row[2]), row[3])
            return [OpenTable(table, seats[table.id], states[table.id]) for table in tables]

        return await self._call(lambda conn: _read(conn, work))

    async def set_board_message(self, table_id: int, message_id: int | None, now: float) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE game_tables SET board_message_id = ?, updated_at = ? WHERE id = ?",
                (message_id, now, table_id),
            )

        await self._call(work)

    async def mark_held(self, table_ids: Sequence[int], now: float) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "UPDATE game_tables SET updated_at = ? WHERE id = ? AND status IN ('lobby', 'playing')",
                [(now, table_id) for table_id in table_ids],
            )

        await self._call(work)

    async def commit_move(self, move: MoveCommit) -> int:
        """See :meth:`bot.store.base.Store.commit_move`.

        ``move.seats``, when given, is the table's complete seat list: positions not in it are removed.
        Results are recorded at most once: a round result for a (table, round number) or a match result for a
        table that is already recorded is skipped (the move itself still commits), so statistics can never
        count a match twice, even if a caller repeats it after a crash.
        """
        table_id, expected_version, now = move.table_id, move.expected_version, move.now
        seats, status = move.seats, move.status
        round_result, match_result = move.round_result, move.match_result
        # Encode outside the transaction: the write lock is held only for the SQL.
        params = (
            dumps(move.new_state),
            move.deadline,
            table_id,
            expected_version,
        )
        move_params = (
            table_id,
            table_id,
            expected_version + 1,
            move.actor_id,
            dumps(move.action),
            dumps(list(move.events)),
            now,
        )
        seat_rows = None if seats is None else [rows.seat_params(table_id, seat) for seat in seats]
        seat_positions = None if seats is None else dumps([seat.position for seat in seats])
        rater = self._rater if self._rates else None
        folded = self._folded
        told = None
        if move.told is not None and self._tells:
            told = (table_id, expected_version + 1, dumps(list(move.told)), now)

        def work(conn: sqlite3.Connection) -> int:
            cursor = conn.execute(
                "UPDATE game_state SET version = version + 1, state = ?, deadline = ? "
                "WHERE table_id = ? AND version = ?",
                params,
            )
            if cursor.rowcount != 1:
                row = conn.execute(
                    "SELECT version FROM game_state WHERE table_id = ?", (table_id,)
                ).fetchone()
                raise ConflictError(table_id, expected_version, None if row is None else int(row[0]))
            conn.execute(
                "INSERT INTO moves (table_id, seq, version, actor_id, action, events, created_at) "
                "VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM moves WHERE table_id = ?), ?, ?, ?, ?, ?)",
                move_params,
            )
            conn.execute(
                "UPDATE game_tables SET updated_at = ?, status = COALESCE(?, status) WHERE id = ?",
                (now, status, table_id),
            )
            if told is not None:
                conn.execute(statements.OUTBOX_INSERT, told)
            if seat_rows is not None:
                conn.execute(
                    "DELETE FROM seats WHERE table_id = ? "
                    "AND position NOT IN (SELECT value FROM json_each(?))",
                    (table_id, seat_positions),
                )
                conn.executemany(_UPSERT_SEAT, seat_rows)
            if round_result is not None:
                _record_round(conn, table_id, round_result)
            if match_result is not None:
                _record_match(conn, table_id, match_result, now, rater, folded)
            return expected_version + 1

        return await self._call(lambda conn: _write(conn, work))

    async def moves(self, table_id: int) -> list[MoveRecord]:
        def work(conn: sqlite3.Connection) -> list[MoveRecord]:
            found = conn.execute(
                "SELECT seq, version, actor_id, action, events, created_at FROM moves "
                "WHERE table_id = ? ORDER BY seq",
                (table_id,),
            ).fetchall()
            return [rows.move_record(table_id, row) for row in found]

        return await self._call(work)

    # --- the outbox ------------------------------------------------------------------------------------

    async def untold(self, shards: ShardSet | None = None) -> list[OutboxRow]:
        if not self._tells:
            return []
        mine, shard_args = _shard_filter(shards)
        # Only this process's guilds: the tables of other shards are told by their own process.
        where = f" WHERE o.table_id IN (SELECT id FROM game_tables WHERE {mine.removeprefix(' AND ')})"

        def work(conn: sqlite3.Connection) -> list[OutboxRow]:
            found = conn.execute(
                f"{statements.OUTBOX_SELECT}{where if mine else ''} ORDER BY o.table_id, o.version",
                shard_args,
            ).fetchall()
            return [rows.outbox_row(row) for row in found]

        return await self._call(work)

    async def note_telling(self, table_id: int, first: int, last: int, attempt: dict[str, Any]) -> None:
        if not self._tells:
            return
        noted = dumps(attempt)

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(statements.OUTBOX_TOLD_BEFORE, {"table": table_id, "first": first})
            conn.execute(
                statements.OUTBOX_NOTE, {"table": table_id, "first": first, "last": last, "attempt": noted}
            )

        await self._call(lambda conn: _write(conn, work))

    async def mark_told(self, told: Mapping[int, int]) -> None:
        if not told or not self._tells:
            return
        marks = [{"table": table_id, "version": version} for table_id, version in told.items()]
        await self._call(lambda conn: _write(conn, lambda c: c.executemany(statements.OUTBOX_TOLD, marks)))

    async def drop_untold(self, created_before: float) -> int:
        if not self._tells:
            return 0

        def work(conn: sqlite3.Connection) -> int:
            return conn.execute(statements.OUTBOX_DROP_OLD, {"before": created_before}).rowcount

        return await self._call(work)

    # --- retention of closed tables' move logs ---------------------------------------------------------

    async def prune_closed_moves(self, closed_before: float, limit: int, now: float) -> int:
        notes = self._notes_pruned

        def work(conn: sqlite3.Connection) -> int:
            deleted = 0
            while deleted < limit:
                row = conn.execute(
                    "SELECT id FROM game_tables WHERE status IN ('finished', 'abandoned') "
                    "AND moves_pruned_at IS NULL AND updated_at < ? ORDER BY updated_at LIMIT 1",
                    (closed_before,),
                ).fetchone()
                if row is None:
                    break
                wanted = limit - deleted
                if notes:
                    # Who acted in the moves about to go (bot.store.forget: forget-user finds the table by it
                    # afterwards); the write lock keeps a forget out until they are gone.
                    conn.execute(
                        "INSERT INTO pruned_actors (user_id, table_id) "
                        "SELECT DISTINCT actor_id, table_id FROM moves WHERE table_id = ? "
                        "AND actor_id IS NOT NULL AND seq IN "
                        "(SELECT seq FROM moves WHERE table_id = ? ORDER BY seq LIMIT ?) "
                        "ON CONFLICT DO NOTHING",
                        (row[0], row[0], wanted),
                    )
                gone = conn.execute(
                    "DELETE FROM moves WHERE table_id = ? AND seq IN "
                    "(SELECT seq FROM moves WHERE table_id = ? ORDER BY seq LIMIT ?)",
                    (row[0], row[0], wanted),
                ).rowcount
                deleted += gone
                if gone < wanted:  # the table's log is empty now
                    conn.execute("UPDATE game_tables SET moves_pruned_at = ? WHERE id = ?", (now, row[0]))
            return deleted

        return await self._call(lambda conn: _write(conn, work))

    async def moves_pruned_at(self, table_id: int) -> float | None:
        def work(conn: sqlite3.Connection) -> float | None:
            row = conn.execute("SELECT moves_pruned_at FROM game_tables WHERE id = ?", (table_id,)).fetchone()
            return None if row is None or row[0] is None else float(row[0])

        return await self._call(work)

    async def reclaim_space(self) -> None:
        # A database created with auto_vacuum = INCREMENTAL (see _configure) gives its free pages back here,
        # a few at a time so that moves get the write lock in between; an older one keeps them and reuses
        # them for new moves.
        def step(conn: sqlite3.Connection) -> int:
            if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != _AUTO_VACUUM_INCREMENTAL:
                return 0
            # executescript steps the pragma to its end; execute() would free a single page.
            conn.executescript(f"PRAGMA incremental_vacuum({VACUUM_PAGES})")
            return int(conn.execute("PRAGMA freelist_count").fetchone()[0])

        left = await self._call(step)
        while left:
            before, left = left, await self._call(step)
            if left >= before:
                break

    # --- standings ---------------------------------------------------------------------------------------

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

        def work(conn: sqlite3.Connection) -> list[LeaderboardRow]:
            found = conn.execute(
                f"SELECT {BOARD_COLUMNS} FROM player_stats WHERE {where} ORDER BY {_ORDERS.order_by[sort]} "
                "LIMIT ? OFFSET ?",
                (*args, max(0, limit), max(0, offset)),
            ).fetchall()
            return [rows.board_row(max(0, offset) + i + 1, row) for i, row in enumerate(found)]

        return await self._call(work)

    async def leaderboard_size(
        self, guild_id: int, *, sort: LeaderboardSort = "wins", min_matches: int = 5
    ) -> int:
        where, args = _board_filter(guild_id, sort, min_matches)

        def work(conn: sqlite3.Connection) -> int:
            return int(conn.execute(f"SELECT COUNT(*) FROM player_stats WHERE {where}", args).fetchone()[0])

        return await self._call(work)

    async def leaderboard_rank(
        self, guild_id: int, user_id: int, *, sort: LeaderboardSort = "wins", min_matches: int = 5
    ) -> LeaderboardRow | None:
        where, args = _board_filter(guild_id, sort, min_matches)

        keys = _ORDERS.keys[sort]

        def work(conn: sqlite3.Connection) -> LeaderboardRow | None:
            mine = conn.execute(
                f"SELECT {keys[0]}, {keys[1]}, {BOARD_COLUMNS} FROM player_stats "
                f"WHERE {where} AND user_id = ?",
                (*args, user_id),
            ).fetchone()
            if mine is None:
                return None
            first, second = mine[0], mine[1]
            # Rows ahead of mine in ORDER BY first DESC, second DESC, user_id: three range counts on the
            # sort's index (no row is read), instead of numbering the whole board.
            ahead = conn.execute(
                f"SELECT (SELECT COUNT(*) FROM player_stats WHERE {where} AND {keys[0]} > ?)"
                f" + (SELECT COUNT(*) FROM player_stats WHERE {where} AND {keys[0]} = ? AND {keys[1]} > ?)"
                f" + (SELECT COUNT(*) FROM player_stats WHERE {where} AND {keys[0]} = ? AND {keys[1]} = ?"
                " AND user_id < ?)",
                (*args, first, *args, first, second, *args, first, second, user_id),
            ).fetchone()[0]
            return rows.board_row(int(ahead) + 1, mine[2:])

        return await self._call(lambda conn: _read(conn, work))

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        def work(conn: sqlite3.Connection) -> PlayerStats | None:
            row = conn.execute(
                f"SELECT {statements.STATS_COLUMNS} FROM player_stats WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            ).fetchone()
            if row is None:
                return None
            favourite = conn.execute(
                "SELECT preset FROM player_preset_counts WHERE guild_id = ? AND user_id = ? "
                "ORDER BY matches DESC, preset LIMIT 1",
                (guild_id, user_id),
            ).fetchone()
            return rows.player_stats_record(
                guild_id, user_id, row, None if favourite is None else favourite[0]
            )

        return await self._call(lambda conn: _read(conn, work))

    async def rating_board(
        self, guild_id: int, *, ranked: bool = True, offset: int = 0, limit: int = 10
    ) -> list[RatingRow]:
        def work(conn: sqlite3.Connection) -> list[RatingRow]:
            # No index orders the people's ratings (migrations/0013): the guild's player_stats rows are read
            # by the primary key and the page sorted.
            found = conn.execute(
                ratings.board_query(ranked),
                ratings.board_params(guild_id, offset, limit),
            ).fetchall()
            return [ratings.board_row(max(0, offset) + i + 1, row) for i, row in enumerate(found)]

        return await self._call(lambda conn: _read(conn, work))

    async def rating_board_size(self, guild_id: int, *, ranked: bool = True) -> int:
        def work(conn: sqlite3.Connection) -> int:
            return int(conn.execute(ratings.board_size_query(ranked), {"guild": guild_id}).fetchone()[0])

        return await self._call(lambda conn: _read(conn, work))

    async def player_rating(
        self, guild_id: int, user_id: int, *, history: int = 20, ranked_count: int | None = None
    ) -> PlayerRating | None:
        def work(conn: sqlite3.Connection) -> PlayerRating | None:
            mine = conn.execute(ratings.PLAYER_QUERY, {"guild": guild_id, "user": user_id}).fetchone()
            if mine is None:
                return None
            ranked = ranked_count
            if ranked is None:
                ranked = conn.execute(ratings.board_size_query(True), {"guild": guild_id}).fetchone()[0]
            rank = None
            if mine[3] >= RATED_TO_RANK:
                ahead = conn.execute(
                    ratings.AHEAD_QUERY, {"guild": guild_id, "skill": mine[2], "user": user_id}
                ).fetchone()[0]
                rank = int(ahead) + 1
            return ratings.player_rating(mine, rank, int(ranked), history)

        return await self._call(lambda conn: _read(conn, work))

    async def recent_matches(
        self, guild_id: int, *, limit: int = 10, before: tuple[float, int] | None = None
    ) -> list[MatchSummary]:
        sql, values = statements.recent_matches(guild_id, limit, before)

        def work(conn: sqlite3.Connection) -> list[MatchSummary]:
            matches = conn.execute(sql, values).fetchall()
            return [
                MatchSummary(
                    table_id=table_id,
                    guild_id=guild,
                    channel_id=channel_id,
                    preset=preset,
                    finished_at=finished_at,
                    rounds_played=rounds_played,
                    ranking=_rankings(conn, table_id),
                    house_rules=rows.loads(house_rules),
                )
                for table_id, guild, channel_id, preset, finished_at, rounds_played, house_rules in matches
            ]

        return await self._call(lambda conn: _read(conn, work))

    async def match_ranking(self, table_id: int) -> list[RankingEntry]:
        """The recorded final ranking of a table's match (empty when none is recorded)."""
        return await self._call(lambda conn: _rankings(conn, table_id))

    async def round_results(self, table_id: int) -> list[RoundResult]:
        def work(conn: sqlite3.Connection) -> list[RoundResult]:
            return rows.rounds_from_rows(
                conn.execute(
                    "SELECT round_number, position, score, won FROM round_results WHERE table_id = ? "
                    "ORDER BY round_number, position",
                    (table_id,),
                )
            )

        return await self._call(work)

    # --- guild settings ----------------------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._call(lambda conn: _read(conn, lambda conn: _guild_settings(conn, guild_id)))

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        await self._call(lambda conn: _write(conn, lambda conn: _save_guild_settings(conn, settings)))

    async def change_guild_settings(
        self, guild_id: int, meta_key: str, change: GuildSettingsChange
    ) -> tuple[GuildSettings, str | None]:
        """See :meth:`bot.store.base.Store.change_guild_settings`: under BEGIN IMMEDIATE, the write lock every
        writer takes before reading."""
        context = contextvars.copy_context()  # the caller's (its language, for a refusal ``change`` raises)

        def work(conn: sqlite3.Connection) -> tuple[GuildSettings, str | None]:
            settings = _guild_settings(conn, guild_id)
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (meta_key,)).fetchone()
            value = None if row is None else str(row[0])
            new, new_value = context.run(change, settings, value)
            if new.guild_id != guild_id:
                raise ValueError(f"guild {guild_id}'s settings changed into guild {new.guild_id}'s")
            if new != settings:
                _save_guild_settings(conn, new)
            if new_value != value:
                if new_value is None:
                    conn.execute("DELETE FROM meta WHERE key = ?", (meta_key,))
                else:
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES (?, ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (meta_key, new_value),
                    )
            return new, new_value

        return await self._call(lambda conn: _write(conn, work))


def _guild_settings(conn: sqlite3.Connection, guild_id: int) -> GuildSettings:
    row = conn.execute(
        "SELECT default_preset, default_turn_timeout, manager_role_id, default_house_rules "
        "FROM guild_settings WHERE guild_id = ?",
        (guild_id,),
    ).fetchone()
    channels = conn.execute(
        "SELECT channel_id FROM guild_table_channels WHERE guild_id = ? ORDER BY channel_id",
        (guild_id,),
    ).fetchall()
    return rows.guild_settings(guild_id, row, (channel for (channel,) in channels))


def _save_guild_settings(conn: sqlite3.Connection, settings: GuildSettings) -> None:
    """The settings written whole, inside the caller's write transaction."""
    conn.execute(
        "INSERT INTO guild_settings "
        "(guild_id, default_preset, default_turn_timeout, manager_role_id, default_house_rules) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
        "default_preset = excluded.default_preset, "
        "default_turn_timeout = excluded.default_turn_timeout, "
        "manager_role_id = excluded.manager_role_id, "
        "default_house_rules = excluded.default_house_rules",
        (
            settings.guild_id,
            settings.default_preset,
            settings.default_turn_timeout,
            settings.manager_role_id,
            rows.dumps(settings.default_house_rules),
        ),
    )
    conn.execute("DELETE FROM guild_table_channels WHERE guild_id = ?", (settings.guild_id,))
    conn.executemany(
        "INSERT OR IGNORE INTO guild_table_channels (guild_id, channel_id) VALUES (?, ?)",
        [(settings.guild_id, channel) for channel in settings.allowed_channel_ids],
    )


def _shard_filter(shards: ShardSet | None) -> tuple[str, tuple[Any, ...]]:
    """The condition (and its arguments) that keeps the guilds of ``shards``' shards; nothing for all."""
    if shards is None or shards.everything:
        return "", ()
    return " AND ((guild_id >> 22) % ?) IN (SELECT value FROM json_each(?))", (
        shards.count,
        dumps(shards.ids),
    )


def _board_filter(guild_id: int, sort: LeaderboardSort, min_matches: int) -> tuple[str, tuple[int, ...]]:
    _ORDERS.check(sort)
    if sort == "winrate":
        return f"guild_id = ? AND {statements.played_at_least(min_matches)}", (guild_id,)
    return "guild_id = ?", (guild_id,)


def _rankings(conn: sqlite3.Connection, table_id: int) -> list[RankingEntry]:
    found = conn.execute(
        "SELECT position, user_id, display_name, place, total FROM match_rankings WHERE table_id = ? "
        "ORDER BY place, position",
        (table_id,),
    ).fetchall()
    return [rows.ranking_entry(row) for row in found]


def _record_round(conn: sqlite3.Connection, table_id: int, result: RoundResult) -> None:
    conn.executemany(
        "INSERT INTO round_results (table_id, round_number, position, score, won) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (table_id, round_number, position) DO NOTHING",
        rows.round_rows(table_id, result),
    )


def _rate(
    conn: sqlite3.Connection, table_id: int, guild_id: int, result: MatchResult, rater: Rater
) -> list[tuple[Any, ...]]:
    """The match's new ratings (``ratings.rate_seats``' rows), from the seats' ratings as they are: read
    before the statistics' upsert, which then writes the people's new ones in the same rows. The seats come
    from the result (``ratings.seats_query``'s joins cost as much as the rating's math; bench/store.py):
    only the people's ratings are read, and a CPU seat's level and rating when the match had one."""
    ranking = sorted(result.ranking, key=_POSITION)
    people: list[int] = []
    cpu_seats = False
    for entry in ranking:
        if entry.user_id is None:
            cpu_seats = True
        elif entry.user_id not in people:
            people.append(entry.user_id)
    held: dict[Any, tuple[Any, ...]] = {}
    if people:
        for user_id, *rating in conn.execute(_people_ratings(len(people)), (guild_id, *people)):
            held[user_id] = tuple(rating)
    levels: dict[int, str] = {}
    if cpu_seats:
        levels = dict(
            conn.execute(
                "SELECT position, cpu_level FROM seats WHERE table_id = ? AND cpu_level IS NOT NULL",
                (table_id,),
            ).fetchall()
        )
        for level, *rating in conn.execute(
            "SELECT cpu_level, mu, sigma, matches, recent FROM ratings WHERE user_id = ? AND guild_id = ? "
            "AND cpu_level IN (SELECT value FROM json_each(?))",
            (ratings.CPU_USER, guild_id, dumps(sorted(set(levels.values())))),
        ):
            held[level] = tuple(rating)
    seats = []
    for entry in ranking:
        user_id = entry.user_id
        level = None if user_id is not None else levels.get(entry.position)
        rating = held.get(user_id if user_id is not None else level, _NOT_RATED)
        seats.append((entry.position, entry.place, user_id, entry.display_name, level, *rating))
    return ratings.rate_seats(rater, seats, result.by_sides)


_NOT_RATED = (None, None, None, None)  # mu, sigma, matches, recent


_POSITION = attrgetter("position")


@lru_cache(maxsize=16)
def _people_ratings(count: int) -> str:
    """The ratings held by ``count`` people of a guild (their player_stats rows: mu NULL when not rated):
    ?1 the guild, ?2 … the people. A lookup by key each (user_id IN (…) builds a temporary index of the
    list, which cost half as much again)."""
    return " UNION ALL ".join(
        "SELECT user_id, mu, sigma, rated_matches, recent FROM player_stats "
        f"WHERE guild_id = ?1 AND user_id = ?{i + 2}"
        for i in range(count)
    )


def _record_match(
    conn: sqlite3.Connection,
    table_id: int,
    result: MatchResult,
    now: float,
    rater: Rater | None,
    folded: bool = True,
) -> None:
    """The match's result, its ranking, the players' statistics and ratings — or nothing if already
    recorded."""
    where = conn.execute("SELECT guild_id, channel_id FROM game_tables WHERE id = ?", (table_id,)).fetchone()
    guild_id, channel_id = where
    # Inserted already rated when it is rated below: the insert is the guard (a second one does nothing).
    # Without a rater (a schema older than the ratings') the column does not exist.
    rated = ", rated" if rater is not None else ""
    inserted = conn.execute(
        "INSERT INTO match_results "
        f"(table_id, guild_id, channel_id, preset, rounds_played, finished_at, house_rules{rated}) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?{', 1' if rated else ''}) ON CONFLICT (table_id) DO NOTHING",
        (
            table_id,
            guild_id,
            channel_id,
            result.preset,
            result.rounds_played,
            now,
            rows.dumps(result.house_rules),
        ),
    ).rowcount
    if inserted != 1:
        return
    conn.executemany(
        "INSERT INTO match_rankings (table_id, position, user_id, display_name, place, total) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        rows.ranking_rows(table_id, result),
    )
    stats = rows.stats_rows(guild_id, result, now)
    if rater is not None and folded:
        ranking = sorted(result.ranking, key=_POSITION)
        users = [entry.user_id for entry in ranking]
        new: list[tuple[Any, ...]] = []
        if None not in users and len(set(users)) == len(users) and not result.by_sides:
            # The usual match: people only, each at one seat, free for all (the rows as _rate's, straight).
            held: dict[int | None, Sequence[Any]] = dict.fromkeys(users, _NOT_RATED)
            for user_id, *rating in conn.execute(_people_ratings(len(users)), (guild_id, *users)):
                held[user_id] = rating
            after = ratings.rate_people_alone(rater, list(held.values()), [entry.place for entry in ranking])
            people = dict(zip(users, after, strict=True))
        else:
            new = _rate(conn, table_id, guild_id, result, rater)
            people = {row[0]: row[3:] for row in new if row[0] != ratings.CPU_USER}
        # Every person of the ranking is rated; a row without a rating would keep the one it has.
        with_rating: list[tuple[Any, ...]] = []
        unrated: list[tuple[Any, ...]] = []
        for row in stats:
            rating = people.get(row[1])
            if rating is None:
                unrated.append(row)
            else:
                with_rating.append((*row, *rating, now))
        conn.executemany(_UPSERT_STATS_RATED, with_rating)
        if unrated:
            conn.executemany(_UPSERT_STATS, unrated)
        levels = ratings.levels_write(guild_id, now, new)
        if levels is not None:
            conn.execute(levels.sql, levels.params)
    else:
        conn.executemany(_UPSERT_STATS, stats)
    conn.executemany(
        "INSERT INTO player_preset_counts (guild_id, user_id, preset, matches) VALUES (?, ?, ?, 1) "
        "ON CONFLICT (guild_id, user_id, preset) DO UPDATE SET matches = matches + 1",
        rows.preset_rows(guild_id, result),
    )
    if rater is not None and not folded:
        _run_steps(conn, ratings.rate_match(table_id, rater, claimed=True))
