"""``python -m bot health`` while the PostgreSQL server is cut off (behind a proxy of the test's own): it
answers unhealthy in one line, without a traceback, and healthy again once the server is back and the bot
has written its heartbeat (issue 26)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import open_store
from tests.service.db_faults import TcpProxy
from tests.test_cli import bot


@pytest.fixture
async def proxy(pg_url: str) -> AsyncIterator[TcpProxy]:
    through = TcpProxy(pg_url)
    await through.start()
    yield through
    await through.close()


async def health(cwd: Path, url: str) -> tuple[int, str]:
    # The proxy runs on this event loop: the command runs in a thread meanwhile.
    done = await asyncio.to_thread(bot, cwd, "health", env={"DATABASE_URL": url})
    return done.returncode, done.stdout + done.stderr


async def test_health_fails_while_postgresql_is_away_and_recovers(proxy: TcpProxy, tmp_path: Path) -> None:
    store = await open_store(proxy.url)
    try:
        await store.write_heartbeat(time.time())
        code, out = await health(tmp_path, proxy.url)
        assert code == 0 and out.startswith("healthy"), out

        await proxy.cut()
        code, out = await health(tmp_path, proxy.url)
        assert code == 1 and out.startswith("unhealthy: cannot read the heartbeat"), out
        assert "Traceback" not in out and len(out.strip().splitlines()) == 1

        await proxy.restore()
        await store.write_heartbeat(time.time())  # the bot's own pool is back by itself
        code, out = await health(tmp_path, proxy.url)
        assert code == 0 and out.startswith("healthy"), out
    finally:
        await store.close()
