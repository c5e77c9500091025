"""Store benchmark: committed moves per second, and leaderboard page time on a big database.

    .venv/bin/python bench/store.py [--moves 5000] [--matches 100000] [--players 5000] [--keep DB]
    .venv/bin/python bench/store.py --database-url postgresql://postgres@127.0.0.1:5432/test

Prints:
- moves committed per second on one table, then across 100 tables played concurrently (one coroutine
  per table, as the service runs them), each move a full commit_move: log entry with three events, a
  match-sized state, deadline;
- finished matches recorded per second, each with its rating update (issue 27) and, for comparison, without
  it (the store as before ratings: ``--rating-matches`` of each, on fresh databases, ``--rating-runs`` times
  alternated: the best of each, then the medians with their spread and the run-by-run change), and the
  process's CPU time per match with and without (on PostgreSQL on this machine, the server's too);
- measures of the same that a loaded machine does not disturb, with and without the rating update: on SQLite
  the WAL frames (pages written) per match and which tables and indexes they went to; on PostgreSQL the
  statements per match and their time as the bot's connection saw it (``--page-matches`` matches each);
- the time to record the finished matches, then leaderboard page, size and own-rank times in a guild holding
  all of them (median and 95th percentile over repeated calls), for each sort order, the rating board's
  included; on a PostgreSQL server whose autovacuum is off, the same again right after ``VACUUM (ANALYZE)``
  of the ratings' tables (every match rewrites its players' rows: without a vacuum their indexes keep every
  old entry, and the counts walk them; the store vacuums its own tables on such a server every 2,000 moves,
  ``bot/store/postgres_vacuum.py``, so the first timings are those of a store between two vacuums).

Targets (issue 4): at least 2,000 committed moves per second; a leaderboard page under 20 ms. Issue 27: the
match-result rate with the rating update within 10% of the rate without it; a rating-sorted page under 20 ms
with 100,000 finished matches, on both backends.
SQLite (the default): the file lives on the temporary folder's disk, with the store's own settings (WAL,
synchronous=NORMAL). PostgreSQL (--database-url): the benchmark works in schemas of its own in that database
(bench_<random>), dropped at the end, with the store's default pool of 10 connections.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.store import MatchResult, MoveCommit, RankingEntry, RoundResult, SeatRecord, Store, open_store
from bot.store.sqlite import SqliteStore

GUILD = 1
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
SORTS = ("wins", "winrate", "points")


def match_state(rng: random.Random, turn: int) -> dict[str, Any]:
    """A four-seat match's JSON: hands, stock, discard pile, history, totals (the engine's is ~10 KB)."""
    codes = [f"{rank}{suit}" for rank in ("A", *map(str, range(2, 11)), "J", "Q", "K") for suit in "CDHS"]
    deck = rng.sample(codes, len(codes))
    return {
        "format": 1,
        "turn": turn,
        "hands": [deck[i * 7 : i * 7 + 7] for i in range(4)],
        "stock": deck[28:],
        "discard": deck[:12],
        "history": [["play", i % 4, deck[i % 52]] for i in range(40)],
        "totals": [rng.randrange(100) for _ in range(4)],
        "timers": {"turn": 1234567.0 + turn, "pause": None},
    }


def sample_states(count: int) -> tuple[list[dict[str, Any]], str]:
    """States to commit: real engine states of a four-seat classic match when the engine is there."""
    rng = random.Random(1)
    try:
        from bot.engine import Match, get_preset
    except ImportError:
        return [match_state(rng, turn) for turn in range(count)], "synthetic"
    match = Match.new(get_preset("classic"), 4, seed=1)
    states = []
    while len(states) < count:
        if match.over:
            match = Match.new(get_preset("classic"), 4, seed=len(states))
        elif match.round.over:
            match.start_next_round()
        else:
            match.apply(rng.choice(match.round.legal_actions()))
            states.append(match.to_json())
    return states, "engine"


SYNCHRONOUS_OVERRIDE: list[str] = []


POSTGRES_URL: list[str] = []  # --database-url
POOL_SIZE: list[int] = []  # --pool-size
SCHEMAS: list[str] = []  # PostgreSQL schemas made by this run, dropped at its end


async def postgres_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_URL[0])
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def fresh_store(path: Path, *, keep_schema: str | None = None) -> Store:
    """A new, migrated database: a SQLite file at ``path``, or a PostgreSQL schema, dropped at the end unless
    ``keep_schema`` names it (then it is reused if it exists)."""
    if POSTGRES_URL:
        schema = keep_schema or f"bench_{secrets.token_hex(4)}"
        await postgres_admin(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        if keep_schema is None:
            SCHEMAS.append(schema)
        separator = "&" if "?" in POSTGRES_URL[0] else "?"
        store = await open_store(f"{POSTGRES_URL[0]}{separator}search_path={schema}", pool_size=POOL_SIZE[0])
        await store.migrate()
        return store
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    sqlite = await SqliteStore.open(str(path))
    for level in SYNCHRONOUS_OVERRIDE:
        pragma = f"PRAGMA synchronous = {level}"
        await sqlite.run_in_connection(lambda conn, pragma=pragma: conn.execute(pragma))
    await sqlite.migrate()
    return sqlite


async def open_table(store: Store, channel_id: int, host: int, now: float) -> int:
    table = await store.create_table(
        guild_id=GUILD,
        channel_id=channel_id,
        host=SeatRecord(0, host, f"Player {host}", joined_at=now),
        ruleset={"name": "classic", "target": 100},
        options={"preset": "classic"},
        turn_timeout=60.0,
        state={"phase": "lobby"},
        deadline=now + 600,
        now=now,
    )
    return table.id


async def play_moves(store: Store, table_id: int, count: int, states: list[dict[str, Any]]) -> None:
    version = (await store.get_state(table_id)).version  # type: ignore[union-attr]
    for i in range(count):
        version = await store.commit_move(
            MoveCommit(
                table_id,
                version,
                actor_id=42,
                action={"kind": "play", "seat": i % 4, "card": 37},
                events=[
                    {"kind": "played", "seat": i % 4, "data": {"card": "QH"}, "visible_to": None},
                    {"kind": "drew_cards", "seat": i % 4, "data": {"cards": ["2C"]}, "visible_to": i % 4},
                    {"kind": "turn", "seat": (i + 1) % 4, "data": {}, "visible_to": None},
                ],
                new_state=states[i % len(states)],
                deadline=1_000_000.0 + i,
                now=1_000_000.0 + i,
            )
        )


async def bench_moves(path: Path, moves: int) -> None:
    states, kind = sample_states(64)
    size = sum(len(json.dumps(state)) for state in states) // len(states)
    print(f"state: {kind} match states, {size / 1000:.1f} KB of JSON on average")
    store = await fresh_store(path)
    try:
        table_id = await open_table(store, 1, 42, 0.0)
        await play_moves(store, table_id, 200, states)  # warm up
        started = time.perf_counter()
        await play_moves(store, table_id, moves, states)
        elapsed = time.perf_counter() - started
        print(f"one table:  {moves / elapsed:8.0f} moves/s committed ({moves} moves, {elapsed:.2f} s)")

        tables = [await open_table(store, 1000 + i, 42, 0.0) for i in range(100)]
        per_table = max(1, moves // 100)
        started = time.perf_counter()
        await asyncio.gather(*(play_moves(store, table, per_table, states) for table in tables))
        elapsed = time.perf_counter() - started
        total = per_table * len(tables)
        print(f"100 tables: {total / elapsed:8.0f} moves/s committed ({total} moves, {elapsed:.2f} s)")
    finally:
        await store.close()


async def bench_rating_cost(path: Path, matches: int, players: int, runs: int) -> None:
    """Match results per second with the rating update, and without it, each on a fresh database; and the
    process's CPU time per match (every thread's: the event loop's and the database's), which the other
    work of a shared machine disturbs less than the wall clock. ``runs`` of each, alternated; the best of
    each is printed (on PostgreSQL a match result's commit waits for the WAL's flush, which a disk shared with
    other jobs makes vary from one run to the next by more than the rating costs)."""
    rates: dict[bool, list[float]] = {False: [], True: []}
    cpu: dict[bool, list[float]] = {False: [], True: []}
    server: dict[bool, list[float]] = {False: [], True: []}
    for rated in (False, True) * runs:  # alternated, so that a warming machine favours neither
        store = await fresh_store(path)
        try:
            # Without: the store as it was before ratings (what it does on a schema older than 0009). Set
            # here on the private switch: the bot itself always rates.
            store._rates = rated  # type: ignore[attr-defined]
            backends = await server_processes(store)
            started_server = server_cpu(backends)
            started, started_cpu = time.perf_counter(), time.process_time()
            await record_matches(store, matches, players)
            rates[rated].append(matches / (time.perf_counter() - started))
            cpu[rated].append((time.process_time() - started_cpu) / matches * 1000)
            if backends:
                server[rated].append((server_cpu(backends) - started_server) / matches * 1000)
        finally:
            await store.close()
    best = {rated: max(rates[rated]) for rated in rates}
    least = {rated: min(cpu[rated]) for rated in cpu}
    print(
        f"match results: {best[True]:.0f}/s with the rating update, {best[False]:.0f}/s without "
        f"({100 * (best[True] / best[False] - 1):+.1f}%; best of {runs} runs of {matches} each); "
        f"CPU per match {least[True]:.3f} ms with, {least[False]:.3f} ms without "
        f"({100 * (least[True] / least[False] - 1):+.1f}%)"
    )
    # The medians and the spread, and each run with ratings against the run without just before it: on a
    # shared machine the best of a few runs can be one lucky run.
    paired = [100 * (with_ / without - 1) for without, with_ in zip(rates[False], rates[True], strict=True)]
    median = {rated: statistics.median(rates[rated]) for rated in rates}
    cpu_median = {rated: statistics.median(cpu[rated]) for rated in cpu}
    print(
        f"  medians: {median[True]:.0f}/s with ({min(rates[True]):.0f}-{max(rates[True]):.0f}), "
        f"{median[False]:.0f}/s without ({min(rates[False]):.0f}-{max(rates[False]):.0f}), "
        f"{100 * (median[True] / median[False] - 1):+.1f}%; run by run {statistics.median(paired):+.1f}% "
        f"({min(paired):+.1f}% to {max(paired):+.1f}%); CPU per match {cpu_median[True]:.3f} ms with, "
        f"{cpu_median[False]:.3f} ms without ({100 * (cpu_median[True] / cpu_median[False] - 1):+.1f}%)"
    )
    if server[True] and server[False]:
        # The server's processes' CPU time (PostgreSQL on this machine): the statements' work, which the
        # bot's own CPU time does not show and a shared machine disturbs less than the wall clock.
        least = {rated: min(server[rated]) for rated in server}
        middle = {rated: statistics.median(server[rated]) for rated in server}
        print(
            f"  server CPU per match: least {least[True]:.3f} ms with, {least[False]:.3f} ms without "
            f"({100 * (least[True] / least[False] - 1):+.1f}%); medians {middle[True]:.3f} ms with, "
            f"{middle[False]:.3f} ms without ({100 * (middle[True] / middle[False] - 1):+.1f}%)"
        )


async def server_processes(store: Store) -> list[int]:
    """The PostgreSQL server processes behind every connection of the store's pool (all opened now), when
    the server runs on this machine (their CPU time readable in /proc); none otherwise or on SQLite."""
    if not POSTGRES_URL:
        return []
    pool = store._pool  # type: ignore[attr-defined]
    held = [await pool.acquire() for _ in range(pool.get_max_size())]
    pids = [conn.get_server_pid() for conn in held]
    for conn in held:
        await pool.release(conn)
    return pids if all(Path(f"/proc/{pid}/stat").exists() for pid in pids) else []


def server_cpu(pids: list[int]) -> float:
    """The processes' user and system CPU seconds so far."""
    ticks = 0
    for pid in pids:
        # The fields after the command's name (which may hold spaces): utime and stime are the 12th and 13th.
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / CLOCK_TICKS


