"""Kill -9 at random moments: the database stays sound and every table is exactly the replay of its move log.

A child process (tests/store/crash_child.py) plays moves through the store in a loop and is killed with
SIGKILL at random moments — usually mid-game, sometimes while it is still starting up and migrating — 50
times. After every kill the database must pass ``PRAGMA integrity_check`` and the foreign-key check, and for
every table: the move log is numbered 1..n with the state at version n; the stored state is what replaying the
log from the table's seed gives; the round results, the status, the match result and the seats are exactly
what the moves in the log imply — none of a move's writes present without the move, or the other way round.
Statistics must equal a recount from the recorded match results: no match counted twice or half; likewise
every recorded match is rated exactly once (each rating's count of matches).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.store.migrations import DEFAULT_MIGRATIONS_DIR, discover
from bot.store.sqlite import SqliteStore
from tests.store.crash_game import canonical, pick_game
from tests.zygote import REPO, ZygoteProcess

KILLS = 50
REAL_MIGRATIONS = discover(DEFAULT_MIGRATIONS_DIR)


class Zygote(ZygoteProcess):
    """Drives tests/store/crash_child.py: forks players, and waits for a killed one to be gone."""

    def __init__(self, db: Path, log: Path) -> None:
        super().__init__("tests.store.crash_child", [str(db)], log)

    def _expect(self, words: tuple[str, ...], pid: int | None = None) -> list[str]:
        """The next line starting with one of ``words`` (about ``pid``); older players' lines are skipped."""
        while True:
            parts = self._read()
            if parts[0] in words and (pid is None or int(parts[1]) == pid):
                return parts

    def spawn(self, seed: int) -> int:
        self._send(f"spawn {seed}")
        return int(self._expect(("pid",))[1])

    def wait_ready(self, pid: int) -> bool:
        """True once the player is playing; False if it failed (its traceback is in the log)."""
        return self._expect(("ready", "failed"), pid)[0] == "ready"

    def kill(self, pid: int) -> int:
        """SIGKILL the player and return its wait status once it is really gone."""
        os.kill(pid, signal.SIGKILL)
        self._send(f"reap {pid}")
        return int(self._expect(("dead",), pid)[2])


@dataclass
class Replayed:
    """How far a table's log has been verified, and what replaying it that far gave."""

    moves: int
    digest: Any  # hashlib sha256 of the verified rows
    state: dict[str, Any]
    rounds: list[tuple[int, int, int, int]]
    ranking: list[tuple[int, int, int]] | None


