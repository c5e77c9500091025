"""A third timeout in a row that ends a round, not the match: the seat goes to a CPU."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, Recorder, make_service, open_with
from tests.service.test_timers_match_end_by_timeout import TIMEOUT, alice_walks_away


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
    await alice_walks_away(service, clock, table_id)
    snap = await service.snapshot(table_id)
    assert snap.phase == "between_rounds", snap.phase  # round 1 over, the match goes on
    assert [e.data["in_a_row"] for e in recorder.events("timed_out")] == [1, 2, 3]
    assert "round_result" in recorder.kinds()
    alice = snap.seats[0]
    assert alice.is_cpu and alice.taken_over, (
        "three timeouts in a row, the match going on, and alice's seat is still hers: "
        f"{recorder.kinds()[-6:]}"
    )
