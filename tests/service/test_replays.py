"""Replays of finished matches (issue 27), rebuilt from the stored move log: every step's public lines and
board against the states the table really committed, the viewer's own hand and nobody else's, partnership
and house rules, a pruned match, and refusals."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from bot.engine import PRESET_NAMES, Match, card_code
from bot.service import FakeClock, TableService
from bot.service import replays as replays_module
from bot.service.replays import ReplayService, ReplayStep
from bot.service.server import ServerService
from bot.store import Store
from bot.store.base import MatchResult, MoveCommit, RankingEntry, SeatRecord
from tests.service.support import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    Recorder,
    drive,
    make_service,
    open_with,
    refused,
)


class RecordingStore:
    """The real store, remembering every state committed (version -> state) and each move's public events:
    the truth a replay must show again."""

    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self.states: dict[int, dict[str, Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def commit_move(self, move: MoveCommit) -> int:
        version = await self._inner.commit_move(move)
        self.states[version] = move.new_state
        return version


async def play_match(
    store: Store,
    *people: Any,
    cpus: tuple[str, ...] = (),
    house: tuple[tuple[str, str], ...] = (),
    **options: Any,
) -> tuple[int, RecordingStore]:
    """A seeded match played to its end (people by click, CPUs and timers by the clock)."""
    recording = RecordingStore(store)
    clock = FakeClock()
    service: TableService = make_service(recording, clock, Recorder(), seed=11)
    table_id = await open_with(service, *people, cpus=cpus, start=False, **options)
    for option, value in house:
        await service.set_house_rule(table_id, people[0], option, value)
    await service.start(table_id, people[0])
    assert await drive(service, clock, table_id, until=lambda s: False, max_steps=20_000) is None
    await service.close()
    return table_id, recording


async def all_steps(replays: ReplayService, table_id: int, viewer_id: int) -> list[ReplayStep]:
    first = await replays.step(GUILD, table_id, viewer_id, 0)
    steps = [first]
    for index in range(1, first.count):
        steps.append(await replays.step(GUILD, table_id, viewer_id, index))
    return steps


def check_against_truth(steps: list[ReplayStep], recording: RecordingStore, position: int | None) -> None:
    """Each step's board is the committed one; the hand is the viewer's own at that moment."""
    for step in steps:
        state = recording.states[step.version]
        truth = Match.from_json(state["match"])
        rnd = truth.round
        assert step.round_number == truth.round_number
        assert step.snapshot.target_card == card_code(rnd.target)
        assert step.snapshot.stock_size == rnd.stock_size
        assert [s.card_count for s in step.snapshot.seats] == list(rnd.hand_sizes)
        assert step.snapshot.totals == tuple(truth.totals)
        if position is None:
            assert step.hand is None
        else:
            assert step.hand is not None
            assert sorted(step.hand) == sorted(card_code(c) for c in rnd.hand(position))


@pytest.mark.parametrize("preset", PRESET_NAMES)
async def test_a_match_replays_step_by_step_as_it_was_committed(store: Store, preset: str) -> None:
    table_id, recording = await play_match(store, ALICE, BOB, cpus=("easy",), preset=preset, target=30)
    replays = ReplayService(store)
    steps = await all_steps(replays, table_id, ALICE.user_id)
    assert steps[0].round_number == 1 and steps[0].first
    assert steps[-1].last and steps[-1].snapshot.status == "finished"
    check_against_truth(steps, recording, position=0)
    # The public lines of each step are the move's public events, and nothing private (no "dealt").
    for step in steps:
        assert all(line.kind not in ("dealt", "drew_cards") for line in step.lines)
    assert any(line.kind == "played" for step in steps for line in step.lines)
    assert any(line.kind == "match_over" for line in steps[-1].lines)
    # Bob sees his own hand at each step, never Alice's (and a stranger sees no hand at all).
    bob = await all_steps(replays, table_id, BOB.user_id)
    check_against_truth(bob, recording, position=1)
    stranger = await all_steps(replays, table_id, 99)
    check_against_truth(stranger, recording, position=None)


async def test_next_round_jumps_to_the_first_step_of_the_next_round(store: Store) -> None:
    table_id, _ = await play_match(store, ALICE, BOB, target=60)
    replays = ReplayService(store)
    step = await replays.step(GUILD, table_id, ALICE.user_id, 0)
    seen = [step.round_number]
    while step.next_round_index is not None:
        step = await replays.step(GUILD, table_id, ALICE.user_id, step.next_round_index)
        before = await replays.step(GUILD, table_id, ALICE.user_id, step.index - 1)
        assert before.round_number == step.round_number - 1
        seen.append(step.round_number)
    assert seen == list(range(1, seen[-1] + 1)) and len(seen) >= 2
    past = await replays.step(GUILD, table_id, ALICE.user_id, 10**6)
    assert past.last


async def test_partnership_with_house_rules_shows_only_the_viewers_hand(store: Store) -> None:
    table_id, recording = await play_match(
        store,
        ALICE,
        BOB,
        CAROL,
        cpus=("normal",),
        preset="classic",
        target=30,
        house=(("partnership", "on"), ("draw limit", "3")),
    )
    replays = ReplayService(store)
    for position, person in enumerate((ALICE, BOB, CAROL)):
        steps = await all_steps(replays, table_id, person.user_id)
        check_against_truth(steps, recording, position=position)
        assert steps[-1].snapshot.partnership


async def test_a_pruned_match_says_so(store: Store) -> None:
    table_id, _ = await play_match(store, ALICE, BOB, target=1)
    closed_at = (await store.get_table(table_id)).updated_at  # type: ignore[union-attr]
    while await store.prune_closed_moves(closed_at + 1, 500, closed_at + 2):
        pass
    error = await refused(ReplayService(store).step(GUILD, table_id, ALICE.user_id, 0), "pruned")
    assert "deleted" in error.message and "history" in error.message


async def test_refusals(store: Store) -> None:
    table_id, _ = await play_match(store, ALICE, BOB, target=1)
    replays = ReplayService(store)
    await refused(replays.step(GUILD + 1, table_id, ALICE.user_id, 0), "no-match")
    await refused(replays.step(GUILD, table_id + 100, ALICE.user_id, 0), "no-match")
    recent = await replays.recent(GUILD)
    assert [m.table_id for m in recent] == [table_id]
    assert await replays.recent(GUILD, "alice") == recent
    assert await replays.recent(GUILD, "nobody") == []


async def test_a_seat_taken_over_mid_match_shows_from_that_step_on(store: Store) -> None:
    recording = RecordingStore(store)
    clock = FakeClock()
    service = make_service(recording, clock, Recorder(), seed=5)
    table_id = await open_with(service, ALICE, BOB, target=30)
    await service.leave(table_id, BOB)  # a CPU plays Bob's seat from here
    assert await drive(service, clock, table_id, until=lambda s: False, max_steps=20_000) is None
    await service.close()
    replays = ReplayService(store)
    dealt = await replays.step(GUILD, table_id, BOB.user_id, 0)
    left = await replays.step(GUILD, table_id, BOB.user_id, 1)
    assert not dealt.snapshot.seats[1].taken_over
    assert any(line.kind == "taken_over" for line in left.lines)
    assert left.snapshot.seats[1].taken_over
    check_against_truth(await all_steps(replays, table_id, BOB.user_id), recording, position=1)


async def finished_without_log(store: Store, state: dict[str, Any]) -> int:
    """A finished match stored in one move, as bulk imports and tests record them: no deal, no moves."""
    table = await store.create_table(
        guild_id=GUILD,
        channel_id=777,
        host=SeatRecord(position=0, user_id=ALICE.user_id, display_name="Alice"),
        ruleset={"name": "classic"},
        options={"preset": "classic"},
        turn_timeout=90.0,
        state={},
        deadline=None,
        now=1_700_000_000.0,
    )
    ranking = [RankingEntry(position=0, user_id=ALICE.user_id, display_name="Alice", place=1, total=0)]
    await store.commit_move(
        MoveCommit(
            table.id,
            0,
            actor_id=None,
            action={"kind": "end"},
            events=[],
            new_state=state,
            deadline=None,
            now=1_700_000_000.0,
            status="finished",
            match_result=MatchResult(preset="classic", rounds_played=1, ranking=ranking),
        )
    )
    return table.id


async def test_a_match_without_a_log_or_of_another_game_is_refused_in_words(store: Store) -> None:
    replays = ReplayService(store)
    bare = await finished_without_log(store, {})
    error = await refused(replays.step(GUILD, bare, ALICE.user_id, 0), "no-replay")
    assert f"#{bare}" in error.message
    other = await finished_without_log(store, {"seed": 3, "match": {"format": 1, "game": "hearts"}})
    error = await refused(replays.step(GUILD, other, ALICE.user_id, 0), "no-replay")
    assert "hearts" in error.message and "not available yet" in error.message
    # A stored match its game cannot read is refused in words too, not with a traceback.
    damaged = await finished_without_log(
        store, {"seed": 3, "match": {"format": 1, "game": "crazier-abilities"}}
    )
    error = await refused(replays.step(GUILD, damaged, ALICE.user_id, 0), "no-replay")
    assert f"#{damaged}" in error.message


class CountingStore:
    """The store, counting how often a match's move log is read (each read is a rebuild of the replay)."""

    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self.move_reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def moves(self, table_id: int) -> Any:
        self.move_reads += 1
        return await self._inner.moves(table_id)