async def bench_rating_pages(path: Path, warm: int, matches: int, players: int) -> None:
    """What one match result writes, with and without the rating update, measured without a clock: after
    ``warm`` matches, ``matches`` more are recorded. SQLite: the WAL's frames (one per page written by a
    commit), attributed to the table or index that owns each page (``dbstat``); each match is two
    transactions, its table's creation and its final move with the result. PostgreSQL: the statements sent
    per match (round trips) and the time they took as the connection saw it (local socket: mostly the
    server's work)."""
    for rated in (False, True):
        store = await fresh_store(path)
        try:
            store._rates = rated  # type: ignore[attr-defined]
            await record_matches(store, warm, players)
            label = "with the rating update" if rated else "without"
            if POSTGRES_URL:
                await pg_statements(store, matches, players, label, seed=warm)
            else:
                await sqlite_frames(store, path, matches, players, label, seed=warm)
        finally:
            await store.close()


async def sqlite_frames(store: Store, path: Path, matches: int, players: int, label: str, seed: int) -> None:
    assert isinstance(store, SqliteStore)
    await store.run_in_connection(lambda conn: conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall())
    await store.run_in_connection(lambda conn: conn.execute("PRAGMA wal_autocheckpoint = 0"))
    await record_matches(store, matches, players, seed=seed)
    wal = Path(f"{path}-wal").read_bytes()
    page_size = struct.unpack(">I", wal[8:12])[0]
    # The WAL's 32-byte header, then frames: a 24-byte header (the page number first) and the page.
    pages = [struct.unpack(">I", wal[at : at + 4])[0] for at in range(32, len(wal) - 23, 24 + page_size)]
    owners = dict(
        await store.run_in_connection(lambda conn: conn.execute("SELECT pageno, name FROM dbstat").fetchall())
    )
    counts: dict[str, int] = {}
    for page in pages:
        owner = owners.get(page, "(free)")
        counts[owner] = counts.get(owner, 0) + 1
    top = sorted(counts.items(), key=lambda item: -item[1])[:8]
    rating = sum(count for name, count in counts.items() if name.startswith("ratings"))
    print(
        f"WAL frames per match {label}: {len(pages) / matches:.1f}, ratings' {rating / matches:.2f} "
        f"(most: {', '.join(f'{name} {count / matches:.2f}' for name, count in top)})"
    )


