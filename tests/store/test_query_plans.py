"""Every query the store makes is served by an index: no full table scans, no sorting the leaderboard."""

from __future__ import annotations

import re
import sqlite3

from bot.store import GuildSettings, SeatRecord
from bot.store.sqlite import SqliteStore
from tests.store.conftest import GUILD, new_table
from tests.store.test_sqlite_store import finish_match

_BARE_SCAN = re.compile(r"\bSCAN (\w+)$")
# The schema ledger and sqlite_master (read by the migration runner) are tiny; json_each is a function.
_SCAN_ALLOWED = {"sqlite_master", "json_each", "schema_migrations"}


async def exercise_every_query(store: SqliteStore) -> None:
    await store.schema_version()
    await store.set_meta("k", "v")
    await store.get_meta("k")
    await store.write_heartbeat(1.0)
    await store.read_heartbeat()
    await store.save_guild_settings(GuildSettings(GUILD, allowed_channel_ids=(1, 2)))
    await store.get_guild_settings(GUILD)
    table_id = await finish_match(store, 1, [(11, 1, 0), (12, 2, 5)], now=1.0)
    live = await new_table(store, channel_id=2)
    await store.commit_move(
        live, 0, actor_id=1, action={}, events=[], new_state={}, deadline=1.0, now=1.0,
        seats=[SeatRecord(0, 1, "A"), SeatRecord(1, None, "CPU", cpu_level="easy")],
        options={"target": 50}, status="playing",
    )  # fmt: skip
    await store.set_board_message(live, 9, now=2.0)
    await store.get_table(live)
    await store.open_table_in_channel(2)
    await store.list_seats(live)
    await store.get_state(live)
    await store.load_open_tables()
    await store.moves(table_id)
    await store.round_results(table_id)
    await store.match_ranking(table_id)
    for sort in ("wins", "winrate", "points"):
        await store.leaderboard(GUILD, sort=sort, offset=1, limit=5)  # type: ignore[arg-type]
        await store.leaderboard_size(GUILD, sort=sort)  # type: ignore[arg-type]
        await store.leaderboard_rank(GUILD, 11, sort=sort)  # type: ignore[arg-type]
    await store.player_stats(GUILD, 11)
    await store.recent_matches(GUILD)
    await store.open_tables_of_user(1)
    await store.forget_user(12, guild_id=GUILD)
    await store.forget_user(11)


async def test_no_query_scans_a_table_or_sorts_the_leaderboard(store: SqliteStore) -> None:
    statements: list[str] = []
    await store._call(lambda conn: conn.set_trace_callback(statements.append))
    await exercise_every_query(store)
    await store._call(lambda conn: conn.set_trace_callback(None))

    queries = sorted(
        {s for s in statements if s.split(None, 1)[0].upper() in ("SELECT", "UPDATE", "DELETE", "INSERT")}
    )
    assert len(queries) > 30  # the workload really ran the store's queries

    def plans(conn: sqlite3.Connection) -> dict[str, list[str]]:
        return {q: [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + q)] for q in queries}

    problems = []
    for query, plan in (await store._call(plans)).items():
        for step in plan:
            scan = _BARE_SCAN.search(step)
            if scan and scan.group(1) not in _SCAN_ALLOWED:
                problems.append(f"{step!r} in {query}")
            if "player_stats" in query and "ORDER BY" in query and "TEMP B-TREE" in step:
                problems.append(f"{step!r} in {query}")
    assert problems == [], "\n".join(problems)
