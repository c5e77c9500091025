"""Replays of Crazier Eights matches (crazier-abilities, issue 27): each step's board (top card, colour to
follow, draw pile, cards in play, hand sizes, totals) against the state the table really committed at that
move, the viewer's own hand and nobody else's, the card an Elven Princess looked at only for the seat that
looked; a team game. On both backends."""

from __future__ import annotations

from typing import Any

from bot.engine.crazier import DECK, CrazierMatch
from bot.service import Actor, FakeClock, Outcome
from bot.service.crazier import board
from bot.service.replays import ReplayService, ReplayStep
from bot.store import Store
from tests.service.support import ALICE, BOB, CAROL, Recorder, make_service, open_with
from tests.service.test_crazier import PRESET, play_to_the_end
from tests.service.test_replays import RecordingStore, all_steps


async def play_crazier(
    store: Store, *people: Actor, cpus: tuple[str, ...], seed: int, **options: Any
) -> tuple[int, RecordingStore]:
    """A seeded crazier-abilities match played to its end (people by their hand's controls, CPUs by the
    clock), every committed state recorded."""
    recording = RecordingStore(store)
    clock = FakeClock()
    service = make_service(recording, clock, Recorder(), seed=seed)
    table_id = await open_with(service, *people, cpus=cpus, preset=PRESET, **options)
    sink: list[Outcome] = []
    service = await play_to_the_end(service, [clock], table_id, {}, sink)
    await service.close()
    return table_id, recording


def check_against_truth(steps: list[ReplayStep], recording: RecordingStore, position: int | None) -> None:
    """Each step's board is the committed one (public only); the hand is the viewer's own then."""
    for step in steps:
        truth = CrazierMatch.from_json(recording.states[step.version]["match"])
        rnd = truth.round
        assert step.round_number == truth.number
        assert step.snapshot.crazier == board(truth)
        assert step.snapshot.target_card == rnd.top()
        assert step.snapshot.stock_size == len(rnd.draw)
        assert [s.card_count for s in step.snapshot.seats] == [len(h) for h in rnd.hands]
        assert step.snapshot.totals == tuple(truth.totals)
        if position is None:
            assert step.hand is None and not step.private
        else:
            assert step.hand is not None
            assert sorted(step.hand) == sorted(rnd.hands[position])
            # What only the viewer learned in this move (cards drawn, a card looked at) is theirs alone.
            assert all(event.seat is None or event.seat == position for event in step.private)


def looked(steps: list[ReplayStep]) -> dict[int, str]:
    """Step index -> the card the viewer looked at (Elven Princess) in that step."""
    return {
        step.index: str(event.data["card"])
        for step in steps
        for event in step.private
        if event.kind == "looked_card"
    }


async def test_a_crazier_match_replays_step_by_step_as_it_was_committed(store: Store) -> None:
    table_id, recording = await play_crazier(store, ALICE, BOB, cpus=("hard",), seed=11)
    replays = ReplayService(store)
    alice = await all_steps(replays, table_id, ALICE.user_id)
    assert alice[0].round_number == 1 and alice[0].snapshot.crazier is not None
    assert alice[-1].last and alice[-1].snapshot.status == "finished"
    check_against_truth(alice, recording, position=0)
    # The public lines are the moves' public events: effects were played, nothing private is among them.
    lines = [line for step in alice for line in step.lines]
    assert any(line.kind == "played" for line in lines) and any(line.kind == "game_over" for line in lines)
    assert all(line.kind not in ("dealt", "drew_cards", "looked_card") for line in lines)
    assert any(line.kind == "match_over" for line in alice[-1].lines)
    bob = await all_steps(replays, table_id, BOB.user_id)
    check_against_truth(bob, recording, position=1)
    stranger = await all_steps(replays, table_id, 99)
    check_against_truth(stranger, recording, position=None)
    # An Elven Princess looked at the top of the draw pile: only the seat that looked sees the card.
    seen = {0: looked(alice), 1: looked(bob)}
    assert seen[0] or seen[1], "this seed's match plays an Elven Princess of a person"
    for position, steps in ((0, alice), (1, bob)):
        for index, card in seen[position].items():
            step = steps[index]
            assert card in DECK
            assert any(e.kind == "looked" and e.seat == position for e in step.lines)
            assert not any(e.kind == "looked_card" for e in (bob if position == 0 else alice)[index].private)
    # Next round goes to the first step of the next game.
    step = alice[0]
    while step.next_round_index is not None:
        step = alice[step.next_round_index]
        assert alice[step.index - 1].round_number == step.round_number - 1


async def test_a_crazier_team_game_replays_with_each_members_own_hand(store: Store) -> None:
    table_id, recording = await play_crazier(store, ALICE, BOB, CAROL, cpus=("easy",), seed=5, teams=True)
    replays = ReplayService(store)
    for position, person in enumerate((ALICE, BOB, CAROL)):
        steps = await all_steps(replays, table_id, person.user_id)
        check_against_truth(steps, recording, position=position)
        assert steps[-1].snapshot.crazier is not None and steps[-1].snapshot.crazier.teams
        assert any(len(step.snapshot.crazier.acting) == 2 for step in steps if step.snapshot.crazier)
