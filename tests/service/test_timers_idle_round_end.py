"""What the idle close does at the end of a round (README, "Time"): "A table where no person acted for 24
hours is closed, but never before a turn, a pause or a lobby time it showed has run out (the timeout that ends
such a turn closes it)"; and the promise that players never lose a game."""

from __future__ import annotations

import pytest

from bot.service import FakeClock, Intent, TableService, TableSnapshot
from bot.store import Store
from tests.e2e.classic_deals import stack_classic_deal
from tests.service.support import ALICE, BOB, CPU_DELAY, Recorder, open_with

DAY = 24 * 3600.0


async def kings_then_away(
    service: TableService, monkeypatch: pytest.MonkeyPatch, *, target: int
) -> tuple[int, TableSnapshot]:
    """Alice and Bob, day-long turns, two cards each: Alice plays K♥, Bob K♠, and both walk away; Alice
    (holding 5♠, playable) is to move. Returns the table and its snapshot then."""
    stack_classic_deal(monkeypatch, [["KH", "5S"], ["KS", "9D"]], "9H", leader=0)
    table_id = await open_with(service, ALICE, BOB, start=False, turn_timeout=DAY, target=target)
    await service.set_house_rule(table_id, ALICE, "hand_size_two", "2")
    await service.start(table_id, ALICE)
    view = await service.hand(table_id, ALICE.user_id)
    await service.act(table_id, ALICE, Intent.play("KH"), view.round_token)
    view = await service.hand(table_id, BOB.user_id)
    await service.act(table_id, BOB, Intent.play("KS"), view.round_token)
    snap = await service.snapshot(table_id)
    assert snap.to_act == 0 and snap.deadline is not None
    return table_id, snap


async def test_a_timeout_that_plays_the_last_card_of_the_match_at_an_idle_table_finishes_the_match(
    service: TableService, clock: FakeClock, store: Store, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice and Bob, a match to 1 point (one round decides), day-long turns, two cards each. Alice plays
    K♥, Bob K♠, and both walk away. A day later Alice's turn runs out; the referee plays her last card (5♠ on
    K♠): she goes out and wins the match. Though nobody acted for a day, the match that ended is finished and
    recorded (round_result, match_over, status "finished"), not closed as idle before it is scored."""
    table_id, snap = await kings_then_away(service, monkeypatch, target=1)
    await clock.advance(snap.deadline - clock.now())  # Alice's turn runs out: 5♠ is played for her
    kinds = recorder.kinds()
    assert "round_over" in kinds  # the engine ended the round: Alice is out
    record = await store.get_table(table_id)
    assert record is not None
    assert "round_result" in kinds and "match_over" in kinds and record.status == "finished", (
        f"Alice won the match with the card played for her, yet the table is {record.status}: {kinds}"
    )


async def test_a_timeout_that_ends_a_round_at_an_idle_table_tells_and_records_the_round(
    service: TableService, clock: FakeClock, store: Store, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As above in a match to 500: the timeout plays Alice's last card and ends round 1; the table may then
    close as idle, but the round that was played out is scored, told and recorded ("round_result"), not
    dropped with the table."""
    _table, snap = await kings_then_away(service, monkeypatch, target=500)
    await clock.advance(snap.deadline - clock.now())
    kinds = recorder.kinds()
    assert "round_over" in kinds
    assert "round_result" in kinds, f"round 1 was played out but never scored: {kinds}"


async def test_a_pause_that_runs_out_after_a_day_without_anyone_acting_closes_the_table_not_deals_again(
    service: TableService, clock: FakeClock, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice against a CPU, turns of a day less 10 s, the player with most points leads the next round.
    Alice plays K♥ at t0 and walks away. Her turn runs out at t0 + 24 h - 8 s (the referee plays 3♠ for
    her); the CPU then goes out with 9♠: round 1 ends and the pause until round 2 is shown ending at
    t0 + 24 h + 4 s. When it runs out, nobody has acted for a day and the pause the table showed has run out:
    the table is closed then, not dealt round 2 with a new day-long turn to play on by itself."""
    stack_classic_deal(monkeypatch, [["KH", "5C"], ["KS", "9S"]], "9H", leader=0, stock_top=["3S"])
    table_id = await open_with(service, ALICE, cpus=("normal",), start=False, turn_timeout=DAY - 10)
    await service.set_house_rule(table_id, ALICE, "hand_size_two", "2")
    await service.set_house_rule(table_id, ALICE, "next_leader", "most-points")
    await service.start(table_id, ALICE)
    view = await service.hand(table_id, ALICE.user_id)
    await service.act(table_id, ALICE, Intent.play("KH"), view.round_token)  # the last person's action
    t0 = clock.now()
    await clock.advance(CPU_DELAY)  # the CPU plays K♠; Alice draws 3♠
    snap = await service.snapshot(table_id)
    assert snap.to_act == 0 and snap.deadline is not None
    await clock.advance(snap.deadline - clock.now())  # her turn runs out: 3♠ is played for her
    await clock.advance(CPU_DELAY)  # the CPU goes out with 9♠
    snap = await service.snapshot(table_id)
    assert snap.phase == "between_rounds" and snap.deadline is not None
    assert snap.deadline - t0 > DAY  # the pause shown runs past the day
    await clock.advance(snap.deadline - clock.now())
    closed = [e.data.get("reason") for e in recorder.events("closed")]
    if closed:
        return
    snap = await service.snapshot(table_id)
    raise AssertionError(
        f"the pause ran out {clock.now() - t0 - DAY:.0f} s after a day without anyone acting, and round "
        f"{snap.round_number} was dealt instead: {snap.deadline_kind} of seat {snap.to_act} ends in "
        f"{(snap.deadline or 0) - clock.now():.0f} s"
    )
