"""The scheduler: every timer of a live table and the moves they make — the turn timeout (the referee moves
for the absent player; after three in a row a CPU takes the seat over), the pause between rounds, lobby
expiry, abandoning a table no person touched for a day, and CPU turns (and CPU reactions out of turn).
Timers are set again after every committed move and when a table is loaded, so after a restart each resumes
with the time it had left (a turn already overdue gets a short grace).

While Discord says a server is unavailable (an outage: nobody there can reach the bot) its tables' timers wait
(``pause_guild``), CPU turns too; once it is back (``resume_guild``) each time goes on with what it had left
when the outage began, and the player to move has at least the restart's grace. A server unavailable for
UNAVAILABLE_HOLD is waited for no longer: its tables' timers run as if it had never been (nobody acted there
for that long: they close)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.engine import Action, ActionKind, Round
from bot.engine import cpu as engine_cpu
from bot.service import crazier
from bot.service.clock import Timer
from bot.service.errors import ServiceError
from bot.service.live import IDLE_TTL, LiveTable, Work, cpu_level, is_cpu, restate_times
from bot.service.models import TableEvent
from bot.service.moves import MAX_STEPS_PER_MOVE, apply_or_referee, referee_action, referee_turn
from bot.service.registry import TableRegistry
from bot.service.seats import pass_host, take_over
from bot.service.settlement import deal_next
from bot.store.base import DamagedDatabaseError, StoreUnavailableError

log = logging.getLogger(__name__)

TIMEOUTS_BEFORE_TAKEOVER = 3
# A turn whose deadline passed while the bot was down gets this long, at most its timeout.
RESTORE_GRACE = 30.0
RETRY_DELAY = 30.0  # seconds before a table whose automatic move failed sets its timers again
# While the database is unavailable, a table's due moves are tried again this often (doubling up to the
# most), so they happen within seconds of its return, in the order its state dictates.
STORE_RETRY_DELAY = 1.0
STORE_RETRY_MAX = 8.0
# How long the tables of a server Discord says is unavailable wait for it, at most: then their timers run
# again (nobody could act there for a day: they close), and what this process kept of the outage goes.
UNAVAILABLE_HOLD = IDLE_TTL


@dataclass(slots=True)
class _Unavailable:
    """A server in an outage whose tables' timers wait: since when (monotonic), and the end of the wait."""

    since: float
    hold: Timer


def _set_aside_next_turn(
    work: Work, public_from: int, log_from: int
) -> tuple[list[TableEvent], list[dict[str, Any]]]:
    """Take the next turn's events off ``work``'s public events and log (from the engine's "turn" event that
    began it, after ``public_from`` and ``log_from``), to be put back after what is told of the turn that
    ended; nothing when no turn began."""
    public = work.public
    cut = next(
        (
            i
            for i in range(public_from, len(public))
            if public[i].kind == "turn" and public[i].source == "engine"
        ),
        None,
    )
    if cut is None:
        return [], []
    # The log holds the public events in the same order, the private ones among them.
    before, log_cut = cut - public_from, log_from
    for entry in work.log_events[log_from:]:
        if entry.get("to") is None and "to_seat" not in entry:
            if not before:
                break
            before -= 1
        log_cut += 1
    later_public, later_log = public[cut:], work.log_events[log_cut:]
    del public[cut:], work.log_events[log_cut:]
    return later_public, later_log


def _shown_times(doc: dict[str, Any]) -> tuple[Any, ...]:
    """The times a table's board shows: the turn's deadline, the lobby's and the pause's ends."""
    turn = doc.get("turn")
    return (turn["deadline"] if turn else None, doc.get("lobby_until"), doc.get("pause_until"))