async def test_paging_through_a_replay_rebuilds_it_once_and_a_forgotten_player_is_not_shown_again(
    store: Store,
) -> None:
    table_id, _ = await play_match(store, ALICE, BOB, cpus=("easy",), target=30)
    counting = CountingStore(store)
    replays = ReplayService(counting)  # type: ignore[arg-type]  # the store, counted
    steps = await all_steps(replays, table_id, ALICE.user_id)
    assert len(steps) > 10 and counting.move_reads == 1  # one rebuild for every click of one viewer
    assert (await replays.step(GUILD, table_id, BOB.user_id, 3)).hand is not None
    assert counting.move_reads == 2  # another viewer sees another hand: rebuilt for them
    assert any(seat.name == BOB.display_name for seat in steps[0].snapshot.seats)
    # Bob asks to be forgotten: the replay kept from before must not show his name again.
    assert await ServerService(store).forget(BOB.user_id) > 0
    after = await replays.step(GUILD, table_id, ALICE.user_id, 0)
    assert counting.move_reads == 3
    assert all(seat.name != BOB.display_name for seat in after.snapshot.seats)


async def test_a_match_stored_by_an_earlier_release_replays(store: Store) -> None:
    """README, Replays: "matches played before replays existed replay too". An earlier release stored the
    match without what this engine writes at its defaults (the round's ``out``, the rules'
    ``pass_when_no_draw`` and ``partnership``: before house rules and partnerships); its log rebuilds the
    same match, and the end compares equal read as this engine reads it (it was refused: "can't be
    replayed from its moves")."""
    table_id, _ = await play_match(store, ALICE, BOB, cpus=("easy",), target=30)
    state = await store.get_state(table_id)
    assert state is not None
    old = copy.deepcopy(state.state["match"])
    del old["round"]["out"]
    assert old["ruleset"].pop("pass_when_no_draw") is False
    assert old["ruleset"].pop("partnership") is False
    record = await store.get_table(table_id)
    assert record is not None
    replayer = replays_module.GAMES["eights"](record, await store.list_seats(table_id), state.state, old)
    built = replays_module._rebuild(replayer, record, await store.moves(table_id), 0)
    assert built.step(len(built.played) - 1).snapshot.status == "finished"


