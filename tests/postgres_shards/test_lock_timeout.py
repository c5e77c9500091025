"""A row held locked by another session of PostgreSQL while the server (or the role) has a ``lock_timeout``,
as DBAs of big deployments set so that nothing piles up behind a lock.

README, "When the database falters": a database that "is held locked by another process ... does not stop
the bot. While it fails, a person's move gets the private answer 'The bot could not save this, so nothing
changed. Try again in a moment.'", turn timeouts "are retried (every 1 s, doubling to 8 s)", "no traceback
per attempt", "the eights_failed_commits_total metric counts the refused commits".

On PostgreSQL with lock_timeout the move fails with asyncpg's LockNotAvailableError (SQLSTATE 55P03), which
bot/store/postgres.py's ``_is_unavailable`` does not count as "cannot be used now": it leaves the store and
the service raw, so the player gets the "unexpected error" answer, the failure is not counted and not logged
as an outage."""

from __future__ import annotations

import asyncpg

from bot.service import FakeClock
from bot.service.errors import DatabaseFault
from bot.store import open_store
from tests.postgres_shards.conftest import admin
from tests.service.support import ALICE, Recorder, make_service, open_with, take_turn


async def test_a_move_on_a_row_locked_past_lock_timeout_is_answered_could_not_save(
    own_db: tuple[str, str],
) -> None:
    name, url = own_db
    await admin(f"ALTER DATABASE {name} SET lock_timeout = '300ms'")
    store = await open_store(url)
    holder = await asyncpg.connect(url)
    try:
        service = make_service(store, FakeClock(), Recorder())
        table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=60)
        before = await service.snapshot(table_id)
        assert before.to_act == 0

        # Another session (a DBA's script, a report) holds the table's state row for a moment.
        tx = holder.transaction()
        await tx.start()
        await holder.execute("SET lock_timeout = 0")
        await holder.fetch("SELECT version FROM game_state WHERE table_id = $1 FOR UPDATE", table_id)
        try:
            try:
                await take_turn(service, table_id, ALICE)
            except DatabaseFault as fault:
                assert fault.unavailable
            except Exception as error:  # what happens now
                raise AssertionError(
                    f"the move left the service as {type(error).__module__}.{type(error).__name__}: "
                    f"{error} (not DatabaseFault: the player gets 'something went wrong', not "
                    "'could not save, try again')"
                ) from None
            else:
                raise AssertionError("the move went through a locked row")
        finally:
            await tx.rollback()
        assert service.store_outage().failed_commits == 1, "the refused commit is not counted"
        await service.close()
    finally:
        await holder.close()
        await store.close()