class Checker:
    """Verifies the database after a kill; remembers which tables are settled (finished and verified)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.game = pick_game()
        self.settled: set[int] = set()
        self.replayed: dict[int, Replayed] = {}
        self.moves_seen = 0
        self.matches_finished = 0

    def check(self) -> None:
        conn = sqlite3.connect(self.db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            applied = conn.execute(
                "SELECT name FROM sqlite_master WHERE name = 'schema_migrations'"
            ).fetchone()
            if applied is None:
                return  # killed before the first migration committed
            self._check_stats(conn)
            self._check_ratings(conn)
            tables = conn.execute("SELECT id, status, options FROM game_tables ORDER BY id").fetchall()
            finished = 0
            for table_id, status, options in tables:
                if table_id in self.settled:
                    finished += 1
                    continue
                if self._check_table(conn, table_id, status, json.loads(options)["seed"]):
                    self.settled.add(table_id)
                    finished += 1
            open_tables = [row for row in tables if row[1] in ("lobby", "playing")]
            assert len(open_tables) <= 2 and len({row[0] for row in open_tables}) == len(open_tables)
            self.moves_seen = conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
            self.matches_finished = finished
        finally:
            conn.close()

    def _check_table(self, conn: sqlite3.Connection, table_id: int, status: str, seed: int) -> bool:
        """Check one table against the replay of its log; True when its match is over (it can no longer
        change)."""
        log = conn.execute(
            "SELECT seq, version, action, events FROM moves WHERE table_id = ? ORDER BY seq", (table_id,)
        ).fetchall()
        version, stored = conn.execute(
            "SELECT version, state FROM game_state WHERE table_id = ?", (table_id,)
        ).fetchone()
        n = len(log)
        assert [(seq, v) for seq, v, _, _ in log] == [(i, i) for i in range(1, n + 1)], table_id
        assert version == n, (table_id, version, n)

        # Replay incrementally: the log verified after the previous kill must be unchanged (it is
        # append-only), so only the moves added since are replayed on top of the state it gave.
        done = self.replayed.get(table_id)
        if done is None:
            done = Replayed(0, hashlib.sha256(), self.game.new(seed), [], None)
        assert n >= done.moves, f"table {table_id}: the move log lost moves"
        prefix = hashlib.sha256()
        for row in log[: done.moves]:
            prefix.update(repr(row).encode())
        assert prefix.digest() == done.digest.digest(), f"table {table_id}: the move log was rewritten"
        state, rounds, ranking = done.state, list(done.rounds), done.ranking
        for row in log[done.moves :]:
            _, _, action, events = row
            assert ranking is None, "a move after the match ended"
            step = self.game.apply(state, json.loads(action))
            assert json.loads(events) == canonical(step.events)
            state = step.state
            if step.round_result is not None:
                number, scores, winners = step.round_result
                rounds += [(number, seat, score, int(seat in winners)) for seat, score in enumerate(scores)]
            ranking = step.ranking
            done.digest.update(repr(row).encode())
        self.replayed[table_id] = Replayed(n, done.digest, state, rounds, ranking)
        assert json.loads(stored) == canonical(state), (
            f"table {table_id}: stored state is not the replay of its log"
        )

        assert (
            conn.execute(
                "SELECT round_number, position, score, won FROM round_results WHERE table_id = ? "
                "ORDER BY round_number, position",
                (table_id,),
            ).fetchall()
            == rounds
        )

        expected_status = "lobby" if n == 0 else ("finished" if ranking is not None else "playing")
        assert status == expected_status, (table_id, status, expected_status)
        seats = conn.execute("SELECT position FROM seats WHERE table_id = ? ORDER BY position", (table_id,))
        assert [row[0] for row in seats] == ([0] if n == 0 else [0, 1, 2])

        recorded = conn.execute(
            "SELECT place, position, total FROM match_rankings WHERE table_id = ? ORDER BY place, position",
            (table_id,),
        ).fetchall()
        has_result = conn.execute(
            "SELECT COUNT(*) FROM match_results WHERE table_id = ?", (table_id,)
        ).fetchone()
        if ranking is None:
            assert recorded == [] and has_result == (0,)
        else:
            assert recorded == sorted(ranking) and has_result == (1,)
        return ranking is not None

    def _check_ratings(self, conn: sqlite3.Connection) -> None:
        """Every recorded match, and nothing else, is rated exactly once: it is marked rated, and each rating
        (a person's, a CPU level's) counts the recorded matches it played in."""
        assert conn.execute("SELECT COUNT(*) FROM match_results WHERE rated = 0").fetchone() == (0,)
        played: Counter[tuple[int, int, str]] = Counter()
        for guild_id, user_id, level, _ in conn.execute(
            "SELECT DISTINCT m.guild_id, COALESCE(r.user_id, 0), "
            "CASE WHEN r.user_id IS NULL THEN s.cpu_level ELSE '' END, r.table_id "
            "FROM match_results AS m JOIN match_rankings AS r ON r.table_id = m.table_id "
            "JOIN seats AS s ON s.table_id = r.table_id AND s.position = r.position "
            "WHERE r.user_id IS NOT NULL OR s.cpu_level IS NOT NULL"
        ).fetchall():
            played[(guild_id, user_id, level)] += 1
        # People's ratings are in their statistics rows (migration 0013), the CPU levels' in ratings.
        counted = {
            (guild_id, user_id, level): matches
            for user_id, level, guild_id, matches in conn.execute(
                "SELECT user_id, cpu_level, guild_id, matches FROM ratings UNION ALL "
                "SELECT user_id, '', guild_id, rated_matches FROM player_stats WHERE rated_matches > 0"
            )
        }
        assert counted == dict(played)

    def _check_stats(self, conn: sqlite3.Connection) -> None:
        """player_stats equals a recount from match_rankings: every match counted exactly once."""
        played: Counter[tuple[int, int]] = Counter()
        won: Counter[tuple[int, int]] = Counter()
        points: Counter[tuple[int, int]] = Counter()
        rows = conn.execute(
            "SELECT r.guild_id, k.table_id, k.user_id, k.place FROM match_results AS r "
            "JOIN match_rankings AS k ON k.table_id = r.table_id"
        ).fetchall()
        places: dict[int, list[int]] = {}
        for _, table_id, _, place in rows:
            places.setdefault(table_id, []).append(place)
        for guild_id, table_id, user_id, place in rows:
            if user_id is None:
                continue
            key = (guild_id, user_id)
            played[key] += 1
            won[key] += place == 1
            points[key] += sum(1 for other in places[table_id] if other > place)
        stats = {
            (guild_id, user_id): (matches_played, matches_won, pts)
            for guild_id, user_id, matches_played, matches_won, pts in conn.execute(
                "SELECT guild_id, user_id, matches_played, matches_won, points FROM player_stats"
            )
        }
        assert stats == {key: (played[key], won[key], points[key]) for key in played}


def test_sigkill_at_random_moments_never_corrupts_or_half_applies(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    checker = Checker(db)
    rng = random.Random(20261122)
    progress: list[int] = []
    zygote = Zygote(db, tmp_path / "players.log")
    try:
        for kill in range(KILLS):
            pid = zygote.spawn(seed=kill)
            if kill % 10 == 3:
                # Now and then during start-up: opening the file, applying migrations.
                time.sleep(rng.uniform(0.0, 0.03))
            else:
                assert zygote.wait_ready(pid), (tmp_path / "players.log").read_text()
                time.sleep(rng.uniform(0.01, 0.15))
            status = zygote.kill(pid)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
                f"the player ended on its own: {(tmp_path / 'players.log').read_text()}"
            )
            checker.check()
            progress.append(checker.moves_seen)
    finally:
        zygote.close()
    # The kills landed while real work was going on: moves kept being committed, and matches ended.
    assert checker.matches_finished >= 1 or checker.game.name == "engine"
    assert len(set(progress)) > KILLS // 2, progress


_MIGRATE_IN_A_CHILD = """
import asyncio, sys
from pathlib import Path
from bot.store.sqlite import SqliteStore

