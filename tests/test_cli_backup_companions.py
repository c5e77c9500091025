"""`python -m bot backup PATH` refuses the database's own files, not only the database itself.

README, command table: "`backup PATH` | write a consistent copy of the SQLite database to `PATH`, safe while
the bot runs (`--force` replaces an existing file)". The backup is written beside PATH and renamed over it
(``os.replace``), so a PATH that is one of the files SQLite and the bot keep beside the database while the bot
runs would replace the live file, and the running bot would go on with its old, now unlinked, one:

* the `-wal` (the moves committed since the last checkpoint live only there): a committed move would be gone
  once the bot dies (README: "killing the bot loses nothing committed");
* the `-shm` (the WAL's index) and the `-journal` (the rollback journal of a file not yet in WAL mode);
* the shard claim's `eights.sqlite3.lock`: the running bot's claim would be on the old inode, and a second
  `run` on the same file would claim the new one (README: "Two processes never run the same shard of one
  database").

Each is refused in one line naming what the file is (exit 1, `--force` or not), like the database itself,
by the command line and by ``SqliteStore.backup`` alike, and a failure is a sentence, never a raw
``FileNotFoundError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.shards import ShardSet
from bot.store import StoreError, open_store
from bot.store.claims import ShardsClaimedError, claim_shards
from bot.store.sqlite import SqliteStore
from tests.test_cli import bot

REPO = Path(__file__).resolve().parents[1]
COMPANIONS = {
    "-wal": "write-ahead log",
    "-shm": "write-ahead log",
    "-journal": "rollback journal",
    ".lock": "shard claim",
}


def migrated(database: Path) -> str:
    """A migrated SQLite database at ``database``; its URL."""
    url = f"sqlite:///{database}"

    async def make() -> None:
        store = await open_store(url)
        try:
            await store.migrate()
        finally:
            await store.close()

    asyncio.run(make())
    return url


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in text and "Error:" not in text, text
    return lines[0]


def test_a_backup_over_the_live_wal_loses_nothing_committed(tmp_path: Path) -> None:
    """`backup <db>-wal --force` while the bot runs is refused in one line (exit 1), like a backup onto the
    database itself, and a write the running bot committed (still only in its WAL) survives the bot being
    killed. Before the fix the backup replaced the live WAL, and after a SIGKILL the committed write was
    gone."""
    database = tmp_path / "eights.sqlite3"
    url = migrated(database)
    # The "bot": a process with the database open that has committed a write (still in the WAL).
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import asyncio\n"
            "from bot.store import open_store\n"
            "async def main():\n"
            f"    s = await open_store({url!r})\n"
            "    await s.set_meta('committed', 'yes')\n"
            "    print('ready', flush=True)\n"
            "    await asyncio.sleep(3600)\n"
            "asyncio.run(main())\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        wal = Path(f"{database}-wal")
        assert wal.is_file()
        made = bot(tmp_path, "backup", str(wal), "--force", env={"DATABASE_URL": url})
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()

    async def read() -> str | None:
        store = await open_store(url)
        try:
            return await store.get_meta("committed")
        finally:
            await store.close()

    kept = asyncio.run(read())
    assert made.returncode == 1, f"backup onto the live -wal was accepted: {made.stdout.strip()}"
    assert "write-ahead log" in _one_line(made.stderr)
    assert kept == "yes", "a write the bot had committed was lost"


async def test_a_backup_over_the_claims_lock_file_keeps_a_second_bot_out(tmp_path: Path) -> None:
    """While a bot runs (holds its claim), `backup <db>.lock --force` is refused (exit 1), and a second
    process on the same file is still refused its shards. Before the fix the backup was renamed over the lock
    file, and a second claim of every shard of the same database was granted beside the first."""
    database = tmp_path / "eights.sqlite3"
    url = await asyncio.to_thread(migrated, database)
    running = await claim_shards(url, ShardSet(None, None))
    second = None
    try:
        made = await asyncio.to_thread(
            bot, tmp_path, "backup", f"{database}.lock", "--force", env={"DATABASE_URL": url}
        )
        with contextlib.suppress(ShardsClaimedError):
            second = await claim_shards(url, ShardSet(None, None), retry_for=0.0)
        assert second is None, "a second process claimed every shard of a database a running bot holds"
        assert made.returncode == 1 and "shard claim" in _one_line(made.stderr)
    finally:
        if second is not None:
            await second.release()
        await running.release()


@pytest.mark.parametrize("suffix", list(COMPANIONS))
@pytest.mark.parametrize("force", [True, False])
def test_each_companion_is_refused_in_one_line_and_left_alone(
    tmp_path: Path, suffix: str, force: bool
) -> None:
    """Each of the database's own files, there or not yet (no bot running), with or without --force, is
    refused in one sentence saying what it is (no "already exists … pass --force", no raw
    `FileNotFoundError: …`, which `backup <db>-wal` printed with no bot running), exit 1, nothing written."""
    assert bot(tmp_path, "migrate").returncode == 0
    database = tmp_path / "data" / "eights.sqlite3"
    companion = Path(f"{database}{suffix}")
    for there in (False, True):
        if there:
            companion.write_bytes(b"the live file")
        result = bot(tmp_path, "backup", f"data/eights.sqlite3{suffix}", *(["--force"] if force else []))
        assert result.returncode == 1, result.stdout
        line = _one_line(result.stderr)
        assert COMPANIONS[suffix] in line and "choose another path" in line, line
        assert not Path(f"{companion}.partial").exists()
        if there:
            assert companion.read_bytes() == b"the live file"
        else:
            assert not companion.exists()


def test_another_name_for_a_companion_is_refused_too(tmp_path: Path) -> None:
    """A symlink to the WAL, a path through `..`, and the database reached through a symlink are the same
    files: refused alike."""
    assert bot(tmp_path, "migrate").returncode == 0
    wal = tmp_path / "data" / "eights.sqlite3-wal"
    wal.write_bytes(b"the live file")
    (tmp_path / "to-wal").symlink_to(wal)
    (tmp_path / "linked.sqlite3").symlink_to(tmp_path / "data" / "eights.sqlite3")
    for path, env in (
        ("to-wal", {}),
        ("data/../data/eights.sqlite3-wal", {}),
        ("data/eights.sqlite3.lock", {"DATABASE_URL": "sqlite:///linked.sqlite3"}),
        ("linked.sqlite3-wal", {"DATABASE_URL": "sqlite:///linked.sqlite3"}),
    ):
        result = bot(tmp_path, "backup", path, "--force", env=env)
        assert result.returncode == 1, (path, result.stdout)
        assert "choose another path" in _one_line(result.stderr)
    assert wal.read_bytes() == b"the live file"


def test_a_folder_or_an_unusable_path_is_a_sentence(tmp_path: Path) -> None:
    """A folder as PATH (even with --force) and a symlink loop are refused in one sentence each, exit 1;
    an ordinary path still gets its backup."""
    assert bot(tmp_path, "migrate").returncode == 0
    (tmp_path / "backups").mkdir()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    folder = bot(tmp_path, "backup", "backups", "--force")
    assert folder.returncode == 1 and "is a folder" in _one_line(folder.stderr)
    loop = bot(tmp_path, "backup", "loop/copy.sqlite3")
    assert loop.returncode == 1 and "cannot be used" in _one_line(loop.stderr)
    done = bot(tmp_path, "backup", "backups/copy.sqlite3")
    assert done.returncode == 0 and (tmp_path / "backups" / "copy.sqlite3").is_file(), done.stderr


async def test_the_store_refuses_the_same_paths(tmp_path: Path) -> None:
    """``SqliteStore.backup`` itself (not only the command line) refuses the database's own files."""
    store = await SqliteStore.open(str(tmp_path / "eights.sqlite3"))
    try:
        await store.migrate()
        await store.set_meta("kept", "yes")
        for suffix in COMPANIONS:
            with pytest.raises(StoreError, match=COMPANIONS[suffix]):
                await store.backup(store.path + suffix)
        assert await store.get_meta("kept") == "yes"
        assert await store.integrity_check() == ["ok"]
    finally:
        await store.close()


async def test_a_partial_copy_never_lands_on_the_database(tmp_path: Path) -> None:
    """A database named `x.partial`, backed up to `x`: the partial copy would be the database (unlinked
    first, then written). Refused, the database intact."""
    from bot.store.sqlite import backup_path_problem  # the check the store and the command line share

    problem = backup_path_problem(str(tmp_path / "x.partial"), str(tmp_path / "x"))
    assert problem is not None and "partial copy" in problem
    store = await SqliteStore.open(str(tmp_path / "x.partial"))
    try:
        await store.migrate()
        await store.set_meta("kept", "yes")
        with pytest.raises(StoreError, match="partial copy"):
            await store.backup(str(tmp_path / "x"))
        assert await store.get_meta("kept") == "yes"
    finally:
        await store.close()