async def pg_statements(store: Store, matches: int, players: int, label: str, seed: int) -> None:
    from bot.store.postgres import PostgresStore

    assert isinstance(store, PostgresStore)
    sent: list[float] = []
    commits: list[float] = []

    def log(record: Any) -> None:
        # COMMIT waits for the WAL's flush to disk, which other jobs on a shared disk make vary: kept apart.
        (commits if record.query.strip().upper().startswith("COMMIT") else sent).append(float(record.elapsed))

    # Every connection of the pool logs (acquired all at once, so each is a different one).
    pool = store._pool  # type: ignore[attr-defined]
    held = [await pool.acquire() for _ in range(pool.get_size())]
    for conn in held:
        conn.add_query_logger(log)
    for conn in held:
        await pool.release(conn)
    await record_matches(store, matches, players, seed=seed)
    held = [await pool.acquire() for _ in range(pool.get_size())]
    for conn in held:
        conn.remove_query_logger(log)
    for conn in held:
        await pool.release(conn)
    print(
        f"statements per match {label}: {(len(sent) + len(commits)) / matches:.1f} (table creation and final "
        f"move), {sum(sent) / matches * 1000:.2f} ms in them besides COMMIT, "
        f"median {statistics.median(sent) * 1000:.3f} ms; COMMIT {sum(commits) / matches * 1000:.2f} ms"
    )


