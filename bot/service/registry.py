"""The live tables of this process and the one path by which any of them changes.

Every mutation follows this path: take the table's lock, work on a copy of its live state (the engine Match
and the service's JSON document, see ``bot.service.live``), settle the move (``bot.service.settlement``),
commit the whole new state with ``store.commit_move`` (version-checked), then swap the copy in and set the
table's timers again (through the scheduler attached here). A move is therefore stored before anyone hears
of it, and a move that fails (an engine error, a lost race) leaves the table exactly as it was.

The registry also loads tables on demand and at start-up, drops closed ones, and tells observers (tests'
privacy checks) whenever a table's committed state in memory changes.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Literal, NoReturn, Protocol

from bot.engine import Match
from bot.engine.crazier import CrazierMatch
from bot.i18n import _
from bot.service.clock import Clock
from bot.service.crazier import is_crazier_state
from bot.service.errors import EXPIRED, NO_LONGER_POSSIBLE, NO_TABLE, ServiceError
from bot.service.live import IDLE_TTL, LiveTable, Work, round_token, table_ruleset
from bot.service.models import Actor, Outcome, TableEvent, TableListener, TableSnapshot, UntoldLine
from bot.service.outage import StoreOutage
from bot.service.outcomes import OutcomeFeed
from bot.service.settlement import settle, store_deadline
from bot.service.snapshots import snapshot
from bot.shards import ShardSet
from bot.store.base import (
    CommitInDoubtError,
    ConflictError,
    DamagedDatabaseError,
    MoveCommit,
    OutboxRow,
    SeatRecord,
    Store,
    StoreError,
    StoreRefusedError,
    StoreUnavailableError,
    TableRecord,
)

log = logging.getLogger(__name__)

# Moves of a closed table not told within a day (its channel gone, its process down that long) are no longer
# told; an open table's are told whenever its process is back.
UNTOLD_TTL = 24 * 3600.0
# A commit whose connection broke: how long to keep asking whether the server stored it. With the server
# up (its connections terminated, a cut) the pool's next connection answers at once; an outage never does.
IN_DOUBT_WAIT = 3.0
# A commit left in doubt: the table is asked about again after this, then twice as long each time, up to the
# last (a move stored when the server woke is told then, not at the table's next move).
IN_DOUBT_RECHECK = 2.0
IN_DOUBT_RECHECK_MAX = 30.0


class Scheduler(Protocol):
    def schedule(self, live: LiveTable, *, restoring: bool = False) -> None:
        """Set the table's timers for its committed state (cancelling the ones it had)."""
        ...


class TableObserver(Protocol):
    def __call__(
        self, table_id: int, user_ids: tuple[int | None, ...], match: Match | CrazierMatch | None
    ) -> None:
        """A table's committed state in memory changed: its seats' user ids (None for a CPU seat) and its
        match, of either game (None in the lobby and once the table is closed and dropped)."""
        ...


class _NoTimers:
    def schedule(self, live: LiveTable, *, restoring: bool = False) -> None:
        return None


