"""Processes migrating one fresh database at once say, together, that each migration was applied once.

migrations/README.md: "the runner holds an advisory lock … so shard processes starting at once apply each
migration exactly once; the others wait, then find it done". README: `migrate` "apply pending database
migrations and print the schema version". Each `migrate` reports what it applied itself, counted by the
runner under its lock (PostgreSQL's advisory lock, SQLite's write lock): one that waited and found the work
done says "already up to date", not "applied 14 migration(s)" (it used to compare the schema version it read
before the lock with the one after, and every racing process claimed them all).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import sqlite3
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.config import VARIABLES
from bot.store.migrations import DEFAULT_MIGRATIONS_DIR, advisory_lock_key, discover
from tests.backends import SERVER_URL, unreachable

LATEST = len(discover(DEFAULT_MIGRATIONS_DIR))
APPLIED = re.compile(r"applied (\d+) migration")


async def _migrators(
    count: int, env: dict[str, str], cwd: Path | None = None
) -> list[asyncio.subprocess.Process]:
    """``count`` `python -m bot migrate` processes with ``env`` (and none of the bot's other variables)."""
    environ = {name: value for name, value in os.environ.items() if name not in VARIABLES}
    environ.update(env)
    return [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "migrate",
            cwd=cwd,
            env=environ,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(count)
    ]


async def _outputs(processes: list[asyncio.subprocess.Process]) -> list[str]:
    outputs = []
    for process in processes:
        stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, stderr.decode()
        outputs.append(stdout.decode().strip())
    return outputs


def _said_applied(outputs: list[str]) -> int:
    """The migrations the processes say they applied, in all."""
    return sum(int(found) for out in outputs for found in APPLIED.findall(out))


async def _admin(sql: str, url: str = SERVER_URL) -> None:
    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def test_postgres_migrators_waiting_for_each_other_report_each_migration_once() -> None:
    """Two `migrate` processes reach the advisory lock on a fresh PostgreSQL database (the test holds it until
    both wait for it): each migration is applied once, their lines add up to the migrations there are, and
    both print the schema version."""
    name = f"eights_migrate_together_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        await _admin(f"CREATE DATABASE {name}")
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        unreachable(error)
    url = urlunsplit(urlsplit(SERVER_URL)._replace(path=f"/{name}", query=""))
    holder = await asyncpg.connect(url)
    try:
        key = advisory_lock_key(str(await holder.fetchval("SELECT current_schema()")))
        await holder.execute("SELECT pg_advisory_lock($1)", key)
        processes = await _migrators(2, {"DATABASE_URL": url})
        waiting_sql = (
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        deadline = time.monotonic() + 60
        while await holder.fetchval(waiting_sql) < 2:
            assert time.monotonic() < deadline, "the two migrators never reached the lock"
            await asyncio.sleep(0.05)
        await holder.execute("SELECT pg_advisory_unlock($1)", key)
        outputs = await _outputs(processes)
        assert await holder.fetchval("SELECT count(*) FROM schema_migrations") == LATEST
        assert _said_applied(outputs) == LATEST, f"{LATEST} migrations were applied once: {outputs}"
        assert all(out.startswith(f"schema version {LATEST} (") for out in outputs), outputs
    finally:
        await holder.close()
        await _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _opened_by(pid: int, database: Path) -> bool:
    """Whether process ``pid`` has ``database`` open (/proc/PID/fd)."""
    try:
        return any(
            os.readlink(fd) == str(database)
            for fd in (f"/proc/{pid}/fd/{n}" for n in os.listdir(f"/proc/{pid}/fd"))
        )
    except OSError:
        return False


async def test_sqlite_migrators_waiting_for_each_other_report_each_migration_once(tmp_path: Path) -> None:
    """Two `migrate` processes on a fresh SQLite file whose write lock the test holds until both have it
    open (as a process starting beside another's migration): each migration is applied once, and their
    lines add up to the migrations there are."""
    database = (tmp_path / "eights.sqlite3").resolve()
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        holder.execute("PRAGMA journal_mode = WAL")
        holder.execute("BEGIN IMMEDIATE")  # the write lock, as another process's migration holds it
        processes = await _migrators(2, {"DATABASE_URL": f"sqlite:///{database}"})
        # Held until both have the file open (or 3 s at most: a process waits 5 s for the lock, the store's
        # busy timeout, before it gives up); whichever order they then take it in, the count must add up.
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not all(_opened_by(p.pid, database) for p in processes):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)  # both past their first read, waiting for the lock
        holder.execute("COMMIT")
        outputs = await _outputs(processes)
    finally:
        holder.close()
    ledger = sqlite3.connect(database)
    try:
        assert ledger.execute("SELECT count(*) FROM schema_migrations").fetchone() == (LATEST,)
    finally:
        ledger.close()
    assert _said_applied(outputs) == LATEST, f"{LATEST} migrations were applied once: {outputs}"
    assert all(out.startswith(f"schema version {LATEST} (") for out in outputs), outputs
