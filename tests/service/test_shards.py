"""Shard processes: each serves its own shards' guilds. A restarted process restores only its tables (with
their timers); the other process's tables are left alone, never loaded, timed or played here."""

from __future__ import annotations

import random

import pytest

from bot.service import FakeClock, ServiceError, TableService
from bot.shards import ShardSet
from bot.store import Store
from tests.service.support import ALICE, BOB, CPU_DELAY, Recorder

SHARD_0_GUILD = 2 << 22  # (id >> 22) % 2 == 0
SHARD_1_GUILD = 3 << 22  # (id >> 22) % 2 == 1


def process(store: Store, clock: FakeClock, shard: int) -> tuple[TableService, Recorder]:
    recorder = Recorder()
    service = TableService(
        store, clock=clock, cpu_delay=CPU_DELAY, listener=recorder, batch_window=0.0,
        rng=random.Random(shard), shards=ShardSet(2, (shard,)),
    )  # fmt: skip
    return service, recorder


async def open_in(service: TableService, guild: int, channel: int) -> int:
    table_id = (await service.open_table(guild, channel, ALICE, turn_timeout=60)).table_id
    await service.join(table_id, BOB)
    await service.add_cpu(table_id, ALICE, "easy")
    await service.start(table_id, ALICE)
    return table_id


async def test_a_restarted_shard_restores_only_its_own_tables(store: Store) -> None:
    clock = FakeClock()
    first, _ = process(store, clock, 0)
    second, _ = process(store, clock, 1)
    mine = await open_in(first, SHARD_0_GUILD, 10)
    theirs = await open_in(second, SHARD_1_GUILD, 20)
    before = await second.snapshot(theirs)
    stored = await store.get_state(theirs)

    # Shard 0 is restarted (a new process, a new clock) while shard 1 keeps running.
    await first.close()
    new_clock = FakeClock(start=clock.now())
    restarted, seen = process(store, new_clock, 0)
    assert await restarted.restore_all() == 1
    assert (await restarted.snapshot(mine)).table_id == mine
    with pytest.raises(ServiceError):
        await restarted.snapshot(theirs)  # not loaded on demand either
    assert await restarted.table_in_channel(20) is None
    # Hours pass on the restarted process's clock: its own table's timers fire, the other's never do here.
    for _ in range(200):
        if not new_clock.pending():
            break
        await new_clock.advance(max(0.0, new_clock.pending()[0] - new_clock.now()))
    assert seen.outcomes and all(outcome.table_id == mine for outcome in seen.outcomes)
    assert await second.snapshot(theirs) == before  # untouched: same version, same deadline
    assert await store.get_state(theirs) == stored


async def test_a_process_running_every_shard_serves_every_guild(store: Store) -> None:
    clock = FakeClock()
    first, _ = process(store, clock, 0)
    second, _ = process(store, clock, 1)
    await open_in(first, SHARD_0_GUILD, 10)
    await open_in(second, SHARD_1_GUILD, 20)
    everything = TableService(
        store, clock=FakeClock(start=clock.now()), cpu_delay=CPU_DELAY, shards=ShardSet()
    )
    assert await everything.restore_all() == 2
    await everything.close()
