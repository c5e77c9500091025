"""The idle rule as players meet it (README, "Time"): "A table where no person acted for 24 hours is closed,
but never before a turn, a pause or a lobby time it showed has run out": closed when that time runs out,
not later; and the time the bot was down does not count ("Games survive a restart of the bot")."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import (
    ALICE,
    BOB,
    CPU_DELAY,
    Recorder,
    drive,
    finish_turn,
    make_service,
    open_with,
    take_turn,
)

HOURS = 3600.0


async def test_a_table_nobody_touched_for_a_day_closes_when_the_turn_it_showed_runs_out(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """Alice plays at t0 and both people walk away; Bob's turn (24 h, the longest timeout) is shown ending at
    t0 + 24 h. When it runs out, no person has acted for 24 hours and the time the table showed has run out:
    the table is closed as idle, after Bob's timeout line (as when a CPU is next). It does not give Alice a
    new 24-hour turn and play on by itself for days."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=24 * HOURS)
    snap = await finish_turn(service, table_id, ALICE)  # Alice's last action, t0
    assert snap.phase == "playing" and snap.to_act == 1
    assert snap.deadline is not None
    await clock.advance(snap.deadline - clock.now() + 1)  # Bob's shown turn has run out
    assert [e.seat for e in recorder.events("timed_out")] == [1]  # he ran out of time first
    assert [e.data["reason"] for e in recorder.events("closed")] == ["idle"], (
        "nobody acted for 24 h and the turn shown ran out, yet the table goes on: "
        f"{(await service.snapshot(table_id)).deadline_kind} until "
        f"{((await service.snapshot(table_id)).deadline or 0) - clock.now():.0f} s from now"
    )


async def test_a_game_whose_cpu_was_to_move_is_not_abandoned_at_a_restart_after_a_long_outage(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    """Alice and Bob play with a CPU; Bob has just played and CPU 1 is to move when the bot goes down for 25
    hours. The time the bot was down is not the players' idleness: at the restart the game goes on (it is
    not closed "after a long idle time" before anyone could act) and the CPU moves after its delay, as with a
    person to move (tests/service/test_timers_restart_idle.py)."""
    table_id = await open_with(service, ALICE, BOB, cpus=("normal",), turn_timeout=120)
    await take_turn(service, table_id, ALICE)
    await drive(service, clock, table_id, until=lambda s: s.to_act == 1 or s.phase != "playing")
    snap = await finish_turn(service, table_id, BOB)  # Bob's play, just before the outage
    assert snap.phase == "playing" and snap.to_act == 2  # CPU 1 to move
    state = await store.get_state(table_id)
    assert state is not None
    await service.close()

    new_clock = FakeClock(start=clock.now() + 25 * HOURS)
    recorder = Recorder()
    new = make_service(store, new_clock, recorder, seed=99)
    assert await new.restore_all() == 1
    await new_clock.advance(CPU_DELAY + 1)
    closed = [e.data.get("reason") for e in recorder.events("closed")]
    assert closed == [], f"the game was abandoned as soon as the bot came back: {closed}"
    record = await store.get_table(table_id)
    assert record is not None and record.status == "playing"
    moved = await store.get_state(table_id)
    assert moved is not None and moved.version > state.version, "CPU 1 did not move after the restart"