class TableScheduler:
    """Sets and runs the timers of the registry's tables; attaches itself to the registry."""

    def __init__(self, registry: TableRegistry, *, cpu_delay: float = 1.5) -> None:
        self._registry = registry
        self._clock = registry.clock
        self._cpu_delay = max(0.0, cpu_delay)
        self._store_retry: dict[int, float] = {}  # table id -> its last retry delay during an outage
        self._unavailable: dict[int, _Unavailable] = {}  # guild id -> its outage, while its tables wait
        registry.scheduler = self

    def schedule(self, live: LiveTable, *, restoring: bool = False) -> None:
        live.cancel_timers()
        if self._store_retry and not self._registry.outage.active:
            self._store_retry.clear()  # the outage is over
        if self._registry.closing:
            return
        if live.record.guild_id in self._unavailable:
            # Its server is in an outage: the table waits, with the times it had (``resume_guild``). Its
            # monotonic due times are left as they were, to be pushed back by the outage's length.
            return
        now, monotonic = self._clock.now(), self._clock.monotonic()
        version = live.version
        doc = live.doc
        timed, live.due_at = live.due_at, {}
        # The wall clock set on or back since the table's times were timed: the board shows, and the next move
        # stores, when each really runs out (the time it has left on the monotonic clock).
        restated = restate_times(doc, timed, now, monotonic)
        if restated:
            timed.update(restated)
            live.snapshot_of = None

        def due(when: float) -> float:
            # A deadline already timed keeps its monotonic due time: a wall clock set forward meanwhile must
            # not make a player's turn run out at the next move (nor set back, run longer).
            due_at = timed.get(when)
            if due_at is None:
                due_at = monotonic + (when - now)
            live.due_at[when] = due_at
            return due_at

        def at(when: float, handler: Callable[[int, int], Any]) -> float:
            due_at = due(when)
            live.timers.append(
                self._clock.call_later(due_at - monotonic, self._guarded(handler, live.id, version))
            )
            return due_at

        # Idle: no person acted for IDLE_TTL. A time the table gave itself (a person's turn, the pause, the
        # lobby) is never cut short by it: a turn may last up to a day too (and a timeout that ends it then
        # closes the table: ``_on_turn_timeout``). All on the monotonic clock (``_idle``).
        idle_due = due(live.idle_at())
        phase = live.phase
        if phase == "lobby" and doc.get("lobby_until") is not None:
            idle_due = max(idle_due, at(doc["lobby_until"], self._on_lobby_expired))
        elif phase == "between_rounds" and doc.get("pause_until") is not None:
            idle_due = max(idle_due, at(doc["pause_until"], self._on_pause_over))
        elif phase == "playing" and live.game is not None:
            turn = doc.get("turn")
            if turn:
                deadline = float(turn["deadline"])
                if restoring:
                    # Nobody could act while the bot was down: at least a short grace after it is back, the
                    # same whether it was down a little or long. Kept in the table's document, so that the
                    # board shows it and the moves that follow keep it (stored with the next move).
                    graced = max(deadline, now + min(RESTORE_GRACE, live.record.turn_timeout))
                    if graced != deadline:
                        deadline = graced
                        doc["turn"] = {**turn, "deadline": graced}
                        live.snapshot_of = None
                idle_due = max(idle_due, at(deadline, self._on_turn_timeout))
            if self._cpu_has_move(live):
                at(now + self._cpu_delay, self._on_cpu)
        live.timers.append(
            self._clock.call_later(idle_due - monotonic, self._guarded(self._on_idle, live.id, version))
        )

    # --- servers in an outage -------------------------------------------------------------------------------

    def paused_guilds(self) -> set[int]:
        """The servers whose tables wait for the end of their outage."""
        return set(self._unavailable)

    def _tables_of(self, guild_id: int) -> list[LiveTable]:
        registry = self._registry
        found = (registry.get(table_id) for table_id in registry.in_guild(guild_id))
        return [live for live in found if live is not None]

    def pause_guild(self, guild_id: int) -> None:
        """Discord says the server is unavailable (GUILD_DELETE ``unavailable``: an outage; nobody there can
        reach the bot): its tables' timers stop (turn, CPU, lobby, pause between rounds, idle), until
        ``resume_guild`` or UNAVAILABLE_HOLD. Nothing is kept for a server without tables here."""
        if guild_id in self._unavailable or self._registry.closing:
            return
        tables = self._tables_of(guild_id)
        if not tables:
            return

        async def hold_over() -> None:
            self._hold_over(guild_id)

        self._unavailable[guild_id] = _Unavailable(
            self._clock.monotonic(), self._clock.call_later(UNAVAILABLE_HOLD, hold_over)
        )
        for live in tables:
            live.cancel_timers()
        log.info(
            "server %s is unavailable (a Discord outage): the timers of its %d table(s) wait for it",
            guild_id,
            len(tables),
        )

    def resume_guild(self, guild_id: int) -> None:
        """The server is available again (its GUILD_CREATE): its tables' timers go on, each time with what it
        had left when the outage began (the wall times the board shows and the next move stores, pushed back
        by the outage: ``restate_times``), and the player to move has at least min(RESTORE_GRACE, the turn
        timeout), as after a restart. A table whose shown times changed has its board shown again."""
        outage = self._unavailable.pop(guild_id, None)
        if outage is None:
            return
        outage.hold.cancel()
        away = self._clock.monotonic() - outage.since
        tables = self._tables_of(guild_id)
        for live in tables:
            live.due_at = {when: due + away for when, due in live.due_at.items()}
            shown = _shown_times(live.doc)
            self.schedule(live, restoring=True)
            if _shown_times(live.doc) != shown:
                self._registry.show(live)
        log.info(
            "server %s is available again after %.0f s: the timers of its %d table(s) go on",
            guild_id,
            away,
            len(tables),
        )

    def _hold_over(self, guild_id: int) -> None:
        """The server has been unavailable for UNAVAILABLE_HOLD: its tables are waited for no longer. Their
        timers run as if there had been no outage (what is overdue happens now)."""
        outage = self._unavailable.pop(guild_id, None)
        if outage is None or self._registry.closing:
            return
        tables = self._tables_of(guild_id)
        log.warning(
            "server %s has been unavailable for %.0f hours: the timers of its %d table(s) run again",
            guild_id,
            UNAVAILABLE_HOLD / 3600,
            len(tables),
        )
        for live in tables:
            self.schedule(live)

    def _guarded(self, handler: Callable[[int, int], Any], table_id: int, version: int) -> Callable[[], Any]:
        async def run() -> None:
            task = asyncio.current_task()
            if task is not None:
                self._registry.running.add(task)
            try:
                if not self._registry.closing:
                    await handler(table_id, version)
            except ServiceError:
                pass  # the table moved on meanwhile
            except (StoreUnavailableError, DamagedDatabaseError) as error:
                # Logged once per outage by the registry's outage, not here at every attempt (a damaged file
                # too: an admin restores it, see README 'Backups', and the table goes on).
                self._registry.outage.noticed(error)
                self._retry_soon(table_id)
            except Exception:
                log.exception(
                    "table %s: timer failed; its timers are set again in %ss", table_id, RETRY_DELAY
                )
                self._retry_later(table_id)
            finally:
                if task is not None:
                    self._registry.running.discard(task)

        return run

    def _retry_later(self, table_id: int) -> None:
        """After a failed automatic move (e.g. the database was briefly unavailable) the table would wait
        forever: set its timers again a little later."""

        async def retry() -> None:
            live = self._registry.get(table_id)
            if live is not None and not self._registry.closing:
                self.schedule(live, restoring=True)

        self._retry_timer(table_id, RETRY_DELAY, retry)

    def _retry_soon(self, table_id: int) -> None:
        """Set the table's timers again shortly: a deadline that passed meanwhile fires at once (no restore
        grace), so a timeout or CPU turn due during the outage happens as soon as the database is back."""
        delay = self._store_retry.get(table_id, STORE_RETRY_DELAY / 2) * 2
        delay = min(delay, STORE_RETRY_MAX)
        self._store_retry[table_id] = delay

        async def retry() -> None:
            live = self._registry.get(table_id)
            if live is not None and not self._registry.closing:
                self.schedule(live)

        self._retry_timer(table_id, delay, retry)

    def _retry_timer(self, table_id: int, delay: float, retry: Callable[[], Any]) -> None:
        """Among the table's timers: a commit that sets them again meanwhile (a person's move, play
        resumed) cancels the retry, which would otherwise set them again later and push back a CPU's move
        already waiting its delay."""
        timer = self._clock.call_later(delay, retry)
        live = self._registry.get(table_id)
        if live is not None:
            live.timers.append(timer)

    def _cpu_has_move(self, live: LiveTable) -> bool:
        if live.crazier is not None:
            return crazier.cpu_seat(live.crazier.round, live.seats) is not None
        assert live.match is not None
        rnd = live.match.round
        if rnd.over:
            return False
        if rnd.to_act is not None and is_cpu(live.seats[rnd.to_act]):
            return True
        return any(
            is_cpu(seat) and seat.position != rnd.to_act and rnd.legal_actions(seat.position)
            for seat in live.seats
        )

    async def _on_idle(self, table_id: int, version: int) -> None:
        def change(work: Work) -> None:
            work.close("abandoned", "idle")

        await self._registry.automatic(table_id, version, {"kind": "idle"}, change)

    async def _on_lobby_expired(self, table_id: int, version: int) -> None:
        def change(work: Work) -> None:
            if work.phase == "lobby":
                work.close("abandoned", "lobby_expired")

        await self._registry.automatic(table_id, version, {"kind": "lobby_expired"}, change)

    async def _on_pause_over(self, table_id: int, version: int) -> None:
        def change(work: Work) -> None:
            if work.phase != "between_rounds":
                return
            if self._idle(work.live, work.live.doc.get("pause_until")):
                work.close("abandoned", "idle")  # the pause it showed is over: no new round for nobody
            else:
                deal_next(work)

        await self._registry.automatic(table_id, version, {"kind": "next_round"}, change)

    async def _on_turn_timeout(self, table_id: int, version: int) -> None:
        def change(work: Work) -> None:
            self._timeout(work)
            # The idle close waits for the turn the table showed; a timeout that ends that turn once nobody
            # has acted for IDLE_TTL closes the table, or the referee's move would give the next person a new
            # turn to wait for, and the table would play on by itself for days. A timeout that ended the
            # round (or the match) is scored first: the pause it starts closes the table (``_on_pause_over``).
            game = work.game
            turn = work.live.doc.get("turn")
            if (
                work.phase == "playing"
                and game is not None
                and not game.round.over
                and self._idle(work.live, turn["deadline"] if turn else None)
            ):
                work.close("abandoned", "idle")

        await self._registry.automatic(table_id, version, {"kind": "timeout"}, change)

    def _idle(self, live: LiveTable, shown: float | None) -> bool:
        """Nobody has acted for IDLE_TTL, by now or by when the time the table showed (``shown``: the turn's
        deadline or the pause's end, whose timer fired) ran out. Counted on the monotonic clock, as the timers
        are: the wall clock set on or back meanwhile (NTP, a resumed VM) makes no table idle sooner or later.
        ``live`` is the table as committed, whose times ``schedule`` timed."""
        idle_at = live.idle_at()
        idle_due = live.due_at.get(idle_at)
        if idle_due is None:  # not timed by this process (never so once scheduled): the wall clock says
            return self._clock.now() >= idle_at
        now = self._clock.monotonic()
        if shown is not None:
            now = max(now, live.due_at.get(shown, now))
        return now >= idle_due

    def _timeout(self, work: Work) -> None:
        """The referee acts for the person whose turn ran out; three in a row hand their seat to a CPU."""
        if work.crazier is not None:
            self._crazier_timeout(work)
            return
        assert work.match is not None
        seat = work.match.round.to_act
        if seat is None or is_cpu(work.seats[seat]):
            return
        record = work.seats[seat]
        drawn = referee_turn(work, seat)
        work.doc["timeouts"][seat] += 1
        in_a_row = work.doc["timeouts"][seat]
        work.say_seat("timed_out", record, in_a_row=in_a_row, count=drawn)
        # A timeout whose move ended the match (its last card played for them) hands nothing over.
        if in_a_row >= TIMEOUTS_BEFORE_TAKEOVER and not work.match.over:
            take_over(work, seat, "timeouts")
            if record.user_id is not None:
                # An absent host would leave nobody but managers able to end the table.
                pass_host(work, record.user_id)

    @staticmethod
    def _crazier_timeout(work: Work) -> None:
        """crazier-abilities: the referee answers the pending choices and ends the turn of every person who
        may still act (with teams, each member who did not end theirs). Who ran out of time is told right
        after the referee's moves of that turn and before the next turn's beginning, which the last of them
        set off in the engine ("alice ran out of time", then "bob drew 1 card")."""
        assert work.crazier is not None
        turn = crazier.turn_key(work.crazier)
        public_from, log_from = len(work.public), len(work.log_events)
        timed_out: list[int] = []
        stuck: set[int] = set()  # seats the referee could not move for (another's choice comes first)
        # Who may act is read again after each referee's part: with teams, answering one member's choice
        # may give the next choice to a teammate, and the first member's turn ends only after it. Each person
        # is timed out once; it all stays within the turn that ran out.
        for _n in range(MAX_STEPS_PER_MOVE):
            if crazier.turn_key(work.crazier) != turn:
                break
            acting = [s for s in crazier.human_acting(work.crazier.round, work.seats) if s not in stuck]
            if not acting:
                break
            seat = acting[0]
            if crazier.referee_turn(work, seat, MAX_STEPS_PER_MOVE):
                stuck.clear()
                if seat not in timed_out:
                    timed_out.append(seat)
            else:
                stuck.add(seat)
        next_public, next_log = _set_aside_next_turn(work, public_from, log_from)
        for seat in timed_out:
            record = work.seats[seat]
            work.doc["timeouts"][seat] += 1
            in_a_row = work.doc["timeouts"][seat]
            work.say_seat("timed_out", record, in_a_row=in_a_row, count=0)
            if in_a_row >= TIMEOUTS_BEFORE_TAKEOVER and not work.crazier.over:
                take_over(work, seat, "timeouts")
                if record.user_id is not None:
                    pass_host(work, record.user_id)
        work.public += next_public
        work.log_events += next_log

    async def _crazier_cpu(self, work: Work, seed_base: int) -> None:
        """crazier-abilities: every CPU seat that may act in this turn plays until no CPU may (with teams, a
        person's teammate keeps their own part of the turn). The next turn's CPU waits its own delay: the
        commit sets its timer, as in the standard game."""
        assert work.crazier is not None
        turn = crazier.turn_key(work.crazier)
        for step in range(MAX_STEPS_PER_MOVE):
            assert work.crazier is not None
            rnd = work.crazier.round
            seat = crazier.cpu_seat(rnd, work.seats)
            if seat is None or (step and crazier.turn_key(work.crazier) != turn):
                return
            level = cpu_level(work.seats[seat])
            seed = seed_base + 17 * step + seat
            try:
                if level == "hard":
                    move = await asyncio.to_thread(crazier.cpu_move, rnd.clone(), seat, level, seed)
                else:
                    move = crazier.cpu_move(rnd, seat, level, seed)
                crazier.apply(work, move)
            except Exception:
                # A CPU that fails or picks a refused move is a bug; the referee keeps the game going.
                log.exception("CPU seat %s (%s) failed; the referee moves for it", seat, level)
                fallback = crazier.referee_move(work.crazier.round, seat)
                if fallback is None:
                    return
                crazier.apply(work, fallback)

    async def _on_cpu(self, table_id: int, version: int) -> None:
        """A CPU seat's turn (or out-of-turn reaction). The decision is made on a copy outside the table's
        lock (the hard level runs in a thread); it is applied only if the table has not moved meanwhile."""
        live = self._registry.get(table_id)
        if live is None or live.version != version or live.game is None:
            return
        work = self._registry.work(live)
        seed_base = (int(live.doc["seed"]) * 1_000_003 + version * 7919) % 2**62
        if work.crazier is not None:
            await self._crazier_cpu(work, seed_base)
            if work.steps:
                await self._registry.automatic(
                    table_id, version, {"kind": "cpu"}, lambda w: None, prepared=work
                )
            return
        assert work.match is not None
        rnd = work.match.round
        reacted = False
        for seat in work.seats:
            if not is_cpu(seat) or seat.position == rnd.to_act or not rnd.legal_actions(seat.position):
                continue
            reaction = engine_cpu.react(rnd, seat.position, cpu_level(seat), seed=seed_base + seat.position)
            if reaction is not None:
                apply_or_referee(work, reaction, seat.position)
                reacted = True
                break
        if not reacted:
            seat_no = rnd.to_act
            if seat_no is None or not is_cpu(work.seats[seat_no]):
                return
            level = cpu_level(work.seats[seat_no])
            for step in range(MAX_STEPS_PER_MOVE):
                rnd = work.match.round
                if rnd.over or rnd.to_act != seat_no:
                    break
                seed = seed_base + 17 * step
                action = await self._cpu_choice(rnd, seat_no, level, seed)
                if action is None:
                    break
                apply_or_referee(work, action, seat_no)
                rnd = work.match.round
                # Call one's own last card at once, before anyone else can act.
                if not rnd.over and rnd.to_act != seat_no and rnd.legal_actions(seat_no):
                    own = engine_cpu.react(rnd, seat_no, level, seed=seed + 1)
                    if own is not None and own.kind == ActionKind.CALL_LAST:
                        apply_or_referee(work, own, seat_no)
        if not work.steps:
            return
        await self._registry.automatic(table_id, version, {"kind": "cpu"}, lambda w: None, prepared=work)

    @staticmethod
    async def _cpu_choice(rnd: Round, seat: int, level: str, seed: int) -> Action | None:
        """The CPU's decision; the hard level searches in a thread so the bot keeps answering. A CPU that
        fails is replaced by the referee's choice, so a bug there cannot stall the table."""
        try:
            if level == "hard":
                action: Action = await asyncio.to_thread(
                    engine_cpu.choose_action, rnd.clone(), seat, level, seed=seed
                )
            else:
                action = engine_cpu.choose_action(rnd, seat, level, seed=seed)
            return action
        except Exception:
            log.exception("CPU seat %s (%s) failed to decide; the referee moves for it", seat, level)
            return referee_action(rnd, seat)
