"""Every preset through the service: nobody clicks, so the referee acts at each timeout, the seats go to CPU
players after three, and the match runs to its end and is recorded once. Also the last-card controls."""

from __future__ import annotations

import pytest

from bot.engine import PRESETS, get_preset
from bot.service import FakeClock, Intent, TableService
from bot.store import Store
from tests.service.support import (
    ALICE,
    BOB,
    GUILD,
    Recorder,
    actor_to_move,
    finish_turn,
    next_timer,
    open_with,
    take_turn,
)


@pytest.mark.parametrize("preset", list(PRESETS))
async def test_absent_players_a_whole_match_by_referee_and_cpus(
    service: TableService, clock: FakeClock, recorder: Recorder, store: Store, preset: str
) -> None:
    options: dict[str, object] = {"preset": preset, "turn_timeout": 15}
    if get_preset(preset).target is not None:
        options["target"] = 25
    table_id = await open_with(service, ALICE, BOB, cpus=("easy",), **options)
    for _ in range(20_000):
        if not await next_timer(clock):
            break
    else:
        pytest.fail("the match never ended")
    assert recorder.outcomes[-1].closed and recorder.outcomes[-1].snapshot.status == "finished"
    # Hands stay private: no dealt or drawn cards in public, private events only for the two people.
    for outcome in recorder.outcomes:
        assert not {e.kind for e in outcome.public_events} & {"dealt", "drew_cards"}
        assert set(outcome.private_events) <= {ALICE.user_id, BOB.user_id}
    taken = {e.seat for e in recorder.events("taken_over")}
    assert taken == {0, 1}
    assert len(recorder.events("match_over")) == 1
    record = await store.get_table(table_id)
    assert record is not None and record.status == "finished"
    for person in (ALICE, BOB):
        stats = await store.player_stats(GUILD, person.user_id)
        assert stats is not None and stats.matches_played == 1


async def test_hard_cpu_moves_without_blocking(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, cpus=("hard",))
    snap = await finish_turn(service, table_id, ALICE)
    # Heads-up classic has no skip, and a first turn cannot end the round (seven cards each): the CPU is next.
    assert snap.phase == "playing" and snap.to_act == 1
    await next_timer(clock)
    assert any(e.seat == 1 for o in recorder.outcomes for e in o.public_events)


async def test_last_card_call_and_catch(service: TableService, clock: FakeClock) -> None:
    table_id = await open_with(service, ALICE, BOB, preset="party")
    called = caught = False
    for _ in range(3000):
        snap = await service.snapshot(table_id)
        assert snap.has_last_card
        if snap.phase != "playing":
            await next_timer(clock)
            continue
        person = actor_to_move(snap)
        assert person is not None
        other = BOB if person is ALICE else ALICE
        mine = await service.hand(table_id, person.user_id)
        theirs = await service.hand(table_id, other.user_id)
        if mine.catch_targets and not caught:
            target = mine.catch_targets[0]
            outcome = await service.act(table_id, person, Intent.catch(target))
            assert "last_card_caught" in [e.kind for e in outcome.public_events]
            caught = True
            continue
        if theirs.can_call_last and not called and caught:
            outcome = await service.act(table_id, other, Intent.call_last())
            assert "last_card_called" in [e.kind for e in outcome.public_events]
            called = True
        if called and caught:
            return
        await take_turn(service, table_id, person)
    pytest.fail(f"never saw both a catch and a call (caught={caught}, called={called})")


async def test_auto_draw_leaves_an_uncalled_last_card_open_to_a_catch(
    service: TableService, clock: FakeClock
) -> None:
    """Auto-draw for the next player would end the catch window before anyone could press Catch: whenever a
    person goes down to one card without calling, the next person (even with nothing to play) can catch."""
    table_id = await open_with(service, ALICE, BOB, preset="switch")
    seen = 0
    for _ in range(3000):
        snap = await service.snapshot(table_id)
        if snap.phase != "playing":
            if not await next_timer(clock):
                break
            continue
        person = actor_to_move(snap)
        assert person is not None
        before = await service.hand(table_id, person.user_id)
        await take_turn(service, table_id, person)  # never calls last card
        after = await service.snapshot(table_id)
        if after.phase != "playing" or after.round_token != before.snapshot.round_token:
            continue
        mover = after.seats[[s.user_id for s in after.seats].index(person.user_id)]
        if mover.card_count == 1 and after.to_act != mover.position:
            other = BOB if person is ALICE else ALICE
            theirs = await service.hand(table_id, other.user_id)
            assert mover.position in theirs.catch_targets
            if not any(card.playable for card in theirs.cards):
                seen += 1  # the case auto-draw would have taken over
                if seen >= 3:
                    return
    pytest.fail(f"saw only {seen} uncalled last cards")
