"""Two shard processes on one database (SHARD_COUNT=2, SHARD_IDS=0 and 1); the first one's claim connection
is terminated (pg_terminate_backend, as a server-side connection reaper or a failover does).

README "Shards as separate processes or containers": "while one process is down … the others do not touch its
tables"; "On PostgreSQL the claim lives on a connection, which … can take from a running process: the process
then pauses play …, claims its shards again as soon as the server answers (within a second or so of its
return) and plays on". And "Two processes never run the same shard of one database".

The other process keeps its own shard and never holds the first's; the first is told it lost its claim,
takes it again within a couple of seconds, and a third process on either shard is refused throughout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.shards import ShardSet
from bot.store import ShardsClaimedError, claim_shards
from tests.store.pg_own_database import admin, own_database


@pytest.fixture
async def own_db() -> AsyncIterator[tuple[str, str]]:
    """(name, url) of a new, migrated database of this test alone."""
    async with own_database() as database:
        yield database


async def test_a_lost_claim_is_taken_back_by_its_process_and_never_by_the_other(
    own_db: tuple[str, str],
) -> None:
    """Shards 0 and 1 of 2 claimed by two processes; shard 0's claim connection terminated: "lost" then
    "back" for the first, nothing for the second, and every further claim refused."""
    name, url = own_db
    first = await claim_shards(url, ShardSet(2, (0,)), watch_interval=1.0)
    second = await claim_shards(url, ShardSet(2, (1,)), watch_interval=1.0)
    told: list[str] = []
    first.watch(lambda: told.append("lost"), lambda: told.append("back"), lambda why: told.append(why))
    second.watch(
        lambda: told.append("second lost"), lambda: told.append("second back"), lambda why: told.append(why)
    )
    try:
        killed = await admin(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = $1 AND application_name LIKE 'crazy-eights claim 0/2 %'",
            name,
        )
        assert killed == 1
        loop = asyncio.get_running_loop()
        start = loop.time()
        while "back" not in told and loop.time() - start < 5.0:
            await asyncio.sleep(0.05)
        assert told == ["lost", "back"], told
        assert first.held and second.held
        for shards in (ShardSet(2, (0,)), ShardSet(2, (1,)), ShardSet()):
            with pytest.raises(ShardsClaimedError):
                await (await claim_shards(url, shards, retry_for=0.0)).release()
    finally:
        await first.release()
        await second.release()