async def test_a_pruned_replays_day_is_each_readers_own_date(store: Store) -> None:
    """The answer to replaying a match whose moves retention deleted gives the day as Discord's <t:…>
    markup, as every date the bot shows: each reader sees their own local date in their client's format,
    not a UTC ISO date."""
    table_id, _recording = await play_match(store, ALICE, BOB, target=1)
    closed_at = (await store.get_table(table_id)).updated_at  # type: ignore[union-attr]
    while await store.prune_closed_moves(closed_at + 1, 500, closed_at + 2):
        pass
    error = await refused(ReplayService(store).step(GUILD, table_id, ALICE.user_id, 0), "pruned")
    assert not re.search(r"\d{4}-\d{2}-\d{2}", error.message), error.message
    assert re.search(r"<t:\d+(:[dDfFR])?>", error.message), error.message


# ----------------------------------------------------------------------------------------------------------
# A match an earlier release stored, replayed after the upgrade: the engine keeps the rule it was played by
# (bot.engine.rules.EARLIER_RULES). This part was appended to the module, so it imports what it needs itself.

#: The old release's match (old_engine_match.json, made by make_old_engine_match.py beside it): a classic
#: match of one round with two house rules (no reshuffle; "a draw that cannot be made ends the round"), three
#: seats, played to its end by the engine of the release before commit 3a63368.
OLD_MATCH_FILE = "old_engine_match.json"
OLD_TABLE = 42
OLD_CHANNEL = 2000


