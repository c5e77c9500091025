"""Restarts: a new service over the same store restores every open table, with its timers resumed with
the time they had left; a CPU whose turn it was moves; nothing committed is lost."""

from __future__ import annotations

import pytest

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import (
    ALICE,
    BOB,
    CHANNEL,
    CPU_DELAY,
    GUILD,
    Recorder,
    drive,
    finish_turn,
    make_service,
    open_with,
    take_turn,
)


def restarted(
    store: Store, old_clock: FakeClock, after: float = 0.0
) -> tuple[TableService, FakeClock, Recorder]:
    """A new process: its own clock (the old one's timers are gone with the old process), same store."""
    new_clock = FakeClock(start=old_clock.now() + after)
    recorder = Recorder()
    return make_service(store, new_clock, recorder, seed=99), new_clock, recorder


async def test_a_restart_restores_the_table_and_the_turn_timer_keeps_its_time(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    await take_turn(service, table_id, ALICE)
    snap = await drive(service, clock, table_id, until=lambda s: s.to_act == 1 or s.phase != "playing")
    assert snap is not None and snap.phase == "playing"
    await clock.advance(20)
    before = await service.snapshot(table_id)
    hand_before = await service.hand(table_id, BOB.user_id)

    new, new_clock, recorder = restarted(store, clock)
    assert await new.restore_all() == 1
    after = await new.snapshot(table_id)
    assert after == before
    assert (await new.hand(table_id, BOB.user_id)).cards == hand_before.cards
    assert await new.require_table(CHANNEL) == table_id
    # 40 of the 60 seconds are left.
    assert after.deadline == pytest.approx(new_clock.now() + 40)
    await new_clock.advance(39.9)
    assert recorder.events("timed_out") == []
    await new_clock.advance(0.1)
    assert [e.seat for e in recorder.events("timed_out")] == [1]


async def test_a_turn_whose_deadline_passed_while_down_gets_a_short_grace(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    new, new_clock, recorder = restarted(store, clock, after=3600)
    await new.restore_all()
    await new_clock.advance(29.9)
    assert recorder.events("timed_out") == []
    await new_clock.advance(0.1)
    assert [e.seat for e in recorder.events("timed_out")] == [0]
    assert (await new.snapshot(table_id)).seats[0].timeouts_in_a_row == 1


async def test_a_cpu_whose_turn_it_was_moves_after_the_restart(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, cpus=("normal",))
    snap = await finish_turn(service, table_id, ALICE)
    # Heads-up classic has no skip, and a first turn cannot end the round (seven cards each): the CPU is next.
    assert snap.phase == "playing" and snap.to_act == 1
    version = (await store.get_state(table_id)).version  # type: ignore[union-attr]
    # The process dies before the CPU's delay is over.
    new, new_clock, recorder = restarted(store, clock)
    await new.restore_all()
    assert (await new.snapshot(table_id)).to_act == 1
    await new_clock.advance(CPU_DELAY)
    assert recorder.outcomes, "the CPU did not move after the restart"
    assert any(e.seat == 1 for e in recorder.outcomes[0].public_events)
    state = await store.get_state(table_id)
    assert state is not None and state.version > version


async def test_the_lobby_and_the_pause_resume_with_their_time(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    lobby_id = (await service.open_table(GUILD, CHANNEL + 5, BOB)).table_id
    table_id = await open_with(service, ALICE, cpus=("easy",))
    snap = await drive(service, clock, table_id, until=lambda s: s.phase == "between_rounds")
    assert snap is not None
    await clock.advance(4)
    new, new_clock, recorder = restarted(store, clock)
    assert await new.restore_all() == 2
    restored = await new.snapshot(table_id)
    assert restored.phase == "between_rounds" and restored.deadline == snap.deadline
    await new_clock.advance(5.9)
    assert (await new.snapshot(table_id)).round_number == 1
    await new_clock.advance(0.1)
    assert (await new.snapshot(table_id)).round_number == 2
    lobby = await new.snapshot(lobby_id)
    assert lobby.deadline is not None
    await new_clock.advance(lobby.deadline - new_clock.now())
    assert "lobby_expired" in [e.data.get("reason") for e in recorder.events("closed")]


async def test_an_acknowledged_move_survives_a_kill(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    outcome = await take_turn(service, table_id, ALICE)
    # Killed right after the reply: the new process sees exactly the acknowledged state.
    new, _, _ = restarted(store, clock)
    await new.restore_all()
    assert await new.snapshot(table_id) == outcome.snapshot
    moves = await store.moves(table_id)
    assert moves[-1].actor_id == ALICE.user_id
