"""The database failing under a running table, on the backend concerned (issue 26): another process holding
the SQLite file locked past the busy timeout, SQLite writes failing as on a full disk, the PostgreSQL server
cut off behind a proxy, and every connection of the bot terminated by the server.

On each: a person's move during the fault raises the service's DatabaseFault, marked unavailable (the face
answers it with its "could not save" line) and changes nothing, in memory or stored; a turn timeout and a
CPU turn that fall due during the fault happen once the database is back, in order, each once; one log line
when the fault starts and one when it ends, no traceback; the failed commits are counted.

A commit whose answer was lost (a move's, or a new table's create) is asked about: told as done when it was
stored, refused when it was not, and asked about again later while the database cannot say."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.service import FakeClock, Intent, TableService, registry
from bot.service.errors import DatabaseFault, ServiceError
from bot.service.lobby import LOBBY_TTL
from bot.service.scheduler import STORE_RETRY_MAX
from bot.store import Store, StoreUnavailableError, open_store
from bot.store.base import StoreTimedOutError, TableRecord
from tests.service.db_faults import OwnPostgres, SqliteDiskFull, SqliteLockHolder, TcpProxy
from tests.service.support import (
    ALICE,
    BOB,
    CHANNEL,
    CPU_DELAY,
    GUILD,
    OTHER_CHANNEL,
    Recorder,
    make_service,
    open_with,
    take_turn,
)
from tests.service.support import refused as refusal

TIMEOUT = 30.0


@pytest.fixture
async def sqlite_file(tmp_path: Path) -> AsyncIterator[tuple[Store, Path]]:
    path = tmp_path / "faults.sqlite3"
    store = await open_store(f"sqlite:///{path}")
    await store.migrate()
    yield store, path
    await store.close()


@pytest.fixture
async def proxy(pg_url: str) -> AsyncIterator[TcpProxy]:
    through = TcpProxy(pg_url)
    await through.start()
    yield through
    await through.close()


async def assert_survives(
    store: Store,
    fault_on: Callable[[], Awaitable[None]],
    fault_off: Callable[[], Awaitable[None]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Alice (seat 0) against an easy CPU: her move during the fault, then her turn times out during it."""
    clock, recorder = FakeClock(), Recorder()
    service = make_service(store, clock, recorder)
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
    before = await service.snapshot(table_id)
    assert before.phase == "playing" and before.to_act == 0
    stored = await store.get_state(table_id)
    assert stored is not None
    caplog.clear()
    caplog.set_level(logging.INFO)

    await fault_on()
    with pytest.raises(DatabaseFault) as refused:
        await take_turn(service, table_id, ALICE)
    assert refused.value.unavailable  # the store's outage, as the service tells it
    assert await service.snapshot(table_id) == before  # nothing changed in memory
    await clock.advance(TIMEOUT)  # her turn times out while the database is away: tried, not done
    assert recorder.outcomes == []
    assert await service.snapshot(table_id) == before
    await fault_off()

    again = await store.get_state(table_id)
    assert again is not None and again.version == stored.version  # nothing changed in the database
    # Back: the timeout happens at the next retry, then the CPU's turn, in that order.
    await clock.advance(STORE_RETRY_MAX + CPU_DELAY + 0.1)
    events = [event for outcome in recorder.outcomes for event in outcome.public_events]
    kinds = [event.kind for event in events]
    assert kinds.count("timed_out") == 1, kinds
    timed_out = kinds.index("timed_out")
    assert events[timed_out].seat == 0
    assert any(event.seat == 1 for event in events[timed_out + 1 :]), kinds  # the CPU moved after it
    moves = await store.moves(table_id)
    assert [move.version for move in moves] == list(range(1, len(moves) + 1))  # each move once, in order
    after = await store.get_state(table_id)
    assert after is not None and after.version == moves[-1].version

    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage().split(" (")[0] for r in warnings if "unavailable" in r.getMessage()] == [
        "the database is unavailable"
    ]
    assert sum("the database is back" in r.getMessage() for r in warnings) == 1
    assert not [r for r in caplog.records if r.exc_info], "no traceback for a database fault"
    assert service.store_outage().failed_commits >= 2  # her move and the timeout, at least
    await service.close()


async def test_sqlite_locked_by_another_process(
    sqlite_file: tuple[Store, Path], caplog: pytest.LogCaptureFixture
) -> None:
    store, path = sqlite_file
    holder: list[SqliteLockHolder] = []

    async def lock() -> None:
        holder.append(SqliteLockHolder(path))

    async def unlock() -> None:
        holder[0].release()

    try:
        # The lock is held through two commits' busy timeouts (about 10 s).
        await assert_survives(store, lock, unlock, caplog)
    finally:
        for one in holder:
            one.release()


