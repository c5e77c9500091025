"""SIGKILL a process committing moves to PostgreSQL at random moments: every table is exactly its move log
(no move half applied, none lost after its commit returned), and statistics and ratings count each recorded
match once.
(The SQLite twin, with 50 kills and a replay of real games, is test_crash_safety.py.)"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from bot.store import Store, open_store
from tests.store.pg_crash_child import FINISH_AT

KILLS = 6
REPO = Path(__file__).resolve().parents[2]


def start_child(url: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.store.pg_crash_child", url],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    return child


async def check_every_table(store: Store) -> int:
    """Returns the number of moves in the database."""
    total = 0
    finished = 0
    table_id = 1
    while (table := await store.get_table(table_id)) is not None:
        state = await store.get_state(table_id)
        moves = await store.moves(table_id)
        assert state is not None
        assert [(m.seq, m.version) for m in moves] == [(v, v) for v in range(1, state.version + 1)]
        assert state.state == {"n": state.version} and (
            state.version == 0 or state.deadline == state.version - 1
        )
        done = state.version == FINISH_AT
        assert (table.status == "finished") == done
        assert (await store.match_ranking(table_id) != []) == done
        assert len(await store.list_seats(table_id)) == (1 if state.version == 0 else 2)  # the host, then two
        finished += done
        total += len(moves)
        table_id += 1
    for user in (11, 12):
        stats = await store.player_stats(1, user)
        assert (stats.matches_played if stats else 0) == finished
        # Rated once per recorded match, in the result's transaction: never without it, never twice.
        rating = await store.player_rating(1, user)
        assert (rating.matches if rating else 0) == finished
        assert len(rating.history if rating else ()) == min(finished, 20)
    return total


async def test_sigkill_while_committing_leaves_every_table_whole(pg_url: str) -> None:
    rng = random.Random(15)
    store = await open_store(pg_url)
    try:
        moves = 0
        for _ in range(KILLS):
            child = start_child(pg_url)
            time.sleep(rng.uniform(0.05, 0.6))
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
            now = await check_every_table(store)
            assert now >= moves  # nothing committed before was lost
            moves = now
        assert moves > 20  # the children really played
    finally:
        await store.close()
