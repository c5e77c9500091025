"""A database file the bot may read but not write: e.g. restored with ``cp`` as root into the folder of a
bot that runs as uid 10001 (README, *Running with Docker* and *Backups, restores and upgrades*).

The tests run as root, whom file modes do not stop, so the file is made immutable (``chattr +i``): opening
it for writing fails as it fails for a user without write permission, and SQLite opens it read-only.

README, *On the command line*: ``check`` — "validate the settings and the database without changing
anything, print what ``run`` would do; exit 0 if it would start, 1 if not"; "Every failure is one line,
never a traceback"."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakediscord import FakeDiscord
from tests.test_cli import TOKEN, bot, env_against
from tests.test_cli_database_errors import _played_database


@pytest.fixture
def read_only_database(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "bot"
    (folder / "data").mkdir(parents=True)
    database = folder / "data" / "eights.sqlite3"
    asyncio.run(_played_database(database))
    if os.geteuid() != 0:  # file modes stop anyone but root
        database.chmod(0o444)
        try:
            yield database
        finally:
            database.chmod(0o644)
        return
    made = subprocess.run(["chattr", "+i", str(database)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot make a file read-only for root here: {made.stderr.strip()}")
    try:
        with pytest.raises(OSError):
            database.open("r+b")
        yield database
    finally:
        subprocess.run(["chattr", "-i", str(database)], check=False)


def test_check_is_not_ready_when_the_database_file_cannot_be_written(read_only_database: Path) -> None:
    folder = read_only_database.parent.parent
    result = bot(
        folder, "check", env={"DATABASE_URL": "sqlite:///data/eights.sqlite3", "DISCORD_TOKEN": TOKEN}
    )
    # run cannot restore a table nor save a move in this file (see the next test): check must not say ready.
    assert result.returncode == 1, result.stdout
    assert "ready: run would start the bot" not in result.stdout


async def test_run_on_a_database_file_it_cannot_write_fails_in_one_line(read_only_database: Path) -> None:
    folder = read_only_database.parent.parent
    _, out, err = await run_for_a_while(folder, "sqlite:///data/eights.sqlite3")
    said = (out + err).decode()
    # Whether it stops or plays on with "could not save" answers, no traceback and no "unexpected error".
    assert "Traceback" not in said and "unexpected error" not in said, said[-2500:]


async def run_for_a_while(
    folder: Path, database_url: str, seconds: float = 30.0
) -> tuple[asyncio.subprocess.Process, bytes, bytes]:
    """``python -m bot run`` in ``folder`` against a fake Discord, until it stops or ``seconds`` pass (then
    it is stopped): the process and what it wrote."""
    async with FakeDiscord(token=TOKEN) as fake:
        env = env_against(
            fake,
            DATABASE_URL=database_url,
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), seconds)
        except TimeoutError:  # still running
            process.terminate()
            out, err = await process.communicate()
    return process, out, err