async def record_matches(store: Store, matches: int, players: int, *, seed: int = 0) -> None:
    rng = random.Random(2 + seed)
    now = 1_700_000_000.0 + seed
    for match in range(matches):
        seated = rng.sample(range(1, players + 1), rng.choice((2, 3, 4)))
        now += 1.0
        table_id = await open_table(store, 10_000 + match % 50, seated[0], now)
        totals = [rng.randrange(0, 120) for _ in seated]
        places = [1 + sum(1 for other in totals if other < total) for total in totals]
        await store.commit_move(
            MoveCommit(
                table_id,
                0,
                actor_id=seated[0],
                action={"kind": "play"},
                events=[],
                new_state={"over": True},
                deadline=None,
                now=now,
                status="finished",
                seats=[SeatRecord(i, user, f"Player {user}", joined_at=now) for i, user in enumerate(seated)],
                round_result=RoundResult(1, totals, [places.index(1)]),
                match_result=MatchResult(
                    "classic",
                    1,
                    [
                        RankingEntry(i, user, f"Player {user}", places[i], totals[i])
                        for i, user in sorted(enumerate(seated), key=lambda item: places[item[0]])
                    ],
                    round_wins={places.index(1): 1},
                    round_points=dict(enumerate(totals)),
                ),
            )
        )


