"""The service's public hooks for tests and replays: a seeded deal source, an observer of the committed state
held in memory, and ``busy`` (a table has settled when it is False)."""

from __future__ import annotations

from bot.engine import Match, card_code
from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, CPU_DELAY, Recorder, make_service, open_with, take_turn


async def test_the_same_deal_seed_deals_the_same_hands(store: Store, clock: FakeClock) -> None:
    hands = []
    for seed in (11, 11, 12):
        service = make_service(store, clock, Recorder(), seed=1)
        service.seed_deals(seed)
        table_id = await open_with(service, ALICE, BOB)
        hands.append([card.code for card in (await service.hand(table_id, ALICE.user_id)).cards])
        await service.end(table_id, ALICE)
    assert hands[0] == hands[1]
    assert hands[0] != hands[2]


async def test_the_observer_sees_every_committed_state_and_the_close(service: TableService) -> None:
    seen: list[tuple[int, tuple[int | None, ...], Match | None]] = []
    table_id = await open_with(service, ALICE, BOB, start=False)
    service.observe(lambda table, users, match: seen.append((table, users, match)))
    assert seen == [(table_id, (ALICE.user_id, BOB.user_id), None)]  # what is held now, at once
    await service.start(table_id, ALICE)
    table, users, match = seen[-1]
    assert (table, users) == (table_id, (ALICE.user_id, BOB.user_id))
    assert match is not None and match.round_number == 1
    hand = await service.hand(table_id, ALICE.user_id)
    assert sorted(card_code(card) for card in match.round.hand(0)) == sorted(c.code for c in hand.cards)
    await service.end(table_id, ALICE)
    assert seen[-1] == (table_id, (ALICE.user_id, BOB.user_id), None)


async def test_busy_until_the_cpus_outcome_is_handed_on(store: Store, clock: FakeClock) -> None:
    recorder = Recorder()
    service = TableService(store, clock=clock, cpu_delay=CPU_DELAY, listener=recorder, batch_window=1.0)
    table_id = await open_with(service, ALICE, cpus=("easy",))
    assert not service.busy()
    for _ in range(20):  # the person leads; play until the CPU is to move
        snapshot = await service.snapshot(table_id)
        if snapshot.to_act == 1:
            break
        await take_turn(service, table_id, ALICE)
    assert (await service.snapshot(table_id)).to_act == 1
    assert not service.busy() and not recorder.outcomes
    await clock.advance(CPU_DELAY)  # the CPU moves; its outcome waits for the batch window
    assert service.busy() and not recorder.outcomes
    await clock.advance(1.0)
    assert not service.busy() and recorder.outcomes
