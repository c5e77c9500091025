"""Shard claims: a running process holds its shards in the database, so that a second process on the same
shards (a Docker container and a local run, say) refuses to start instead of driving the same tables.

A claim is a lock that the operating system or the database server drops with the process or its connection,
never a row with a timestamp: a bot restarted at once after a SIGKILL finds its dead predecessor's claim gone.

- SQLite: open-file-description locks (``fcntl``) on byte ranges of a lock file beside the database
  (``eights.sqlite3.lock``); the kernel releases them when the process dies, however it dies.
- PostgreSQL: session advisory locks held on a dedicated connection; the server releases them when the
  connection closes (the process's socket is closed by its kernel when it dies). TCP keepalives make the
  server notice a client machine that vanished without closing it. That connection can be lost under a
  living process (a server restart, a failover, the network): the claim is then not held, and the process
  is told (``watch``) so that it stops playing; the claim is taken again as soon as the server answers,
  and play resumes. If another process took the shards meanwhile, this one is told to stop.

What is locked, the same on both: "every shard" (shared by each process that runs some shards, exclusive for
one that runs them all); the SHARD_COUNT in use (shared, and any other count held by someone else is a
conflict: shard 0 of 2 and shard 2 of 4 serve some of the same guilds); and each shard id (exclusive).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import socket
import struct
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bot.shards import ShardSet
from bot.store.base import StoreError
from bot.store.folders import creation_failure
from bot.store.urls import DatabaseTarget, parse_database_url

if TYPE_CHECKING:
    import asyncpg

try:
    import fcntl
except ImportError:  # Windows: SQLite databases are not claimed there (deployments run on Linux)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0  # seconds
# A PostgreSQL backend whose client was killed goes away within moments (the kernel closes the socket); a
# claim refused in that moment is tried again for this long before the refusal is final.
PG_RETRY_FOR = 3.0  # seconds
PG_WATCH_INTERVAL = 30.0  # seconds between checks that the claim's connection is still there
PG_RECLAIM_EVERY = 1.0  # seconds between attempts to claim again after the connection was lost
# How long a refusal to claim again is not final: the server may not have noticed yet that the lost
# connection is gone (its keepalives: about a minute), and that connection still holds the locks.
PG_RECLAIM_FOR = 90.0  # seconds


class ShardsClaimedError(StoreError):
    """Another process holds some of these shards of this database."""


class ShardClaim(Protocol):
    @property
    def held(self) -> bool:
        """Whether this process holds its shards now (False while a lost claim is being taken again)."""
        ...

    def watch(
        self, on_lost: Callable[[], None], on_back: Callable[[], None], on_taken: Callable[[str], None]
    ) -> None:
        """Be told when the claim is lost (stop playing), when it is held again (play on), and when another
        process holds the shards now (``on_taken`` with the reason: this process must stop)."""
        ...

    async def release(self) -> None: ...


def _who(shards: ShardSet) -> str:
    if shards.count is None or shards.ids is None:
        return "every shard (no SHARD_IDS)"
    ids = sorted(shards.ids)
    return f"shard{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))} of {shards.count}"


def _refusal(database: str, shards: ShardSet, detail: str) -> ShardsClaimedError:
    return ShardsClaimedError(
        f"{database}: cannot run {_who(shards)}: another process already runs {detail} on this database; "
        "stop it first, or give each process its own SHARD_IDS"
    )


def _conflict_detail(shards: ShardSet, failed: str, taken: list[int]) -> str:
    if failed == "all":
        return "some of these shards" if shards.everything else "every shard"
    if failed == "count":
        return f"shards of a SHARD_COUNT other than {shards.count}"
    return f"shard{'s' if len(taken) > 1 else ''} {', '.join(map(str, taken))} of {shards.count}"


async def claim_shards(
    database_url: str,
    shards: ShardSet,
    *,
    retry_for: float = PG_RETRY_FOR,
    reclaim_for: float = PG_RECLAIM_FOR,
    watch_interval: float = PG_WATCH_INTERVAL,
) -> ShardClaim:
    """Claim ``shards`` of the database for this process until ``release()`` (or the process's end).
    Raises ShardsClaimedError naming the database and the shards when another process holds any of them,
    StoreError when the claim cannot be made at all. ``retry_for``, ``reclaim_for``, ``watch_interval``:
    see PG_RETRY_FOR, PG_RECLAIM_FOR and PG_WATCH_INTERVAL."""
    target = parse_database_url(database_url)
    if target.backend == "postgresql":
        claim = await _PostgresClaim.take(target, shards, retry_for)
        claim.reclaim_for, claim.watch_interval = reclaim_for, watch_interval
        return claim
    assert target.path is not None
    if target.is_memory or fcntl is None:
        return _NoClaim()  # a database no other process can open, or no fcntl locks
    # The file itself, whatever name it was given (a symlink, a relative path): one lock file per database.
    return await asyncio.to_thread(_FileClaim.take, Path(target.path).resolve(), shards)


def claims_enforced(target: DatabaseTarget) -> bool:
    """Whether a claim of this database keeps other processes out: not for a database in memory (no other
    process can open it), nor where there are no fcntl locks (Windows)."""
    return target.backend == "postgresql" or (not target.is_memory and fcntl is not None)


def lock_file(database: Path) -> Path:
    """The claim's lock file of the SQLite file ``database`` (give it resolved: one lock file per database,
    whatever name the file was given), e.g. ``eights.sqlite3.lock``."""
    return database.with_name(database.name + ".lock")


class _HeldForGood:
    """A claim the process cannot lose while it lives (a file lock, or none)."""

    held = True

    def watch(
        self, on_lost: Callable[[], None], on_back: Callable[[], None], on_taken: Callable[[str], None]
    ) -> None:
        return None


class _NoClaim(_HeldForGood):
    async def release(self) -> None:
        return None


# --- SQLite: byte-range locks on a lock file ----------------------------------------------------------------

_ALL_BYTE = 0
# Tries of the other-counts probe, and the pause between them: 0.2 s in all, far longer than another
# starting process holds its own probe, even descheduled on a busy machine.
PROBE_ATTEMPTS = 200
PROBE_PAUSE = 0.001
_COUNT_BASE = 1 << 32  # byte _COUNT_BASE + n: SHARD_COUNT n in use
_SHARD_BASE = 2 << 32  # byte _SHARD_BASE + i: shard i

# Linux: open-file-description locks, owned by the open lock file rather than the process (two claims in one
# process conflict too, and closing another descriptor of the file cannot drop them). Other Unixes: classic
# POSIX locks through lockf, owned by the process, which is all that matters between processes.
_OFD_SETLK: int | None = getattr(fcntl, "F_OFD_SETLK", None)


def _setlk(fd: int, kind: int, start: int, length: int) -> bool:
    """Take (or with F_UNLCK drop) a lock on ``length`` bytes at ``start`` without waiting: False when
    another holder's lock is in the way."""
    try:
        if _OFD_SETLK is not None:
            # Linux's 64-bit struct flock: l_type, l_whence, l_start, l_len, l_pid (0, as OFD locks require).
            request = struct.pack("hhqqi4x", kind, os.SEEK_SET, start, length, 0)
            fcntl.fcntl(fd, _OFD_SETLK, request)
        else:
            mode = {fcntl.F_RDLCK: fcntl.LOCK_SH, fcntl.F_WRLCK: fcntl.LOCK_EX}.get(kind, fcntl.LOCK_UN)
            fcntl.lockf(fd, mode | fcntl.LOCK_NB, length, start, os.SEEK_SET)
    except OSError as error:
        if error.errno in (errno.EAGAIN, errno.EACCES):  # held by another
            return False
        raise
    return True


