"""Ratings under racing processes, on each backend: matches of the same players ending at once in several
processes are each rated once, none lost to another's write; processes racing to commit the same final
move rate the match once."""

from __future__ import annotations

import asyncio
import multiprocessing
from typing import Any

from bot.store import ConflictError, Store, open_store
from tests.store.conftest import GUILD, new_table
from tests.store.test_ratings import Seat, commit_result, ratings_of

SEATS: list[Seat] = [(11, None, 1), (12, None, 2), (None, "hard", 3)]
PROCESSES = 3
MATCHES = 25


def _finish_matches(url: str, worker: int, start: Any, done: multiprocessing.Queue) -> None:
    async def run() -> int:
        store = await open_store(url)
        try:
            tables = [
                await new_table(store, channel_id=1000 * (worker + 1) + n, host=None) for n in range(MATCHES)
            ]
            start.wait(60)  # every process ready: their commits overlap
            for n, table_id in enumerate(tables):
                # Each process its own order of places, so that the updates differ.
                seats = SEATS[worker % 3 :] + SEATS[: worker % 3]
                places = [
                    (user, level, place) for (user, level, _), (_, _, place) in zip(seats, SEATS, strict=True)
                ]
                await commit_result(store, table_id, 0, places, now=float(n))
        finally:
            await store.close()
        return MATCHES

    done.put(asyncio.run(run()))


async def test_matches_of_the_same_players_ending_at_once_are_each_rated(
    store: Store, backend_url: str
) -> None:
    context = multiprocessing.get_context("spawn")
    done: multiprocessing.Queue = context.Queue()
    start = context.Barrier(PROCESSES)
    workers = [
        context.Process(target=_finish_matches, args=(backend_url, w, start, done)) for w in range(PROCESSES)
    ]
    for process in workers:
        process.start()
    total = sum(await asyncio.to_thread(lambda: [done.get(timeout=120) for _ in workers]))
    for process in workers:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert total == PROCESSES * MATCHES
    found = await ratings_of(store)
    assert {key: matches for key, (_, matches) in found.items()} == {
        (11, None): total,
        (12, None): total,
        (None, "hard"): total,
    }
    # One row each: the people's ratings in their statistics rows, the CPU level's in ratings.
    counts = await store.row_counts()
    assert counts["ratings"] == 1 and counts["player_stats"] == 2


def _commit_the_end(url: str, table_id: int, wins: multiprocessing.Queue) -> None:
    async def run() -> bool:
        store = await open_store(url)
        try:
            await commit_result(store, table_id, 0, SEATS, now=5.0)
        except ConflictError:
            return False
        finally:
            await store.close()
        return True

    wins.put(asyncio.run(run()))


async def test_processes_racing_to_commit_the_last_move_rate_the_match_once(
    store: Store, backend_url: str
) -> None:
    table_id = await new_table(store)
    context = multiprocessing.get_context("spawn")
    wins: multiprocessing.Queue = context.Queue()
    workers = [context.Process(target=_commit_the_end, args=(backend_url, table_id, wins)) for _ in range(4)]
    for process in workers:
        process.start()
    results = await asyncio.to_thread(lambda: [wins.get(timeout=120) for _ in workers])
    for process in workers:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert results.count(True) == 1
    assert {key: matches for key, (_, matches) in (await ratings_of(store)).items()} == {
        (11, None): 1,
        (12, None): 1,
        (None, "hard"): 1,
    }
    mine = await store.player_rating(GUILD, 11)
    assert mine is not None and len(mine.history) == 1