def _old_engine_match() -> dict[str, Any]:
    import json
    from pathlib import Path

    match: dict[str, Any] = json.loads((Path(__file__).parent / OLD_MATCH_FILE).read_text())[0]
    return match


class StoredByTheOldRelease:
    """The store as the earlier release left the match: the finished table, its seats, its move log (one
    engine step a move), its end."""

    def __init__(self, match: dict[str, Any]) -> None:
        from bot.store.base import MoveRecord, TableRecord

        self.match = match
        self.record = TableRecord(
            id=OLD_TABLE,
            guild_id=GUILD,
            channel_id=OLD_CHANNEL,
            host_id=ALICE.user_id,
            status="finished",
            ruleset=match["ruleset"],
            options={"preset": "classic"},
            turn_timeout=60.0,
            board_message_id=None,
            created_at=0.0,
            updated_at=0.0,
        )
        self.seats = [
            SeatRecord(position=i, user_id=p.user_id, display_name=p.display_name)
            for i, p in enumerate((ALICE, BOB, CAROL))
        ]
        moves = [MoveRecord(OLD_TABLE, 1, 1, ALICE.user_id, {"kind": "start", "steps": []}, [], 0.0)]
        for number, step in enumerate(match["actions"], start=2):
            moves.append(
                MoveRecord(OLD_TABLE, number, number, None, {"kind": "move", "steps": [step]}, [], 0.0)
            )
        self._moves = moves

    async def get_table(self, table_id: int) -> Any:
        return self.record if table_id == OLD_TABLE else None

    async def match_ranking(self, table_id: int) -> list[RankingEntry]:
        return [RankingEntry(s.position, s.user_id, s.display_name, s.position + 1, 0) for s in self.seats]

    async def moves_pruned_at(self, table_id: int) -> float | None:
        return None

    async def list_seats(self, table_id: int) -> list[SeatRecord]:
        return list(self.seats)

    async def get_state(self, table_id: int) -> Any:
        from bot.store.base import GameState

        state = {"phase": "finished", "seed": self.match["seed"], "host_id": ALICE.user_id}
        return GameState(OLD_TABLE, len(self._moves), {**state, "match": self.match["final"]}, None)

    async def moves(self, table_id: int) -> list[Any]:
        return list(self._moves)


