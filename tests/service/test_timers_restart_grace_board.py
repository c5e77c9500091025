"""A restart while a turn is overdue gives the player a grace (RESTORE_GRACE, 30 s): the board and the hand
must say when the turn really ends, not a time already past."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, Recorder, make_service, open_with


async def test_after_a_restart_the_board_shows_the_graced_deadline_not_a_past_one(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    # The process is down for an hour: Alice's deadline passed meanwhile.
    new_clock = FakeClock(start=clock.now() + 3600)
    new = make_service(store, new_clock, Recorder(), seed=99)
    await new.restore_all()
    # The timer really fires 30 s from now (the grace) ...
    assert new_clock.now() + 30 in new_clock.pending()
    snap = await new.snapshot(table_id)
    hand = await new.hand(table_id, ALICE.user_id)
    # ... but the board ("Turn ends <t:…:R>") and the hand say the turn ended an hour ago.
    assert snap.deadline is not None and snap.deadline >= new_clock.now(), (
        f"board deadline is {new_clock.now() - snap.deadline:.0f} s in the past"
    )
    assert hand.deadline is not None and hand.deadline >= new_clock.now()


async def test_the_grace_after_a_restart_survives_another_players_move(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    from tests.service.support import CAROL

    table_id = await open_with(service, ALICE, BOB, CAROL, turn_timeout=60)
    assert (await service.snapshot(table_id)).to_act == 0
    new_clock = FakeClock(start=clock.now() + 3600)
    recorder = Recorder()
    new = make_service(store, new_clock, recorder, seed=99)
    await new.restore_all()
    # Alice has the restore grace (30 s). Carol, not to move, leaves: a CPU takes her seat. Alice's turn is
    # the same turn; her grace must not vanish because somebody else acted.
    await new_clock.advance(5)
    await new.leave(table_id, CAROL)
    await new_clock.advance(1)
    timed_out = [e.seat for e in recorder.events("timed_out")]
    assert timed_out == [], "Alice timed out 6 s into her 30 s grace, right after Carol left"


async def test_a_shorter_downtime_does_not_leave_the_player_less_time_than_a_longer_one(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    """Nobody can move while the bot is down ("The bot is restarting"): a turn overdue at the restart gets
    30 s, but a turn with 1 s left gets 1 s, so a 59 s outage leaves the player 1 s and a 61 s one 30 s."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    assert (await service.snapshot(table_id)).to_act == 0

    async def time_left_after(down: float) -> float:
        new_clock = FakeClock(start=clock.now() + down)
        new = make_service(store, new_clock, Recorder(), seed=99)
        await new.restore_all()
        left = min(new_clock.pending()) - new_clock.now()
        await new.close()
        return left

    longer = await time_left_after(61)
    shorter = await time_left_after(59)
    assert longer == 30
    assert shorter >= longer, f"after 59 s down Alice has {shorter:.0f} s; after 61 s down, {longer:.0f} s"
