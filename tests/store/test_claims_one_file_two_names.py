"""The same SQLite file reached under two names (a symbolic link to the file) by two ``run`` processes.

README, *Shards as separate processes*: "Two processes never run the same shard of one database: ``run``
claims its shards there ... A second process on any of the same shards — a container and a local run on
one file ... — refuses to start with one line naming the database and the shards (exit 1)". The claim is
a lock on ``<the path as written>.lock`` (``bot/store/claims.py``, ``_FileClaim.take``: the path is not
resolved), so a second process whose DATABASE_URL names the file through a symbolic link locks another
lock file, is granted every shard, and both bots play the same tables of the one file.

Two claims in one test process stand for two processes, as in tests/store/test_claims.py (open-file-
description locks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.shards import ShardSet
from bot.store import ShardsClaimedError, claim_shards, open_store


async def test_a_second_run_on_the_same_file_through_a_symlink_is_refused(tmp_path: Path) -> None:
    database, link = await database_and_link(tmp_path)
    assert link.resolve() == database.resolve()

    first = await claim_shards(f"sqlite:///{database}", ShardSet(None, None))
    try:
        with pytest.raises(ShardsClaimedError):
            second = await claim_shards(f"sqlite:///{link}", ShardSet(None, None), retry_for=0)
            await second.release()
    finally:
        await first.release()


async def database_and_link(tmp_path: Path) -> tuple[Path, Path]:
    """A migrated SQLite file in ``tmp_path/srv``, and a symlink to it in ``tmp_path``: the admin's other unit
    (or a container's bind mount of the file) names it through a link."""
    data = tmp_path / "srv"
    data.mkdir()
    database = data / "eights.sqlite3"
    store = await open_store(f"sqlite:///{database}", create=True)
    await store.migrate()
    await store.close()
    link = tmp_path / "eights.sqlite3"
    link.symlink_to(database)
    return database, link
