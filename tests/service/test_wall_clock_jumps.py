"""The machine's wall clock set on or back while the bot runs (README, "Time"): "The machine's clock set on or
back while the bot runs (NTP, a resumed VM) changes no one's time left." The timers count on the monotonic
clock; what the board shows, what is stored for a restart and the idle rule ("A table where no person acted
for 24 hours is closed") follow them, not the wall value taken before the clock was set."""

from __future__ import annotations

import pytest

from bot.service import FakeClock, TableService
from bot.service.live import IDLE_TTL
from bot.store import Store
from tests.service.support import (
    ALICE,
    BOB,
    CAROL,
    CPU_DELAY,
    Recorder,
    drive,
    finish_turn,
    make_service,
    open_with,
)

TIMEOUT = 30.0
HOUR = 3600.0


@pytest.mark.parametrize("step", [HOUR, -HOUR])
async def test_the_board_and_the_hand_show_when_the_turn_really_ends_after_the_clock_is_set(
    service: TableService, clock: FakeClock, step: float
) -> None:
    """Alice has a 30 s turn. 10 s into it the machine's clock is set an hour on (a VM resumed) or back; then
    Carol leaves, which redraws the board. The board's "Turn ends <t:…:R>" and Alice's hand say her turn ends
    in 20 s, as it does, not "59 minutes ago" or "in an hour"."""
    table_id = await open_with(service, ALICE, BOB, CAROL, turn_timeout=TIMEOUT)
    assert (await service.snapshot(table_id)).to_act == 0
    await clock.advance(10.0)
    clock.set_wall(step)
    outcome = await service.leave(table_id, CAROL)
    assert outcome.snapshot.to_act == 0
    shown = outcome.snapshot.deadline
    hand = await service.hand(table_id, ALICE.user_id)
    assert shown is not None and hand.deadline is not None
    assert shown == pytest.approx(clock.now() + 20.0, abs=1.0), (
        f"the board says the turn ends {shown - clock.now():+.0f} s from now; it ends in 20 s"
    )
    assert hand.deadline == pytest.approx(clock.now() + 20.0, abs=1.0)
    assert (await service.snapshot(table_id)).deadline == shown


async def test_the_lobby_shows_when_it_really_closes_after_the_clock_is_set_back(
    service: TableService, clock: FakeClock
) -> None:
    """Alice opens a table; 10 minutes later the machine's clock is set an hour back and Bob joins. The board
    says the lobby closes in 20 minutes (its half hour less the 10 that passed), not in an hour and 20."""
    table_id = await open_with(service, ALICE, start=False)
    opened = await service.snapshot(table_id)
    assert opened.deadline_kind == "lobby" and opened.deadline is not None
    lasts = opened.deadline - clock.now()
    await clock.advance(600.0)
    clock.set_wall(-HOUR)
    snap = (await service.join(table_id, BOB)).snapshot
    assert snap.deadline_kind == "lobby" and snap.deadline is not None
    assert snap.deadline == pytest.approx(clock.now() + lasts - 600.0, abs=1.0), (
        f"the lobby is shown closing in {snap.deadline - clock.now():.0f} s; it closes in {lasts - 600:.0f} s"
    )


