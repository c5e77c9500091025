"""The outbox (issue 26, "a committed move is always told"), on both backends: a move's public events are
written in the move's own transaction, so a move that does not commit leaves no row; rows come back by table
and version; a line about to go out notes its attempt (and the rows before it are told); marks delete rows up
to a version, many tables in one call; a process reads only its shards' rows; old rows are dropped."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bot.shards import ShardSet
from bot.store import ConflictError, MoveCommit, SeatRecord, Store
from tests.store.conftest import HOST, host_seat, new_table


def move(table_id: int, version: int, told: list[dict[str, Any]] | None, now: float = 10.0) -> MoveCommit:
    return MoveCommit(
        table_id,
        version,
        actor_id=HOST,
        action={"n": version},
        events=[{"kind": "played", "n": version, "to": None}],
        new_state={"n": version + 1},
        deadline=None,
        now=now,
        told=told,
    )


def played(n: int) -> list[dict[str, Any]]:
    return [{"kind": "played", "seat": 0, "data": {"card": f"{n}H"}, "source": "engine"}]


async def test_a_move_and_its_outbox_row_commit_together(store: Store) -> None:
    table = await new_table(store)
    assert await store.commit_move(move(table, 0, played(1))) == 1
    assert await store.commit_move(move(table, 1, [])) == 2  # nothing public: still a row (the board)
    await store.commit_move(move(table, 2, None))  # a caller that tells nothing: no row
    rows = await store.untold()
    assert [(row.table_id, row.version, row.events, row.attempt) for row in rows] == [
        (table, 1, played(1), None),
        (table, 2, [], None),
    ]
    assert rows[0].created_at == 10.0


async def test_a_move_that_does_not_commit_leaves_no_row(store: Store) -> None:
    table = await new_table(store)
    await store.commit_move(move(table, 0, played(1)))
    with pytest.raises(ConflictError):
        await store.commit_move(move(table, 0, played(2)))  # a lost race: rolled back whole
    with pytest.raises(ConflictError):
        await store.commit_move(move(table, 7, played(3)))
    assert [row.version for row in await store.untold()] == [1]
    assert [m.version for m in await store.moves(table)] == [1]


async def test_a_failing_move_with_results_leaves_no_row(store: Store) -> None:
    """The transaction path of a move with seats and results (PostgreSQL's second path) rolls the row back
    with the rest when a later statement fails."""
    table = await new_table(store)
    # A seat without a name breaks a NOT NULL constraint after the move and its row were written.
    broken = SeatRecord(position=1, user_id=5, display_name=None, joined_at=1.0)  # type: ignore[arg-type]
    with pytest.raises(Exception):  # noqa: B017 - the driver's own error, whichever backend
        await store.commit_move(dataclasses.replace(move(table, 0, played(1)), seats=[broken]))
    assert await store.untold() == []
    assert await store.moves(table) == []


async def test_rows_come_in_order_and_marks_delete_up_to_a_version(store: Store) -> None:
    first = await new_table(store, channel_id=1)
    second = await new_table(store, channel_id=2)
    for version in range(4):
        await store.commit_move(move(second, version, played(version)))
        await store.commit_move(move(first, version, played(version)))
    assert [(row.table_id, row.version) for row in await store.untold()] == [
        *((first, v) for v in range(1, 5)),
        *((second, v) for v in range(1, 5)),
    ]
    await store.mark_told({first: 2, second: 3})  # one call, both tables
    assert [(row.table_id, row.version) for row in await store.untold()] == [
        (first, 3),
        (first, 4),
        (second, 4),
    ]
    await store.mark_told({first: 1})  # an older mark changes nothing
    await store.mark_told({})
    assert len(await store.untold()) == 3
    await store.mark_told({first: 4, second: 4})
    assert await store.untold() == []


async def test_noting_an_attempt_tells_the_rows_before_it(store: Store) -> None:
    table = await new_table(store)
    for version in range(5):
        await store.commit_move(move(table, version, played(version)))
    attempt = {"via": "channel", "texts": ["Ana played 2♥"], "nonces": ["abc"]}
    await store.note_telling(table, 3, 4, attempt)
    rows = await store.untold()
    assert [(row.version, row.attempt) for row in rows] == [(3, attempt), (4, attempt), (5, None)]


async def test_a_process_reads_only_its_shards_rows(store: Store) -> None:
    on_zero = await new_table(store, guild_id=0 << 22, channel_id=1)
    on_one = await new_table(store, guild_id=1 << 22, channel_id=2)
    await store.commit_move(move(on_zero, 0, played(1)))
    await store.commit_move(move(on_one, 0, played(1)))
    assert [row.table_id for row in await store.untold(ShardSet(2, (0,)))] == [on_zero]
    assert [row.table_id for row in await store.untold(ShardSet(2, (1,)))] == [on_one]
    assert len(await store.untold()) == 2


async def test_old_rows_of_a_closed_table_are_dropped(store: Store) -> None:
    table = await new_table(store)
    await store.commit_move(move(table, 0, played(1), now=10.0))
    await store.commit_move(dataclasses.replace(move(table, 1, played(2), now=500.0), status="finished"))
    assert await store.drop_untold(100.0) == 1
    assert [row.version for row in await store.untold()] == [2]


async def test_an_open_tables_rows_are_kept_however_old(store: Store) -> None:
    """Its process down for days, an open table's moves are still told when it is back."""
    table = await new_table(store)
    await store.commit_move(move(table, 0, played(1), now=10.0))
    await store.commit_move(move(table, 1, played(2), now=500.0))
    assert await store.drop_untold(1_000.0) == 0
    assert [row.version for row in await store.untold()] == [1, 2]


async def test_forget_user_takes_the_person_out_of_a_closed_tables_untold_moves(store: Store) -> None:
    table = await new_table(store)
    joined = [{"kind": "joined", "seat": 1, "data": {"user_id": 555, "name": "Zed"}, "source": "service"}]
    zed = SeatRecord(position=1, user_id=555, display_name="Zed", joined_at=1.0)
    await store.commit_move(dataclasses.replace(move(table, 0, joined), seats=[host_seat(), zed]))
    closing = dataclasses.replace(move(table, 1, played(1)), status="abandoned")
    await store.commit_move(closing)
    await store.commit_move(dataclasses.replace(move(table, 2, played(2)), told=None))  # no row
    assert await store.forget_user(555) >= 1
    rows = await store.untold()
    assert rows[0].events[0]["data"] == {"user_id": None, "name": "Deleted player"}
    assert "Zed" not in repr(rows) and "555" not in repr([row.events for row in rows])
