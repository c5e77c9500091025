"""What autovacuum would do to the store's tables, done by the bot when the server's autovacuum is off.

Every move rewrites its table's state row and every match result its players' statistics rows; a rating
change rewrites an index entry of a skill-ordered index. PostgreSQL leaves the old versions behind until a
VACUUM, and autovacuum (on by default) runs it. A server with autovacuum off (some CI and hand-tuned servers
are) would let the tables and their indexes grow without end: on this project's machine, after 100,000
matches, counting a guild's 5,000 ranked players walked 223,000 index entries (16–23 ms) instead of 5,000
(1.2 ms after a vacuum). So the store looks, every few thousand moves, at the statistics the server keeps for
autovacuum and vacuums (and analyzes) each of its tables past autovacuum's own thresholds, read from the
server's settings. An advisory lock keeps shard processes sharing the schema from doing it twice at once.
VACUUM takes no lock that stops reads or writes of rows, and it is paced as autovacuum's is, so play goes on
meanwhile.
"""

from __future__ import annotations

import logging

import asyncpg

log = logging.getLogger(__name__)

VACUUM_TIMEOUT = 600.0  # seconds: a long-neglected big table may take minutes; the pool's default is 60

# The advisory lock's key, per schema: the shard processes of one deployment share it, test schemas do not.
_LOCK_KEY = "hashtext(current_schema() || '/crazy-eights-vacuum')"

# This schema's tables past any of autovacuum's three triggers (dead rows; rows inserted since the last
# vacuum, which keeps index-only scans working; rows changed since the last analyze), as the server's
# settings put them. The counts are the server's cumulative statistics (pg_stat_user_tables).
_DUE = """
WITH s AS (
    SELECT
        max(setting::float8) FILTER (WHERE name = 'autovacuum_vacuum_threshold') AS dead_base,
        max(setting::float8) FILTER (WHERE name = 'autovacuum_vacuum_scale_factor') AS dead_share,
        max(setting::float8) FILTER (WHERE name = 'autovacuum_vacuum_insert_threshold') AS ins_base,
        max(setting::float8) FILTER (WHERE name = 'autovacuum_vacuum_insert_scale_factor') AS ins_share,
        max(setting::float8) FILTER (WHERE name = 'autovacuum_analyze_threshold') AS mod_base,
        max(setting::float8) FILTER (WHERE name = 'autovacuum_analyze_scale_factor') AS mod_share
    FROM pg_settings
)
SELECT format('%I.%I', t.schemaname, t.relname) AS name, t.relname AS short
FROM pg_stat_user_tables AS t, s
WHERE t.schemaname = current_schema()
  AND (t.n_dead_tup > s.dead_base + s.dead_share * t.n_live_tup
       OR (s.ins_base >= 0 AND t.n_ins_since_vacuum > s.ins_base + s.ins_share * t.n_live_tup)
       OR t.n_mod_since_analyze > s.mod_base + s.mod_share * t.n_live_tup)
ORDER BY t.n_dead_tup DESC, t.relname
"""


async def autovacuum_off(conn: asyncpg.Connection) -> bool:
    """The server's autovacuum is off (so nothing but the bot will vacuum its tables)."""
    return bool(await conn.fetchval("SELECT setting <> 'on' FROM pg_settings WHERE name = 'autovacuum'"))


async def vacuum_due(conn: asyncpg.Connection) -> list[str]:
    """VACUUM (ANALYZE) each table of the connection's schema that autovacuum would have by now; returns
    their names. Nothing when another process of the schema is at it (returns [])."""
    if not await conn.fetchval(f"SELECT pg_try_advisory_lock({_LOCK_KEY})"):
        return []
    done: list[str] = []
    try:
        # Paced as autovacuum paces itself (its cost delay; a manual VACUUM has none), so that its reads and
        # writes leave the disk to play. The pool resets the setting when the connection goes back.
        await conn.execute(
            "SELECT set_config('vacuum_cost_delay', current_setting('autovacuum_vacuum_cost_delay'), false) "
            "WHERE current_setting('autovacuum_vacuum_cost_delay') NOT LIKE '-%'"
        )
        for name, short in await conn.fetch(_DUE):
            # VACUUM cannot run in a transaction: each is a statement of its own on an idle connection.
            await conn.execute(f"VACUUM (ANALYZE) {name}", timeout=VACUUM_TIMEOUT)
            done.append(short)
    finally:
        await conn.execute(f"SELECT pg_advisory_unlock({_LOCK_KEY})")
    return done
