"""A database file whose header is sound but one page was overwritten with random bytes (a bad sector, a
stray write): README promises a damaged file "a clear, short answer" that "changes nothing", and for the
command line "Every failure is one line, never a traceback" (README, *On the command line*).

The damage here is in page 2 of a file the bot wrote (a pointer-map page: the bot's files use incremental
auto-vacuum), found by SQLite's integrity check, which ``check`` runs."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from tests.test_cli import TOKEN, bot
from tests.test_cli_database_errors import _page_size, _played_database


@pytest.fixture(scope="module")
def good_database(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("good") / "eights.sqlite3"
    asyncio.run(_played_database(path))
    return path.read_bytes()


def _page_overwritten(good: bytes, page_number: int = 2) -> bytes:
    """``good`` with the ``page_number``-th page (1-based) replaced by random bytes; the header intact."""
    size = _page_size(good)
    start = (page_number - 1) * size
    noise = bytes(random.Random(1).randrange(256) for _ in range(size))
    return good[:start] + noise + good[start + size :]


def _damaged_folder(tmp_path: Path, good: bytes) -> tuple[Path, Path, bytes]:
    folder = tmp_path / "bot"
    folder.mkdir()
    database = folder / "eights.sqlite3"
    damaged = _page_overwritten(good)
    database.write_bytes(damaged)
    return folder, database, damaged


def test_check_reports_a_damaged_page_in_one_line(tmp_path: Path, good_database: bytes) -> None:
    folder, database, damaged = _damaged_folder(tmp_path, good_database)
    result = bot(folder, "check", env={"DATABASE_URL": f"sqlite:///{database}", "DISCORD_TOKEN": TOKEN})
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    problem = next(i for i, line in enumerate(lines) if line.startswith("PROBLEM database"))
    # The problem is one line; what follows it is the next problem or the verdict, not SQLite's report.
    spill = [line for line in lines[problem + 1 :] if not line.startswith(("PROBLEM ", "not ready"))]
    assert spill == [], f"the problem runs over {len(spill) + 1} lines: {lines[problem : problem + 6]}"
    assert database.read_bytes() == damaged


def test_forget_user_on_a_file_check_calls_damaged_fails_and_leaves_it_alone(
    tmp_path: Path, good_database: bytes
) -> None:
    folder, database, damaged = _damaged_folder(tmp_path, good_database)
    env = {"DATABASE_URL": f"sqlite:///{database}"}
    checked = bot(folder, "check", env={**env, "DISCORD_TOKEN": TOKEN})
    assert (
        checked.returncode == 1 and "integrity check failed" in checked.stdout
    )  # the bot knows it is damaged
    result = bot(folder, "forget-user", "2", env=env)
    # A privacy request against a damaged file must not be reported done, nor write into the damage.
    assert (result.returncode, database.read_bytes() == damaged) == (1, True), (
        f"exit {result.returncode}, file changed: {database.read_bytes() != damaged}, said: {result.stdout!r}"
    )


def _game_state_page_overwritten(tmp_path: Path, good: bytes) -> bytes:
    """``good`` with the first overflow page of a table's stored state (its JSON runs over several pages)
    replaced by random bytes."""
    import sqlite3

    probe = tmp_path / "probe.sqlite3"
    probe.write_bytes(good)
    conn = sqlite3.connect(probe)
    try:
        (page,) = conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'game_state' AND pagetype = 'overflow' "
            "ORDER BY pageno LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    probe.unlink()
    return _page_overwritten(good, page)


def test_copy_db_from_a_file_with_a_damaged_page_is_one_line_and_leaves_no_copy(
    tmp_path: Path, good_database: bytes
) -> None:
    """README: copy-db "copy the whole database ... verified by counting both"; "Every failure is one line,
    never a traceback"; a damaged file gets "… is not an SQLite database or is damaged: restore it from a
    backup" (exit 1)."""
    folder = tmp_path / "bot"
    folder.mkdir()
    source = folder / "eights.sqlite3"
    damaged = _game_state_page_overwritten(tmp_path, good_database)
    source.write_bytes(damaged)
    target = folder / "copy.sqlite3"
    result = bot(folder, "copy-db", "--from", f"sqlite:///{source}", "--to", f"sqlite:///{target}")
    said = result.stdout + result.stderr
    assert result.returncode == 1, said
    assert "Traceback" not in said, said[-2500:]
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2500:]
    assert not target.exists(), "a half-made copy is left behind"
    assert source.read_bytes() == damaged


async def test_run_on_a_file_with_a_damaged_page_in_a_tables_state_is_one_line(
    tmp_path: Path, good_database: bytes
) -> None:
    """README, *Troubleshooting*: "'… is not an SQLite database or is damaged: restore it from a backup'
    (exit code 1) ... The bot leaves it as it is"; *On the command line*: "Every failure is one line, never
    a traceback". Here ``run`` migrates (nothing to do), connects, and dies restoring the open tables:
    ``CRITICAL bot: unexpected error``, a traceback, "unexpected error: JSONDecodeError" (the SQLite store
    decodes a table's damaged state row with orjson, and that error is neither the store's
    DamagedDatabaseError nor caught where restore_all leaves an unreadable table alone)."""
    from tests.test_cli_read_only_file import run_for_a_while

    folder = tmp_path / "bot"
    folder.mkdir()
    database = folder / "eights.sqlite3"
    database.write_bytes(_game_state_page_overwritten(tmp_path, good_database))
    # Still running after 30 s: it left the damaged table alone, which is fine too.
    process, out, err = await run_for_a_while(folder, f"sqlite:///{database}")
    said = (out + err).decode()
    assert "Traceback" not in said and "unexpected error" not in said, said[-2500:]
    if process.returncode not in (0, -15):
        assert "is damaged" in err.decode().strip().splitlines()[-1], said[-2500:]
