"""A move committed just before the bot died, and a restart a day later (a weekend outage, a host
migration: the case tests/service/test_timers_restart_idle.py already plays for the idle rule).

README, "Shards as separate processes or containers": "Restarted …, a process picks its tables up again,
turn timers included …, and first tells the channels what its predecessor committed and had not told yet …
Every committed play is told once, in order." The only limit it documents is the other way round: "a
process down longer than that may *repeat* the one line it was sending". README's opening: "Games survive a
restart of the bot". Nothing says a move is left untold when the bot was down for more than a day."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, Recorder, make_service, open_with, take_turn


async def test_a_play_committed_before_a_25_hour_outage_is_told_at_restart(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=120)
    played = await take_turn(service, table_id, ALICE)  # committed; the process dies before its line
    cards = [e.data["card"] for e in played.public_events if e.kind == "played"]
    assert cards, [e.kind for e in played.public_events]
    await store.mark_told({table_id: played.version - 1})  # everything before Alice's play was told
    assert [row.version for row in await store.untold()] == [played.version]
    await service.close()

    # The bot is down for 25 hours and comes back on the same database.
    new_clock = FakeClock(start=clock.now() + 25 * 3600)
    recorder = Recorder()
    new = make_service(store, new_clock, recorder, seed=99)
    assert await new.restore_all() == 1
    record = await store.get_table(table_id)
    assert record is not None and record.status == "playing"  # the game goes on (the idle rule waits)

    told = [e.data.get("card") for o in recorder.outcomes for e in o.public_events if e.kind == "played"]
    assert told == cards, (
        f"Alice's play {cards} was committed and never told to the channel after the restart "
        f"(the listener got {[[e.kind for e in o.public_events] for o in recorder.outcomes]})"
    )