class TableRegistry:
    """The tables this process holds in memory, by id and by channel, and the mutation path."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        listener: TableListener | None = None,
        batch_window: float = 0.3,
        shards: ShardSet | None = None,
        on_failed_commit: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        # The guilds this process serves (its shards'); it loads, times and plays no other guild's tables.
        self.shards = shards or ShardSet()
        self.closing = False
        self.running: set[asyncio.Task[Any]] = set()  # timer moves in flight
        self.feed = OutcomeFeed(clock, batch_window, self.current_snapshot, listener)
        self.scheduler: Scheduler = _NoTimers()
        self.outage = StoreOutage(clock, on_failed_commit)
        # Why no move may be committed now (this process lost its shard claim), or None: such a commit is
        # refused as during an outage, and the timed moves are retried until play resumes.
        self.paused: str | None = None
        self._tables: dict[int, LiveTable] = {}
        self._by_channel: dict[int, int] = {}
        self._observers: list[TableObserver] = []

    # --- look-ups -------------------------------------------------------------------------------------------

    def get(self, table_id: int) -> LiveTable | None:
        return self._tables.get(table_id)

    def in_channel(self, channel_id: int) -> LiveTable | None:
        """The channel's open table if it is in memory (no store access)."""
        table_id = self._by_channel.get(channel_id)
        return self._tables.get(table_id) if table_id is not None else None

    def in_guild(self, guild_id: int) -> list[int]:
        return [live.id for live in self._tables.values() if live.record.guild_id == guild_id]

    def guild_ids(self) -> set[int]:
        return {live.record.guild_id for live in self._tables.values()}

    def in_threads_of(self, channel_id: int) -> list[int]:
        """The channels of the tables in threads (or forum posts) of the channel: their parent, kept in their
        document since they were opened ("parent_id")."""
        return [
            live.record.channel_id
            for live in self._tables.values()
            if live.doc.get("parent_id") == channel_id and live.record.channel_id != channel_id
        ]

    def parent_unknown(self, guild_id: int | None) -> list[tuple[int, int]]:
        """(guild id, channel id) of the tables (of the server, or of every server: None) whose document does
        not say whether they are in a thread: opened before it kept their parent."""
        return [
            (live.record.guild_id, live.record.channel_id)
            for live in self._tables.values()
            if "parent_id" not in live.doc and (guild_id is None or live.record.guild_id == guild_id)
        ]

    def note_parent(self, channel_id: int, parent_id: int | None) -> None:
        """The channel's table (opened before its parent was kept) is in a thread of ``parent_id`` (None: in
        no thread), as Discord says: kept in its document in memory, and stored with its next move (as
        "idle_since" at a restore). A move in flight may drop it: it is only asked again then."""
        live = self.in_channel(channel_id)
        if live is not None and "parent_id" not in live.doc:
            live.doc["parent_id"] = parent_id

    def open_count(self) -> int:
        """The tables held: every open table of this process."""
        return len(self._tables)

    def open_ids(self) -> list[int]:
        """The ids of the tables held, in the order they were opened or restored."""
        return list(self._tables)

    def current_snapshot(self, table_id: int) -> TableSnapshot | None:
        live = self._tables.get(table_id)
        return snapshot(live) if live is not None else None

    async def table_in_channel(self, channel_id: int) -> int | None:
        table_id = self._by_channel.get(channel_id)
        if table_id is not None:
            return table_id
        record = await self.store.open_table_in_channel(channel_id)
        if record is None:
            return None
        live = await self.load(record.id)
        return None if live is None else live.id

    async def require(self, table_id: int, round_token: str | None) -> LiveTable:
        live = self._tables.get(table_id)
        if live is None:
            live = await self.load(table_id)
        if live is None:
            if round_token is not None:
                raise ServiceError("expired", EXPIRED)
            # A person's id here is their channel's table (``require_table``, ``table_for_control``), closed
            # since: that channel takes a new one. Where none was, ``TableService.no_table`` answered.
            raise ServiceError("no_table", NO_TABLE)
        return live

    def check_open(self) -> None:
        if self.closing:
            raise ServiceError("closing", _("The bot is restarting; try again in a moment."))

    def check_not_paused(self) -> None:
        """Play is paused (this process lost its shard claim; another may hold it now): nothing is stored
        meanwhile, new tables included."""
        if self.paused is not None:
            refused = StoreUnavailableError(self.paused)
            self.outage.commit_failed(refused)
            raise refused

    # --- observers ------------------------------------------------------------------------------------------

    def observe(self, observer: TableObserver) -> None:
        """Call ``observer`` now for every table held, and again whenever a table's committed state
        changes."""
        self._observers.append(observer)
        for live in self._tables.values():
            self._notify(live, open_=True)

    def _notify(self, live: LiveTable, *, open_: bool) -> None:
        if not self._observers:
            return
        user_ids = tuple(seat.user_id for seat in live.seats)
        match = live.game if open_ else None
        for observer in self._observers:
            observer(live.id, user_ids, match)

    # --- loading --------------------------------------------------------------------------------------------

    async def load(self, table_id: int) -> LiveTable | None:
        live = self._tables.get(table_id)
        if live is not None:
            return live
        record = await self.store.get_table(table_id)
        if record is None or record.status not in ("lobby", "playing"):
            return None
        if not self.shards.owns(record.guild_id):
            # Another process serves this guild's shard: acting here too would race it at every timer.
            log.warning("table %s: guild %s is on another process's shard", table_id, record.guild_id)
            return None
        seats = await self.store.list_seats(table_id)
        state = await self.store.get_state(table_id)
        if state is None:
            return None
        live = self._tables.get(table_id)  # loaded by someone else meanwhile
        if live is not None:
            return live
        live = live_from(record, seats, state.state, state.version)
        self.add(live, restoring=True)
        return live

    def resume(self) -> None:
        """Play may go on again: commits are allowed, and every table's timers are set at once (a timeout
        or CPU turn that fell due meanwhile happens now, not at its next retry)."""
        self.paused = None
        for live in list(self._tables.values()):
            self.scheduler.schedule(live)

    async def reload(self, table_id: int) -> None:
        live = self._tables.get(table_id)
        if live is not None:
            self.drop(live)
        await self.load(table_id)

    async def restore_all(self) -> int:
        # What the previous process committed and did not tell is read first and handed to the listener
        # before any restored table's timer can run: the channel hears the old moves before the new ones.
        await self.store.drop_untold(self.clock.now() - UNTOLD_TTL)
        untold = await self.store.untold(self.shards)
        restored: list[LiveTable] = []
        for open_table in await self.store.load_open_tables(self.shards):
            if open_table.table.id in self._tables:
                continue  # already loaded (restore_all called twice, or a request loaded it first)
            try:
                live = live_from(
                    open_table.table, open_table.seats, open_table.state.state, open_table.state.version
                )
            except Exception:
                log.exception("table %s: its stored state can't be loaded; left alone", open_table.table.id)
                continue
            restored.append(live)
        if untold:
            await self._tell_untold(untold, {live.id: live for live in restored})
        for live in restored:
            self.add(live, restoring=True)
        log.info("restored %s open tables", len(restored))
        return len(restored)

    async def _tell_untold(self, untold: list[OutboxRow], restored: dict[int, LiveTable]) -> None:
        """Hand the listener, per table, the moves committed and not told: the line that was on its way
        (``UntoldLine``) and the public events of the moves after it, with the table as it is now (a table
        closed by its last move too: its final lines and board are still due)."""
        listener = self.feed.listener
        by_table: dict[int, list[OutboxRow]] = {}
        for row in untold:
            by_table.setdefault(row.table_id, []).append(row)
        told = 0
        for table_id, rows in by_table.items():
            live = restored.get(table_id) or self._tables.get(table_id) or await self._closed_table(table_id)
            if live is None or listener is None:
                continue
            # note_telling leaves at most one line's rows noted, and they come first.
            resumed, fresh = _in_doubt(rows)
            events = tuple(told_event(event) for row in fresh for event in row.events)
            outcome = Outcome(snapshot(live), events, {}, rows[-1].version, resumed)
            try:
                await listener.on_outcome(outcome)
            except Exception:
                log.exception("table %s: listener failed", table_id)
            told += len(rows)
        log.info("%s committed moves of %s tables were not told yet: telling them", told, len(by_table))

    async def _closed_table(self, table_id: int) -> LiveTable | None:
        """A table of this process closed by a move not told yet, as committed (not held: it is over)."""
        record = await self.store.get_table(table_id)
        state = await self.store.get_state(table_id)
        if record is None or state is None or not self.shards.owns(record.guild_id):
            return None
        try:
            return live_from(record, await self.store.list_seats(table_id), state.state, state.version)
        except Exception:
            log.exception("table %s: its stored state can't be loaded; its last moves go untold", table_id)
            return None

    def add(self, live: LiveTable, *, restoring: bool = False) -> None:
        """Hold a table (just opened, or loaded from the store) and set its timers."""
        if restoring:
            # The time the bot was away is not the players' idleness: the table keeps the idle time it had
            # when it was last saved (or its holder stopped), and counts on from now.
            now = self.clock.now()
            idle = min(max(0.0, live.record.updated_at - live.idle_since()), IDLE_TTL)
            if now - idle > live.idle_since():
                live.doc["idle_since"] = now - idle
        self._tables[live.id] = live
        self._by_channel[live.record.channel_id] = live.id
        self._notify(live, open_=True)
        self.scheduler.schedule(live, restoring=restoring)

    def drop(self, live: LiveTable) -> None:
        live.cancel_timers()
        if self._tables.get(live.id) is live:
            del self._tables[live.id]
            self._notify(live, open_=False)
        if self._by_channel.get(live.record.channel_id) == live.id:
            del self._by_channel[live.record.channel_id]

    async def close(self) -> None:
        """Stop every timer and wait for the moves in flight. Nothing moves afterwards."""
        self.closing = True
        for live in self._tables.values():
            live.cancel_timers()
        current = asyncio.current_task()
        others = [task for task in self.running if task is not current]
        if others:
            await asyncio.gather(*others, return_exceptions=True)
        for live in list(self._tables.values()):
            async with live.lock:
                pass
        if self._tables:
            # Until now the bot was up with these tables: their next restore counts their idleness to here.
            try:
                await self.store.mark_held(list(self._tables), self.clock.now())
            except Exception as error:  # a stop goes on: the restore then counts from the last move instead
                log.warning("could not record when the open tables were last held: %s", error)

    def show(self, live: LiveTable) -> None:
        """Hand the listener the table as it is (its board), with nothing to tell: a table found open in the
        store that nobody was shown yet."""
        self.feed.push(Outcome(snapshot(live), (), {}, live.version))

    # --- the mutation path ----------------------------------------------------------------------------------

    async def open(
        self,
        create: Callable[[], Awaitable[TableRecord]],
        held: Callable[[TableRecord], LiveTable],
        *,
        channel_id: int,
        host_id: int,
        opened_at: float,
    ) -> LiveTable:
        """A new table's commit, as ``commit`` is a move's: ``create`` stores it (``store.create_table``, with
        ``host_id`` and ``opened_at`` as its host and time; its TableExistsError is the caller's), ``held``
        makes the held table of its record. A create whose connection broke is asked about as a move is
        (``_stored_anyway``): stored after all, the table is held as stored and returned (its board is the
        caller's to post); not stored, refused as in an outage; not known, refused as ``_not_stored`` says
        and asked about again until it is known: a table found then is held (its lobby timer set) and its
        board shown."""
        self.check_not_paused()
        found: list[LiveTable] = []

        async def opened() -> bool:
            record = await self.store.open_table_in_channel(channel_id)
            if record is None or record.host_id != host_id or record.created_at != opened_at:
                return False
            live = await self.load(record.id)
            if live is not None:
                found.append(live)
            return live is not None

        async def show_if_opened() -> None:
            if await opened():
                live = found[-1]
                log.warning("table %s: a new table whose commit could not be confirmed was stored", live.id)
                self.show(live)

        try:
            record = await create()
        except (StoreUnavailableError, DamagedDatabaseError) as error:
            stored = await self._stored_anyway(opened) if _may_be_stored(error) else False
            if not stored:
                self._not_stored(error, stored, show_if_opened)
            self.outage.succeeded()
            return found[-1]
        self.outage.succeeded()
        live = self._tables.get(record.id)  # loaded meanwhile (a request in its channel found it stored)
        if live is None:
            live = held(record)
            self.add(live)
        return live

    async def mutate(
        self,
        table_id: int,
        round_token_: str | None,
        actor: Actor | None,
        action: dict[str, Any],
        change: Callable[[Work], None],
    ) -> Outcome:
        """A person's move: ``change`` edits the working copy (or raises ServiceError, changing nothing)."""
        self.check_open()
        live = await self.require(table_id, round_token_)
        async with live.lock:
            if self._tables.get(table_id) is not live:
                if table_id in self._tables:  # reloaded after a lost race while this request waited
                    raise ServiceError("stale", NO_LONGER_POSSIBLE)
                raise ServiceError(
                    "expired" if round_token_ else "no_table", EXPIRED if round_token_ else NO_TABLE
                )
            if not await self._settle_unconfirmed(live):
                raise ServiceError("stale", NO_LONGER_POSSIBLE)
            if round_token_ is not None and round_token_ != round_token(live.id, live.game):
                raise ServiceError("expired", EXPIRED)
            work = self.work(live)
            change(work)
            if actor is not None:
                work.doc["last_human_at"] = work.now
            outcome = await self.commit(live, work, actor.user_id if actor else None, action)
        # What happened on its own before this move (gathered for the batch window) goes to the listener
        # first: the caller shows this move's outcome next.
        await self.feed.flush(table_id)
        return outcome

    async def automatic(
        self,
        table_id: int,
        version: int,
        action: dict[str, Any],
        change: Callable[[Work], None],
        *,
        prepared: Work | None = None,
    ) -> None:
        """A move nobody asked for (a timer's, a CPU's): applied only if the table is still at ``version``;
        its outcome goes to the listener."""
        live = self._tables.get(table_id)
        if live is None:
            return
        async with live.lock:
            if self.closing or self._tables.get(table_id) is not live or live.version != version:
                return
            if not await self._settle_unconfirmed(live):
                return
            work = prepared if prepared is not None else self.work(live)
            work.now = self.clock.now()
            change(work)
            if prepared is None and not work.public and not work.steps and work.status is None:
                return
            try:
                outcome = await self.commit(live, work, None, action)
            except ServiceError:
                return
        self.feed.push(outcome)

    async def _stored_anyway(self, stored: Callable[[], Awaitable[bool]]) -> bool | None:
        """Whether a commit whose connection broke reached the database all the same (the server committed
        it, its answer was lost), as ``stored`` reads it from the database: a move's (``_at_next_version``)
        or a new table's (``open``). Told as done, not as "nothing changed". Asked again for a few seconds
        (the first connections the pool hands out may be as dead as the one that broke); None when the
        database could not say."""
        give_up = time.monotonic() + IN_DOUBT_WAIT
        pause = 0.05
        while True:
            try:
                async with asyncio.timeout(max(0.1, give_up - time.monotonic())):
                    return await stored()
            except (StoreError, TimeoutError):
                if time.monotonic() + pause >= give_up:
                    return None
                await asyncio.sleep(pause)
                pause = min(pause * 2, 0.5)

    async def _at_next_version(self, live: LiveTable) -> bool:
        """Whether the table's stored version is the one after the held one: its move in doubt was stored
        (this process alone moves this table)."""
        stored = await self.store.get_state(live.id)
        return stored is not None and stored.version == live.version + 1

    def _not_stored(
        self, error: StoreError, stored: bool | None, recheck: Callable[[], Awaitable[object]]
    ) -> NoReturn:
        """A commit (a move's, a new table's) that was not stored, or not known to be (``stored`` None):
        counted as failed and refused. One not known is asked about again later (``recheck``, which raises
        StoreError while the database does not answer) and refused as in doubt (CommitInDoubtError: "the
        table will show it in a moment"), not as "nothing changed"."""
        self.outage.commit_failed(error)
        if stored is None:
            self._recheck_later(IN_DOUBT_RECHECK, recheck)
            # Whatever broke (a connection cut after the server committed, its answer lost; a server that
            # holds the statement and may run it when it wakes), the database could not say: the player is
            # told it is not known yet, not that nothing changed.
            raise CommitInDoubtError(str(error)) from error
        raise error

    async def _settle_unconfirmed(self, live: LiveTable) -> bool:
        """A table whose last commit could not be confirmed either way (``live.unconfirmed``) is checked
        against the database before anything else moves it. True when the move was not stored (the table
        is as held); False when it was: the table is loaded again as stored, and that move's public lines
        are told now (from the outbox, written in the move's transaction), so the caller's request is stale.
        A database still away raises StoreUnavailableError, as a commit would."""
        if not live.unconfirmed:
            return True
        try:
            stored = await self.store.get_state(live.id)
        except StoreError as error:
            unavailable = (
                error if isinstance(error, StoreUnavailableError) else StoreUnavailableError(str(error))
            )
            self.outage.commit_failed(unavailable)
            raise unavailable from error
        if stored is None or stored.version == live.version:
            live.unconfirmed = False
            return True
        log.warning("table %s: a move whose commit could not be confirmed was stored; reloading", live.id)
        untold = [
            row
            for row in await self.store.untold(self.shards)
            if row.table_id == live.id and row.version > live.version
        ]
        self.drop(live)
        reloaded = await self.load(live.id)
        if untold:
            await self._tell_untold(untold, {reloaded.id: reloaded} if reloaded is not None else {})
        return False

    def _recheck_later(self, delay: float, recheck: Callable[[], Awaitable[object]]) -> None:
        """Ask again, after ``delay``, whether a commit in doubt was stored (``recheck``: a move's,
        ``_recheck_move``; a new table's, in ``open``), without waiting for someone to move the table; while
        the database does not answer (``recheck`` raises StoreError), again later, twice as late each
        time."""

        async def again() -> None:
            if self.closing:
                return
            try:
                await recheck()
            except StoreError:
                self._recheck_later(min(delay * 2, IN_DOUBT_RECHECK_MAX), recheck)

        self.clock.call_later(delay, again)

    async def _recheck_move(self, live: LiveTable) -> None:
        """The table's move in doubt, asked about again: if it was stored, the table is loaded as stored and
        the move told in the channel (``_settle_unconfirmed``)."""
        if self._tables.get(live.id) is not live:
            return
        async with live.lock:
            if self._tables.get(live.id) is live and live.unconfirmed:
                await self._settle_unconfirmed(live)

    def work(self, live: LiveTable) -> Work:
        # Read together: the move re-states the table's times if the wall clock was set meanwhile.
        return Work.of(live, self.clock.now(), self.clock.monotonic())

    async def commit(
        self, live: LiveTable, work: Work, actor_id: int | None, action: dict[str, Any]
    ) -> Outcome:
        settle(work)
        doc = work.doc
        deadline = store_deadline(work)
        game = work.game
        state = {**doc, "match": game.to_json() if game is not None else None}
        self.check_not_paused()
        try:
            version = await self.store.commit_move(
                MoveCommit(
                    live.id,
                    live.version,
                    actor_id=actor_id,
                    action={**action, "steps": work.steps},
                    events=work.log_events,
                    new_state=state,
                    deadline=deadline,
                    now=work.now,
                    seats=work.seats if work.seats_changed else None,
                    status=work.status,
                    round_result=work.round_result,
                    match_result=work.match_result,
                    told=[told_json(event) for event in work.public],
                )
            )
        except ConflictError:
            log.warning("table %s: state version moved on; reloading", live.id)
            await self.reload(live.id)
            raise ServiceError("stale", NO_LONGER_POSSIBLE) from None
        except (StoreUnavailableError, DamagedDatabaseError) as error:
            stored = (
                await self._stored_anyway(lambda: self._at_next_version(live))
                if _may_be_stored(error)
                else False
            )
            if not stored:
                # Nothing was swapped in: the table stays as committed. Unconfirmed either way, it is
                # checked before its next move (``_settle_unconfirmed``), and soon on its own.
                live.unconfirmed = stored is None
                self._not_stored(error, stored, lambda: self._recheck_move(live))
            version = live.version + 1
        self.outage.succeeded()
        live.doc = doc
        live.seats = work.seats
        live.match = work.match
        live.crazier = work.crazier
        live.version = version
        if work.ruleset is not None:
            live.ruleset = work.ruleset
        for user_id, events in work.private.items():
            notes = live.notes.setdefault(user_id, deque(maxlen=8))
            notes.extend(events)
        if work.status in ("finished", "abandoned"):
            self.drop(live)
        else:
            self._notify(live, open_=True)
            self.scheduler.schedule(live)
        return Outcome(
            snapshot(live),
            tuple(work.public),
            {user: tuple(events) for user, events in work.private.items()},
            version,
        )