class _FileClaim(_HeldForGood):
    """The lock file exists only while some process claims shards (or after a kill, until the next start):
    whoever leaves last, holding no lock that anyone else shares, deletes it. A process that opened the file
    just before it was deleted notices (the path no longer names the file it locked) and opens it again."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self._path = path

    @classmethod
    def take(cls, database: Path, shards: ShardSet) -> _FileClaim:
        path = lock_file(database)
        while True:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            except OSError as error:  # a file where the folder should be: said as `check` says it
                raise StoreError(
                    f"cannot open the lock file {path}: {creation_failure(path.parent, error)}"
                ) from None
            try:
                failed = cls._lock(fd, shards)
            except BaseException:
                _leave(fd, path)
                raise
            if not _names(path, fd):  # deleted by the last holder meanwhile: try with the new file
                os.close(fd)
                continue
            if failed is not None:
                _leave(fd, path)
                raise _refusal(str(database), shards, _conflict_detail(shards, *failed))
            return cls(fd, path)

    @staticmethod
    def _lock(fd: int, shards: ShardSet) -> tuple[str, list[int]] | None:
        """Take every lock of the claim; the kind of the first one held by another, and which shards."""
        if shards.everything:
            return None if _setlk(fd, fcntl.F_WRLCK, _ALL_BYTE, 1) else ("all", [])
        assert shards.count is not None and shards.ids is not None
        if not _setlk(fd, fcntl.F_RDLCK, _ALL_BYTE, 1):
            return "all", []
        count = shards.count
        if not _setlk(fd, fcntl.F_RDLCK, _COUNT_BASE + count, 1):
            return "count", []
        # Any other count held by someone: a write lock on the counts around ours would not be granted.
        # Another process starting at the same moment probes the same bytes for an instant: a refusal is
        # believed only once it lasts (a count held by a running process does).
        below, above = (_COUNT_BASE, count), (_COUNT_BASE + count + 1, _SHARD_BASE - _COUNT_BASE - count - 1)
        for start, length in (below, above):
            if length > 0:
                for _attempt in range(PROBE_ATTEMPTS):
                    if _setlk(fd, fcntl.F_WRLCK, start, length):
                        _setlk(fd, fcntl.F_UNLCK, start, length)
                        break
                    time.sleep(PROBE_PAUSE)
                else:
                    return "count", []
        taken = [i for i in sorted(shards.ids) if not _setlk(fd, fcntl.F_WRLCK, _SHARD_BASE + i, 1)]
        return ("shards", taken) if taken else None

    async def release(self) -> None:
        if self._fd >= 0:
            _leave(self._fd, self._path)
            self._fd = -1


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the file open at ``fd``."""
    try:
        found, held = os.stat(path), os.fstat(fd)
    except FileNotFoundError:
        return False
    return (found.st_dev, found.st_ino) == (held.st_dev, held.st_ino)


