"""The database refusing to write a server's display switches (their ``card_display:`` meta key) as a full
disk would, on each backend, while every other write goes through: for tests of a settings change that fails
between its writes.

SQLite: a TEMP trigger on the store's own connection that fills a temporary table capped at its size
(``PRAGMA temp.max_page_count``), so the write fails with SQLITE_FULL. PostgreSQL: a trigger that raises
``disk_full``. Either way the store reports the database unavailable (``StoreUnavailableError``), and the
trigger is gone again afterwards (the PostgreSQL test database lives for the whole session).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from bot.store.base import Store
from bot.store.sqlite import SqliteStore
from tests.backends import raw_execute

_SQLITE_ON = (
    "CREATE TEMP TABLE refused_filler (x BLOB)",
    "PRAGMA temp.max_page_count = 1",  # no room to grow
    *(
        f"CREATE TEMP TRIGGER refuse_display_{event} BEFORE {event} ON main.meta "
        "WHEN NEW.key LIKE 'card_display:%' BEGIN INSERT INTO refused_filler VALUES (zeroblob(1000000)); END"
        for event in ("insert", "update")
    ),
)
_SQLITE_OFF = (
    "DROP TRIGGER temp.refuse_display_insert",
    "DROP TRIGGER temp.refuse_display_update",
    "DROP TABLE temp.refused_filler",
)
_POSTGRES_ON = """
CREATE FUNCTION refuse_display_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full';
END $$;
CREATE TRIGGER refuse_display_write BEFORE INSERT OR UPDATE ON meta FOR EACH ROW
    WHEN (NEW.key LIKE 'card_display:%') EXECUTE FUNCTION refuse_display_write();
"""
_POSTGRES_OFF = "DROP TRIGGER refuse_display_write ON meta; DROP FUNCTION refuse_display_write();"


@contextlib.asynccontextmanager
async def display_writes_refused(store: Store) -> AsyncIterator[None]:
    """Within the block, every write of a display switch fails as on a full disk."""
    sqlite = isinstance(store, SqliteStore)
    for sql in _SQLITE_ON if sqlite else (_POSTGRES_ON,):
        await raw_execute(store, sql)
    try:
        yield
    finally:
        for sql in _SQLITE_OFF if sqlite else (_POSTGRES_OFF,):
            await raw_execute(store, sql)
