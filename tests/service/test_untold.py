"""What a restarted process tells first (issue 26): the moves its predecessor committed and did not tell,
from the outbox, handed to the listener per table before any restored timer can move the table, with the
line that was on its way apart; a table closed by its last untold move is still told (its final lines);
each outcome carries the version of its last move, so the delivery can mark it told."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, Recorder, make_service, open_with, take_turn


def restarted(store: Store, old: FakeClock) -> tuple[TableService, FakeClock, Recorder]:
    clock = FakeClock(start=old.now())
    recorder = Recorder()
    return make_service(store, clock, recorder, seed=99), clock, recorder


async def test_outcomes_carry_their_version_and_the_outbox_holds_each_move(
    service: TableService, store: Store, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    outcome = await take_turn(service, table_id, ALICE)
    state = await store.get_state(table_id)
    assert state is not None and outcome.version == state.version
    rows = await store.untold()
    assert [row.version for row in rows] == list(range(1, state.version + 1))  # one row per move
    played = [e for e in rows[-1].events if e["kind"] == "played"]
    assert [e["data"]["card"] for e in played] == [
        e.data["card"] for e in outcome.public_events if e.kind == "played"
    ]
    assert all(e["kind"] != "dealt" for row in rows for e in row.events)  # public events only


async def test_a_restart_tells_the_untold_moves_before_any_timer_moves_the_table(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, cpus=("easy", "easy"))
    await store.mark_told({table_id: 1})  # the opening moves were told; the deal and after were not
    untold = await store.untold()
    new, new_clock, recorder = restarted(store, clock)
    assert await new.restore_all() == 1
    first = recorder.outcomes[0]
    assert first.version == untold[-1].version and first.resumed is None
    expected = [e["kind"] for row in untold for e in row.events]
    assert [e.kind for e in first.public_events] == expected
    # Only then does the table move on (a CPU's turn, the restored timers).
    await new_clock.advance(300)
    later = recorder.outcomes[1:]
    assert later and all(o.version > first.version for o in later)


async def test_the_line_on_its_way_is_handed_apart_from_the_moves_after_it(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    last = (await store.untold())[-1].version
    await take_turn(service, table_id, ALICE)
    attempt = {"via": "channel", "lines": [["Alice played …", None, "n0"]]}
    await store.note_telling(table_id, 2, last, attempt)
    new, _, recorder = restarted(store, clock)
    await new.restore_all()
    (outcome,) = recorder.outcomes
    assert outcome.resumed is not None
    assert (outcome.resumed.first, outcome.resumed.last, dict(outcome.resumed.attempt)) == (2, last, attempt)
    assert [e.kind for e in outcome.public_events] == [
        e["kind"] for row in await store.untold() if row.version > last for e in row.events
    ]
    assert outcome.version == last + 1


async def test_a_table_closed_by_an_untold_move_is_still_told(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    await service.end(table_id, ALICE)
    new, _, recorder = restarted(store, clock)
    assert await new.restore_all() == 0
    (outcome,) = recorder.outcomes
    assert outcome.closed and outcome.table_id == table_id
    assert outcome.public_events[-1].kind == "closed"
