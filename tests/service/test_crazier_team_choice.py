"""A crazier-abilities team turn at a table while one member's beginning-of-turn choice waits: RULESETS.md,
Teams (001 §8): "each member does their own beginning-of-turn abilities, draw, discard and effect, in any
order between them". A member who has drawn has their hand's discards, effects and end (a person's buttons,
a CPU's moves) while a teammate, a person or a CPU, owes a choice."""

from __future__ import annotations

from bot.engine.crazier import CrazierRound, Move
from bot.service import FakeClock, Intent, TableService
from bot.service import crazier as service_crazier
from tests.engine.crazier.support import position
from tests.service.support import (
    ALICE,
    BOB,
    CAROL,
    CPU_DELAY,
    Recorder,
    clock,
    open_with,
    recorder,
    service,
    store,
)

__all__ = ["clock", "recorder", "service", "store"]

PRESET = "crazier-abilities"
#: Seats: Alice 0 and Carol 2 are a team, Bob 1 and a CPU 3 the other.
PEOPLE_AND_A_CPU = (ALICE, BOB, CAROL)


async def _table(service: TableService, level: str = "normal") -> int:
    return await open_with(
        service, *PEOPLE_AND_A_CPU, cpus=(level,), preset=PRESET, teams=True, turn_timeout=600
    )


def _set(
    service: TableService, table_id: int, hands: list[str], in_play: list[str], first: int
) -> CrazierRound:
    """The team of ``first`` begins its turn on a green 5: its first member draws AO, the next one's Angel
    of Hope waits for a choice. Timers are set again for the position, as after a move."""
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd, _events = position(
        hands, "5G", in_play=in_play, draw="AO KO KG QO", first=first, teams=True, rules=live.crazier.rules
    )
    live.crazier.round = rnd
    live.snapshot_of = None
    service._scheduler.schedule(live)
    return rnd


async def test_a_persons_hand_offers_discards_effects_and_end_while_a_teammate_person_chooses(
    service: TableService,
) -> None:
    table_id = await _table(service)
    rnd = _set(service, table_id, ["AG 2B", "9O 3B 4O", "AB 3P", "9P 3O"], ["", "", "5B", ""], first=0)
    assert rnd.choice is not None and rnd.choice["by"] == 2
    alice = await service.hand(table_id, ALICE.user_id)
    assert alice.your_turn and alice.crazier is not None and alice.crazier.choice is None
    assert [c.card.code for c in alice.crazier.cards if c.can_discard] == ["AG"]
    assert [c.card.code for c in alice.crazier.cards if c.can_play] == ["2B"]
    assert alice.crazier.can_end
    carol = await service.hand(table_id, CAROL.user_id)
    assert carol.your_turn and carol.crazier is not None and carol.crazier.choice is not None
    assert carol.crazier.choice.kind == "player" and not carol.crazier.can_end
    assert not any(c.can_discard or c.can_play for c in carol.crazier.cards)
    snap = await service.snapshot(table_id)
    assert snap.crazier is not None and snap.crazier.acting == (2, 0)
    assert [s.position for s in snap.seats if s.to_act] == [0, 2]

    await service.act(table_id, ALICE, Intent.play("AG"), alice.round_token)
    await service.act(table_id, ALICE, Intent.end_turn())
    carol = await service.hand(table_id, CAROL.user_id)
    assert carol.crazier is not None and carol.crazier.choice is not None  # still hers to make
    await service.act(table_id, CAROL, Intent.choose("1"), carol.round_token)
    snap = await service.snapshot(table_id)
    assert snap.crazier is not None and snap.crazier.acting == (2,)


async def test_a_persons_hand_offers_their_part_while_a_cpu_teammate_owes_a_choice(
    service: TableService, clock: FakeClock
) -> None:
    table_id = await _table(service)
    _set(service, table_id, ["9O 3B 4O", "AG 2B", "10P 3O", "AB 9P 9G"], ["", "", "", "5B"], first=1)
    bob = await service.hand(table_id, BOB.user_id)
    assert bob.your_turn and bob.crazier is not None and bob.crazier.choice is None
    assert [c.card.code for c in bob.crazier.cards if c.can_discard] == ["AG"]
    await service.act(table_id, BOB, Intent.play("AG"), bob.round_token)
    await clock.advance(CPU_DELAY)
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd = live.crazier.round
    # The CPU made its choice and played its part; Bob's part is still his.
    assert rnd.choice is None and rnd.stage[3] == "done" and rnd.acting == [1]


async def test_a_cpu_plays_its_part_while_a_person_on_its_team_owes_a_choice(
    service: TableService, clock: FakeClock
) -> None:
    table_id = await _table(service)
    _set(service, table_id, ["9O 3B 4O", "AB 3P", "9P 3O", "AG 2B"], ["", "5B", "", ""], first=3)
    await clock.advance(CPU_DELAY)
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd = live.crazier.round
    assert rnd.stage[3] == "done" and "AG" not in rnd.hands[3]  # it discarded, then ended
    assert rnd.choice is not None and rnd.choice["by"] == 1 and rnd.acting == [1]
    bob = await service.hand(table_id, BOB.user_id)
    assert bob.crazier is not None and bob.crazier.choice is not None


async def test_the_referee_ends_a_members_part_and_answers_only_the_choice_owed(
    service: TableService,
) -> None:
    """Out of time, the referee plays nothing for a person (it answers their choice, or ends their turn):
    a member at their own part while a teammate's choice waits is ended, not played for."""
    table_id = await _table(service)
    rnd = _set(service, table_id, ["AG 2B", "9O 3B 4O", "AB 3P", "9P 3O"], ["", "", "5B", ""], first=0)
    assert service_crazier.referee_move(rnd, 0) == Move.end(0)
    answer = service_crazier.referee_move(rnd, 2)
    assert answer is not None and answer.kind == "player" and answer in rnd.legal_actions(2)
    assert service_crazier.referee_move(rnd, 1) is None


async def test_a_team_timeout_with_a_choice_waiting_plays_nothing_for_the_members(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await _table(service)
    _set(service, table_id, ["AG 2B", "9O 3B 4O", "AB 3P", "9P 3O"], ["", "", "5B", ""], first=0)
    view = await service.hand(table_id, ALICE.user_id)
    assert view.deadline is not None
    await clock.advance(view.deadline - clock.now())
    assert sorted(e.seat for e in recorder.events("timed_out")) == [0, 2]
    moved = [(e.kind, e.seat) for e in recorder.events("discarded") + recorder.events("played")]
    assert not [m for m in moved if m[1] in (0, 2)], moved
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None and live.crazier.round.turn == 2
