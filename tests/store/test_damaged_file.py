"""A file that is not an SQLite database, or a damaged one (issue 13): the store raises its own
DamagedDatabaseError (a MigrationError, so a StoreError) naming the file, never sqlite3's error, and writes
nothing to it — when opening it, and when the damage is found by a query while the bot runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.store import DamagedDatabaseError, MigrationError, MoveCommit, StoreError, open_store
from bot.store.sqlite import SqliteStore
from tests.store.conftest import new_table

MESSAGE = "is not an SQLite database or is damaged: restore it from a backup, see README 'Backups'"


async def _good_database(path: Path, tables: int = 40) -> list[int]:
    """A migrated database with enough rows to span many pages; closed (checkpointed) when returned."""
    store = await SqliteStore.open(str(path))
    await store.migrate()
    ids = []
    for channel in range(tables):
        ids.append(
            await new_table(store, channel_id=5000 + channel, state={"phase": "lobby", "pad": "x" * 900})
        )
    await store.close()
    return ids


def _cut(path: Path, kind: str) -> None:
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    pages = len(data) // page
    assert pages >= 8
    cut = {
        "not-sqlite": b"not a database",
        "truncated-100": data[:100],
        "half-at-page-boundary": data[: pages // 2 * page],
        "half-plus-a-few-bytes": data[: pages // 2 * page + 7],
        "last-page-missing": data[: (pages - 1) * page],
    }[kind]
    path.write_bytes(cut)


@pytest.mark.parametrize(
    "kind",
    ["not-sqlite", "truncated-100", "half-at-page-boundary", "half-plus-a-few-bytes", "last-page-missing"],
)
async def test_opening_a_damaged_file_raises_the_stores_error_and_changes_nothing(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "eights.sqlite3"
    await _good_database(path)
    _cut(path, kind)
    before = path.read_bytes()
    with pytest.raises(DamagedDatabaseError) as raised:
        store = await open_store(f"sqlite:///{path}")
        try:
            await store.migrate()
        finally:
            await store.close()
    error = raised.value
    assert isinstance(error, MigrationError) and isinstance(error, StoreError)
    assert str(error) == f"the database file {path} {MESSAGE}" and error.path == str(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eights.sqlite3"]


async def test_a_path_that_cannot_be_opened_is_a_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder.sqlite3"
    folder.mkdir()
    with pytest.raises(StoreError, match="cannot open the database file"):
        await SqliteStore.open(str(folder))


async def test_damage_found_by_a_query_while_running_is_the_stores_error(tmp_path: Path) -> None:
    path = tmp_path / "eights.sqlite3"
    ids = await _good_database(path)
    store = await SqliteStore.open(str(path))
    try:
        await store.migrate()
        os.truncate(path, path.stat().st_size // 2)  # e.g. a restore gone wrong under the running bot
        with pytest.raises(DamagedDatabaseError, match=MESSAGE):
            await store.get_state(ids[-1])
        with pytest.raises(DamagedDatabaseError):
            await store.commit_move(
                MoveCommit(
                    ids[0],
                    0,
                    actor_id=None,
                    action={"kind": "x"},
                    events=[],
                    new_state={"phase": "lobby"},
                    deadline=None,
                    now=200.0,
                )
            )
        backup = tmp_path / "copy.sqlite3"
        with pytest.raises(DamagedDatabaseError):
            await store.backup(str(backup))
        assert not backup.exists() and not (tmp_path / "copy.sqlite3.partial").exists()
    finally:
        await store.close()  # closing a damaged database still closes it, without an error
