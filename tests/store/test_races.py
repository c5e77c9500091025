"""Racing moves: exactly one commit_move per state version wins; every other gets ConflictError. On each
backend: coroutines on one connection (pool), several stores, several processes."""

from __future__ import annotations

import asyncio
import multiprocessing

from bot.store import ConflictError, MoveCommit, Store, open_store
from tests.store.conftest import new_table


async def attempt(store: Store, table_id: int, version: int, who: int) -> bool:
    try:
        await store.commit_move(
            MoveCommit(
                table_id,
                version,
                actor_id=who,
                action={"who": who, "version": version},
                events=[{"kind": "played", "by": who}],
                new_state={"last": who, "version": version + 1},
                deadline=None,
                now=float(version),
            )
        )
    except ConflictError as conflict:
        assert conflict.expected_version == version
        assert conflict.actual_version is not None and conflict.actual_version > version
        return False
    return True


async def assert_log_is_one_move_per_version(store: Store, table_id: int, versions: int) -> None:
    moves = await store.moves(table_id)
    state = await store.get_state(table_id)
    assert [(move.seq, move.version) for move in moves] == [(v, v) for v in range(1, versions + 1)]
    # Each move was built on the one before.
    assert [move.action["version"] for move in moves] == list(range(versions))
    # The stored state is the one written by the winner of the last version.
    assert state is not None and state.version == versions
    assert state.state == {"last": moves[-1].action["who"], "version": versions}


async def test_concurrent_moves_on_one_store(store: Store) -> None:
    table_id = await new_table(store)
    for version in range(10):
        results = await asyncio.gather(*(attempt(store, table_id, version, who) for who in range(25)))
        assert results.count(True) == 1
    await assert_log_is_one_move_per_version(store, table_id, 10)


async def test_concurrent_moves_across_connections(store: Store, backend_url: str) -> None:
    # Separate connections (SQLite: on separate threads) really overlap inside the database.
    table_id = await new_table(store)
    others = [await open_store(backend_url) for _ in range(3)]
    try:
        stores = [store, *others]
        for version in range(10):
            results = await asyncio.gather(
                *(attempt(stores[who % len(stores)], table_id, version, who) for who in range(24))
            )
            assert results.count(True) == 1
    finally:
        for other in others:
            await other.close()
    await assert_log_is_one_move_per_version(store, table_id, 10)


def _race_in_process(url: str, table_id: int, worker: int, rounds: int, wins: multiprocessing.Queue) -> None:
    async def run() -> int:
        store = await open_store(url)
        won = 0
        try:
            for _ in range(rounds):
                state = await store.get_state(table_id)
                assert state is not None
                won += await attempt(store, table_id, state.version, worker)
        finally:
            await store.close()
        return won

    wins.put(asyncio.run(run()))


async def test_processes_racing_read_then_commit_never_lose_or_double_a_move(
    store: Store, backend_url: str
) -> None:
    table_id = await new_table(store)
    context = multiprocessing.get_context("spawn")
    wins: multiprocessing.Queue = context.Queue()
    workers = [
        context.Process(target=_race_in_process, args=(backend_url, table_id, worker, 60, wins))
        for worker in range(3)
    ]
    for process in workers:
        process.start()
    total = sum(await asyncio.to_thread(lambda: [wins.get(timeout=60) for _ in workers]))
    for process in workers:
        process.join(timeout=30)
        assert process.exitcode == 0
    state = await store.get_state(table_id)
    assert state is not None and state.version == total
    await assert_log_is_one_move_per_version(store, table_id, total)
