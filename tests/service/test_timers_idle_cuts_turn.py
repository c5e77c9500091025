"""The board promises the player to move their turn's time ("Turn ends <t:deadline:R>", a turn timeout of
up to 86,400 s per README). The idle close (24 h after the last person's action) ignores that promise: when
the previous player timed out, the referee's move does not count as a person acting, so the next player's
turn, shown as lasting 20 hours, is cut off after 4 and the whole match is abandoned."""

from __future__ import annotations

from bot.service import FakeClock, ServiceError, TableService
from tests.service.support import ALICE, BOB, CAROL, Recorder, finish_turn, open_with, take_turn

HOURS = 3600.0


async def test_a_player_acting_within_the_time_the_board_shows_is_not_closed_out_as_idle(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL, turn_timeout=20 * HOURS)
    snap = await finish_turn(service, table_id, ALICE)  # Alice acts at t0
    t0 = clock.now()
    assert snap.phase == "playing" and snap.to_act == 1
    await clock.advance(20 * HOURS)  # Bob is away: the referee moves for him
    snap = await service.snapshot(table_id)
    assert [e.seat for e in recorder.events("timed_out")] == [1]
    assert snap.phase == "playing" and snap.to_act == 2
    # The board tells Carol she has 20 hours.
    assert snap.deadline is not None and snap.deadline - clock.now() == 20 * HOURS
    # Carol takes 10 of them: well within what the board showed.
    await clock.advance(10 * HOURS)
    assert clock.now() < snap.deadline
    closed = [e.data.get("reason") for e in recorder.events("closed")]
    try:
        await take_turn(service, table_id, CAROL)
    except ServiceError as error:
        raise AssertionError(
            f"Carol's move {10:.0f} h into a turn the board gave 20 h is refused ({error.code}); "
            f"the table was closed as {closed} at t0 + 24 h"
        ) from None
    assert closed == [] and t0 < clock.now()