async def test_a_clock_set_back_then_a_restart_does_not_give_the_player_an_extra_hour(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    """The clock, an hour fast, is set right 10 s into Alice's 30 s turn; Carol (not to move) leaves, and the
    bot is stopped cleanly and started again at once. Alice's turn runs out within the restart's 30 s grace,
    with the 20 s she had left, not an hour and 20 s later."""
    table_id = await open_with(service, ALICE, BOB, CAROL, turn_timeout=TIMEOUT)
    assert (await service.snapshot(table_id)).to_act == 0
    await clock.advance(10.0)
    clock.set_wall(-HOUR)
    await service.leave(table_id, CAROL)  # stored with the deadline as it really is
    await service.close()
    new_clock = FakeClock(start=clock.now())
    recorder = Recorder()
    new = make_service(store, new_clock, recorder, seed=99)
    await new.restore_all()
    left = (await new.snapshot(table_id)).deadline
    # The restart's grace: at least 30 s (README), here no more.
    assert left is not None and left - new_clock.now() <= 30.0 + 1.0, f"{left - new_clock.now():.0f} s left"
    await new_clock.advance(30.5)
    assert [e.seat for e in recorder.events("timed_out")] == [0], (
        f"Alice's turn has {(left or 0) - new_clock.now():.0f} s left after the restart"
    )


async def test_a_clock_set_a_day_on_does_not_close_a_table_being_played_as_idle(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """A Raspberry Pi without a clock battery starts the bot with a stale clock, and NTP sets it a day on
    minutes later. Alice, Bob and Carol just started playing; 10 s into Alice's turn the clock is set 25 hours
    on and Alice lets her turn run out. The referee moves for her and Bob's turn begins: the table is not
    closed as abandoned ("idle") though nobody had been away for a day."""
    table_id = await open_with(service, ALICE, BOB, CAROL, turn_timeout=TIMEOUT)
    assert (await service.snapshot(table_id)).to_act == 0
    await clock.advance(10.0)
    clock.set_wall(25 * HOUR)
    await clock.advance(TIMEOUT - 10.0)
    assert [e.seat for e in recorder.events("timed_out")] == [0]
    assert [e.data["reason"] for e in recorder.events("closed")] == [], "closed as idle 30 s after a start"
    snap = await service.snapshot(table_id)
    assert snap.phase == "playing" and snap.to_act == 1
    assert snap.deadline == pytest.approx(clock.now() + TIMEOUT, abs=1.0)


async def test_a_clock_set_a_day_on_during_the_pause_does_not_close_the_match(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """Alice plays a CPU; round 1 is over and the board shows the 10 s pause before round 2. The clock is set
    25 hours on meanwhile. When the pause runs out, round 2 is dealt: the match is not closed as idle, though
    Alice played seconds ago."""
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
    snap = await drive(service, clock, table_id, until=lambda s: s.phase == "between_rounds")
    assert snap is not None and snap.phase == "between_rounds" and snap.deadline is not None
    clock.set_wall(25 * HOUR)
    await clock.advance(15.0)  # the 10 s pause runs out
    assert [e.data["reason"] for e in recorder.events("closed")] == [], "the match was closed as idle"
    assert (await service.snapshot(table_id)).round_number == 2


async def test_a_clock_set_a_day_on_then_a_restart_does_not_close_the_table_as_idle(
    service: TableService, clock: FakeClock, store: Store, recorder: Recorder
) -> None:
    """Alice plays a CPU. She ends her turn; the clock is set 25 hours on; the CPU moves (stored), and the bot
    is stopped cleanly and started again at once. The restarted bot counts Alice idle for seconds, not for
    the day the clock jumped: her turn runs out as it would and the referee moves for her; the table is not
    closed as idle."""
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
    snap = await finish_turn(service, table_id, ALICE)
    assert snap.phase == "playing" and snap.to_act == 1
    clock.set_wall(25 * HOUR)
    await clock.advance(CPU_DELAY)  # the CPU's move is stored: the last person's action as the clock tells it
    snap = await service.snapshot(table_id)
    assert snap.phase == "playing" and snap.to_act == 0 and recorder.events("closed") == []
    await service.close()
    new_clock = FakeClock(start=clock.now())
    restarted = Recorder()
    new = make_service(store, new_clock, restarted, seed=99)
    await new.restore_all()
    await new_clock.advance(TIMEOUT)
    assert [e.data["reason"] for e in restarted.events("closed")] == [], "closed as idle after the restart"
    assert [e.seat for e in restarted.events("timed_out")] == [0]


@pytest.mark.parametrize("step", [-25 * HOUR, 25 * HOUR])
async def test_a_table_nobody_plays_still_closes_a_day_after_the_last_action_whatever_the_clock_says(
    service: TableService, clock: FakeClock, recorder: Recorder, step: float
) -> None:
    """The idle rule itself stays: Alice and Bob, 8-hour turns, start a game and walk away; 10 s later the
    clock is set 25 hours back or on. Alice's turn runs out after 8 hours, Bob's after 16; the timeout that
    ends Alice's next turn, a day after she started the game, closes the table as idle: not sooner (the
    clock set on), nor later (the clock set back)."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=8 * HOUR)
    assert (await service.snapshot(table_id)).to_act == 0
    await clock.advance(10.0)
    clock.set_wall(step)
    await clock.advance(IDLE_TTL - 10.0 - 1.0)
    assert [e.seat for e in recorder.events("timed_out")] == [0, 1]
    assert recorder.events("closed") == [], "closed before anyone had been away for a day"
    await clock.advance(1.0)
    assert [e.seat for e in recorder.events("timed_out")] == [0, 1, 0]
    assert [e.data["reason"] for e in recorder.events("closed")] == ["idle"], "not closed after a day"
