"""The service's retention task (MOVE_LOG_RETENTION_DAYS): started with the tables, it deletes the move
logs of matches closed longer ago than the setting, leaves open tables and recent matches alone, and says
which logs are gone (issue 26)."""

from __future__ import annotations

import random

from bot.service import FakeClock, TableService
from bot.service.retention import FIRST_PASS_DELAY, PRUNE_INTERVAL
from bot.store import Store
from tests.service.support import ALICE, BOB, GUILD, OTHER_CHANNEL, Recorder, open_with, take_turn

DAY = 86400.0


async def test_closed_matches_lose_their_moves_after_the_retention(store: Store) -> None:
    clock = FakeClock()
    service = TableService(
        store,
        clock=clock,
        cpu_delay=2.0,
        listener=Recorder(),
        batch_window=0.0,
        rng=random.Random(3),
        move_log_retention=2 * DAY,
    )
    closed = await open_with(service, ALICE, BOB)
    await take_turn(service, closed, ALICE)
    await service.end(closed, ALICE)
    closed_moves = len(await store.moves(closed))
    assert closed_moves >= 4

    await service.restore_all()  # starts the task
    await clock.advance(FIRST_PASS_DELAY)
    assert len(await store.moves(closed)) == closed_moves  # closed for a minute only: kept

    await clock.advance(2 * DAY - PRUNE_INTERVAL)
    assert len(await store.moves(closed)) == closed_moves  # not yet two days
    playing = (await service.open_table(GUILD, OTHER_CHANNEL, BOB)).table_id
    await service.join(playing, ALICE)
    await service.start(playing, BOB)
    await clock.advance(2 * PRUNE_INTERVAL)
    assert await store.moves(closed) == []
    assert await service.moves_pruned_at(closed) is not None
    assert len(await store.moves(playing)) >= 3  # an open table keeps its log
    assert await service.moves_pruned_at(playing) is None
    retention = service.move_log_retention()
    assert retention is not None and retention.pruned == closed_moves
    await service.close()


async def test_without_the_setting_nothing_is_pruned(store: Store) -> None:
    clock = FakeClock()
    service = TableService(store, clock=clock, listener=Recorder(), batch_window=0.0, rng=random.Random(3))
    closed = await open_with(service, ALICE, BOB)
    await service.end(closed, ALICE)
    moves = len(await store.moves(closed))
    await service.restore_all()
    await clock.advance(400 * DAY)
    assert len(await store.moves(closed)) == moves and service.move_log_retention() is None
    await service.close()
