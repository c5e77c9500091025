"""A restart after a long downtime: the turn timer gets a grace (RESTORE_GRACE) because nobody could act
while the bot was down. The idle rule ("a table where no person acted for a day is abandoned") counts the
downtime as the players' idleness and closes a game in progress at the very start, with no chance to act:
README, "Games survive a restart of the bot"."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, Recorder, make_service, open_with, take_turn


async def test_a_game_played_until_the_bot_went_down_is_not_abandoned_as_idle_at_restart(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=120)
    await take_turn(service, table_id, ALICE)  # Alice just played; Bob is to move
    assert (await service.snapshot(table_id)).to_act == 1
    await service.close()
    # The bot is down for 25 hours (a weekend outage, a host migration) and comes back.
    new_clock = FakeClock(start=clock.now() + 25 * 3600)
    recorder = Recorder()
    new = make_service(store, new_clock, recorder, seed=99)
    assert await new.restore_all() == 1
    await new_clock.advance(1)
    closed = [e.data.get("reason") for e in recorder.events("closed")]
    assert closed == [], f"the game was abandoned one second after the restart: {closed}"
    record = await store.get_table(table_id)
    assert record is not None and record.status == "playing"
