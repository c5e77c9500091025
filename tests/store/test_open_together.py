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

from bot.store.sqlite import SqliteStore

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


def migrate_process(database: Path, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}"}
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "migrate"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_pairs_of_migrate_on_a_fresh_file_all_succeed(tmp_path: Path) -> None:
    # The reproduction: `python -m bot migrate` twice at once on a new file, 20 times (a few pairs
    # at a time: the machine is small).
    for first in range(0, PAIRS, 4):
        procs = [
            migrate_process(tmp_path / f"pair{pair}.sqlite3", tmp_path)
            for pair in range(first, first + 4)
            for _ in range(2)
        ]
        for proc in procs:
            out, _ = proc.communicate(timeout=120)
            assert proc.returncode == 0, out
            assert "schema version" in out
