"""What a person is told of a commit the database failed, by what the bot can know of it
(bot/service/registry.py ``_not_stored``).

README "When the database falters": "The bot could not save this, so nothing changed" is said of what was not
stored; a move the bot cannot tell was saved is answered "The database did not answer: the bot cannot tell
yet whether this was saved. The table will show it in a moment.", and the bot asks again until it knows.

- A commit whose connection broke in flight (the server may have committed it, its answer lost) is asked
  about; when the database cannot say within IN_DOUBT_WAIT, it is in doubt whatever broke (it used to be in
  doubt only for a server that stopped answering, StoreTimedOutError: a cut connection was taken for a
  rolled-back one, and the player told "nothing changed" of a move then shown in the channel).
- A commit refused before anything was sent (StoreRefusedError: a connection refused or out of reach) changed
  nothing, for certain: "nothing changed" at once, the database not asked about it.
- A statement the server cancelled (statement_timeout, SQLSTATE 57014) is an outage; the database, asked,
  says the move was not stored: "nothing changed"."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.service import FakeClock, registry
from bot.service.errors import DatabaseFault
from bot.store import Store, open_store
from bot.store.base import StoreRefusedError, StoreUnavailableError, TableRecord
from tests.service.support import ALICE, CHANNEL, GUILD, Recorder, make_service, open_with, take_turn


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[Store]:
    store = await open_store(f"sqlite:///{tmp_path / 'doubt.sqlite3'}")
    await store.migrate()
    yield store
    await store.close()


class Failing:
    """The store, but its next commit (a move's or a create) fails with ``error`` once armed, after the
    database stored it (``committed``) or not; from then on reads of the table's state fail with
    StoreUnavailableError while ``blind`` (a database the bot cannot reach). ``asked`` counts those reads."""

    def __init__(self, store: Store, error: StoreUnavailableError, *, committed: bool) -> None:
        self._store = store
        self._error = error
        self._committed = committed
        self.armed = False
        self.blind = False
        self.asked = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    def _read(self) -> None:
        if self.blind:
            self.asked += 1
            raise StoreUnavailableError("connection refused")

    async def get_state(self, table_id: int) -> object:
        self._read()
        return await self._store.get_state(table_id)

    async def open_table_in_channel(self, channel_id: int) -> object:
        self._read()
        return await self._store.open_table_in_channel(channel_id)

    async def commit_move(self, commit: Any) -> int:
        if not self.armed:
            return await self._store.commit_move(commit)
        self.armed, self.blind = False, True
        if self._committed:
            await self._store.commit_move(commit)
        raise self._error

    async def create_table(self, **table: Any) -> TableRecord:
        if not self.armed:
            return await self._store.create_table(**table)
        self.armed, self.blind = False, True
        if self._committed:
            await self._store.create_table(**table)
        raise self._error


CUT = StoreUnavailableError("ConnectionDoesNotExistError: connection was closed in the middle of operation")


async def test_a_move_cut_in_flight_that_the_database_cannot_tell_of_is_in_doubt(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice's move stored, the connection cut before its answer, the database out of reach for longer than
    IN_DOUBT_WAIT: she is told it is in doubt, not that nothing changed."""
    monkeypatch.setattr(registry, "IN_DOUBT_WAIT", 0.2)
    failing = Failing(sqlite_store, CUT, committed=True)
    service = make_service(failing, FakeClock(), Recorder())
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=60)
    failing.armed = True
    with pytest.raises(DatabaseFault) as refused:
        await take_turn(service, table_id, ALICE)
    assert refused.value.unavailable and refused.value.in_doubt
    assert failing.asked >= 1
    assert service.store_outage().failed_commits == 1
    await service.close()


async def test_a_new_table_cut_in_flight_that_the_database_cannot_tell_of_is_in_doubt(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "IN_DOUBT_WAIT", 0.2)
    failing = Failing(sqlite_store, CUT, committed=True)
    service = make_service(failing, FakeClock(), Recorder())
    failing.armed = True
    with pytest.raises(DatabaseFault) as refused:
        await service.open_table(GUILD, CHANNEL, ALICE)
    assert refused.value.unavailable and refused.value.in_doubt
    await service.close()


@pytest.mark.parametrize("kind", ["move", "new table"])
async def test_a_commit_refused_before_anything_was_sent_changed_nothing_and_is_not_asked_about(
    sqlite_store: Store, kind: str
) -> None:
    """The connection refused (StoreRefusedError): "nothing changed" (not in doubt), the database not asked
    (no read, no wait of IN_DOUBT_WAIT); the table's next move is not preceded by a check either."""
    failing = Failing(sqlite_store, StoreRefusedError("connection refused"), committed=False)
    service = make_service(failing, FakeClock(), Recorder())
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=60)
    before = await service.snapshot(table_id)
    failing.armed = True
    with pytest.raises(DatabaseFault) as refused:
        if kind == "move":
            await take_turn(service, table_id, ALICE)
        else:
            await service.open_table(GUILD, CHANNEL + 1, ALICE)
    assert refused.value.unavailable and not refused.value.in_doubt
    assert failing.asked == 0
    assert service.store_outage().failed_commits == 1
    assert await service.snapshot(table_id) == before
    await take_turn(service, table_id, ALICE)  # still blind: no check of an unconfirmed commit before it
    assert failing.asked == 0
    await service.close()


async def test_a_move_cancelled_by_the_servers_statement_timeout_changed_nothing(pg_url: str) -> None:
    """DATABASE_URL sets statement_timeout (300 ms) and no lock_timeout; another session holds the table's
    state row: the move is cancelled by the server (QueryCanceledError), counted as an outage, and told
    "nothing changed" (the database, asked, says it was not stored)."""
    store = await open_store(f"{pg_url}?statement_timeout=300&lock_timeout=0")
    holder = await asyncpg.connect(pg_url)
    try:
        service = make_service(store, FakeClock(), Recorder())
        table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=60)
        before = await service.snapshot(table_id)
        tx = holder.transaction()
        await tx.start()
        await holder.fetch("SELECT version FROM game_state WHERE table_id = $1 FOR UPDATE", table_id)
        try:
            with pytest.raises(DatabaseFault, match="QueryCanceledError") as refused:
                await take_turn(service, table_id, ALICE)
        finally:
            await tx.rollback()
        assert refused.value.unavailable and not refused.value.in_doubt
        assert service.store_outage().failed_commits == 1
        assert await service.snapshot(table_id) == before
        await take_turn(service, table_id, ALICE)
        await service.close()
    finally:
        await holder.close()
        await store.close()
