"""Turn timeouts, the takeover after three, rejoining, leaving a running game, lobby expiry, idle
abandonment and shutdown, all on a fake clock (no real waiting)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import FakeClock, Intent, ServiceError, TableService
from bot.service.scheduler import RETRY_DELAY
from bot.store import MoveCommit, Store
from tests.service.support import (
    ALICE,
    BOB,
    CAROL,
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

TIMEOUT = 30.0


async def test_a_turn_timeout_lets_the_referee_act(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT)
    snap = await service.snapshot(table_id)
    assert snap.to_act == 0 and snap.deadline == pytest.approx(clock.now() + TIMEOUT)
    await clock.advance(TIMEOUT - 0.5)
    assert recorder.outcomes == []
    await clock.advance(0.5)
    timed_out = recorder.events("timed_out")
    assert len(timed_out) == 1
    event = timed_out[0]
    assert event.seat == 0 and event.data["in_a_row"] == 1 and event.data["user_id"] == ALICE.user_id
    snap = await service.snapshot(table_id)
    # The referee finished Alice's turn as the rules force: it is someone else's turn, or the round ended.
    assert snap.to_act != 0 or snap.phase != "playing"
    assert snap.seats[0].timeouts_in_a_row == 1 and not snap.seats[0].is_cpu


async def test_acting_resets_the_count_of_timeouts(service: TableService, clock: FakeClock) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT)
    await clock.advance(TIMEOUT)
    snap = await drive(service, clock, table_id, until=lambda s: s.to_act == 0 or s.phase != "playing")
    assert snap is not None and snap.seats[0].timeouts_in_a_row == 1
    # Heads-up classic: Bob's one turn in between cannot end the round (he holds seven cards).
    assert snap.phase == "playing" and snap.to_act == 0
    await take_turn(service, table_id, ALICE)
    assert (await service.snapshot(table_id)).seats[0].timeouts_in_a_row == 0


async def _time_out_alice_three_times(service: TableService, clock: FakeClock, table_id: int) -> None:
    for _ in range(500):
        snap = await service.snapshot(table_id)
        if snap.seats[0].is_cpu:
            return
        if snap.phase == "playing" and snap.to_act == 1:
            await take_turn(service, table_id, BOB)
        else:
            due = clock.pending()
            await clock.advance(due[0] - clock.now())
    pytest.fail("Alice's seat was never taken over")


async def test_three_timeouts_in_a_row_hand_the_seat_to_a_cpu_and_join_takes_it_back(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT)
    await _time_out_alice_three_times(service, clock, table_id)
    assert [e.data["in_a_row"] for e in recorder.events("timed_out") if e.seat == 0] == [1, 2, 3]
    taken = recorder.events("taken_over")
    assert len(taken) == 1 and taken[0].data["reason"] == "timeouts" and taken[0].seat == 0
    told = [
        e
        for o in recorder.outcomes
        for e in o.private_events.get(ALICE.user_id, ())
        if e.kind == "taken_over"
    ]
    assert len(told) == 1
    snap = await service.snapshot(table_id)
    alice = snap.seats[0]
    assert (
        alice.is_cpu and alice.taken_over and alice.cpu_level == "normal" and alice.user_id == ALICE.user_id
    )
    assert snap.host_id == BOB.user_id  # the absent host's role passed to Bob
    with pytest.raises(ServiceError) as info:
        await service.act(table_id, ALICE, Intent.draw())
    assert info.value.code == "taken_over" and "/eights join" in info.value.message
    # The CPU now plays Alice's seat: no more timeouts for her, her turns pass by themselves.
    count = len(recorder.events("timed_out"))
    snap = await drive(service, clock, table_id, until=lambda s: s.to_act == 1 or s.phase != "playing")
    assert len(recorder.events("timed_out")) == count
    # She takes her seat back while the match lasts.
    outcome = await service.join(table_id, ALICE)
    assert [e.kind for e in outcome.public_events] == ["rejoined"]
    alice = outcome.snapshot.seats[0]
    assert not alice.is_cpu and not alice.taken_over and alice.timeouts_in_a_row == 0
    with pytest.raises(ServiceError) as info:
        await service.join(table_id, ALICE)
    assert info.value.code == "already_seated"


async def test_a_player_who_leaves_a_running_game_is_replaced_by_a_cpu(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT)
    outcome = await service.leave(table_id, ALICE)
    alice = outcome.snapshot.seats[0]
    assert alice.is_cpu and alice.taken_over
    kinds = [e.kind for e in outcome.public_events]
    assert kinds[:2] == ["taken_over", "host_changed"]
    assert outcome.snapshot.host_id == BOB.user_id
    with pytest.raises(ServiceError) as info:
        await service.leave(table_id, ALICE)
    assert info.value.code == "taken_over"
    # It was Alice's turn: her CPU moves after the delay instead of waiting for the timeout.
    await clock.advance(CPU_DELAY)
    snap = await service.snapshot(table_id)
    assert snap.to_act != 0 or snap.phase != "playing"
    assert recorder.events("timed_out") == []
    rejoined = await service.join(table_id, ALICE)
    assert not rejoined.snapshot.seats[0].is_cpu


async def test_a_lobby_nobody_starts_closes_after_30_minutes(
    service: TableService, clock: FakeClock, recorder: Recorder, store: Store
) -> None:
    table_id = (await service.open_table(GUILD, CHANNEL, ALICE)).table_id
    await service.join(table_id, BOB)  # activity does not extend the lobby's life
    await clock.advance(30 * 60 - 1)
    assert (await service.snapshot(table_id)).status == "lobby"
    await clock.advance(1)
    closed = recorder.events("closed")
    assert [e.data["reason"] for e in closed] == ["lobby_expired"]
    assert recorder.outcomes[-1].closed
    record = await store.get_table(table_id)
    assert record is not None and record.status == "abandoned"
    assert await service.table_in_channel(CHANNEL) is None
    with pytest.raises(ServiceError):
        await service.join(table_id, ALICE)


async def test_a_table_where_no_person_acted_for_a_day_is_abandoned(
    service: TableService, clock: FakeClock, recorder: Recorder, store: Store
) -> None:
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=24 * 3600)
    await finish_turn(service, table_id, ALICE)
    acted_at = clock.now()
    snap = await drive(service, clock, table_id, until=lambda s: s.to_act == 0 or s.phase != "playing")
    # Heads-up classic: the CPU's one turn in between cannot end the round (it holds seven cards).
    assert snap is not None and snap.phase == "playing" and snap.to_act == 0
    # A day after her last action the table is idle, but her own turn (a day long, as the board tells her)
    # is not cut short: it runs out first, then the idle table closes.
    view = await service.hand(table_id, ALICE.user_id)
    assert view.deadline is not None and view.deadline > acted_at + 24 * 3600
    await clock.advance(view.deadline - clock.now() - 1)
    assert recorder.events("closed") == []
    assert (await service.snapshot(table_id)).to_act == 0  # still hers
    await clock.advance(1)
    assert [e.data["reason"] for e in recorder.events("closed")] == ["idle"]
    assert [e.seat for e in recorder.events("timed_out")] == [0]  # her turn ran out first
    record = await store.get_table(table_id)
    assert record is not None and record.status == "abandoned"


async def test_close_stops_every_timer(service: TableService, clock: FakeClock, recorder: Recorder) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT)
    await service.close()
    await clock.advance(3600)
    assert recorder.outcomes == []
    with pytest.raises(ServiceError) as info:
        await service.act(table_id, ALICE, Intent.draw())
    assert info.value.code == "closing"


class FailingOnce:
    """The real store, except that the next automatic move's commit fails (the database was unavailable)."""

    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self.fail_next = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def commit_move(self, move: MoveCommit) -> int:
        if self.fail_next and move.actor_id is None:
            self.fail_next = False
            raise OSError("database is locked")
        return await self._inner.commit_move(move)