async def main():
    store = await SqliteStore.open(sys.argv[1], migrations_dir=Path(sys.argv[2]))
    await store.migrate()

asyncio.run(main())
"""


def test_sigkill_in_the_middle_of_a_migration_leaves_none_of_it(tmp_path: Path) -> None:
    """A slow migration is killed while it writes: its table and its ledger row are both absent, the earlier
    migrations are whole, and the next start applies it from the beginning."""
    code = tmp_path / "migrations"
    code.mkdir()
    for migration in REAL_MIGRATIONS:
        (code / migration.name).write_text(migration.sql)
    slow = f"{len(REAL_MIGRATIONS) + 1:04d}_slow.sql"
    (code / slow).write_text(
        "CREATE TABLE filler (n INTEGER PRIMARY KEY, pad TEXT);\n"
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 400000)\n"
        "INSERT INTO filler SELECT n, printf('%0100d', n) FROM c;\n"
    )
    db = tmp_path / "bot.sqlite3"
    wal = Path(f"{db}-wal")
    child = subprocess.Popen(
        [sys.executable, "-c", _MIGRATE_IN_A_CHILD, str(db), str(code)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        deadline = time.monotonic() + 60
        # The first migrations write a few pages; megabytes in the WAL mean the slow one is under way.
        while not (wal.exists() and wal.stat().st_size > 4_000_000):
            assert child.poll() is None, "the migration finished before it could be interrupted"
            assert time.monotonic() < deadline
            time.sleep(0.005)
    finally:
        child.kill()
        child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL

    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        ledger = [name for (name,) in conn.execute("SELECT name FROM schema_migrations ORDER BY version")]
    finally:
        conn.close()
    assert ledger == [m.name for m in REAL_MIGRATIONS]
    assert "filler" not in names
    assert {"game_tables", "moves", "player_stats"} <= names

    assert asyncio.run(_migrate(db, code)) == len(REAL_MIGRATIONS) + 1
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM filler").fetchone() == (400000,)
    finally:
        conn.close()


async def _migrate(db: Path, code: Path) -> int:
    store = await SqliteStore.open(str(db), migrations_dir=code)
    try:
        return await store.migrate()
    finally:
        await store.close()