def _may_be_stored(error: StoreError) -> bool:
    """Whether a commit that failed with ``error`` may have reached the database all the same (its connection
    broke in flight, or the server did not answer in time), so that the database is asked. One refused before
    anything was sent (StoreRefusedError), or by a damaged database, was not: nothing changed."""
    return isinstance(error, StoreUnavailableError) and not isinstance(error, StoreRefusedError)


def _in_doubt(rows: list[OutboxRow]) -> tuple[UntoldLine | None, list[OutboxRow]]:
    """A table's untold rows split into the line that was on its way (note_telling leaves at most one
    line's rows noted, and they come first) and the moves after it."""
    noted = rows[0].attempt
    if noted is None:
        return None, rows
    count = sum(1 for _ in itertools.takewhile(lambda row: row.attempt == noted, rows))
    return UntoldLine(rows[0].version, rows[count - 1].version, noted), rows[count:]


def told_json(event: TableEvent) -> dict[str, Any]:
    """A public event as the outbox keeps it (``told_event`` reads it back)."""
    return {"kind": event.kind, "seat": event.seat, "data": dict(event.data), "source": event.source}


def told_event(stored: dict[str, Any]) -> TableEvent:
    source: Literal["engine", "service"] = "engine" if stored.get("source") == "engine" else "service"
    return TableEvent(str(stored["kind"]), stored.get("seat"), dict(stored.get("data") or {}), source)


def live_from(record: TableRecord, seats: list[SeatRecord], state: dict[str, Any], version: int) -> LiveTable:
    doc = {key: value for key, value in state.items() if key != "match"}
    stored = state.get("match")
    crazier = (
        CrazierMatch.from_json(stored) if isinstance(stored, dict) and is_crazier_state(stored) else None
    )
    match = Match.from_json(stored) if stored is not None and crazier is None else None
    return LiveTable(
        record=record,
        seats=sorted(seats, key=lambda s: s.position),
        doc=doc,
        match=match,
        # A match is played under the rules it was dealt with, stored with it: a preset changed since (an
        # upgrade) reaches the tables opened after it, and lobbies, not a match in play.
        ruleset=match.ruleset if match is not None else table_ruleset(record, doc),
        version=version,
        crazier=crazier,
    )