async def test_sqlite_writes_failing_as_on_a_full_disk(
    sqlite_file: tuple[Store, Path], caplog: pytest.LogCaptureFixture
) -> None:
    store, path = sqlite_file
    full = SqliteDiskFull(path)
    try:
        await assert_survives(store, full.fill, full.free, caplog)
    finally:
        full.restore()


async def test_postgresql_cut_off_and_back(
    pg_url: str, proxy: TcpProxy, caplog: pytest.LogCaptureFixture
) -> None:
    store = await open_store(proxy.url)
    try:
        await assert_survives(store, proxy.cut, proxy.restore, caplog)
        assert proxy.connections >= 2  # the pool opened new connections after the cut, by itself
    finally:
        await store.close()


async def test_postgresql_connections_terminated_mid_game(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = await open_store(pg_url, pool_size=3)
    database = pg_url.rsplit("/", 1)[1].split("?")[0]

    async def terminate() -> None:
        admin = await asyncpg.connect(pg_url)
        try:
            # Only the bot's own connections to this test's own database.
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = $1 AND application_name = 'crazy-eights' AND pid <> pg_backend_pid()",
                database,
            )
        finally:
            await admin.close()

    try:
        clock, recorder = FakeClock(), Recorder()
        service = make_service(store, clock, recorder)
        table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
        refused = 0
        for _ in range(6):  # Alice's turns, the connections cut before each
            await terminate()
            snap = await service.snapshot(table_id)
            if snap.phase != "playing":
                break
            if snap.to_act == 0:
                try:
                    await take_turn(service, table_id, ALICE)
                except DatabaseFault as fault:
                    assert fault.unavailable
                    refused += 1
                    assert await service.snapshot(table_id) == snap
                    await take_turn(service, table_id, ALICE)  # the pool has reconnected
            await clock.advance(STORE_RETRY_MAX + CPU_DELAY)
        moves = await store.moves(table_id)
        assert len(moves) >= 6
        assert [move.version for move in moves] == list(range(1, len(moves) + 1))
        assert service.store_outage().failed_commits == refused
        await service.close()
    finally:
        await store.close()


