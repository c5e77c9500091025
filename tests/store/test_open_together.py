"""Processes opening one fresh SQLite file at once (shard processes starting together, ``migrate`` beside
``run``) all succeed: the switch to WAL and the first migration wait for each other instead of failing
with "database is locked"."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from bot.config import VARIABLES
from bot.store.sqlite import SqliteStore
from tests.test_cli import TOKEN

PAIRS = 20


async def test_open_waits_for_a_writer_holding_a_fresh_file(tmp_path: Path) -> None:
    # A fresh file in rollback-journal mode, its write lock held by another connection (as by a second
    # process half-way through its own switch to WAL): SQLite answers the switch at once with "database is
    # locked", without the busy handler. Opening must wait for the lock, not fail.
    path = tmp_path / "fresh.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE held (x INTEGER)")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    try:
        store = await SqliteStore.open(str(path))
        try:
            assert await store.migrate() > 0
            mode = await store.run_in_connection(lambda conn: conn.execute("PRAGMA journal_mode").fetchone())
            assert mode[0] == "wal"
        finally:
            await store.close()
    finally:
        release.join()
        other.close()


def bot_process(
    database: Path, cwd: Path, command: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    environ = {name: value for name, value in os.environ.items() if name not in VARIABLES}
    environ.update(env or {}, DATABASE_URL=f"sqlite:///{database}")
    return subprocess.Popen(
        [sys.executable, "-m", "bot", command],
        env=environ,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_pairs_of_migrate_on_a_fresh_file_all_succeed(tmp_path: Path) -> None:
    # The reproduction: `python -m bot migrate` twice at once on a new file, 20 times (a few pairs
    # at a time: the machine is small).
    for first in range(0, PAIRS, 4):
        procs = [
            bot_process(tmp_path / f"pair{pair}.sqlite3", tmp_path, "migrate")
            for pair in range(first, first + 4)
            for _ in range(2)
        ]
        for proc in procs:
            out, _ = proc.communicate(timeout=120)
            assert proc.returncode == 0, out
            assert "schema version" in out


def test_run_beside_migrate_on_a_fresh_file(tmp_path: Path) -> None:
    # `run` migrates before it connects to Discord: here to an API nobody listens on, so it stops there,
    # after the database part both processes share.
    run_env = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10"}
    for first in range(0, PAIRS // 2, 4):
        pairs = []
        for pair in range(first, first + 4):
            database = tmp_path / f"run{pair}.sqlite3"
            run = bot_process(database, tmp_path, "run", run_env)
            pairs.append((run, bot_process(database, tmp_path, "migrate")))
        for run, migrate in pairs:
            out, _ = migrate.communicate(timeout=120)
            assert migrate.returncode == 0, out
            out, _ = run.communicate(timeout=120)
            assert "Cannot connect to host 127.0.0.1:9" in out, out  # it got past the database
            assert "locked" not in out, out
