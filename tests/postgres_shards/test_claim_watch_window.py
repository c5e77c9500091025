"""A shard claim lost before the bot starts watching it.

``run`` claims its shards first (bot/cli.py ``_run``), then migrates (which can wait a minute on another
process's migration, see test_migration_wait.py), builds the bot, logs in, and only in ``setup_hook``
(bot/client.py ``_build_features``) calls ``claim.watch(on_lost=pause, on_back=resume,
on_taken=stop)``. Until then the claim's callbacks are no-ops (bot/store/claims.py ``_PostgresClaim``:
``_nothing``), and ``watch`` neither looks at ``held`` nor replays what already happened.

So a claim whose connection goes in that window (a PostgreSQL restart or failover during the start) is
never told to the service: play is not paused while the claim is not held, and when another process took
the shards meanwhile, the refusal (``on_taken``) went nowhere: this process plays the other one's tables.

README, "Shards as separate processes": "the process then pauses play ..., claims its shards again as soon
as the server answers ... and plays on; if another process holds them by then (for 90 s), it stops with exit
1 rather than play the same tables." "Two processes never run the same shard of one database"."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from bot.shards import ShardSet
from bot.store.claims import claim_shards
from tests.service.db_faults import TcpProxy


@pytest.fixture
async def proxy(own_db: tuple[str, str]) -> AsyncIterator[TcpProxy]:
    through = TcpProxy(own_db[1])
    await through.start()
    yield through
    await through.close()


async def test_a_claim_taken_by_another_process_before_watch_still_stops_this_one(
    own_db: tuple[str, str], proxy: TcpProxy
) -> None:
    _, url = own_db
    shards = ShardSet(2, (0,))
    # This process: claimed at the start of `run`, through a network path that will fail.
    mine = await claim_shards(proxy.url, shards, reclaim_for=0.5, watch_interval=0.5)
    other = None
    try:
        # The database's connection drops while this process migrates / logs in; another process (a
        # replacement the orchestrator started) claims shard 0 meanwhile.
        await proxy.cut()
        other = await claim_shards(url, shards, retry_for=5)
        await proxy.restore()
        # This process's claim finds the shards taken: its refusal is final after reclaim_for.
        deadline = time.monotonic() + 10
        while mine._watch is not None and not mine._watch.done():  # type: ignore[attr-defined]
            assert time.monotonic() < deadline, "the claim never found out that its shards were taken"
            await asyncio.sleep(0.1)
        assert not mine.held

        # setup_hook now watches the claim, as bot/client.py does.
        told: list[str] = []
        mine.watch(
            on_lost=lambda: told.append("lost"),
            on_back=lambda: told.append("back"),
            on_taken=lambda reason: told.append("taken"),
        )
        await asyncio.sleep(2)
        assert "taken" in told or "lost" in told, (
            f"the claim is not held (another process holds shard 0) and the bot was told {told}: it would "
            "restore and play shard 0's tables beside the other process"
        )
    finally:
        if other is not None:
            await other.release()
        await mine.release()