async def test_postgresql_stopped_and_started_again(
    own_postgres: OwnPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    store = await open_store(own_postgres.url)
    try:
        await store.migrate()
        await assert_survives(store, own_postgres.stopped, own_postgres.started, caplog)
    finally:
        await store.close()


async def test_postgresql_restarted_between_moves(own_postgres: OwnPostgres) -> None:
    # pg_ctl restart -m fast: the pool's connections die with the old server; the next move after it is
    # either refused once (nothing changed) or goes through on a new connection.
    store = await open_store(own_postgres.url)
    try:
        await store.migrate()
        clock, recorder = FakeClock(), Recorder()
        service = make_service(store, clock, recorder)
        table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
        for _ in range(3):
            await asyncio.to_thread(own_postgres.restart)
            snap = await service.snapshot(table_id)
            if snap.phase != "playing":
                break
            if snap.to_act == 0:
                try:
                    await take_turn(service, table_id, ALICE)
                except DatabaseFault as fault:
                    assert fault.unavailable
                    assert await service.snapshot(table_id) == snap
                    await take_turn(service, table_id, ALICE)
            await clock.advance(STORE_RETRY_MAX + CPU_DELAY)
        moves = await store.moves(table_id)
        assert len(moves) >= 4
        assert [move.version for move in moves] == list(range(1, len(moves) + 1))
        state = await store.get_state(table_id)
        assert state is not None and state.version == moves[-1].version
        await service.close()
    finally:
        await store.close()


async def test_a_damaged_sqlite_file_is_logged_once_not_at_every_retry(
    sqlite_file: tuple[Store, Path], caplog: pytest.LogCaptureFixture
) -> None:
    # Before: a timed move on a damaged file logged a traceback at every retry (every 30 s).
    store, path = sqlite_file
    clock, recorder = FakeClock(), Recorder()
    service = make_service(store, clock, recorder)
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
    before = await service.snapshot(table_id)
    await store.run_in_connection(lambda conn: conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall())
    os.truncate(path, 4096)  # a restore gone wrong under the running bot: only the first page is left
    # The connection's page cache would hide the damage for a while: read from the file from now on.
    await store.run_in_connection(lambda conn: conn.execute("PRAGMA shrink_memory").fetchall())
    caplog.clear()
    caplog.set_level(logging.INFO)
    with pytest.raises(DatabaseFault) as damaged:
        await take_turn(service, table_id, ALICE)
    assert damaged.value.damaged
    await clock.advance(TIMEOUT + 10 * 60)  # her turn times out; its move is tried again and again
    assert recorder.outcomes == [] and await service.snapshot(table_id) == before
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "is not an SQLite database or is damaged" in warnings[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info]
    assert service.store_outage().failed_commits >= 10
    await service.close()


async def test_a_paused_service_commits_nothing_and_plays_the_due_moves_when_resumed(
    sqlite_file: tuple[Store, Path],
) -> None:
    # A process that lost its shard claim pauses (bot/client.py wires the claim to pause and resume): a
    # person's move is refused as in an outage, her timeout is tried and not done; resumed, the due
    # timeout happens at once (not at the next retry), then the CPU's turn.
    store, _ = sqlite_file
    clock, recorder = FakeClock(), Recorder()
    service = make_service(store, clock, recorder)
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
    before = await service.snapshot(table_id)
    stored = len(await store.moves(table_id))

    service.pause("this process lost its shard claim")
    with pytest.raises(DatabaseFault) as refused:
        await take_turn(service, table_id, ALICE)
    assert refused.value.unavailable and "shard claim" in str(refused.value)
    # No new table either: another process may hold this one's shards now.
    with pytest.raises(DatabaseFault) as refused:
        await service.open_table(GUILD, OTHER_CHANNEL, BOB)
    assert refused.value.unavailable and await service.table_in_channel(OTHER_CHANNEL) is None
    await clock.advance(TIMEOUT + 30.0)
    assert recorder.outcomes == [] and await service.snapshot(table_id) == before
    assert len(await store.moves(table_id)) == stored

    service.resume()
    await clock.advance(0.1)  # at once, not at the next retry (up to STORE_RETRY_MAX later)
    kinds = [event.kind for outcome in recorder.outcomes for event in outcome.public_events]
    assert kinds.count("timed_out") == 1, kinds
    await clock.advance(CPU_DELAY + 0.1)
    moves = await store.moves(table_id)
    assert len(moves) >= stored + 2  # the timeout, then the CPU's move
    assert [move.version for move in moves] == list(range(1, len(moves) + 1))
    assert service.store_outage().failed_commits >= 2
    await service.close()


class _AnswerLost:
    """The store, but the connection breaks right after a commit (a move's, or a new table's create): the
    server committed, the bot hears only the broken connection (pg_terminate_backend in that instant, a
    network cut), or with ``error`` StoreTimedOutError a server that stopped answering (it may still run the
    statement when it wakes)."""

    def __init__(
        self, store: Store, *, committed: bool, error: type[StoreUnavailableError] = StoreUnavailableError
    ) -> None:
        self._store = store
        self._committed = committed
        self._error = error
        self.armed = False
        self.blind = (
            0  # how many reads of a table's state (or a channel's table) fail next (dead connections)
        )
        self.blind_after_create = 0  # ``blind`` once a broken create has failed
        self.reads = 0

    async def get_state(self, table_id: int) -> object:
        self.reads += 1
        self._read()
        return await self._store.get_state(table_id)

    async def open_table_in_channel(self, channel_id: int) -> object:
        self._read()
        return await self._store.open_table_in_channel(channel_id)

    def _read(self) -> None:
        if self.blind > 0:
            self.blind -= 1
            raise StoreUnavailableError("connection was closed in the middle of operation")

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    async def commit_move(self, commit: object) -> int:
        if self.armed:
            self.armed = False
            if self._committed:
                await self._store.commit_move(commit)  # type: ignore[arg-type]
            raise self._error("connection was closed in the middle of operation")
        return await self._store.commit_move(commit)  # type: ignore[arg-type]

    async def create_table(self, **table: Any) -> TableRecord:
        if self.armed:
            self.armed = False
            if self._committed:
                await self._store.create_table(**table)
            self.blind = self.blind_after_create
            raise self._error("connection was closed in the middle of operation")
        return await self._store.create_table(**table)


async def answer_lost_game(
    store: Store, *, committed: bool, recorder: Recorder | None = None
) -> tuple[_AnswerLost, TableService, int, int]:
    """Alice against an easy CPU, the service over ``store`` behind ``_AnswerLost`` (not armed yet): the
    lossy store, the service, the table and the number of moves stored so far."""
    lossy = _AnswerLost(store, committed=committed)
    service = make_service(lossy, FakeClock(), Recorder() if recorder is None else recorder)
    table_id = await open_with(service, ALICE, cpus=("easy",), turn_timeout=TIMEOUT)
    return lossy, service, table_id, len(await store.moves(table_id))


@pytest.mark.parametrize("committed", [True, False])
async def test_a_commit_whose_answer_was_lost_is_told_as_done_only_when_stored(
    sqlite_file: tuple[Store, Path], committed: bool
) -> None:
    store, _ = sqlite_file
    lossy, service, table_id, stored = await answer_lost_game(store, committed=committed)
    before = await service.snapshot(table_id)
    lossy.armed = True
    if committed:
        await take_turn(service, table_id, ALICE)  # stored: her move is done, and told
        assert await service.snapshot(table_id) != before
        assert service.store_outage().failed_commits == 0
        assert len(await store.moves(table_id)) == stored + 1
        state = await store.get_state(table_id)
        assert state is not None and state.version == (await store.moves(table_id))[-1].version
    else:
        with pytest.raises(DatabaseFault):
            await take_turn(service, table_id, ALICE)
        assert await service.snapshot(table_id) == before
        assert len(await store.moves(table_id)) == stored
        assert service.store_outage().failed_commits == 1
    await service.close()


async def test_a_lost_answer_is_asked_about_again_while_the_first_reads_fail(
    sqlite_file: tuple[Store, Path],
) -> None:
    # pg_terminate_backend takes every pooled connection: the first reads after the broken commit fail too.
    store, _ = sqlite_file
    lossy, service, table_id, stored = await answer_lost_game(store, committed=True)
    lossy.armed, lossy.blind, lossy.reads = True, 3, 0
    await take_turn(service, table_id, ALICE)  # stored: told as done, not "nothing changed"
    assert lossy.reads == 4
    assert len(await store.moves(table_id)) == stored + 1
    assert service.store_outage().failed_commits == 0
    await service.close()


async def test_an_unconfirmed_move_that_was_stored_is_found_and_told_before_the_table_moves_on(
    sqlite_file: tuple[Store, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The database answers nothing for longer than the bot asks: Alice hears that the bot cannot tell yet
    # whether it was saved (in doubt); her move stood all the same. Before anything else moves the table,
    # the bot finds it stored, holds the table as stored and tells the channel the move (from the outbox),
    # once.
    monkeypatch.setattr(registry, "IN_DOUBT_WAIT", 0.2)
    store, _ = sqlite_file
    recorder = Recorder()
    lossy, service, table_id, stored = await answer_lost_game(store, committed=True, recorder=recorder)
    lossy.armed, lossy.blind = True, 10**6
    with pytest.raises(DatabaseFault):
        await take_turn(service, table_id, ALICE)
    assert len(await store.moves(table_id)) == stored + 1  # it stood
    told_before = len(recorder.outcomes)
    with pytest.raises(DatabaseFault):  # still away: refused again, nothing moves
        await take_turn(service, table_id, ALICE)
    assert len(await store.moves(table_id)) == stored + 1
    lossy.blind = 0
    with pytest.raises(ServiceError) as refused:  # back: her button is stale, the table moved on
        await service.act(table_id, ALICE, Intent.draw(), None)
    assert refused.value.code == "stale"
    last = (await store.moves(table_id))[-1]
    assert len(await store.moves(table_id)) == stored + 1
    told = recorder.outcomes[told_before:]
    assert [outcome.version for outcome in told] == [last.version]
    assert told[0].public_events, "the stored move's public lines are told"
    fresh = make_service(store, FakeClock(), Recorder())  # the table as stored, read by another process
    assert await service.snapshot(table_id) == await fresh.snapshot(table_id)
    await fresh.close()
    await service.close()


async def test_an_unconfirmed_move_that_was_not_stored_leaves_the_table_as_it_was(
    sqlite_file: tuple[Store, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "IN_DOUBT_WAIT", 0.2)
    store, _ = sqlite_file
    lossy, service, table_id, stored = await answer_lost_game(store, committed=False)
    before = await service.snapshot(table_id)
    lossy.armed, lossy.blind = True, 10**6
    with pytest.raises(DatabaseFault):
        await take_turn(service, table_id, ALICE)
    lossy.blind = 0
    assert await service.snapshot(table_id) == before
    outcome = await take_turn(service, table_id, ALICE)  # nothing was stored: her move is taken now, once
    assert outcome.public_events
    assert len(await store.moves(table_id)) == stored + 1
    assert await service.snapshot(table_id) != before
    await service.close()


# --- a new table (/eights new) whose answer was lost ------------------------------------------------------


@pytest.mark.parametrize("committed", [True, False])
async def test_a_new_table_whose_answer_was_lost_is_opened_only_when_stored(
    sqlite_file: tuple[Store, Path], committed: bool
) -> None:
    # The create reached the database, its answer did not: the bot asks, as for a move (it used to say
    # "nothing changed" of a lobby that was stored, held nowhere: no board, no lobby timer, and the next
    # /eights new refused in a channel showing no table). Stored: opened, held, its lobby timer set. Not
    # stored: refused as in an outage ("nothing changed", true), and her retry opens it.
    store, _ = sqlite_file
    clock, recorder = FakeClock(), Recorder()
    lossy = _AnswerLost(store, committed=committed)
    service = make_service(lossy, clock, recorder)
    lossy.armed = True
    if committed:
        outcome = await service.open_table(GUILD, CHANNEL, ALICE)  # told as opened: the face posts its board
        assert [event.kind for event in outcome.public_events] == ["opened"]
        assert outcome.snapshot.status == "lobby" and outcome.snapshot.host_id == ALICE.user_id
        stored = await store.open_table_in_channel(CHANNEL)
        assert stored is not None and stored.id == outcome.table_id
        assert service.open_table_ids() == [outcome.table_id]  # held
        assert service.store_outage().failed_commits == 0
        await clock.advance(LOBBY_TTL)  # its lobby timer runs
        assert [event.data["reason"] for event in recorder.events("closed")] == ["lobby_expired"]
    else:
        with pytest.raises(DatabaseFault) as refused:
            await service.open_table(GUILD, CHANNEL, ALICE)
        assert refused.value.unavailable and not refused.value.in_doubt  # "could not save, nothing changed"
        assert await store.open_table_in_channel(CHANNEL) is None
        assert service.open_table_count() == 0
        assert service.store_outage().failed_commits == 1
        again = await service.open_table(GUILD, CHANNEL, ALICE)
        assert service.open_table_ids() == [again.table_id]
    await service.close()


async def test_a_new_table_in_doubt_is_shown_once_the_database_tells_it_was_stored(
    sqlite_file: tuple[Store, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server that stopped answering mid-create, and does not answer for longer than the bot asks: Alice
    # hears "the database did not answer … the table will show it in a moment"; once it answers, the bot
    # finds the lobby stored, holds it and shows its board (the listener gets its table).
    monkeypatch.setattr(registry, "IN_DOUBT_WAIT", 0.2)
    store, _ = sqlite_file
    clock, recorder = FakeClock(), Recorder()
    lossy = _AnswerLost(store, committed=True, error=StoreTimedOutError)
    service = make_service(lossy, clock, recorder)
    lossy.armed, lossy.blind_after_create = True, 10**6
    with pytest.raises(DatabaseFault) as refused:
        await service.open_table(GUILD, CHANNEL, ALICE)
    assert refused.value.unavailable and refused.value.in_doubt
    assert service.open_table_count() == 0 and service.store_outage().failed_commits == 1
    await clock.advance(registry.IN_DOUBT_RECHECK)  # still away: asked again later
    assert service.open_table_count() == 0 and recorder.outcomes == []
    lossy.blind = 0
    await clock.advance(2 * registry.IN_DOUBT_RECHECK)
    stored = await store.open_table_in_channel(CHANNEL)
    assert stored is not None and service.open_table_ids() == [stored.id]
    assert [outcome.table_id for outcome in recorder.outcomes] == [stored.id]  # its board, shown
    assert recorder.outcomes[0].snapshot.status == "lobby"
    await service.close()


async def test_a_table_stored_but_not_held_is_shown_to_a_second_new_table(
    sqlite_file: tuple[Store, Path],
) -> None:
    # The channel's open table is in the database but this process does not hold it (here another service
    # opened it): /eights new is refused ("already a table open: join it"), and the table is loaded, its
    # lobby timer set and its board shown, so the channel shows the table the refusal speaks of.
    store, _ = sqlite_file
    other = make_service(store, FakeClock(), Recorder())
    table_id = (await other.open_table(GUILD, CHANNEL, ALICE)).table_id
    await other.close()
    clock, recorder = FakeClock(), Recorder()
    service = make_service(store, clock, recorder)
    refused = await refusal(service.open_table(GUILD, CHANNEL, BOB), "table_exists")
    assert refused.table_id == table_id
    assert service.open_table_ids() == [table_id]
    await clock.advance(0.1)
    assert [outcome.table_id for outcome in recorder.outcomes] == [table_id]
    assert recorder.outcomes[0].snapshot.status == "lobby" and not recorder.outcomes[0].public_events
    await service.close()