async def timed(call: Callable[[], Awaitable[object]], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


async def bench_leaderboard(path: Path, matches: int, players: int, keep: bool) -> None:
    """``keep``: reuse the database at ``path`` (PostgreSQL: that schema), topped up to ``matches``."""
    schema = ""
    if POSTGRES_URL:
        store = await fresh_store(path, keep_schema=str(path) if keep else None)
        schema = str(path) if keep else SCHEMAS[-1]  # the one fresh_store made
    else:
        reuse = keep and path.exists()
        store = await SqliteStore.open(str(path)) if reuse else await fresh_store(path)
    try:
        await store.migrate()
        missing = matches - (await store.row_counts())["match_results"]
        if missing > 0:
            started = time.perf_counter()
            await record_matches(store, missing, players)
            elapsed = time.perf_counter() - started
            print(
                f"recorded {missing} finished matches in {elapsed:.1f} s "
                f"({missing / elapsed:.0f} matches/s; each a new table and a final move with its results)"
            )
        board = await store.leaderboard_size(GUILD)
        size_mb = (await database_bytes(store, path)) / 1e6
        print(f"guild {GUILD}: {board} players on the board; database {size_mb:.0f} MB")
        await time_boards(store, board)
        if POSTGRES_URL and not await autovacuum_on():
            # Every match rewrites its players' rows: without a vacuum their indexes keep every old entry (a
            # skill-ordered one most), and the counts walk them. The store vacuums every 2,000 moves on such
            # a server; the same right after a vacuum.
            await postgres_admin(f"VACUUM (ANALYZE) {schema}.player_stats, {schema}.ratings")
            print(
                "  autovacuum is off on this server: the same right after VACUUM (ANALYZE) of the ratings'"
                " tables"
            )
            await time_boards(store, board)
    finally:
        await store.close()


async def autovacuum_on() -> bool:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_URL[0])
    try:
        return bool(await conn.fetchval("SELECT setting = 'on' FROM pg_settings WHERE name = 'autovacuum'"))
    finally:
        await conn.close()


