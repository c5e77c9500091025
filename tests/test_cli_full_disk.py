"""``python -m bot backup`` when the disk fills up while the copy is written.

The disk filling is simulated as the project's own tests do (tests/service/db_faults.py, ``SqliteDiskFull``):
the child's file size limit is lowered, and Python ignores SIGXFSZ, so a write past it fails as on a full
disk. README, *On the command line*: "Every failure is one line, never a traceback"; ``backup`` writes "a
consistent copy". Here the backup dies with "unexpected error: OperationalError" and a whole traceback
(``SqliteStore.backup``'s ``copy`` maps sqlite3 errors to a store error only when opening the target, not
while ``source.backup(...)`` writes it)."""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
from pathlib import Path

from bot.config import VARIABLES
from tests.test_cli_database_errors import _played_database


def test_backup_onto_a_disk_that_fills_up_fails_in_one_line(tmp_path: Path) -> None:
    database = tmp_path / "eights.sqlite3"
    asyncio.run(_played_database(database))
    size = database.stat().st_size
    assert size > 200_000

    def full_disk() -> None:  # room for the first ~100 kB of the copy, then the disk is full
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, resource.RLIM_INFINITY))

    env = {name: value for name, value in os.environ.items() if name not in VARIABLES}
    env["DATABASE_URL"] = f"sqlite:///{database}"
    result = subprocess.run(
        [sys.executable, "-m", "bot", "backup", "backups/eights.sqlite3"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=full_disk,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
    assert not (tmp_path / "backups" / "eights.sqlite3").exists()
    assert database.stat().st_size == size
