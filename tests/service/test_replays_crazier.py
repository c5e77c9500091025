"""Replays of Crazier Eights matches (crazier-abilities, issue 27): each step's board (top card, colour to
follow, draw pile, cards in play, hand sizes, totals) against the state the table really committed at that
move, the viewer's own hand and nobody else's, the card an Elven Princess looked at only for the seat that
looked; a team game. On both backends."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.engine import EngineError
from bot.engine.crazier import DECK, CrazierMatch, Move, get_preset
from bot.engine.crazier import rules as crazier_rules
from bot.service import Actor, FakeClock, Outcome
from bot.service import replays as replays_module
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


async def test_a_team_match_stored_before_the_first_player_rotated_replays_as_it_was_played(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README, Replays: matches played before a change replay too. An earlier release played team games
    with the first living opponent after the current first player as the next first player, and stored
    their rules without ``rotating_team_leads`` (decision 10 of ``bot.engine.crazier``). Such a match, in
    which a member lost mid-game (seed 10: in its third game the rule makes a difference), rebuilds from its
    move log by the rule it was played by, and its end compares equal; dealt by the rule new matches play,
    the same log breaks."""
    old_rules = get_preset(PRESET).replace(rotating_team_leads=False)
    monkeypatch.setitem(crazier_rules.PRESETS, PRESET, old_rules)  # the earlier release's lobby
    table_id, _ = await play_crazier(store, ALICE, BOB, CAROL, cpus=("easy",), seed=10, teams=True)
    monkeypatch.undo()
    state = await store.get_state(table_id)
    record = await store.get_table(table_id)
    assert state is not None and record is not None
    old = copy.deepcopy(state.state["match"])
    assert old["rules"].pop("rotating_team_leads") is False
    assert old["round"]["rules"].pop("rotating_team_leads") is False
    assert "team_leads" not in old["round"]
    moves = await store.moves(table_id)
    replayer = replays_module.GAMES[PRESET](record, await store.list_seats(table_id), state.state, old)
    built = replays_module._rebuild(replayer, record, moves, 0)
    assert built.step(len(built.played) - 1).snapshot.status == "finished"
    # The rule matters in this match: dealt by today's rule, its log is refused partway.
    today = CrazierMatch.new(get_preset(PRESET, teams=True), 4, seed=int(state.state["seed"]))
    steps = [step for move in built.played for step in replays_module._steps(move)]
    with pytest.raises(EngineError):
        for step in steps:
            if step.get("kind") == "start_next_round":
                today.start_next_round()
            else:
                today.apply(Move.from_json(step))