async def test_a_failed_automatic_move_is_tried_again(store: Store, clock: FakeClock) -> None:
    flaky = FailingOnce(store)
    recorder = Recorder()
    service = make_service(flaky, clock, recorder)
    table_id = await open_with(service, ALICE, cpus=("easy",))
    snap = await finish_turn(service, table_id, ALICE)
    # Heads-up classic has no skip, and a first turn cannot end the round (seven cards each): the CPU is next.
    assert snap.phase == "playing" and snap.to_act == 1
    version = (await store.get_state(table_id)).version  # type: ignore[union-attr]
    flaky.fail_next = True
    await clock.advance(CPU_DELAY)
    assert recorder.outcomes == []
    assert (await store.get_state(table_id)).version == version  # type: ignore[union-attr]
    assert (await service.snapshot(table_id)) == snap  # the failed move left the table as it was
    await clock.advance(RETRY_DELAY + CPU_DELAY)
    assert recorder.outcomes and any(e.seat == 1 for e in recorder.outcomes[0].public_events)


@pytest.mark.parametrize("step", [3600.0, -3600.0])
async def test_a_wall_clock_set_meanwhile_leaves_the_player_to_move_their_time(
    service: TableService, clock: FakeClock, recorder: Recorder, step: float
) -> None:
    """The machine's clock is set an hour on (NTP, a VM resumed, a Raspberry Pi without a clock battery) or
    back, 10 s into Alice's 30 s turn; then another person acts (Carol leaves, not her turn). Alice keeps the
    20 s she had left: the turn was timed on the monotonic clock. (Timed again from the wall clock at every
    move, she was timed out at once when it was set on, and given an hour more when it was set back.)"""
    table_id = await open_with(service, ALICE, BOB, CAROL, turn_timeout=TIMEOUT)
    assert (await service.snapshot(table_id)).to_act == 0
    await clock.advance(10.0)
    clock.set_wall(step)
    await service.leave(table_id, CAROL)  # a commit: every timer of the table is set again
    await clock.advance(TIMEOUT - 10.0 - 0.5)
    assert recorder.events("timed_out") == [], "her turn ran out early"
    await clock.advance(1.0)
    assert [e.seat for e in recorder.events("timed_out")] == [0], "her turn did not run out on time"
