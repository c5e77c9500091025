"""The idle rule across restarts (README, "Time"): "A table where no person acted for 24 hours is closed, but
never before a turn, a pause or a lobby time it showed has run out (the timeout that ends such a turn closes
it); the hours the bot was down do not count." The hours the bot was *up* count, and the hours it was down
never count, however often it is restarted or a table is loaded again.

A stopping process records until when it held its tables; a restore counts the idleness they had then and
counts on from the restore, and keeps that anchor (``idle_since``) with the table's next move, so a later
restore or reload never counts the same outage again."""

from __future__ import annotations

import pytest

from bot.service import FakeClock, TableService
from bot.service import registry as registry_module
from bot.store import Store
from tests.service.support import ALICE, BOB, CAROL, Recorder, finish_turn, make_service, open_with
from tests.service.test_database_faults import _AnswerLost

HOURS = 3600.0


def _restart(store: Store, at: float, seed: int) -> tuple[TableService, FakeClock, Recorder]:
    clock = FakeClock(start=at)
    recorder = Recorder()
    return make_service(store, clock, recorder, seed=seed), clock, recorder


async def test_a_table_idle_for_23_hours_then_restarted_closes_when_the_turn_it_showed_runs_out(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    """Alice, Bob and Carol, 20-hour turns. Alice plays at t0 and everyone walks away. Bob's turn is timed out
    at t0 + 20 h. The bot is restarted at t0 + 19 h (down one minute). When Carol's turn, shown ending at
    t0 + 40 h, runs out, nobody has acted for 40 hours, 39 h 59 min of them with the bot up: the table is
    closed then (as it is without the restart), not dealt another 20-hour turn."""
    table_id = await open_with(service, ALICE, BOB, CAROL, turn_timeout=20 * HOURS)
    snap = await finish_turn(service, table_id, ALICE)
    assert snap.phase == "playing" and snap.to_act == 1
    t0 = clock.now()
    await clock.advance(19 * HOURS)
    await service.close()
    new, new_clock, recorder = _restart(store, clock.now() + 60, seed=99)  # down for one minute
    assert await new.restore_all() == 1
    await new_clock.advance(t0 + 20 * HOURS - new_clock.now())  # Bob's turn runs out
    assert [e.seat for e in recorder.events("timed_out")] == [1]
    assert recorder.events("closed") == []  # 20 h idle: not yet
    carol = await new.snapshot(table_id)
    assert carol.to_act == 2 and carol.deadline is not None
    await new_clock.advance(carol.deadline - new_clock.now())  # Carol's turn runs out at t0 + 40 h
    timed_out = [e.seat for e in recorder.events("timed_out")]
    closed = [e.data.get("reason") for e in recorder.events("closed")]
    assert closed == ["idle"], (
        f"nobody acted for {(new_clock.now() - t0) / HOURS:.0f} h (the bot down one minute of them) and the "
        f"turn shown ran out, yet the table plays on: timed out {timed_out}, closed {closed}; "
        f"{(await new.snapshot(table_id)).deadline_kind} ends in "
        f"{((await new.snapshot(table_id)).deadline or 0) - new_clock.now():.0f} s"
    )
    assert timed_out == [1, 2]
    await new.close()


async def test_a_second_restart_does_not_count_the_first_ones_downtime_as_idleness(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    """Alice plays at t0 (one-hour turns); the bot goes down for 25 hours. After the restart Bob's overdue
    turn gets its grace and is timed out; a minute later the bot is restarted again (a deploy, down for a
    second). Since t0 the bot has been up for about two minutes: the table is not idle, and Alice's turn
    running out an hour later is an ordinary timeout: the second restart does not count the first one's 25
    hours down as idleness."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=1 * HOURS)
    snap = await finish_turn(service, table_id, ALICE)
    assert snap.to_act == 1
    t0 = clock.now()
    await service.close()

    first, first_clock, first_recorder = _restart(store, t0 + 25 * HOURS, seed=98)
    assert await first.restore_all() == 1
    await first_clock.advance(31)  # Bob's graced turn runs out
    assert [e.seat for e in first_recorder.events("timed_out")] == [1]
    await first_clock.advance(30)
    await first.close()

    second, second_clock, recorder = _restart(store, first_clock.now() + 1, seed=97)
    assert await second.restore_all() == 1
    alice = await second.snapshot(table_id)
    assert alice.to_act == 0 and alice.deadline is not None
    await second_clock.advance(alice.deadline - second_clock.now())  # Alice's turn runs out
    closed = [e.data.get("reason") for e in recorder.events("closed")]
    assert closed == [], (
        "the table was closed as idle with the bot up for about "
        f"{(second_clock.now() - (t0 + 25 * HOURS)) / HOURS + 1 / 60:.1f} h since the last person acted: "
        "the first restart's 25 hours of downtime were counted"
    )
    assert [e.seat for e in recorder.events("timed_out")][-1] == 0  # (bob's earlier line, untold, is retold)
    await second.close()


async def test_a_reload_after_an_unconfirmed_commit_does_not_count_an_earlier_outage_as_idleness(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a restart: the table is loaded again by ``registry.load`` after a timed move whose commit could not
    be confirmed was found stored (``_settle_unconfirmed``). Alice plays at t0 (one-hour turns), the bot is
    down for 25 hours; after the restart Bob's graced timeout is committed, but the connection breaks and
    the database cannot say at once whether it stored it; it did. The table is reloaded: Alice's turn running
    out an hour later is an ordinary timeout, the 25 hours of downtime not counted as idleness."""
    monkeypatch.setattr(registry_module, "IN_DOUBT_WAIT", 0.2)
    clock = FakeClock()
    service = make_service(store, clock, Recorder())
    table_id = await open_with(service, ALICE, BOB, turn_timeout=1 * HOURS)
    snap = await finish_turn(service, table_id, ALICE)
    assert snap.to_act == 1
    t0 = clock.now()
    await service.close()

    lossy = _AnswerLost(store, committed=True)
    new_clock = FakeClock(start=t0 + 25 * HOURS)
    recorder = Recorder()
    new = make_service(lossy, new_clock, recorder, seed=96)
    assert await new.restore_all() == 1
    lossy.armed, lossy.blind = True, 10**6  # Bob's timeout is stored; its answer and the next reads are lost
    await new_clock.advance(31)
    stored = await store.get_state(table_id)
    assert stored is not None and stored.state["turn"]["key"][2] == 0  # Alice to move, as stored
    lossy.blind = 0  # the database answers again: the table is found moved on and loaded again
    await new_clock.advance(60)
    alice = await new.snapshot(table_id)
    assert alice.phase == "playing" and alice.to_act == 0 and alice.deadline is not None
    await new_clock.advance(alice.deadline - new_clock.now())  # Alice's turn runs out
    closed = [e.data.get("reason") for e in recorder.events("closed")]
    assert closed == [], (
        "after the reload the table was closed as idle about an hour after the restart: the 25 hours the bot "
        "was down were counted as idleness"
    )
    await new.close()
