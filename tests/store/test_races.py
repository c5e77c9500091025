"""Racing moves: exactly one commit_move per state version wins; every other gets ConflictError."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import sqlite3
from pathlib import Path

from bot.store import ConflictError
from bot.store.sqlite import SqliteStore
from tests.store.conftest import new_table


async def attempt(store: SqliteStore, table_id: int, version: int, who: int) -> bool:
    try:
        await store.commit_move(
            table_id,
            version,
            actor_id=who,
            action={"who": who, "version": version},
            events=[{"kind": "played", "by": who}],
            new_state={"last": who, "version": version + 1},
            deadline=None,
            now=float(version),
        )
    except ConflictError as conflict:
        assert conflict.expected_version == version
        assert conflict.actual_version is not None and conflict.actual_version > version
        return False
    return True


def assert_log_is_one_move_per_version(db: Path, table_id: int, versions: int) -> None:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT seq, version, action FROM moves WHERE table_id = ? ORDER BY seq", (table_id,)
        ).fetchall()
        state = conn.execute(
            "SELECT version, state FROM game_state WHERE table_id = ?", (table_id,)
        ).fetchone()
    finally:
        conn.close()
    assert [(seq, version) for seq, version, _ in rows] == [(v, v) for v in range(1, versions + 1)]
    actions = [json.loads(action) for _, _, action in rows]
    assert [action["version"] for action in actions] == list(range(versions))  # each built on the one before
    # The stored state is the one written by the winner of the last version.
    assert state[0] == versions
    assert json.loads(state[1]) == {"last": actions[-1]["who"], "version": versions}


async def test_concurrent_moves_on_one_connection(store: SqliteStore) -> None:
    table_id = await new_table(store)
    for version in range(10):
        results = await asyncio.gather(*(attempt(store, table_id, version, who) for who in range(25)))
        assert results.count(True) == 1
    assert_log_is_one_move_per_version(Path(store.path), table_id, 10)


async def test_concurrent_moves_across_connections(store: SqliteStore) -> None:
    # Separate connections run on separate threads, so these really overlap inside SQLite.
    table_id = await new_table(store)
    others = [await SqliteStore.open(store.path) for _ in range(3)]
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
    assert_log_is_one_move_per_version(Path(store.path), table_id, 10)


def _race_in_process(path: str, table_id: int, worker: int, rounds: int, wins: multiprocessing.Queue) -> None:
    async def run() -> int:
        store = await SqliteStore.open(path)
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


async def test_processes_racing_read_then_commit_never_lose_or_double_a_move(store: SqliteStore) -> None:
    table_id = await new_table(store)
    context = multiprocessing.get_context("spawn")
    wins: multiprocessing.Queue = context.Queue()
    workers = [
        context.Process(target=_race_in_process, args=(store.path, table_id, worker, 60, wins))
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
    assert_log_is_one_move_per_version(Path(store.path), table_id, total)