async def time_boards(store: Store, board: int) -> None:
    """Every board's first and middle page, size and a player's rank; the rating board; a player's stats."""
    some_user = (await store.leaderboard(GUILD, offset=board // 2, limit=1))[0].user_id
    for sort in SORTS:
        first = await timed(lambda sort=sort: store.leaderboard(GUILD, sort=sort, limit=10), 200)
        middle = await timed(
            lambda sort=sort: store.leaderboard(GUILD, sort=sort, offset=board // 2, limit=10), 100
        )
        size = await timed(lambda sort=sort: store.leaderboard_size(GUILD, sort=sort), 50)
        rank = await timed(lambda sort=sort: store.leaderboard_rank(GUILD, some_user, sort=sort), 50)
        print(
            f"leaderboard {sort:7}: first page {first[0]:6.2f} ms (p95 {first[1]:6.2f}), "
            f"middle page {middle[0]:6.2f} ms (p95 {middle[1]:6.2f}), "
            f"size {size[0]:6.2f} ms, own rank {rank[0]:6.2f} ms"
        )
    ranked = await store.rating_board_size(GUILD)
    first = await timed(lambda: store.rating_board(GUILD, limit=10), 200)
    middle = await timed(lambda: store.rating_board(GUILD, offset=ranked // 2, limit=10), 100)
    provisional = await timed(lambda: store.rating_board(GUILD, ranked=False, limit=10), 100)
    size = await timed(lambda: store.rating_board_size(GUILD), 50)
    rating = await timed(lambda: store.player_rating(GUILD, some_user), 50)
    print(
        f"leaderboard rating : first page {first[0]:6.2f} ms (p95 {first[1]:6.2f}), "
        f"middle page {middle[0]:6.2f} ms (p95 {middle[1]:6.2f}), "
        f"provisional page {provisional[0]:6.2f} ms, size {size[0]:6.2f} ms, "
        f"own rating with rank and history {rating[0]:6.2f} ms ({ranked} ranked)"
    )
    stats = await timed(lambda: store.player_stats(GUILD, some_user), 200)
    recent = await timed(lambda: store.recent_matches(GUILD, limit=10), 200)
    print(f"player stats {stats[0]:.2f} ms, recent matches {recent[0]:.2f} ms (medians)")


async def database_bytes(store: Store, path: Path) -> int:
    if not POSTGRES_URL:
        return Path(path).stat().st_size
    from bot.store.postgres import PostgresStore

    assert isinstance(store, PostgresStore)
    return int(
        await store.run_in_connection(
            lambda conn: conn.fetchval(
                "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
            )
        )
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=5000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=5000, help="distinct players in the guild")
    parser.add_argument(
        "--rating-matches", type=int, default=3000, help="matches for the rating update's cost (0: skip)"
    )
    parser.add_argument(
        "--rating-runs", type=int, default=3, help="runs with and without ratings each, alternated"
    )
    parser.add_argument(
        "--page-matches",
        type=int,
        default=300,
        help="matches (after --rating-matches) whose WAL frames or statements are counted (0: skip)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="keep (and reuse) the leaderboard database at this path (PostgreSQL: a schema name)",
    )
    parser.add_argument(
        "--synchronous", choices=("NORMAL", "FULL", "OFF"), help="override the store's level (for comparison)"
    )
    parser.add_argument(
        "--database-url", help="a PostgreSQL database to measure in (schemas of its own, dropped at the end)"
    )
    parser.add_argument(
        "--pool-size", type=int, default=10, help="PostgreSQL connections (DATABASE_POOL_SIZE)"
    )
    args = parser.parse_args()
    POOL_SIZE.append(args.pool_size)
    if args.synchronous:
        SYNCHRONOUS_OVERRIDE.append(args.synchronous)
    if args.database_url:
        if not args.database_url.startswith(("postgresql://", "postgres://")):
            parser.error("--database-url takes a postgresql:// URL (SQLite is the default)")
        POSTGRES_URL.append(args.database_url)
    print(f"backend: {'PostgreSQL' if POSTGRES_URL else 'SQLite'}")
    try:
        with tempfile.TemporaryDirectory() as folder:
            await bench_moves(Path(folder) / "moves.sqlite3", args.moves)
            if args.page_matches > 0:
                await bench_rating_pages(
                    Path(folder) / "pages.sqlite3", args.rating_matches, args.page_matches, args.players
                )
            if args.rating_matches > 0 and args.rating_runs > 0:
                await bench_rating_cost(
                    Path(folder) / "rated.sqlite3", args.rating_matches, args.players, args.rating_runs
                )
            if args.matches > 0:
                board_db = args.keep or Path(folder) / "board.sqlite3"
                await bench_leaderboard(board_db, args.matches, args.players, keep=args.keep is not None)
    finally:
        for schema in SCHEMAS:
            await postgres_admin(f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    asyncio.run(main())
