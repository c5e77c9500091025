"""A copy-db that fails leaves nothing it created: no --to SQLite file, no file beside it, no folder made for
it.

README (copy-db): it copies into "another, empty" database. A refused copy (here a source from a newer bot,
refused as a database migration failure, exit 1) used to leave an empty, freshly migrated --to file behind,
which the next attempt then had to be pointed elsewhere from, or which an admin could mistake for a copy. A
--to file that was there before is the admin's: it is left where it is.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from bot.store import open_store
from tests.test_cli import bot, files_in


def newer_source(path: Path) -> None:
    """An SQLite database as a newer bot leaves it: one migration this bot does not know."""

    async def migrate() -> None:
        store = await open_store(f"sqlite:///{path}")
        try:
            await store.migrate()
        finally:
            await store.close()

    asyncio.run(migrate())
    conn = sqlite3.connect(path)
    try:
        conn.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, ?, 'x', ?)",
            ("0099_from_a_newer_bot.sql", time.time()),
        )
        conn.commit()
    finally:
        conn.close()


@pytest.mark.parametrize("target", ["copy.sqlite3", "new/folders/copy.sqlite3"])
def test_copy_db_refusing_a_source_from_a_newer_bot_leaves_no_target(tmp_path: Path, target: str) -> None:
    """The refusal names the source's newer migration (exit 1), and afterwards the working directory holds
    what it held before: the --to file, its journal files and the folders made for it are gone."""
    newer_source(tmp_path / "source.sqlite3")
    before = files_in(tmp_path)
    result = bot(tmp_path, "copy-db", "--from", "sqlite:///source.sqlite3", "--to", f"sqlite:///{target}")
    assert result.returncode == 1, result.stderr
    assert "0099_from_a_newer_bot.sql" in result.stderr and "Traceback" not in result.stderr
    assert files_in(tmp_path) == before


def test_copy_db_failing_leaves_a_target_that_was_there_before(tmp_path: Path) -> None:
    """A --to file the admin made (an empty one) is not copy-db's to remove: it is still there after the
    refusal, the folder it is in too."""
    newer_source(tmp_path / "source.sqlite3")
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "copy.sqlite3").touch()
    result = bot(
        tmp_path, "copy-db", "--from", "sqlite:///source.sqlite3", "--to", "sqlite:///kept/copy.sqlite3"
    )
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "kept" / "copy.sqlite3").is_file()


def test_copy_db_that_succeeds_keeps_its_target(tmp_path: Path) -> None:
    """The clean-up is for failures only: a copy that succeeds leaves the new database in its new folder."""
    result = bot(tmp_path, "migrate", env={"DATABASE_URL": "sqlite:///source.sqlite3"})
    assert result.returncode == 0, result.stderr
    result = bot(
        tmp_path, "copy-db", "--from", "sqlite:///source.sqlite3", "--to", "sqlite:///new/copy.sqlite3"
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "new" / "copy.sqlite3").is_file()