def _leave(fd: int, path: Path) -> None:
    """Drop this claim's locks; delete the lock file when no other process holds a lock in it (so that a
    refused or failed start leaves nothing behind)."""
    try:
        if _setlk(fd, fcntl.F_WRLCK, 0, 0) and _names(path, fd):  # length 0: the whole file, and beyond
            path.unlink(missing_ok=True)
    except OSError:
        pass  # a lock file left behind is harmless: the next start reuses it
    finally:
        os.close(fd)


# --- PostgreSQL: session advisory locks on a dedicated connection ------------------------------------------


def _key(what: str, schema: str) -> int:
    """The first of the two int4 keys of an advisory lock, per schema (test runs share one database)."""
    return zlib.crc32(f"crazy-eights {what} {schema}".encode()) & 0x7FFF_FFFF


class _PostgresClaim:
    def __init__(self, target: DatabaseTarget, shards: ShardSet, conn: asyncpg.Connection) -> None:
        self._target = target
        self._shards = shards
        self._conn = conn
        self.held = True
        self.reclaim_for = PG_RECLAIM_FOR
        self.watch_interval = PG_WATCH_INTERVAL
        self._on_lost: Callable[[], None] = _nothing
        self._on_back: Callable[[], None] = _nothing
        self._on_taken: Callable[[str], None] = _nothing
        self._taken: str | None = None  # why another process holds the shards now, once it does
        self._lost = asyncio.Event()  # set by asyncpg the moment the claim's connection goes
        self._releasing = False
        conn.add_termination_listener(self._terminated)
        self._watch: asyncio.Task[None] | None = asyncio.create_task(self._watch_loop(), name="shard-claim")

    def watch(
        self, on_lost: Callable[[], None], on_back: Callable[[], None], on_taken: Callable[[str], None]
    ) -> None:
        self._on_lost, self._on_back, self._on_taken = on_lost, on_back, on_taken
        # What happened before anyone watched (the claim lost while the process was still starting: migrating,
        # logging in) is told now, or the process would play shards another one holds.
        if self._taken is not None:
            on_taken(self._taken)
        elif not self.held:
            on_lost()

    def _terminated(self, conn: Any) -> None:
        if not self._releasing and conn is self._conn:
            self._lost.set()

    @staticmethod
    async def _connect(target: DatabaseTarget, shards: ShardSet) -> asyncpg.Connection:
        import asyncpg

        name = f"crazy-eights claim {shards.key} pid {os.getpid()} on {socket.gethostname()}"
        settings = {
            "application_name": name[:63],  # who holds the claim, in pg_stat_activity
            # A client machine that vanishes without closing the socket is noticed within about a minute.
            "tcp_keepalives_idle": "30",
            "tcp_keepalives_interval": "10",
            "tcp_keepalives_count": "3",
        }
        try:
            return await asyncpg.connect(target.url, timeout=CONNECT_TIMEOUT, server_settings=settings)
        except (
            OSError,
            TimeoutError,
            OverflowError,  # a port out of range, as in PostgresStore.open
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
            ValueError,
        ) as error:
            reason = target.scrub(f"{type(error).__name__}: {error}")
            raise StoreError(f"cannot connect to PostgreSQL at {target.shown}: {reason}") from None

    @classmethod
    async def take(cls, target: DatabaseTarget, shards: ShardSet, retry_for: float) -> _PostgresClaim:
        conn = await cls._connect(target, shards)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + retry_for
        try:
            while True:
                failed = await _pg_lock(conn, shards)
                if failed is None:
                    return cls(target, shards, conn)
                if loop.time() >= deadline:
                    raise _refusal(target.shown, shards, _conflict_detail(shards, *failed))
                await asyncio.sleep(0.2)
        except BaseException:
            await _pg_close(conn)
            raise

    async def _watch_loop(self) -> None:
        """Notice a lost connection (at once through asyncpg, or at the next check for one that died
        silently), then claim again."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), self.watch_interval)
            if not self._lost.is_set():
                try:
                    await self._conn.fetchval("SELECT 1", timeout=CONNECT_TIMEOUT)
                    continue
                except Exception:
                    pass
            self.held = False
            # INFO: the service's outage line (a warning) says it once, with this as its reason.
            log.info(
                "the connection holding this process's shard claim was lost: play is paused until the "
                "shards are claimed again"
            )
            self._on_lost()
            lost = self._conn
            lost.remove_termination_listener(self._terminated)  # its end is this one, not another loss
            lost.terminate()
            self._lost.clear()
            if not await self._claim_again():
                return

    async def _claim_again(self) -> bool:
        """Claim again, trying every PG_RECLAIM_EVERY while the server does not answer; a refusal is final
        after ``reclaim_for``. True when held again; False when another process holds the shards."""
        loop = asyncio.get_running_loop()
        refused_since: float | None = None
        while True:
            try:
                conn = await self._connect(self._target, self._shards)
            except StoreError:
                await asyncio.sleep(PG_RECLAIM_EVERY)
                continue
            try:
                failed = await _pg_lock(conn, self._shards)
            except Exception:  # lost again at once (the server still starting)
                conn.terminate()
                await asyncio.sleep(PG_RECLAIM_EVERY)
                continue
            if failed is None:
                self._conn = conn
                conn.add_termination_listener(self._terminated)
                self.held = True
                log.info("the shards are claimed again: play resumes")
                self._on_back()
                return True
            await _pg_close(conn)
            now = loop.time()
            refused_since = now if refused_since is None else refused_since
            if now - refused_since >= self.reclaim_for:
                refusal = _refusal(self._target.shown, self._shards, _conflict_detail(self._shards, *failed))
                log.error("%s", refusal)
                self._taken = str(refusal)
                self._on_taken(self._taken)
                return False
            await asyncio.sleep(PG_RECLAIM_EVERY)

    async def release(self) -> None:
        self._releasing = True
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        await _pg_close(self._conn)


def _nothing(*args: Any) -> None:
    return None


async def _pg_close(conn: asyncpg.Connection) -> None:
    try:
        await conn.close(timeout=5)
    except Exception:
        conn.terminate()


_OTHER_COUNT_HELD = """
SELECT EXISTS (
    SELECT 1 FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND objsubid = 2
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND classid = $1::bigint::oid AND objid <> $2::bigint::oid
)
"""


async def _pg_lock(conn: asyncpg.Connection, shards: ShardSet) -> tuple[str, list[int]] | None:
    """Take every advisory lock of the claim, or none: the kind of the first one held by another, and which
    shards."""
    schema = str(await conn.fetchval("SELECT current_schema()"))
    every, counts, ids = _key("every-shard", schema), _key("shard-count", schema), _key("shard", schema)
    failed: tuple[str, list[int]] | None = None
    if shards.everything:
        if not await conn.fetchval("SELECT pg_try_advisory_lock($1, 0)", every):
            failed = ("all", [])
    else:
        assert shards.count is not None and shards.ids is not None
        if not await conn.fetchval("SELECT pg_try_advisory_lock_shared($1, 0)", every):
            failed = ("all", [])
        elif not await conn.fetchval(
            "SELECT pg_try_advisory_lock_shared($1, $2)", counts, shards.count
        ) or await conn.fetchval(_OTHER_COUNT_HELD, counts, shards.count):
            failed = ("count", [])
        else:
            taken = [
                i
                for i in sorted(shards.ids)
                if not await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", ids, i)
            ]
            if taken:
                failed = ("shards", taken)
    if failed is not None:
        await conn.execute("SELECT pg_advisory_unlock_all()")  # all or nothing: drop what was taken
    return failed
