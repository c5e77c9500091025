"""copy-db: move a whole database to another backend (SQLite to PostgreSQL when a bot outgrows one
process), verified by counts.

Both databases are migrated to this bot's schema first (as the bot does at start-up). The target must be
empty. Every data table is copied in one transaction of the target, ids included (a table's id is in its
buttons), so that a failure leaves the target as empty as it was. Before committing, the source is counted
again: if it changed (a bot still running on it), nothing is committed. After committing, the target's counts
must equal the source's. Heartbeats are not copied: they belong to the processes of the old database.
While copying, copy-db holds the source's claim of every shard, as ``run`` does: a bot running on it (which
holds some) makes copy-db refuse before anything is written, and no bot can start on it meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.shards import ShardSet
from bot.store import Store, open_store
from bot.store.base import StoreError, require_sound
from bot.store.claims import ShardsClaimedError, claim_shards
from bot.store.statements import DATA_TABLES
from bot.store.urls import DatabaseTarget, parse_database_url

NOT_COPIED = ("heartbeats",)
COPIED = tuple(table for table in DATA_TABLES if table not in NOT_COPIED)


@dataclass(frozen=True, slots=True)
class CopyReport:
    counts: dict[str, int]  # rows copied, per table
    open_tables: int
    schema_version: int


async def copy_database(
    source_url: str, target_url: str, *, progress: Callable[[str, int], None] | None = None
) -> CopyReport:
    """Copy every row of ``source_url``'s database into the empty database at ``target_url``."""
    source_target, target_target = parse_database_url(source_url), parse_database_url(target_url)
    if source_target.url == target_target.url:
        raise StoreError("--from and --to are the same database")
    if target_target.is_memory:
        raise StoreError("--to is an in-memory database: the copy would be lost at exit")
    # Never created (MissingDatabaseError): a mistyped source would otherwise be "copied" as an empty one.
    source = await open_store(source_url, create=False)
    try:
        try:
            claim = await claim_shards(source_url, ShardSet(None, None))
        except ShardsClaimedError:
            raise ShardsClaimedError(
                f"a running bot uses {source_target.shown}: stop it, then copy again; nothing was copied"
            ) from None
        try:
            await require_sound(source, source_target.shown)  # before the target is made: nothing written
            return await _copy(source, target_url, target_target, progress)
        finally:
            await claim.release()
    finally:
        await source.close()


async def _copy(
    source: Store, target_url: str, target_target: DatabaseTarget, progress: Callable[[str, int], None] | None
) -> CopyReport:
    target = await open_store(target_url)
    try:
        await source.migrate()
        version = await target.migrate()
        occupied = {table: n for table, n in (await target.row_counts()).items() if n}
        if occupied:
            listed = ", ".join(f"{table} ({n} rows)" for table, n in occupied.items())
            raise StoreError(
                f"the target {target_target.shown} is not empty ({listed}); copy-db only writes into an "
                "empty database: create a new one, or drop this one's tables"
            )
        before = await source.row_counts()
        written = dict.fromkeys(COPIED, 0)
        async with target.bulk_writer() as write:
            for table in COPIED:
                async for columns, batch in source.export_rows(table):
                    await write(table, columns, batch)
                    written[table] += len(batch)
                if progress is not None:
                    progress(table, written[table])
            after = await source.row_counts()
            changed = [
                table for table in COPIED if before[table] != after[table] or after[table] != written[table]
            ]
            if changed:  # raising here rolls the target back
                raise StoreError(
                    f"the source changed during the copy ({', '.join(changed)}): stop the bot, then run "
                    "copy-db again; nothing was written"
                )
        copied = await target.row_counts()
        wrong = [table for table in COPIED if copied[table] != written[table]]
        if wrong:
            raise StoreError(
                f"the target's counts differ from the source's after the copy: {', '.join(wrong)}"
            )
        open_tables = len(await target.load_open_tables())
    finally:
        await target.close()
    return CopyReport({table: written[table] for table in COPIED}, open_tables, version)
