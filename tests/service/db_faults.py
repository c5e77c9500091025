"""Real database faults for the tests, each switched on and off by the test: another process holding an
SQLite file's write lock, this process's file size limit lowered (writes fail as on a full disk), and a TCP
proxy between the store and the shared PostgreSQL server that the test cuts (connections dropped, new ones
refused) and restores, and a PostgreSQL server of the test's own to stop, start and restart. The shared
server itself is never touched."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

_HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()  # until the test closes our stdin
conn.execute("ROLLBACK")
"""


class SqliteLockHolder:
    """Another process holding the SQLite file's write lock (BEGIN EXCLUSIVE) until ``release``."""

    def __init__(self, path: Path) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _HOLD_LOCK, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        assert self._proc.stdout.readline().strip() == "locked"

    def release(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=30)


class FileSizeLimit:
    """This process may not write a file past a limit (RLIMIT_FSIZE) between ``lower`` and ``restore``.
    Python ignores SIGXFSZ, so a write past it fails with EFBIG, as a write to a full disk fails."""

    def __init__(self) -> None:
        self._saved: tuple[int, int] | None = None

    def lower(self, limit: int) -> None:
        self._saved = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, self._saved[1]))

    def restore(self) -> None:
        if self._saved is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, self._saved)
            self._saved = None


class SqliteDiskFull:
    """Writes to an SQLite file failing as on a full disk: ``fill`` lowers this process's file size limit to
    the size of the file and its WAL now, so that the next commit's WAL append fails ("database or disk is
    full"; a child process, such as ``health``, inherits the limit); ``free`` (and ``restore``) lifts it."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._limit = FileSizeLimit()

    async def fill(self) -> None:
        self._limit.lower(max(Path(f"{self._path}-wal").stat().st_size, self._path.stat().st_size))

    async def free(self) -> None:
        self.restore()

    def restore(self) -> None:
        self._limit.restore()


class TcpProxy:
    """127.0.0.1:<port> forwarded to the PostgreSQL server of ``url``; ``cut`` drops every connection and
    refuses new ones, ``restore`` listens again on the same port."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._url = parts
        self._target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0
        self.connections = 0  # accepted since the start

    @property
    def url(self) -> str:
        """``url`` through the proxy."""
        netloc = self._url.netloc.rsplit("@", 1)
        user = netloc[0] + "@" if len(netloc) == 2 else ""
        return urlunsplit(self._url._replace(netloc=f"{user}127.0.0.1:{self.port}"))

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._open.update((writer, up_writer))

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.transport.abort()
                self._open.discard(sink)

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def cut(self) -> None:
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()
        if self._server is not None:
            self._server.close()
            self._server = None
        await asyncio.sleep(0.05)  # let both ends see the connections go

    async def restore(self) -> None:
        await self.start()

    async def close(self) -> None:
        await self.cut()


def postgres_binaries() -> Path:
    """The newest PostgreSQL server's bin folder; FileNotFoundError when there is none."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not found:
        raise FileNotFoundError("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
    return found[-1].parent


class OwnPostgres:
    """A PostgreSQL server of the test's own (initdb on a temporary folder, a free port), to stop, start
    and restart under a running bot; the shared test server is never touched. As root, the server runs as
    the ``postgres`` user (PostgreSQL refuses root)."""

    def __init__(self, folder: Path) -> None:
        self._bin = postgres_binaries()
        self._folder = folder
        self._data = folder / "data"
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> None:
        subprocess.run([*self._as, *command], check=True, capture_output=True, timeout=60)

    def init(self) -> None:
        if self._as:
            shutil.chown(self._folder, "postgres")
        initdb = str(self._bin / "initdb")
        self._run(initdb, "-D", str(self._data), "-A", "trust", "-U", "postgres", "--no-sync")

    def _ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self._folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self._bin / "pg_ctl"), action, "-D", str(self._data), "-w", "-o", options, *extra)

    def start(self) -> None:
        self._ctl("start", "-l", str(self._folder / "log"))

    def stop(self, mode: str = "fast") -> None:
        self._ctl("stop", "-m", mode)

    def restart(self) -> None:
        self._ctl("restart", "-m", "fast", "-l", str(self._folder / "log"))

    async def stopped(self) -> None:
        """``stop`` in a thread: a fault's start, the event loop running on."""
        await asyncio.to_thread(self.stop)

    async def started(self) -> None:
        """``start`` in a thread: the fault's end."""
        await asyncio.to_thread(self.start)


@contextlib.asynccontextmanager
async def own_postgres_server() -> AsyncIterator[OwnPostgres]:
    """A started ``OwnPostgres`` in a folder of its own under /tmp (pytest's tmp_path is private to root; the
    server may run as postgres), stopped and removed at the end. FileNotFoundError without the binaries."""
    folder = Path(tempfile.mkdtemp(prefix="eights-pg-"))
    try:
        server = OwnPostgres(folder)
        await asyncio.to_thread(server.init)
        await asyncio.to_thread(server.start)
        try:
            yield server
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):  # already stopped by a failed test
                await asyncio.to_thread(server.stop, "immediate")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
async def own_postgres() -> AsyncIterator[OwnPostgres]:
    """A started ``OwnPostgres`` for the test (registered in tests/conftest.py); skipped without the
    binaries."""
    try:
        postgres_binaries()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    async with own_postgres_server() as server:
        yield server
