"""Review of the turn timer changes (4cbabcd)."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, Recorder, make_service, open_with, take_turn

TIMEOUT = 30.0


async def test_a_third_timeout_that_ends_a_round_not_the_match_still_hands_the_seat_to_a_cpu(
    store: Store,
) -> None:
    """README: "after three timeouts in a row a CPU player takes the seat". The change meant for a timeout
    that plays the last card *of the match* (the table is finished: no seat to hand over) tests
    ``work.match.round.over``, which is also true when the timeout ends a round the match goes on after.
    Alice, gone, is timed out a third time by a play of her last card in round 1 of a match to 500: her
    seat is not handed to a CPU, so round 2 waits out her whole turn timeout once more (up to 24 hours per
    turn) before the takeover."""
    clock = FakeClock()
    recorder = Recorder()
    service: TableService = make_service(store, clock, recorder, seed=1)  # the deal of the match-end test
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT, target=500)
    away = False
    for _ in range(400):
        snap = await service.snapshot(table_id)
        if snap.phase != "playing":
            break
        if snap.to_act == 1:
            await take_turn(service, table_id, BOB)
            continue
        away = away or len((await service.hand(table_id, ALICE.user_id)).cards) <= 3
        if away:
            await clock.advance(TIMEOUT)
        else:
            await take_turn(service, table_id, ALICE)
    snap = await service.snapshot(table_id)
    assert snap.phase == "between_rounds", snap.phase  # round 1 over, the match goes on
    assert [e.data["in_a_row"] for e in recorder.events("timed_out")] == [1, 2, 3]
    assert "round_result" in recorder.kinds()
    alice = snap.seats[0]
    assert alice.is_cpu and alice.taken_over, (
        "three timeouts in a row, the match going on, and alice's seat is still hers: "
        f"{recorder.kinds()[-6:]}"
    )
