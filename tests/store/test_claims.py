"""Shard claims (bot/store/claims.py) on both backends: which claims exclude which. Two claims in one test
process stand for two processes (open-file-description locks on SQLite, two sessions on PostgreSQL); the
processes themselves, SIGKILL included, are in tests/e2e/test_shard_claims.py."""

from __future__ import annotations

import asyncio
import fcntl
import os
from pathlib import Path

import pytest

from bot.shards import ShardSet
from bot.store import ShardClaim, ShardsClaimedError, claim_shards, claims, parse_database_url


async def refused(url: str, shards: ShardSet) -> str:
    with pytest.raises(ShardsClaimedError) as error:
        await claim_shards(url, shards, retry_for=0)  # no dead predecessor to wait for here
    return str(error.value)


async def test_overlapping_claims_are_refused_and_disjoint_ones_granted(backend_url: str) -> None:
    shown = parse_database_url(backend_url).path or parse_database_url(backend_url).shown
    held: list[ShardClaim] = []
    try:
        held.append(await claim_shards(backend_url, ShardSet(4, (0, 1))))
        held.append(await claim_shards(backend_url, ShardSet(4, (2,))))  # disjoint: side by side

        message = await refused(backend_url, ShardSet(4, (1, 3)))
        assert message.startswith(f"{shown}: cannot run shards 1, 3 of 4:") and "runs shard 1 of 4" in message
        message = await refused(backend_url, ShardSet(None, None))
        assert "cannot run every shard (no SHARD_IDS)" in message and "some of these shards" in message
        # Shard 1 of 2 serves guilds of shards 1 and 3 of 4: another SHARD_COUNT is refused as a whole.
        message = await refused(backend_url, ShardSet(2, (1,)))
        assert "SHARD_COUNT other than 2" in message
        # A refused claim took nothing: shard 3 of 4 is still free.
        held.append(await claim_shards(backend_url, ShardSet(4, (3,))))
    finally:
        for claim in held:
            await claim.release()

    # Released, every shard can be claimed; while it is, no single shard can be.
    everything = await claim_shards(backend_url, ShardSet(None, None))
    try:
        assert "another process already runs every shard" in await refused(backend_url, ShardSet(4, (0,)))
        assert "some of these shards" in await refused(backend_url, ShardSet(2, (0, 1)))
    finally:
        await everything.release()
    again = await claim_shards(backend_url, ShardSet(2, (0,)))
    await again.release()
    database = parse_database_url(backend_url).path
    if database is not None:  # SQLite: the lock file goes with the last claim
        assert not Path(database + ".lock").exists()


async def test_an_in_memory_database_needs_no_claim() -> None:
    first = await claim_shards("sqlite:///:memory:", ShardSet(None, None))
    second = await claim_shards("sqlite:///:memory:", ShardSet(None, None))
    await first.release()
    await second.release()


async def test_a_postgresql_claim_whose_connection_died_silently_is_taken_again_once(pg_url: str) -> None:
    # The claim's connection stops answering without closing (a machine gone, a network black hole): the
    # periodic check notices, the process is told once that the claim is lost and once that it is back,
    # and the shards are held again for real.
    import asyncio

    claim = await claim_shards(pg_url, ShardSet(), watch_interval=0.2)
    told: list[str] = []
    claim.watch(lambda: told.append("lost"), lambda: told.append("back"), told.append)

    class Silent:
        """The claim's connection, answering nothing from now on."""

        def __init__(self, conn: object) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> object:
            return getattr(self._conn, name)

        async def fetchval(self, *args: object, **kwargs: object) -> object:
            raise TimeoutError

    claim._conn = Silent(claim._conn)  # type: ignore[attr-defined]
    try:
        for _ in range(100):
            await asyncio.sleep(0.05)
            if told == ["lost", "back"]:
                break
        await asyncio.sleep(1.0)  # and nothing more: the old connection's end is not another loss
        assert told == ["lost", "back"] and claim.held
        await refused(pg_url, ShardSet())
    finally:
        await claim.release()


async def test_a_claim_waits_out_another_starting_process_probing_the_shard_counts(tmp_path: Path) -> None:
    """Two processes started at once (SHARD_COUNT=2, shards 0 and 1) each probe the other counts' bytes for
    an instant with a write lock; one that met the other's probe took it for a process running another
    SHARD_COUNT and refused to start (seen in CI). A probe that is gone a moment later is waited out."""
    database = tmp_path / "eights.sqlite3"
    url = f"sqlite:///{database}"
    first = await claim_shards(url, ShardSet(2, (0,)))
    try:
        # Another starter's probe of the counts below 2, held for 50 ms (a lock of another open file).
        fd = os.open(database.with_name(database.name + ".lock"), os.O_RDWR)
        try:
            assert claims._setlk(fd, fcntl.F_WRLCK, claims._COUNT_BASE, 2)
            unlock = (fd, fcntl.F_UNLCK, claims._COUNT_BASE, 2)
            asyncio.get_running_loop().call_later(0.05, claims._setlk, *unlock)
            second = await claim_shards(url, ShardSet(2, (1,)))
            await second.release()
        finally:
            os.close(fd)
    finally:
        await first.release()