def _played_by_this_release(old: dict[str, Any]) -> dict[str, Any]:
    """The same deal played by this release's engine: the old match's actions while they are legal, then
    the first legal action until the end (the control)."""
    from bot.engine import Action, Ruleset

    match = Match.new(Ruleset.from_json(old["ruleset"]), 3, seed=old["seed"], dealer=2)
    actions = []
    for step in old["actions"]:
        action = Action.from_json(step)
        if match.over or action not in match.round.legal_actions(match.round.to_act):
            break
        actions.append(step)
        match.apply(action)
    while not match.over:
        action = match.round.legal_actions(match.round.to_act)[0]
        actions.append(action.to_json())
        match.apply(action)
    return {**old, "actions": actions, "final": match.to_json()}


async def test_control_a_match_this_release_stored_replays_from_the_stand_in_store() -> None:
    """The stand-in store is right: this release's own match of the same deal replays to its end."""
    mine = _played_by_this_release(_old_engine_match())
    service = ReplayService(StoredByTheOldRelease(mine))  # type: ignore[arg-type]
    first = await service.step(GUILD, OLD_TABLE, ALICE.user_id, 0)
    assert first.count == len(mine["actions"]) + 1
    assert (
        await service.step(GUILD, OLD_TABLE, ALICE.user_id, first.count - 1)
    ).snapshot.status == "finished"


async def test_a_match_the_previous_release_played_with_the_impossible_draw_rule_replays() -> None:
    """README, Replays: "matches played before replays existed replay too", so matches the release before
    this one stored replay after the upgrade. With no reshuffle and "a draw that cannot be made ends the
    round", that release passed a must-play-drawn player who drew the stock's last card and still could not
    play (commit 3a63368 made such a player end the round). Its match was stored without the rule's field
    (``owed_draw_ends_round``), so its ruleset reads as that earlier rule, and the match replays from its
    moves to its end (it was refused: "Match #42 can't be replayed from its moves."). Under today's rule
    its log breaks: the rule matters in this match."""
    old = _old_engine_match()
    assert (
        "owed_draw_ends_round" not in old["ruleset"] and "owed_draw_ends_round" not in old["final"]["ruleset"]
    )
    service = ReplayService(StoredByTheOldRelease(old))  # type: ignore[arg-type]
    first = await service.step(GUILD, OLD_TABLE, ALICE.user_id, 0)
    assert first.count == len(old["actions"]) + 1
    last = await service.step(GUILD, OLD_TABLE, ALICE.user_id, first.count - 1)
    assert last.snapshot.status == "finished"
    today = copy.deepcopy(old)
    for data in (today["final"], today["final"]["round"]):
        data["ruleset"]["owed_draw_ends_round"] = True
    await refused(
        ReplayService(StoredByTheOldRelease(today)).step(GUILD, OLD_TABLE, ALICE.user_id, 0), "no-replay"
    )


async def test_a_match_stored_between_a_change_of_play_and_its_field_replays() -> None:
    """A build that played today's owed-draw rule before the ruleset had a field for it stored its match
    without the field, which reads as the earlier rule: that reading does not rebuild it (the rule matters
    in this deal), and the replay then tries the match as played after the change, which does."""
    old = _old_engine_match()
    played = _played_by_this_release({**old, "ruleset": {**old["ruleset"], "owed_draw_ends_round": True}})
    stored = copy.deepcopy(played)
    for data in (stored, stored["final"], stored["final"]["round"]):
        del data["ruleset"]["owed_draw_ends_round"]
    earlier = copy.deepcopy(stored)  # the same match, naming the earlier rule (one reading only)
    for data in (earlier["final"], earlier["final"]["round"]):
        data["ruleset"].update(owed_draw_ends_round=False, skipped_player_draws=False)
    await refused(
        ReplayService(StoredByTheOldRelease(earlier)).step(GUILD, OLD_TABLE, ALICE.user_id, 0), "no-replay"
    )
    service = ReplayService(StoredByTheOldRelease(stored))  # type: ignore[arg-type]
    first = await service.step(GUILD, OLD_TABLE, ALICE.user_id, 0)
    assert first.count == len(stored["actions"]) + 1
    last = await service.step(GUILD, OLD_TABLE, ALICE.user_id, first.count - 1)
    assert last.snapshot.status == "finished"
