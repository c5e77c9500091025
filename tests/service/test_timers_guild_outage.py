"""A server in an outage (Discord's GUILD_DELETE with ``unavailable: true``: nobody there can reach the bot):
its tables' times stand still until it is back (README, *Time*). ``TableService.guild_unavailable`` and
``guild_available`` are what the Discord layer calls (``bot/exts/tables/_channels.py``); here on the fake
clock."""

from __future__ import annotations

import pytest

from bot.service import FakeClock, TableService
from bot.service.scheduler import RESTORE_GRACE, UNAVAILABLE_HOLD
from bot.store import Store
from tests.service.support import (
    ALICE,
    BOB,
    CHANNEL,
    CPU_DELAY,
    GUILD,
    OTHER_CHANNEL,
    Recorder,
    drive,
    open_with,
)

HOUR = 3600.0


def timed_out(recorder: Recorder) -> list[int | None]:
    return [event.seat for event in recorder.events("timed_out")]


async def test_a_turn_does_not_run_out_while_its_server_is_unavailable(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """Alice has 10 s left of her 60 s turn when her server goes unavailable; an outage of ten minutes times
    nobody out (she could not act). Once it is back she has the restart's 30 s (more than the 10 s she had
    left): the board shows it, and her turn runs out then, not sooner."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    assert (await service.snapshot(table_id)).to_act == 0
    await clock.advance(50)
    service.guild_unavailable(GUILD)
    assert service.guilds_waiting() == {GUILD}
    await clock.advance(600)
    assert timed_out(recorder) == []
    assert (await service.snapshot(table_id)).to_act == 0

    shown = len(recorder.outcomes)
    service.guild_available(GUILD)
    assert service.guilds_waiting() == set()
    await clock.advance(0)
    snap = await service.snapshot(table_id)
    assert snap.deadline == pytest.approx(clock.now() + RESTORE_GRACE)
    # The board is shown again with the new time (nothing to tell).
    assert recorder.outcomes[shown:] and recorder.outcomes[-1].snapshot.deadline == snap.deadline
    assert recorder.outcomes[-1].public_events == ()
    await clock.advance(RESTORE_GRACE - 1)
    assert timed_out(recorder) == []
    await clock.advance(2)
    assert timed_out(recorder) == [0]


async def test_a_turn_keeps_the_time_it_had_left_when_that_is_more_than_the_grace(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """110 s left of a 120 s turn when the outage began: 110 s left when it ends, however long it lasted."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=120)
    await clock.advance(10)
    service.guild_unavailable(GUILD)
    await clock.advance(HOUR)
    service.guild_available(GUILD)
    snap = await service.snapshot(table_id)
    assert snap.deadline == pytest.approx(clock.now() + 110)
    await clock.advance(109)
    assert timed_out(recorder) == []
    await clock.advance(2)
    assert timed_out(recorder) == [0]


async def test_a_short_turn_gets_its_whole_timeout_at_most(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """The grace is the restart's: min(30 s, the turn timeout): a 15 s turn overdue gets 15 s."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=15)
    await clock.advance(14)
    service.guild_unavailable(GUILD)
    await clock.advance(120)
    service.guild_available(GUILD)
    assert (await service.snapshot(table_id)).deadline == pytest.approx(clock.now() + 15)


async def test_the_lobby_waits_out_the_outage(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """A lobby closes after 30 minutes; 20 had passed when its server went unavailable for an hour: it
    closes 10 minutes after the server is back, not at once."""
    table_id = await open_with(service, ALICE, start=False)
    opened = await service.snapshot(table_id)
    assert opened.deadline_kind == "lobby" and opened.deadline is not None
    left = opened.deadline - clock.now() - 1200
    await clock.advance(1200)
    service.guild_unavailable(GUILD)
    await clock.advance(HOUR)
    assert recorder.events("closed") == []
    service.guild_available(GUILD)
    snap = await service.snapshot(table_id)
    assert snap.deadline == pytest.approx(clock.now() + left)
    await clock.advance(left - 1)
    assert recorder.events("closed") == []
    await clock.advance(2)
    assert [event.data["reason"] for event in recorder.events("closed")] == ["lobby_expired"]


async def test_a_cpu_player_waits_for_the_server_too(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """A CPU seat to move does not play on in a server nobody can reach (its moves could not be shown); it
    moves its usual delay after the server is back."""
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=600)
    snap = await drive(service, clock, table_id, until=lambda s: s.to_act == 1)
    assert snap is not None
    moves = len(recorder.outcomes)
    service.guild_unavailable(GUILD)
    await clock.advance(10 * CPU_DELAY)
    assert len(recorder.outcomes) == moves and (await service.snapshot(table_id)).to_act == 1
    service.guild_available(GUILD)
    await clock.advance(CPU_DELAY - 0.1)
    assert len(recorder.outcomes) == moves
    await clock.advance(0.2)
    assert len(recorder.outcomes) > moves


async def test_the_tables_of_other_servers_play_on(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """Only the unavailable server's tables wait: a table elsewhere times out as ever."""
    here = await open_with(service, ALICE, BOB, turn_timeout=60)
    elsewhere = (await service.open_table(GUILD + 1, OTHER_CHANNEL, BOB, turn_timeout=60)).table_id
    await service.join(elsewhere, ALICE)
    await service.start(elsewhere, BOB)
    service.guild_unavailable(GUILD)
    await clock.advance(61)
    assert [o.table_id for o in recorder.outcomes if any(e.kind == "timed_out" for e in o.public_events)] == [
        elsewhere
    ]
    assert here != elsewhere and (await service.snapshot(here)).to_act == 0


async def test_play_resumed_after_a_lost_shard_claim_does_not_wake_the_waiting_tables(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """Play paused (the shard claim lost) and resumed while the server is still unavailable: every table's
    timers are set again, but its tables still wait for the server."""
    await open_with(service, ALICE, BOB, turn_timeout=60)
    service.guild_unavailable(GUILD)
    service.pause("claim lost")
    service.resume()
    await clock.advance(HOUR)
    assert timed_out(recorder) == []


async def test_the_wall_clock_set_during_the_outage_changes_no_ones_time(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """The machine's clock set an hour on while the server is unavailable: once it is back, the board says
    the turn ends in the time it really has (the monotonic clock's), on the wall clock as it is."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=120)
    await clock.advance(20)
    service.guild_unavailable(GUILD)
    await clock.advance(300)
    clock.set_wall(HOUR)
    service.guild_available(GUILD)
    assert (await service.snapshot(table_id)).deadline == pytest.approx(clock.now() + 100, abs=1.0)
    await clock.advance(99)
    assert timed_out(recorder) == []
    await clock.advance(2)
    assert timed_out(recorder) == [0]


async def test_a_server_unavailable_for_a_day_is_waited_for_no_longer(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """Nothing is kept for ever for a server that never comes back: after UNAVAILABLE_HOLD its tables'
    timers run as if there had been no outage. Nobody acted there for a day: the table closes as idle (and
    leaves memory); nothing of the outage is left."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    service.guild_unavailable(GUILD)
    await clock.advance(UNAVAILABLE_HOLD - 1)
    assert timed_out(recorder) == [] and table_id in service.open_table_ids()
    await clock.advance(2)
    assert table_id not in service.open_table_ids()
    assert service.guilds_waiting() == set()
    assert clock.pending() == []
    assert [event.data["reason"] for event in recorder.events("closed")] == ["idle"]
    service.guild_available(GUILD)  # back after all: nothing to do


async def test_an_unavailable_server_without_tables_keeps_nothing(
    service: TableService, clock: FakeClock
) -> None:
    service.guild_unavailable(GUILD)
    assert service.guilds_waiting() == set() and clock.pending() == []


async def test_a_table_closed_during_the_outage_stays_closed(
    service: TableService, clock: FakeClock, recorder: Recorder, store: Store
) -> None:
    """The table's channel deleted while its server is unavailable: it is closed (today's rule), and the
    server's return sets no timer of it."""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    service.guild_unavailable(GUILD)
    await service.channel_gone(table_id)
    assert table_id not in service.open_table_ids()
    service.guild_available(GUILD)
    assert clock.pending() == []
    assert (await store.open_table_in_channel(CHANNEL)) is None
