"""A match to its end: the final ranking, the results stored exactly once, the table closed; and the same when
the process is killed at the end of the last round (after the commit, or before it)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from bot.service import FakeClock, Outcome, ServiceError, TableService
from bot.store import MoveCommit, Store
from tests.service.support import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    Recorder,
    drive,
    make_service,
    open_with,
)

TARGET = 30  # a short match


class Killed(Exception):
    """The process dies here."""


class DyingStore:
    """The real store, except that the process dies at the commit that carries the match result: right after
    it (``after=True``) or right before it."""

    def __init__(self, inner: Store, *, after: bool) -> None:
        self._inner = inner
        self._after = after
        self.died = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def commit_move(self, move: MoveCommit) -> int:
        if move.match_result is None:
            return await self._inner.commit_move(move)
        self.died = True
        if not self._after:
            raise Killed
        await self._inner.commit_move(move)
        raise Killed


async def play_to_the_end(service: TableService, clock: FakeClock, table_id: int) -> list[Outcome]:
    clicks: list[Outcome] = []
    closed = await drive(service, clock, table_id, until=lambda s: False, sink=clicks, max_steps=20_000)
    assert closed is None
    return clicks


async def test_a_match_plays_to_its_end_and_counts_once(
    service: TableService, clock: FakeClock, recorder: Recorder, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, cpus=("easy",), target=TARGET)
    clicks = await play_to_the_end(service, clock, table_id)
    outcomes = clicks + recorder.outcomes
    final = [o for o in outcomes if any(e.kind == "match_over" for e in o.public_events)]
    assert len(final) == 1
    last = final[0]
    assert last.closed and last.snapshot.status == "finished"
    ranking = next(e for e in last.public_events if e.kind == "match_over").data["ranking"]
    assert sorted(line["position"] for line in ranking) == [0, 1, 2]
    assert {line["name"] for line in ranking} == {"Alice", "Bob", "CPU 1"}
    assert any(total > TARGET for total in last.snapshot.totals)
    assert [line["total"] for line in ranking] == sorted(line["total"] for line in ranking)
    assert [(r.position, r.total) for r in last.snapshot.ranking] == [
        (line["position"], line["total"]) for line in ranking
    ]
    assert next(e for e in last.public_events if e.kind == "closed").data["reason"] == "finished"

    rounds = await store.round_results(table_id)
    assert [r.round_number for r in rounds] == list(range(1, last.snapshot.round_number + 1))
    for person in (ALICE, BOB):
        stats = await store.player_stats(GUILD, person.user_id)
        assert stats is not None and stats.matches_played == 1 and stats.rounds_played == len(rounds)
    matches = await store.recent_matches(GUILD)
    assert len(matches) == 1 and matches[0].table_id == table_id
    # The table is closed: status answers that there is no open table and how to open one.
    with pytest.raises(ServiceError) as info:
        await service.require_table(CHANNEL)
    assert info.value.code == "no_table" and "/eights new" in info.value.message
    record = await store.get_table(table_id)
    assert record is not None and record.status == "finished"


@pytest.mark.parametrize("after", [True, False], ids=["killed-after-commit", "killed-before-commit"])
async def test_a_kill_at_the_end_of_the_last_round_neither_loses_nor_doubles_the_match(
    store: Store, after: bool
) -> None:
    clock = FakeClock()
    dying = DyingStore(store, after=after)
    first = make_service(dying, clock, Recorder())
    table_id = await open_with(first, ALICE, BOB, cpus=("easy",), target=TARGET)
    # The kill may hit a person's click (raised here) or a CPU's move (inside its timer).
    with contextlib.suppress(Killed):
        await drive(first, clock, table_id, until=lambda s: dying.died, max_steps=20_000)
    assert dying.died

    # The process is gone. A new one starts over the same database.
    new_clock = FakeClock(start=clock.now())
    recorder = Recorder()
    second = make_service(store, new_clock, recorder, seed=3)
    restored = await second.restore_all()
    if after:
        assert restored == 0
    else:
        # The last move was never committed: the table is back where it was, and the match is finished again.
        assert restored == 1
        clicks = await play_to_the_end(second, new_clock, table_id)
        assert any(e.kind == "match_over" for o in clicks + recorder.outcomes for e in o.public_events)
    matches = await store.recent_matches(GUILD)
    assert len(matches) == 1
    for person in (ALICE, BOB):
        stats = await store.player_stats(GUILD, person.user_id)
        assert stats is not None and stats.matches_played == 1
    record = await store.get_table(table_id)
    assert record is not None and record.status == "finished"
    assert await second.table_in_channel(CHANNEL) is None
