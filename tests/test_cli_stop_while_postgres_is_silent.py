"""``python -m bot run`` stopped by SIGTERM while PostgreSQL does not answer at all (its machine gone, a
network partition, a failover whose old address went silent: packets are dropped, nothing is refused). README
(*On the command line*, run): "SIGTERM or Ctrl+C stops it cleanly: ... exit 0 within 10 seconds", Docker's
grace period before its SIGKILL. The shutdown's own write (the stopped mark) and the store's close are waited
for 2 s each at most and skipped with a log line (asyncpg would wait for each cancelled statement's cancel
request up to its 60 s command timeout); past the deadline the connections are dropped, and the shard claim's
release is cut short."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from tests.backends import SERVER_URL, database_url, unreachable
from tests.fakediscord import FakeDiscord
from tests.test_cli import TOKEN, env_against


class SilentProxy:
    """127.0.0.1:<port> forwarded to the test server; ``silence`` drops every byte from then on, both ways,
    on every connection, old and new (nothing is refused or reset: a server that went away)."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self.silent = False
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        if self.silent:
            with contextlib.suppress(OSError):
                while await reader.read(65536):
                    pass
            return
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        self._writers.add(up_writer)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    if not self.silent:
                        sink.write(data)
                        await sink.drain()
            except OSError:
                pass
            finally:
                if not self.silent:
                    sink.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer), return_exceptions=True)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.transport.abort()


@pytest.fixture
async def own_database() -> AsyncIterator[str]:
    name = f"eights_silent_{secrets.token_hex(4)}"
    try:
        admin = await asyncpg.connect(SERVER_URL, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        unreachable(error)
    try:
        await admin.execute(f"CREATE DATABASE {name}")
        yield name
    finally:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.close()


async def test_sigterm_exits_0_within_10_s_while_postgresql_does_not_answer(
    own_database: str, tmp_path: Path
) -> None:
    server = urlsplit(SERVER_URL)
    proxy = SilentProxy(server.hostname or "127.0.0.1", server.port or 5432)
    await proxy.start()
    direct = urlsplit(database_url(own_database))
    user = direct.netloc.rpartition("@")[0] + "@" if "@" in direct.netloc else ""  # with its password
    url = urlunsplit(direct._replace(netloc=f"{user}127.0.0.1:{proxy.port}"))
    log = tmp_path / "bot.log"
    try:
        async with FakeDiscord(token=TOKEN) as fake:
            env = env_against(fake, DATABASE_URL=url)
            with log.open("w") as stderr:
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=stderr
                )
            try:
                await fake.wait_for(lambda: fake.identifies, what="IDENTIFY", timeout=60)
                await asyncio.sleep(2)  # started: the heartbeat written, the pool in use
                proxy.silent = True  # PostgreSQL goes away
                await asyncio.sleep(1)
                stopped_at = time.monotonic()
                process.send_signal(signal.SIGTERM)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), timeout=15)
                took = time.monotonic() - stopped_at
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
    finally:
        await proxy.close()
    text = log.read_text()
    tail = "\n".join(text.splitlines()[-3:])
    assert took < 10, f"still running {took:.0f} s after SIGTERM (exit {process.returncode}): {tail}"
    assert process.returncode == 0, tail
    assert "this process is not marked stopped" in text, text  # what was skipped is said
    assert "Traceback" not in text, text
