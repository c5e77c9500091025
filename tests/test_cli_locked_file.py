"""An SQLite file another process is writing to: an sqlite3 shell left in a transaction, a stuck forget-user.
It holds the write lock, which readers do not need (WAL) but run's migration takes first at every start, even
with nothing to apply, so run exits 1 ("database is locked") once SQLite's busy timeout has passed.

README, *On the command line*: ``check`` — "print what ``run`` would do; exit 0 if it would start, 1 if
not"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.service.db_faults import SqliteLockHolder
from tests.test_cli import TOKEN, bot

ENV = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10"}


def test_check_says_run_would_not_start_while_another_process_holds_the_write_lock(tmp_path: Path) -> None:
    assert bot(tmp_path, "migrate").returncode == 0
    holder = SqliteLockHolder(tmp_path / "data" / "eights.sqlite3")
    try:
        ran = bot(tmp_path, "run", env=ENV)
        checked = bot(tmp_path, "check", env=ENV)
    finally:
        holder.release()
    assert ran.returncode == 1 and "database is locked" in ran.stderr, ran.stderr
    assert checked.returncode == 1, checked.stdout.strip().splitlines()[-1]
    problem = (
        "PROBLEM the database data/eights.sqlite3 cannot be used now: database is locked; run would exit 1"
    )
    assert problem in checked.stdout, checked.stdout
    # Once the lock is let go, both agree again (check took the lock and wrote nothing).
    assert bot(tmp_path, "check", env=ENV).returncode == 0


def test_a_reader_does_not_stop_check(tmp_path: Path) -> None:
    """A read transaction (a backup, a leaderboard query of another tool) takes no write lock: run starts."""
    assert bot(tmp_path, "migrate").returncode == 0
    reader = sqlite3.connect(tmp_path / "data" / "eights.sqlite3", isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM moves").fetchone()
        checked = bot(tmp_path, "check", env=ENV)
    finally:
        reader.close()
    assert checked.returncode == 0, checked.stdout
