"""A match that ends on a turn timeout which is also the player's third in a row: the table is finished,
yet the bot announces that a CPU now plays the seat, passes the host role on, and privately tells the
player to take the seat back with /eights join (a table that no longer exists)."""

from __future__ import annotations

from bot.service import FakeClock, ServiceError, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, Recorder, make_service, open_with, take_turn

TIMEOUT = 30.0


async def test_a_match_ended_by_a_third_timeout_does_not_hand_the_finished_seat_to_a_cpu(
    store: Store,
) -> None:
    clock = FakeClock()
    recorder = Recorder()
    service: TableService = make_service(store, clock, recorder, seed=1)  # a deal found for this
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT, target=1)  # one round decides
    await alice_walks_away(service, clock, table_id)
    kinds = recorder.kinds()
    assert [e.data["in_a_row"] for e in recorder.events("timed_out")] == [1, 2, 3]
    assert kinds[-3:] == ["round_result", "match_over", "closed"]  # the third timeout ended the match
    told = [e.kind for o in recorder.outcomes for e in o.private_events.get(ALICE.user_id, ())]
    assert "taken_over" not in kinds and "taken_over" not in told, (
        f"the match is over, yet the bot says a CPU took Alice's seat: {kinds[-8:]}; tells Alice {told}"
    )
    assert "host_changed" not in kinds


async def alice_walks_away(service: TableService, clock: FakeClock, table_id: int) -> None:
    """Bob plays his turns; Alice plays until she holds three cards, then walks away: the referee plays her
    turns out, until the round is over (or the table closed)."""
    away = False
    for _ in range(400):
        try:
            snap = await service.snapshot(table_id)
        except ServiceError:  # closed
            return
        if snap.phase != "playing":
            return
        if snap.to_act == 1:
            await take_turn(service, table_id, BOB)
            continue
        away = away or len((await service.hand(table_id, ALICE.user_id)).cards) <= 3
        if away:
            await clock.advance(TIMEOUT)
        else:
            await take_turn(service, table_id, ALICE)
