"""The service's outcomes, shown on Discord: turn lines, board edits and private hand refreshes.

``TablePublisher`` is the service's ``TableListener`` (CPU moves, timeouts, rounds starting on their own) and
also receives the outcomes of the players' own actions from the cog. Each table has three lanes, each with
at most one task, so that none waits for another:

* **hands** (how the next player learns it is their turn): the hand messages that changed are edited in
  place at once, through the interactions that showed them (interaction webhooks, exempt from Discord's
  global limit). They never wait for the public lanes.
* **lines** (the turn line, which @mentions the person to move): sent as a public follow-up of the table's
  latest player interaction when one is usable (an interaction webhook: exempt), else as a channel message
  (globally limited: it waits for a turn of the budget, see below). Lines are spaced by ``min_interval``
  per table; what happens meanwhile is told in the next line.
* **board** (one message per table, edited): a message one of the table's interactions posted, edited
  through that interaction's token (exempt) while it lives, and moved to a newer interaction of the table
  before it ends (``bot.delivery.carrier``, ``_board_carrier``); without a living interaction (a table idle
  for 15 minutes) it goes through the channel, globally limited, so it waits for a turn. Either way it shows
  the table's latest state, whatever arrived while it waited (its "Last plays" field holds the plays since),
  and is skipped when the board would not change. At most ``BOARD_EDITS_IN_FLIGHT`` boards are edited
  through interactions at once: when the process is short of CPU the boards wait, not the clicks.

When the tables want more than Discord's global budget, they wait for their turn, the work due longest
first, and read what they send only once it comes (the request goes out on the turn it holds,
``GlobalBudget.turn(since)``): nothing waits with stale news, news is coalesced per table (one
request in flight per lane), never dropped. A line that would tell more than one message holds goes out as
several messages, never summarised. While a CPU seat is to move, each lane waits for its move (up to
``gather_window``, which the bot sets to cover a CPU's delay: ``gather_window_for``), so a person's play and
the CPU's answer become one line and one board edit (one picture, two requests fewer), and so does a run of
CPU moves.

A line, a board edit or a hand refresh that fails for a reason that passes (429 after discord.py's retries,
5xx, a dropped connection) is rescheduled with a growing pause: a line's events go back in front of the next
line (a follow-up that may have been posted excepted: below), so a "your turn" mention is folded into it
rather than lost, and the board or hand is edited again with the latest state. When a player's own answer
(their new hand) does not go out, their hand message is refreshed as anyone's. A refusal that would only
repeat (403: missing permissions) is logged and not retried, since retrying would pile up invalid requests
towards Discord's ban.

The floor the budget sets on how far a board edited through the channel lags: with ``n`` such tables and a
global rate of ``r`` requests per second, each gets a turn about every ``n / r`` seconds (2.6 s for 100, 8 s
for 300 at Discord's 50/s, paced at 38). Boards riding an interaction do not wait for it.

Every committed move is told once, even across a crash (issue 26): the store writes each move's public
events to its outbox in the move's transaction; before a line goes out, its texts, nonces and route are noted
on the rows it tells (the rows before are told); once it went, the rows are marked told (deleted), the marks
of all tables written together by one task. A restarted process gets the rows left (``Outcome.resumed``: the
line that was on its way, then the moves after it) and tells them first: the line on its way in the channel
with the nonces it had (Discord's ``enforce_nonce`` returns a message it accepted in the last few minutes
instead of posting it again), or, for a follow-up (no nonce there), only what the channel's history does not
show after the line before it. A follow-up met by a 5xx or a lost connection is such a line without a restart
(Discord's edge answers 5xx at times after Discord posted it): sent once (``bot.delivery.budget.sent_once``:
neither the budget nor discord.py sends it again), it is looked for in the history a second later, and only
what is not there is sent (``_line_in_doubt``); where the history cannot be read, it is sent again: shown
twice, maybe, but never lost. Nothing newer is told before it.

Hands: the last interaction that showed a player their hand is kept per (table, player); while its token is
younger than ``HAND_EDIT_WINDOW`` the hand message is edited in place when it changes (your turn came, a
penalty draw). When it is older, the public line tells the player to press "My hand".

This file holds the lanes (when to send what); each table's queued news is a ``TableFeed``
(``bot.delivery.feed``), the board message is built, sent and edited by ``bot.delivery.board``, and the
players' hand messages have one owner, ``HandMessages`` (``bot.delivery.hands``): the cogs call its ``show``,
this file its ``refresh``. The service's outcomes reach it through ``bot.delivery.relay``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import aiohttp
import discord

from bot.delivery import answers, webhook_calls
from bot.delivery.board import BoardMessages
from bot.delivery.budget import GlobalBudget
from bot.delivery.carrier import REPOST_AFTER, BoardCarrier
from bot.delivery.channel_refusals import UNKNOWN_MESSAGE, ChannelRefusals, is_gone
from bot.delivery.feed import (
    UNKNOWN,
    TableFeed,
    acting_joined,
    board_view_key,
    cpu_to_act,
    hand_key,
    line_chunks,
    line_nonce,
    mentioning,
    told_in_line,
    told_with_versions,
    turn_comes,
)
from bot.delivery.hand_session import HAND_EDIT_WINDOW
from bot.delivery.hands import HandMessages
from bot.delivery.relay import OutcomeRelay
from bot.delivery.store_failures import level_of
from bot.i18n import use_locale
from bot.service import (
    Outcome,
    ServiceError,
    SystemClock,
    TableEvent,
    TableService,
    TableSnapshot,
    UntoldLine,
)
from bot.ui import render
from bot.ui.appearance import TEXT_ONLY, Appearance

log = logging.getLogger(__name__)

DEFAULT_DEBOUNCE = 0.3  # seconds: gather window while a CPU seat moves
GATHER_MARGIN = 0.25  # seconds the lanes wait for a CPU's move beyond its delay and the service's batch
MAX_GATHER = 1.6  # seconds: a longer wait for a CPU would hold a person's play off the board for too long
# Board edits through interactions in flight at once, all tables together. A board edit is the heaviest of
# what a move sends (a picture drawn and uploaded) and the least urgent: when the process is short of CPU
# (1,000 busy tables on one core), boards wait for a slot and then show all that happened meanwhile, so that
# clicks, hands and turn lines keep their speed. At 300 busy tables it never binds (bench/e2e.py).
BOARD_EDITS_IN_FLIGHT = 6
ANSWER_WAIT = 3.0  # seconds to wait for a player's own answer before following it up with the public line
BOARD_COMING_WAIT = 10.0  # seconds a board lane waits for the table's first board, posted as an answer
RETRY_FIRST = 1.0  # seconds before a failed line or board edit is tried again; doubled each time ...
RETRY_MAX = 30.0  # ... up to this
# Replaced boards whose delete met a failure that may pass, waiting to be deleted again (all tables together):
# past this many the oldest is given up (a bound for a long outage; one task tries them all).
REMOVALS_MAX = 1000
# Discord's thread channel types (announcement, public, private thread; a forum post is a public thread).
THREAD_TYPES = (10, 11, 12)
# Seconds the outbox's "told" marks gather before they are written: one write for every table's lines of that
# time (a busy process wrote one per line). A mark only spares a restart the check of a line already sent,
# whose note and nonce keep it from being told twice.
MARK_GATHER = 0.5


def gather_window_for(cpu_delay: float, batch_window: float) -> float:
    """How long the lanes wait for a CPU seat's move before they show what came before it. A CPU moves
    ``cpu_delay`` after its turn began and the service hands its move on ``batch_window`` later: waiting that
    long (and a little more) shows a person's play with the CPU's answer, one line and one board edit instead
    of two each, at the price of that play reaching the board as late (1.55 s at the default second). A
    delay too long for that (over ``MAX_GATHER``) keeps the short window: the play is shown at once."""
    window = cpu_delay + batch_window + GATHER_MARGIN
    return window if cpu_delay > 0 and window <= MAX_GATHER else DEFAULT_DEBOUNCE


@dataclass(slots=True)
class _Removal:
    """A replaced board (``message_id``) whose delete met a failure that may pass, or a channel refusing the
    bot: deleted again at ``retry_at``, through ``carrier`` (the interaction that posted it) while its token
    lives, else through the channel. ``since``: when it was due (its place in line for the budget's turns).
    ``refused``: it waits for its channel to let the bot in again (the end of the channel's pause, or
    Discord saying its permissions changed: ``permissions_changed``)."""

    snapshot: TableSnapshot
    message_id: int
    carrier: BoardCarrier | None
    since: float
    failures: int
    retry_at: float
    refused: bool = False


@dataclass(frozen=True, slots=True)
class LineMessage:
    """One message of a line: its text (None: nothing to say), the user it mentions, how many of the line's
    events are told once it is sent, and whether it announces the turn."""

    content: str | None
    mention: int | tuple[int, ...] | None
    told: int
    announce: bool


class LaneClock(Protocol):
    """The time the lanes are paced by: the service's clock (``bot.service.clock``), fake in tests."""

    def monotonic(self) -> float: ...

    async def sleep(self, delay: float) -> None: ...

    async def wait(self, event: asyncio.Event, timeout: float) -> bool: ...


def is_transient(error: BaseException) -> bool:
    """A failure that may pass if the request is tried later."""
    if isinstance(error, discord.HTTPException):
        return error.status == 429 or error.status >= 500
    return isinstance(error, discord.RateLimited | aiohttp.ClientError | OSError | TimeoutError)


def outcome_unknown(error: BaseException) -> bool:
    """Whether a follow-up that failed may have been posted all the same: a 5xx (Discord's edge answers one
    after Discord took the request), a connection lost on its way (``OutcomeUnknown`` from the budget), a
    timeout. A 429, a refusal, or a connection never made: not posted."""
    if isinstance(error, discord.HTTPException):
        return error.status >= 500
    if isinstance(error, aiohttp.ClientConnectorError | aiohttp.ConnectionTimeoutError):
        return False
    return isinstance(error, aiohttp.ClientError | OSError | TimeoutError)


def _stored(mention: object) -> int | list[int] | None:
    """A line's mention as the outbox keeps it (JSON: a user id, a list of them, or None)."""
    if isinstance(mention, int) and not isinstance(mention, bool):
        return mention
    if isinstance(mention, list | tuple):
        return [m for m in mention if isinstance(m, int) and not isinstance(m, bool)]
    return None


def _newest(*ids: object) -> int | None:
    """The newest (largest) of these message ids, the ones that are ids; None if none is."""
    known = [value for value in ids if isinstance(value, int) and not isinstance(value, bool)]
    return max(known) if known else None


def retry_delay(failures: int) -> float:
    return min(RETRY_MAX, RETRY_FIRST * (1 << min(16, max(0, failures - 1))))


class TablePublisher:
    """Implements ``TableListener``; see the module docstring.

    ``budget``: the client's global budget; a table takes its turn (oldest first) and only then reads what
    to send. ``clock``: the service's (every wait and spacing of the lanes is on it). ``on_board_shown``:
    told the seconds from an outcome to the board showing it (metrics)."""

    def __init__(
        self,
        client: discord.Client,
        service: TableService,
        *,
        relay: OutcomeRelay | None = None,
        gather_window: float = DEFAULT_DEBOUNCE,
        min_interval: float = DEFAULT_DEBOUNCE,
        budget: GlobalBudget | None = None,
        clock: LaneClock | None = None,
        on_board_shown: Callable[[float], None] | None = None,
        appearance: Appearance = TEXT_ONLY,
    ) -> None:
        self.client = client
        self.appearance = appearance
        self.gather_window = gather_window
        self.min_interval = min_interval
        # Without one (tests), nothing is paced: turns are taken at once.
        self.budget = budget if budget is not None else GlobalBudget(None)
        self.on_board_shown = on_board_shown
        self.service = service
        self._clock: LaneClock = clock if clock is not None else SystemClock()
        self._feeds: dict[int, TableFeed] = {}
        self._carriers: dict[int, BoardCarrier] = {}  # table id -> the interaction that posted its board
        self._board_slots = asyncio.Semaphore(BOARD_EDITS_IN_FLIGHT)
        self._refusals = ChannelRefusals()
        self._boards_coming: dict[int, asyncio.Event] = {}  # table id -> set once its first board is known
        self._board = BoardMessages(client, appearance, self.remember_board, lambda: self.service)
        self.hands = HandMessages(
            service, appearance, self._clock, is_transient=is_transient, retry_delay=retry_delay
        )
        self._watchers: set[asyncio.Task[None]] = set()  # players' answers waited for, hand refreshes retried
        # Tables' moves told up to a version, not yet marked in the outbox: written together, in one
        # transaction, by one task at a time (what comes while it writes goes in its next write).
        self._marks: dict[int, int] = {}
        self._mark_task: asyncio.Task[None] | None = None
        # While the marks gather (``MARK_GATHER``) nothing is being shown: ``busy`` does not count them. Set
        # at ``close``: what is gathered is written at once.
        self._marks_gathering = False
        self._marks_due = asyncio.Event()
        # Replaced boards to delete again (message id -> its removal), tried by one task, the earliest first.
        self._removals: dict[int, _Removal] = {}
        self._removal_task: asyncio.Task[None] | None = None
        self._removal_in_flight = False  # the task is deleting one now
        self._removals_changed = asyncio.Event()  # one was added: its retry may be due before the one waited
        # Servers that removed the bot whose display settings are forgotten once their tables are closed and
        # shown (``_forget_left_guild``): forgotten at once, the closing would read them again.
        self._left_guilds: set[int] = set()
        # Table channels of unknown parent being asked about (``_ask_channel``): never twice at once.
        self._asking: set[int] = set()
        self._closed = False
        if relay is not None:
            relay.deliver_to(self)  # what happens on its own at the tables comes here from now on

    @property
    def clock(self) -> LaneClock:
        """The clock the lanes wait on (tests drive a fake one)."""
        return self._clock

    @property
    def refusals(self) -> ChannelRefusals:
        """The record of the channels that refuse the bot (judged at Discord's permission events)."""
        return self._refusals

    # --- the listener ---------------------------------------------------------------------------------------

    async def on_outcome(self, outcome: Outcome) -> None:
        self.publish(outcome)

    def publish(
        self, outcome: Outcome, *, shown_to: int | None = None, via: discord.Interaction | None = None
    ) -> None:
        """Queue an outcome for showing; returns at once. ``shown_to``: the player whose own move this is and
        whose answer shows them their hand as of this outcome, so no refresh of that hand is due for it.
        ``via``: that player's interaction; once it is answered, the table's public lines may go out as its
        follow-ups (exempt from the global limit) for as long as its token lives."""
        if self._closed:
            return
        table_id = outcome.table_id
        feed = self._feed(table_id)
        now = self._clock.monotonic()
        if outcome.resumed is not None:
            feed.resumed = outcome.resumed
            if feed.line_since is None:
                feed.line_since = now
        # Outcomes come in the order they were committed, nearly always; one published late (its move's
        # caller awaited something first) comes after a newer one, maybe a CPU's move that its commit let
        # start. Such an outcome neither replaces the newer state nor is told after the newer moves still
        # queued. (Version 0: not a committed move's news, no place in the order; shown as it comes.)
        older = 0 < outcome.version < feed.seen_version
        if outcome.public_events:
            self._queue_events(feed, outcome.public_events, outcome.version)
            if feed.line_since is None:
                feed.line_since = now
            if turn_comes(outcome.public_events, outcome.snapshot) or (
                not older and acting_joined(feed.snapshot, outcome.snapshot)
            ):
                feed.turns += 1
        feed.seen_version = max(feed.seen_version, outcome.version)
        seat = outcome.snapshot.seat_of(shown_to) if shown_to is not None else None
        if shown_to is not None and seat is not None:
            self.hands.note_shown(table_id, shown_to, hand_key(outcome.snapshot, seat.position))
            feed.private_users.update(user for user in outcome.private_events if user != shown_to)
        else:
            feed.private_users.update(outcome.private_events)
        if via is not None and via.channel_id == outcome.snapshot.channel_id:
            # A follow-up goes to the interaction's channel: only one in the table's channel can tell it.
            webhook_calls.let_go(feed, "via", via)
            feed.via_since = self._clock.monotonic()
        if via is not None and shown_to is not None and seat is not None:
            self._watch_answer(table_id, shown_to, via)
        # The latest state is shown (an older outcome's never over it); a closed table stays closed.
        if not older and (feed.snapshot is None or feed.snapshot.open):
            feed.snapshot = outcome.snapshot
            self._board_behind(feed, now, start=False)
        if feed.hand_snapshot is None or feed.hand_snapshot.open:
            feed.hand_snapshot = feed.snapshot if older else outcome.snapshot
        feed.changed.set()
        feed.changed = asyncio.Event()
        if feed.hand_task is None:
            feed.hand_task = asyncio.create_task(self._drain_hands(feed), name=f"eights-hands-{table_id}")
        if (feed.events or feed.resumed is not None) and feed.line_task is None:
            feed.line_task = asyncio.create_task(self._drain_lines(feed), name=f"eights-lines-{table_id}")
        elif feed.line_task is None:
            self._told(feed)  # nothing to tell in the channel: the move is told (its board follows)
        if feed.board_since is not None and feed.board_task is None:
            feed.board_task = asyncio.create_task(self._drain_board(feed), name=f"eights-board-{table_id}")

    @staticmethod
    def _queue_events(feed: TableFeed, events: tuple[TableEvent, ...], version: int) -> None:
        """Queue a move's public events for the next line, in the order of the moves' versions: after every
        queued event of its version or older, before those of newer moves (an outcome published late)."""
        at = len(feed.versions)
        if version > 0:
            while at > 0 and feed.versions[at - 1] > version:
                at -= 1
        feed.events[at:at] = events
        feed.versions[at:at] = [version] * len(events)

    def _board_behind(self, feed: TableFeed, now: float, *, start: bool = True) -> None:
        """The board is behind the table since ``now``; ``start``: its lane starts if it is not running."""
        if feed.board_since is None:
            feed.board_since = now
        elif feed.board_busy and feed.board_next is None:
            feed.board_next = now  # not in the edit under way: the board is behind since now
        if start and feed.board_task is None:
            feed.board_task = asyncio.create_task(
                self._drain_board(feed), name=f"eights-board-{feed.table_id}"
            )

    def _watch_answer(self, table_id: int, user_id: int, via: discord.Interaction) -> None:
        """The player's own answer was to show their new hand; if it does not go out (Discord refused it,
        the bot was too late), their hand message still shows the old cards: refresh it as for anyone."""

        async def watch() -> None:
            if not await self._clock.wait(answers.answered_event(via), ANSWER_WAIT):
                await self.hands.refresh(table_id, user_id)

        task = asyncio.create_task(watch(), name=f"eights-answer-{table_id}-{user_id}")
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    def _feed(self, table_id: int) -> TableFeed:
        feed = self._feeds.get(table_id)
        if feed is None:
            feed = self._feeds[table_id] = TableFeed(table_id)
        return feed

    def busy(self) -> bool:
        """Whether some outcome is still being shown."""
        return (
            bool(self._watchers)
            or self._removing()
            or bool(self.hands.tasks())
            or any(feed.tasks() for feed in self._feeds.values())
            or (self._mark_task is not None and not self._marks_gathering)
        )

    async def idle(self, timeout: float = 5.0) -> None:
        """Wait until every queued outcome has been shown (shutdown), ``timeout`` real seconds at most."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            removing = self._removing()
            tasks = [
                *self._watchers,
                *self.hands.tasks(),
                *(task for feed in self._feeds.values() for task in feed.tasks()),
                *([self._mark_task] if self._mark_task is not None else []),
                *([self._removal_task] if removing and self._removal_task is not None else []),
            ]
            if not tasks:
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            # The removals' task lives on while boards wait for their channels: looked at again shortly.
            await asyncio.wait(tasks, timeout=min(remaining, 0.1) if removing else remaining)

    def _removing(self) -> bool:
        """Whether a replaced board is being deleted, or is due to be (not one that waits for its channel to
        let the bot in: that may take many minutes, and shows nothing)."""
        return self._removal_task is not None and (
            self._removal_in_flight or any(not removal.refused for removal in self._removals.values())
        )

    async def close(self) -> None:
        """Show what is queued (briefly), then stop."""
        self._marks_due.set()
        await self.idle(timeout=2.0)
        self._closed = True
        await self._board.flush()
        if self._mark_task is None and self._marks:
            await self._write_marks()
        self.hands.close()
        removal = [self._removal_task] if self._removal_task is not None else []
        for task in [
            *self._watchers,
            *removal,
            *(task for feed in self._feeds.values() for task in feed.tasks()),
        ]:
            task.cancel()

    # --- for admins -----------------------------------------------------------------------------------------

    def backlog(self) -> int:
        """Tables whose channel does not show their latest state yet."""
        return sum(1 for feed in self._feeds.values() if feed.pending_since() is not None)

    def behind(self) -> float:
        """Seconds the longest-waiting table has waited for its line or board."""
        times = [t for feed in self._feeds.values() if (t := feed.pending_since()) is not None]
        return max(0.0, self._clock.monotonic() - min(times)) if times else 0.0

    # --- boards (the messages themselves: bot.delivery.board) ------------------------------------------

    def board_id(self, snapshot: TableSnapshot) -> int | None:
        return self._board.board_id(snapshot)

    async def board_message(self, snapshot: TableSnapshot) -> dict[str, Any]:
        """The board as message fields (``embed``, ``view`` when it has buttons, ``file``: the picture when
        the server shows it), for ``send`` or an interaction response."""
        return await self._board.fields(snapshot)  # in the server's language (``BoardMessages``)

    @contextlib.asynccontextmanager
    async def board_coming(self, table_id: int) -> AsyncIterator[None]:
        """The table's first board is being posted as an interaction's answer (``/eights new``) and
        remembered within this block: meanwhile the board lane waits for it rather than posting another in
        the channel (a join while the table opens left two boards, one of them never edited again)."""
        event = asyncio.Event()
        self._boards_coming[table_id] = event
        try:
            yield
        finally:
            event.set()
            if self._boards_coming.get(table_id) is event:
                del self._boards_coming[table_id]

    async def remember_board(
        self, table_id: int, message_id: int, via: discord.Interaction | None = None
    ) -> None:
        """A new board message (``/eights new``, ``/eights status``, a repost): edit that one from now on.
        ``via``: the interaction whose public answer it is; its token edits the board, off the global limit,
        while it lives (``bot.delivery.carrier``)."""
        if via is not None and answers.public_original(via) == message_id:
            self._carriers[table_id] = BoardCarrier(via, self._clock.monotonic(), message_id, original=True)
        else:
            self._carriers.pop(table_id, None)
        await self._board.remember(table_id, message_id)
        feed = self._feeds.get(table_id)
        if feed is not None:
            feed.board_embed = None
            feed.board_view_key = None
            feed.board_picture_key = UNKNOWN
        if self.service is not None:
            await self.service.set_board_message(table_id, message_id)

    async def replace_board(self, snapshot: TableSnapshot, message_id: int, via: discord.Interaction) -> None:
        """The board was posted again as ``via``'s answer (``/eights status``): that message is the board
        from now on, and the one it replaces goes (one board per table), deleted through the interaction
        that posted it while its token lives, else through the channel."""
        # A restored board's check posting it again meanwhile: its board is the one replaced.
        await self._board.check_settled(snapshot.table_id)
        old_id = self._board.board_id(snapshot)
        old = self._carriers.get(snapshot.table_id)
        await self.remember_board(snapshot.table_id, message_id, via=via)
        if old_id is not None and old_id != message_id:
            await self._remove_board(snapshot, old_id, old)
        feed = self._feeds.get(snapshot.table_id)
        if feed is not None and feed.snapshot is not None and feed.snapshot != snapshot:
            # A move landed while this board was on its way (its edit went to the board replaced): the new
            # board shows the table as it is now.
            self._board_behind(feed, self._clock.monotonic())

    def restored(self, table_ids: Iterable[int]) -> None:
        """These tables were restored from the store (start-up): each one's board is checked
        (``BoardMessages.check``) before its lane first shows it, whichever comes first: ``check_board`` or
        the table's news."""
        for table_id in table_ids:
            self._board.restored(table_id)

    async def check_board(self, snapshot: TableSnapshot) -> None:
        """At start-up: check a restored table's board (``BoardMessages.check``): adopt a board the previous
        process posted and did not record (the table's other boards deleted), post the board again if its
        message is gone, and bring it up to date. The check is the next turn of the table's board lane, so
        a move that comes meanwhile is shown after it, on the board it leaves, never on a second one; it
        takes its turn of the global budget after the tables already waiting. Returns once that turn is over
        (or the lane stopped). A channel deleted while the bot was away (404 Unknown Channel: no
        CHANNEL_DELETE came) closes its table at once, as the event would have."""
        if self._closed or self._refusals.gone(snapshot.channel_id):
            return  # deleted since (its table is being closed): nothing goes to it again
        attempt = self._board.restored(snapshot.table_id)
        if attempt is None:
            return  # checked already: the table's news came first
        feed = self._feed(snapshot.table_id)
        if feed.snapshot is None:
            feed.snapshot = snapshot  # (the table's news replaces it)
        self._board_behind(feed, self._clock.monotonic())
        while not attempt.is_set() and (lane := feed.board_task) is not None:
            checked = asyncio.ensure_future(attempt.wait())
            try:
                await asyncio.wait({lane, checked}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                checked.cancel()

    # --- hands (the messages themselves: bot.delivery.hands) ------------------------------------------------

    def hand_is_fresh(self, table_id: int, user_id: int) -> bool:
        return self.hands.is_fresh(table_id, user_id)

    def holds(self, table_id: int) -> bool:
        """Whether the publisher still keeps anything for the table: a closed table is forgotten once all
        about it has been shown."""
        return table_id in self._feeds

    def _forget_picture(self, table_id: int) -> None:
        """The table is over: drop the record of its board's picture (``bot.delivery.board``)."""
        service = self.service
        if service is None:
            return

        async def forget() -> None:
            try:
                await service.forget_board_picture(table_id)
            except Exception as error:
                log.warning("table %s: could not drop the board picture's record: %s", table_id, error)

        task = asyncio.create_task(forget(), name=f"eights-forget-picture-{table_id}")
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    def forget_table(self, table_id: int) -> None:
        self.hands.forget(table_id)
        self._board.forget(table_id)
        self._carriers.pop(table_id, None)

    # --- the lanes ------------------------------------------------------------------------------------------

    async def _gather(self, feed: TableFeed) -> None:
        """While a CPU seat is to move, wait for its move (up to ``gather_window``): shown together."""
        deadline = self._clock.monotonic() + self.gather_window
        while feed.snapshot is not None and cpu_to_act(feed.snapshot):
            remaining = deadline - self._clock.monotonic()
            if remaining <= 0:
                return
            await self._clock.wait(feed.changed, remaining)

    async def _sleep_until(self, when: float) -> None:
        delay = when - self._clock.monotonic()
        if delay > 0:
            await self._clock.sleep(delay)

    def _budget_since(self, since: float | None) -> float:
        """``since`` (on the lanes' clock) on the budget's clock, which orders the turns."""
        now = self.budget.now()
        return now if since is None else now - max(0.0, self._clock.monotonic() - since)

    def _lane_done(self, feed: TableFeed) -> None:
        """A lane finished: forget a closed table once everything about it has been shown, and what was
        known of its channel (refused, deleted, refusing files) once no other table here is in it, and of a
        server that removed the bot once none of its tables is left."""
        if feed.tasks() or feed.events or feed.board_since is not None or feed.hand_snapshot is not None:
            return
        snapshot = feed.snapshot
        if snapshot is not None and not snapshot.open and self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]
            self.forget_table(feed.table_id)
            self._forget_picture(feed.table_id)
            if not self._holds_channel(snapshot.channel_id):
                self._forget_channel(snapshot.channel_id)
            self._forget_left_guild(snapshot.guild_id)

    async def _drain_hands(self, feed: TableFeed) -> None:
        try:
            while feed.hand_snapshot is not None:
                await self._gather(feed)
                hands, users = feed.hand_snapshot, feed.private_users
                feed.hand_snapshot, feed.private_users = None, set()
                try:
                    await self._refresh_hands(hands, users, feed)
                except Exception:
                    log.exception("table %s: refreshing the hands failed", feed.table_id)
        finally:
            feed.hand_task = None
            self._lane_done(feed)

    async def _read_appearance(self, feed: TableFeed) -> None:
        """Read the server's display settings (its tables' language, card emojis, picture) before its lines
        or board are composed with ``Appearance.cached_*``: once per server, then from memory. A restored
        table's timer or CPU can move before anything else has read them (the start-up board check waits
        for Discord's READY), and its first line would be in the server's Discord language. Should the
        database fail, the defaults serve meanwhile and the next news tries again."""
        snapshot = feed.snapshot
        if snapshot is None or self.appearance.has_read(snapshot.guild_id):
            return
        try:
            await self.appearance.load(snapshot.guild_id)
        except Exception as error:
            log.warning("server %s: its display settings could not be read: %s", snapshot.guild_id, error)

    async def _drain_lines(self, feed: TableFeed) -> None:
        try:
            while feed.resumed is not None or feed.events:
                await self._read_appearance(feed)
                if feed.resumed is not None:
                    # A line whose delivery is in doubt (the previous process was sending it when it stopped,
                    # or a follow-up met a 5xx) goes first, once: nothing newer before it.
                    await self._sleep_until(feed.line_retry_at)
                    async with self.budget.turn(self._budget_since(feed.line_since)):
                        await self._tell_resumed(feed)
                    continue
                await self._gather(feed)
                await self._sleep_until(max(feed.last_line + self.min_interval, feed.line_retry_at))
                via = await self._usable_via(feed)
                if via is not None:
                    await self._post_line(feed, via)
                elif not self._line_due(feed) or self._channel_refuses(feed):
                    # Lobby chatter (nothing to post, no turn needed), or a channel that refuses the bot.
                    feed.events, feed.versions, feed.line_since = [], [], None
                else:
                    async with self.budget.turn(self._budget_since(feed.line_since)):
                        # A player may have acted while the line waited: their interaction carries it.
                        await self._post_line(feed, self._answered_via(feed))
                self._told(feed)
            self._told(feed)
        finally:
            feed.line_task = None
            self._lane_done(feed)

    async def _drain_board(self, feed: TableFeed) -> None:
        try:
            while feed.board_since is not None and feed.snapshot is not None:
                await self._read_appearance(feed)
                await self._gather(feed)
                await self._sleep_until(max(feed.last_board + self.min_interval, feed.board_retry_at))
                coming = self._boards_coming.get(feed.table_id)
                if coming is not None:
                    await self._clock.wait(coming, BOARD_COMING_WAIT)
                if feed.snapshot is None:
                    break
                if self._board.unchanged(feed.snapshot, feed):
                    feed.board_since = None  # nothing to send: no turn needed
                    continue
                carrier = await self._board_carrier(feed)
                if carrier is not None:
                    async with self._board_slots:  # exempt, no turn of the budget; one of the slots
                        await self._show_board(feed, carrier)
                elif self._channel_refuses(feed):
                    feed.board_since = None  # shown again at the table's next news after the pause
                else:
                    async with self.budget.turn(self._budget_since(feed.board_since)):
                        await self._show_board(feed)
        finally:
            feed.board_task = None
            self._lane_done(feed)

    async def _board_carrier(self, feed: TableFeed) -> BoardCarrier | None:
        """The interaction whose token edits the board now; None: the channel route (and the budget).

        The board moves to the table's latest answered interaction (posted again as its follow-up, the old
        message removed) when its carrier is near its end or there is none (a board posted in the channel,
        a restart): a busy table's board always rides an interaction, and comes back near the bottom of
        the channel every ``REPOST_AFTER``. A table without a player interaction for that long (CPU seats
        only, idle) keeps its carrier while it lives, then falls back to the channel."""
        now = self._clock.monotonic()
        carrier = self._carriers.get(feed.table_id)
        snapshot = feed.snapshot
        if snapshot is None or self._board.board_id(snapshot) is None or self._board.unchecked(feed.table_id):
            return None  # no board yet, or a restored one not checked yet: ``edit`` posts or checks it
        if self._refusals.gone(snapshot.channel_id):
            # The board's message went with its channel: its token would edit it there (the lane then finds
            # the channel refusing, and sends nothing).
            self._carriers.pop(feed.table_id, None)
            return None
        if carrier is not None and carrier.message_id != self._board.board_id(snapshot):
            carrier = None  # the board was replaced meanwhile (``/eights status``, a restart's repost)
        if carrier is None or carrier.aging(now):
            via = await self._usable_via(feed)  # a player's answer is about to go out: worth the wait
            now = self._clock.monotonic()
            # Only to an interaction with most of its life ahead (else the board would soon move again).
            if (
                via is not None
                and snapshot.open
                and now - feed.via_since < REPOST_AFTER
                and (carrier is None or feed.via_since > carrier.since)
            ):
                moved = await self._move_board(feed, snapshot, via, carrier)
                if moved is not None:
                    return moved
        if carrier is not None and carrier.fresh(now):
            return carrier
        self._carriers.pop(feed.table_id, None)
        return None

    async def _move_board(
        self,
        feed: TableFeed,
        snapshot: TableSnapshot,
        via: discord.Interaction,
        old: BoardCarrier | None,
    ) -> BoardCarrier | None:
        """Post the board again as a follow-up of ``via`` and remove the old board message. None when the
        follow-up could not be sent (the board stays where it was)."""
        since = feed.via_since
        try:
            message_id, old_id = await self._board.repost(snapshot, via)
        except Exception as error:
            if not isinstance(error, discord.HTTPException | discord.RateLimited) and not is_transient(error):
                raise
            log.info("table %s: the board could not move to a newer interaction: %s", feed.table_id, error)
            webhook_calls.note_refused(via, error)  # the hands and the lines stop using it too
            if feed.via is via and not is_transient(error):
                feed.via = None  # its token no longer serves
            return None
        # The board replaced may be one an /eights status posted meanwhile, with a carrier of its own.
        old = self._carriers.get(feed.table_id, old)
        carrier = self._carriers[feed.table_id] = BoardCarrier(via, since, message_id, original=False)
        # What the new message shows: the edit that follows sends only what changed since.
        with use_locale(self.appearance.cached_language(snapshot.guild_id)):
            feed.board_embed = dict(
                render.board_embed(snapshot, self.appearance.cached_faces(snapshot.guild_id)).to_dict()
            )
        feed.board_view_key = board_view_key(snapshot)
        if old_id is not None and old_id != message_id:
            await self._remove_board(snapshot, old_id, old)
        return carrier

    async def _remove_board(self, snapshot: TableSnapshot, message_id: int, old: BoardCarrier | None) -> None:
        """The replaced board goes (one board per table): through its own interaction while it lives, else
        in the channel (globally limited: it takes a turn). A failure that may pass (a 5xx, a 429 after
        discord.py's retries, a dropped connection) leaves it to be deleted again later (``_removals``)."""
        now = self._clock.monotonic()
        removal = _Removal(snapshot, message_id, old, now, 0, now)
        if not await self._try_removal(removal, self.budget.now()):
            self._remove_later(removal)

    async def _try_removal(self, removal: _Removal, since: float) -> bool:
        """Delete the replaced board once; True when nothing is left to try (deleted, gone with its channel,
        or refused for a reason that would only repeat), False after a failure that may pass or while its
        channel refuses the bot (it is tried again when the channel lets the bot in: ``_wait_for_channel``).
        ``since``: on the budget's clock, the turn's place in line."""
        snapshot, message_id, old = removal.snapshot, removal.message_id, removal.carrier
        removal.refused = False
        if self._refusals.gone(snapshot.channel_id):
            return True  # deleted with its channel
        try:
            if old is not None and old.message_id == message_id and old.fresh(self._clock.monotonic()):
                try:
                    await old.delete()
                    return True
                except discord.HTTPException as error:
                    if error.code == UNKNOWN_MESSAGE or is_transient(error):
                        raise  # gone already, or worth no second request now
                    # The token no longer serves (it expired early, or was revoked): the channel can.
                    log.info(
                        "table %s: old board not deleted through its interaction: %s",
                        snapshot.table_id,
                        error,
                    )
                    removal.carrier = None
            if self._refusals.refused(snapshot.channel_id, self._clock.monotonic()):
                self._wait_for_channel(removal)
                log.info(
                    "table %s: replaced board not removed yet: its channel refuses the bot; tried again when "
                    "it lets the bot in",
                    snapshot.table_id,
                )
                return False
            async with self.budget.turn(since):
                channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
                await channel.get_partial_message(message_id).delete()
            return True
        except Exception as error:
            if isinstance(error, discord.HTTPException) and error.code == UNKNOWN_MESSAGE:
                return True  # deleted already
            if is_transient(error):
                removal.failures += 1
                delay = retry_delay(removal.failures)
                removal.retry_at = self._clock.monotonic() + delay
                log.info(
                    "table %s: the replaced board was not removed (%s); trying again in %.0f s",
                    snapshot.table_id,
                    error,
                    delay,
                )
                return False
            if not isinstance(error, discord.HTTPException):
                raise
            # 404 Unknown Channel: gone with its channel. 403 (the channel refuses the bot): tried again when
            # it lets the bot in. Another refusal would only repeat.
            channel_id = snapshot.channel_id
            refused = self._refusals.note(channel_id, snapshot.guild_id, error, self._clock.monotonic())
            if refused and self._refusals.gone(channel_id):
                self.channel_deleted(channel_id, guild_id=snapshot.guild_id)
            elif refused:
                self._wait_for_channel(removal)
                log.info(
                    "table %s: the replaced board was not removed yet (%s): tried again when its channel "
                    "lets the bot in",
                    snapshot.table_id,
                    error,
                )
                return False
            log.info("table %s: the replaced board was not removed: %s", snapshot.table_id, error)
            return True

    def _wait_for_channel(self, removal: _Removal) -> None:
        """The replaced board's channel refuses the bot: its delete waits for the end of the channel's pause
        (its next allowed request; refused again, the pause doubles) or for Discord to say the channel's
        permissions changed (``permissions_changed``), whichever comes first. Only a deleted channel (or a
        server that removed the bot) drops it."""
        now = self._clock.monotonic()
        until = self._refusals.until(removal.snapshot.channel_id)
        removal.refused = True
        removal.retry_at = max(now, until) if until is not None else now + RETRY_MAX

    def _drop_removals(self, *, channel_id: int | None = None, guild_id: int | None = None) -> None:
        """Forget the replaced boards of a deleted channel (gone with it) or of a server that removed the bot
        (nothing can reach them)."""
        for message_id, removal in list(self._removals.items()):
            snapshot = removal.snapshot
            if snapshot.channel_id == channel_id or (guild_id is not None and snapshot.guild_id == guild_id):
                del self._removals[message_id]
        self._removals_changed.set()

    def _removals_allowed(self) -> None:
        """Channels may let the bot in again: the replaced boards waiting for theirs are deleted now."""
        now = self._clock.monotonic()
        due = False
        for removal in self._removals.values():
            if removal.refused and not self._refusals.refused(removal.snapshot.channel_id, now):
                removal.retry_at = min(removal.retry_at, now)
                due = True
        if due:
            self._removals_changed.set()

    def _remove_later(self, removal: _Removal) -> None:
        """Keep a replaced board to delete again at its ``retry_at`` (one task for all of them)."""
        if self._closed:
            return
        self._removals.pop(removal.message_id, None)
        while len(self._removals) >= REMOVALS_MAX:
            dropped = self._removals.pop(next(iter(self._removals)))
            log.warning(
                "table %s: too many replaced boards waiting to be removed: board %s left in its channel",
                dropped.snapshot.table_id,
                dropped.message_id,
            )
        self._removals[removal.message_id] = removal
        self._removals_changed.set()
        if self._removal_task is None:
            self._removal_task = asyncio.create_task(self._retry_removals(), name="eights-board-removals")

    async def _retry_removals(self) -> None:
        """Delete again, the earliest due first, the replaced boards whose delete met a failure that may
        pass, each after its growing pause (``retry_delay``), or whose channel refused the bot, once it may
        let it in (``_wait_for_channel``), until each is deleted or found gone."""
        try:
            while self._removals and not self._closed:
                self._removals_changed.clear()
                removal = min(self._removals.values(), key=lambda entry: entry.retry_at)
                delay = removal.retry_at - self._clock.monotonic()
                if delay > 0:
                    await self._clock.wait(self._removals_changed, delay)
                    continue  # the earliest due may have changed meanwhile
                del self._removals[removal.message_id]
                feed = self._feeds.get(removal.snapshot.table_id)
                if (
                    feed is not None
                    and feed.snapshot is not None
                    and self._board.board_id(feed.snapshot) == removal.message_id
                ):
                    continue  # the table's board again: never deleted
                self._removal_in_flight = True
                try:
                    done = await self._try_removal(removal, self._budget_since(removal.since))
                except Exception:
                    log.exception("table %s: removing the replaced board failed", removal.snapshot.table_id)
                    continue
                finally:
                    self._removal_in_flight = False
                if not done and removal.message_id not in self._removals:
                    self._remove_later(removal)
        finally:
            self._removal_task = None

    async def _usable_via(self, feed: TableFeed) -> discord.Interaction | None:
        """The table's latest player interaction, when its answer went out and its token still lives. None
        for a table whose channel is gone: a follow-up would go to the deleted channel."""
        via = feed.via
        if via is None or self._clock.monotonic() - feed.via_since >= HAND_EDIT_WINDOW:
            return None
        if webhook_calls.is_spent(via):  # Discord refused its token already (another lane learned it)
            feed.via = None
            return None
        if self._channel_gone(feed):
            return None
        if not await self._clock.wait(answers.answered_event(via), ANSWER_WAIT):
            if feed.via is via:
                feed.via = None
            return None
        return via

    def _answered_via(self, feed: TableFeed) -> discord.Interaction | None:
        via = feed.via
        if via is None or self._clock.monotonic() - feed.via_since >= HAND_EDIT_WINDOW:
            return None
        if webhook_calls.is_spent(via) or self._channel_gone(feed):
            return None
        return via if answers.is_answered(via) else None

    async def _show_board(self, feed: TableFeed, carrier: BoardCarrier | None = None) -> None:
        """The board's turn: show the latest state; on a failure that may pass, try again later."""
        snapshot, since = feed.snapshot, feed.board_since
        assert snapshot is not None and since is not None
        feed.last_board = self._clock.monotonic()
        feed.board_busy, feed.board_next = True, None
        try:
            await self._board.edit(snapshot, feed, carrier)
        except Exception as error:
            if carrier is not None and not is_transient(error):
                # The token no longer edits it (expired early, revoked): the channel route, at once.
                log.info("table %s: board not edited through its interaction (%s)", feed.table_id, error)
                webhook_calls.note_refused(carrier.interaction, error)
                if self._carriers.get(feed.table_id) is carrier:
                    del self._carriers[feed.table_id]
                feed.board_since = since if feed.board_next is None else min(since, feed.board_next)
                return
            if not is_transient(error):
                if not self._refused(feed, error):
                    log.warning("table %s: could not show the board: %s", feed.table_id, error)
                feed.board_since = feed.board_next  # given up until the next outcome
                return
            # Still behind since the first outcome it missed; shown again, with the latest state, later.
            feed.board_failures += 1
            delay = retry_delay(feed.board_failures)
            feed.board_retry_at = self._clock.monotonic() + delay
            log.warning(
                "table %s: could not edit the board (%s); trying again in %.0f s", feed.table_id, error, delay
            )
            return
        finally:
            feed.board_busy = False
        feed.board_since, feed.board_next = feed.board_next, None
        feed.board_failures = 0
        if self.on_board_shown is not None:
            self.on_board_shown(self._clock.monotonic() - since)

    # --- channels that refuse the bot -----------------------------------------------------------------------

    def _channel_gone(self, feed: TableFeed) -> bool:
        """The table's channel was deleted: nothing is sent to it again, by any route (its interactions'
        follow-ups and edits included; only its players' own hand messages are told)."""
        snapshot = feed.snapshot
        return snapshot is not None and self._refusals.gone(snapshot.channel_id)

    def _channel_refuses(self, feed: TableFeed) -> bool:
        """The table's channel refused the bot lately: its routes are left alone for now."""
        snapshot = feed.snapshot
        return snapshot is not None and self._refusals.refused(snapshot.channel_id, self._clock.monotonic())

    def _refused(self, feed: TableFeed, error: BaseException) -> bool:
        """Note a failure of the table's channel route; True when it was the channel refusing the bot (said
        here: once a pause, not at every move). A deleted channel's table is closed."""
        snapshot = feed.snapshot
        if snapshot is None:
            return False
        channel_id, now = snapshot.channel_id, self._clock.monotonic()
        known = self._refusals.refused(channel_id, now)
        if not self._refusals.note(channel_id, snapshot.guild_id, error, now):
            return False
        if self._refusals.gone(channel_id):
            self.channel_deleted(channel_id, guild_id=snapshot.guild_id)
        elif not known:
            log.warning(
                "table %s: channel %s refuses the bot (%s: View Channel, Send Messages, Embed Links or "
                "Attach Files removed, or a thread locked?); its lines and board wait for its permissions "
                "(or the thread) to change",
                feed.table_id,
                channel_id,
                error,
            )
        return True

    def channel_deleted(self, channel_id: int, *, guild_id: int | None = None) -> None:
        """The channel was deleted (Discord's event, for every channel of every server, or a request's 404
        Unknown Channel): its open table is closed, and nothing is sent to the channel again. Only a channel
        one of the tables here is in is remembered as gone, and only while that table is (``_lane_done``):
        Discord never gives its id to another channel.

        Its threads and forum posts went with it, and Discord says nothing of them (no THREAD_DELETE;
        discord.py makes one up only for a thread it has cached, which an archived thread, or a private one
        the bot was not added to, is not): the tables whose parent it is are closed the same way
        (``_threads_gone``). A table opened before its parent was kept, whose channel discord.py does not
        know, may be in one of them: its channel is asked about (one request each, of the tables of
        ``guild_id``, the deleted channel's server; None: of every server)."""
        self._gone_now(channel_id)
        task = asyncio.create_task(
            self._threads_gone(channel_id, guild_id), name=f"eights-threads-gone-{channel_id}"
        )
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    def _gone_now(self, channel_id: int) -> None:
        """The channel is gone: nothing is sent to it again, and its open table is closed."""
        if self._holds_channel(channel_id):
            self._refusals.note_gone(channel_id)
        else:
            self._forget_channel(channel_id)
        self._drop_removals(channel_id=channel_id)
        self._board.forget_channel(channel_id)
        self._close_gone(channel_id=channel_id)

    async def _threads_gone(self, channel_id: int, guild_id: int | None) -> None:
        """Close the tables in threads of the deleted channel (their parent, noted when they were opened), and
        ask Discord about the channels of the tables of unknown parent (``channel_deleted``)."""
        try:
            for thread_id in self.service.tables_in_threads_of(channel_id):
                log.info("channel %s was deleted, and its thread %s with it", channel_id, thread_id)
                self._gone_now(thread_id)
            unknown = self.service.tables_of_unknown_parent(guild_id)
        except Exception:
            log.exception("could not close the tables in threads of the deleted channel %s", channel_id)
            return
        asked = []
        for table_guild, table_channel in unknown:
            if table_channel != channel_id and self._unseen(table_guild, table_channel):
                self._asking.add(table_channel)
                asked.append(self._ask_channel(table_guild, table_channel))
        await asyncio.gather(*asked)

    def _unseen(self, guild_id: int, channel_id: int) -> bool:
        """Whether the channel of a table of unknown parent is to be asked about: discord.py does not know it
        (a channel it knows still exists: it forgets the threads of a deleted channel before anyone hears of
        the deletion), it is not known to be gone, and it is not being asked about already. One it knows is
        a thread or not, and its parent is noted at once."""
        if self._refusals.gone(channel_id) or channel_id in self._asking:
            return False
        guild = self.client.get_guild(guild_id)
        known = guild.get_channel_or_thread(channel_id) if guild is not None else None
        if known is None:
            return True
        self.service.note_parent(channel_id, known.parent_id if isinstance(known, discord.Thread) else None)
        return False

    async def _ask_channel(self, guild_id: int, channel_id: int) -> None:
        """One request for the channel of a table of unknown parent, after a channel of its server was
        deleted: 404 Unknown Channel closes the table as a deleted channel's; found, its parent is noted (no
        request the next time); anything else (403: a private thread the bot is not in) leaves it open."""
        try:
            found: dict[str, Any] = dict(await self.client.http.get_channel(channel_id))
        except Exception as error:
            if is_gone(error):
                log.info("table channel %s (server %s) is gone: %s", channel_id, guild_id, error)
                self._gone_now(channel_id)
            else:
                log.info("could not tell whether table channel %s is still there: %s", channel_id, error)
            return
        finally:
            self._asking.discard(channel_id)
        thread = found.get("type") in THREAD_TYPES and found.get("parent_id") is not None
        self.service.note_parent(channel_id, int(found["parent_id"]) if thread else None)

    def guild_left(self, guild_id: int) -> None:
        """The bot was removed from a server: its tables are closed (nothing of them can be shown again), and
        its channels left alone until it is added back (``permissions_changed``). Its display settings are
        forgotten once its tables are closed and shown (``_forget_left_guild``)."""
        self._left_guilds.add(guild_id)
        self._drop_removals(guild_id=guild_id)
        for table_id in self.service.tables_in_guild(guild_id):
            self._close_gone(table_id=table_id, gone=False, guild_id=guild_id)
        self._forget_left_guild(guild_id)

    def permissions_changed(self, *, channel_id: int | None = None, guild_id: int | None = None) -> None:
        """Discord said a channel's (or a server's roles') permissions changed, or a thread changed (a
        moderator unlocked or unarchived it): a channel that refused the bot is tried again at its next
        news, and the replaced boards waiting for it are deleted now."""
        if guild_id is not None:
            self._left_guilds.discard(guild_id)  # the server is there (an event of it came): not left
        self._refusals.forgive(channel_id=channel_id, guild_id=guild_id)
        self._removals_allowed()

    def _holds_channel(self, channel_id: int) -> bool:
        """Whether a table whose news this publisher holds is in the channel."""
        return any(
            feed.snapshot is not None and feed.snapshot.channel_id == channel_id
            for feed in self._feeds.values()
        )

    def _forget_channel(self, channel_id: int) -> None:
        """No table here is in the channel any more: what was known of it (refused, gone, refusing files)
        goes."""
        self._refusals.forget(channel_id)
        self._board.forget_channel(channel_id)

    def _forget_left_guild(self, guild_id: int) -> None:
        """A server that removed the bot: once none of its tables is open or held here, its display
        settings are forgotten (read again if it adds the bot back)."""
        if guild_id not in self._left_guilds or self.service.tables_in_guild(guild_id):
            return
        if any(
            feed.snapshot is not None and feed.snapshot.guild_id == guild_id for feed in self._feeds.values()
        ):
            return
        self._left_guilds.discard(guild_id)
        self.appearance.forget_guild(guild_id)

    def _close_gone(
        self,
        *,
        channel_id: int | None = None,
        table_id: int | None = None,
        gone: bool = True,
        guild_id: int | None = None,
    ) -> None:
        """Close the table (of the channel) whose channel is gone; its closing is shown where it still can
        be (the players' hand messages), not in the channel. ``guild_id``: the server that removed the bot,
        whose settings are forgotten once its tables are closed."""

        async def close() -> None:
            try:
                await closing()
            finally:
                if guild_id is not None:
                    self._forget_left_guild(guild_id)

        async def closing() -> None:
            found = table_id if channel_id is None else await self.service.table_in_channel(channel_id)
            if found is None:
                return
            if channel_id is not None and gone:
                # A table of this process the publisher held nothing of yet (restored, not shown): the
                # channel is remembered as gone while it is held (its closing, below).
                self._refusals.note_gone(channel_id)
            try:
                outcome = await self.service.channel_gone(found)
            except ServiceError:
                if channel_id is not None and not self._holds_channel(channel_id):
                    self._forget_channel(channel_id)  # closed meanwhile, and shown
                return  # closed meanwhile
            except Exception:
                log.exception("table %s: could not close the table of a channel that is gone", found)
                return
            if not gone:  # (a channel gone was noted so by ``channel_deleted``)
                self._refusals.pause(
                    outcome.snapshot.channel_id, outcome.snapshot.guild_id, self._clock.monotonic()
                )
            log.info("table %s closed: its channel is gone", found)
            await self.on_outcome(outcome)

        task = asyncio.create_task(close(), name=f"eights-channel-gone-{channel_id or table_id}")
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    async def _post_line(self, feed: TableFeed, via: discord.Interaction | None) -> None:
        """Tell the events gathered so far: as a follow-up of ``via``, or in the channel; in several messages
        when there are more than one message tells (after a wait), so that no play goes untold. On a
        failure the events not told go back in front of the queue, to be told in the next line, and the
        turn is announced (the person to move mentioned) then if it was not yet. Before anything is sent,
        the outbox notes what is about to go out (``_note_line``), so that a restart right after Discord
        accepted it does not tell it again."""
        snapshot = feed.snapshot
        assert snapshot is not None
        events, versions, since, turns = feed.events, feed.versions, feed.line_since, feed.turns
        feed.events, feed.versions, feed.line_since = [], [], None
        feed.last_line = self._clock.monotonic()
        events, versions = told_with_versions(events, versions, snapshot)
        messages = self._line_messages(snapshot, events, feed.announced < turns)
        after = self._line_floor(feed, via)
        nonces = await self._note_line(feed, versions, messages, via, after)
        told = 0
        done = 0  # messages sent
        try:
            for message, nonce in zip(messages, nonces, strict=True):
                if message.content is not None:
                    sent = await self._send(
                        snapshot, via, message.content, mentioning(message.mention), nonce
                    )
                    feed.last_line_id = sent if sent is not None else feed.last_line_id
                told = message.told
                if message.announce:
                    feed.announced = turns
                done += 1
        except Exception as error:
            if via is not None and outcome_unknown(error):
                # Discord may have posted it: looked for before it is told again, never sent blindly.
                rest = list(zip(messages[done:], nonces[done:], strict=True))
                self._line_in_doubt(feed, versions[told:] or versions, rest, since, turns, error, after)
                return
            if not is_transient(error) and via is None:
                # 403 and the like would only repeat (and count towards Discord's ban): given up.
                if not self._refused(feed, error):
                    log.warning("table %s: could not post the turn line: %s", feed.table_id, error)
                return
            untold = events[told:] or [event for event in events if event.kind == "match_over"]
            untold_versions = versions[told:] or [
                version for event, version in zip(events, versions, strict=True) if event.kind == "match_over"
            ]
            feed.events[:0] = untold
            feed.versions[:0] = untold_versions
            if untold or feed.announced < turns:
                feed.line_since = (
                    since if feed.line_since is None or since is None else min(since, feed.line_since)
                )
            if via is not None and not is_transient(error):
                # The interaction can no longer be followed up (its token expired): the channel, at once.
                if feed.via is via:
                    feed.via = None
                log.info(
                    "table %s: line not sent as a follow-up (%s); sending it in the channel",
                    feed.table_id,
                    error,
                )
                return
            feed.line_failures += 1
            delay = retry_delay(feed.line_failures)
            feed.line_retry_at = self._clock.monotonic() + delay
            log.warning(
                "table %s: could not post the turn line (%s); trying again in %.0f s",
                feed.table_id,
                error,
                delay,
            )
            return
        feed.line_failures = 0

    def _line_due(self, feed: TableFeed) -> bool:
        """Whether the events gathered make a line at all."""
        snapshot = feed.snapshot
        if snapshot is None:
            return False
        events = told_in_line(feed.events, snapshot)
        return self._line_for(snapshot, events, feed.announced < feed.turns)[0] is not None or any(
            event.kind == "match_over" for event in events
        )

    def _line_for(
        self, snapshot: TableSnapshot, events: list[TableEvent], announce: bool
    ) -> tuple[str | None, int | tuple[int, ...] | None]:
        """(the line, the user or users it mentions)."""
        people = snapshot.people_to_act()
        fresh = bool(people) and all(self.hand_is_fresh(snapshot.table_id, user) for user in people)
        faces = self.appearance.cached_faces(snapshot.guild_id)
        # Public: in the server's language, whoever's move (and interaction) it follows.
        with use_locale(self.appearance.cached_language(snapshot.guild_id)):
            return render.turn_line(
                events, snapshot, hand_is_fresh=fresh, announce_turn=announce, faces=faces
            )

    def _line_messages(
        self, snapshot: TableSnapshot, events: list[TableEvent], announce_turn: bool
    ) -> list[LineMessage]:
        """The messages of a line, each with how many of ``events`` are told once it is sent."""
        chunks = line_chunks(events, snapshot)
        messages = []
        told = 0
        for index, chunk in enumerate(chunks):
            announce = index == len(chunks) - 1 and announce_turn
            content, mention = self._line_for(snapshot, chunk, announce)
            told += len(chunk)
            messages.append(LineMessage(content, mention, told, announce))
        if any(event.kind == "match_over" for event in events) and snapshot.ranking:
            faces = self.appearance.cached_faces(snapshot.guild_id)
            with use_locale(self.appearance.cached_language(snapshot.guild_id)):  # public: the server's
                ranking = render.final_ranking_text(snapshot, faces)
            messages.append(LineMessage(ranking, None, told, False))
        return messages

    async def _note_line(
        self,
        feed: TableFeed,
        versions: list[int],
        messages: list[LineMessage],
        via: discord.Interaction | None,
        after: int | None,
    ) -> list[str | None]:
        """Note in the outbox what is about to be sent for the moves ``versions`` tell, and return each
        message's nonce. Noted first, so that a restart can tell a line Discord accepted from one it did
        not (``_tell_resumed``): in the channel the nonce answers it, for a follow-up the channel's
        history does, after the message ``after`` (``_line_floor``)."""
        texts = [message.content for message in messages if message.content is not None]
        if not versions or min(versions) <= 0 or not texts:
            return [None] * len(messages)  # not a committed move's news (a test's outcome): nothing to note
        first, last = min(versions), max(versions)
        nonces: list[str | None] = [
            line_nonce(feed.table_id, first, last, index) for index in range(len(messages))
        ]
        attempt = {
            "via": "followup" if via is not None else "channel",
            "after": after,
            "at": time.time(),
            "lines": [
                [message.content, message.mention, nonce]
                for message, nonce in zip(messages, nonces, strict=True)
                if message.content is not None
            ],
        }
        try:
            await self.service.note_telling(feed.table_id, first, last, attempt)
        except Exception as error:
            # The line matters more than the note: only a crash in the next instant could repeat it.
            log.log(
                level_of(error),
                "table %s: could not note the line before sending it: %s",
                feed.table_id,
                error,
            )
        return nonces

    def _line_in_doubt(
        self,
        feed: TableFeed,
        versions: list[int],
        rest: list[tuple[LineMessage, str | None]],
        since: float | None,
        turns: int,
        error: BaseException,
        after: int | None,
    ) -> None:
        """A follow-up of a line met a 5xx or lost its connection: Discord may have posted it (its edge
        answers 5xx after Discord took a request), and a follow-up takes no nonce, so sending it again could
        show it (and ping the person to move) twice. That message and the rest of the line become the line
        to tell first (``feed.resumed``), as after a restart: a little later the channel's history is read
        for them (``_tell_resumed``) after the line's last message sent, else after ``after`` (the floor the
        line was noted with), and only what is not there is sent. The turn they announce is announced by
        them."""
        lines = [
            [message.content, _stored(message.mention), nonce]
            for message, nonce in rest
            if message.content is not None
        ]
        if any(message.announce for message, _ in rest):
            feed.announced = turns
        first, last = (min(versions), max(versions)) if versions else (0, 0)
        floor = _newest(feed.last_line_id, after)
        attempt = {"via": "followup", "after": floor, "at": time.time(), "lines": lines}
        feed.resumed = UntoldLine(first, last, attempt)
        feed.line_since = since if feed.line_since is None or since is None else min(since, feed.line_since)
        feed.line_failures += 1
        delay = retry_delay(feed.line_failures)
        feed.line_retry_at = self._clock.monotonic() + delay
        log.warning(
            "table %s: the turn line's follow-up failed (%s): looking for it in the channel in %.0f s "
            "before telling it again",
            feed.table_id,
            error,
            delay,
        )

    async def _tell_resumed(self, feed: TableFeed) -> None:
        """Tell the line whose delivery is in doubt exactly once: the line the previous process was sending
        when it stopped, or a follow-up of this one that met a 5xx or lost its connection
        (``_line_in_doubt``). A line sent in the channel goes there again with the nonces it had (Discord
        returns a message it accepted instead of posting it again). A follow-up, which has no nonce, is
        looked for in the channel's history after the line before it, and only what is not there is sent:
        as a follow-up of the table's latest interaction when one is usable (exempt from the global limit,
        and allowed where the bot's own channel permissions are not), else in the channel with its nonces.
        Where the bot cannot read the channel's history (no View Channel or Read Message History: tables
        play through interactions there too), the follow-up is sent again all the same: it may show twice,
        but is never lost. A failure that may pass leaves the line in doubt, tried again later."""
        line, snapshot = feed.resumed, feed.snapshot
        assert line is not None and snapshot is not None
        if self._channel_gone(feed):
            feed.resumed = None  # nothing goes to a deleted channel: its table is closed
            self._mark(feed.table_id, line.last)
            return
        attempt = line.attempt
        lines = [
            (str(content), _stored(mention), None if nonce is None else str(nonce))
            for content, mention, nonce in attempt.get("lines") or []
        ]
        route = attempt.get("via")
        if route == "followup":
            try:
                seen = await self._lines_in_channel(snapshot, attempt)
            except Exception as error:
                if is_transient(error):
                    self._resume_later(feed, line, attempt, error)
                    return
                if is_gone(error):
                    log.info("table %s: its channel is gone (%s)", feed.table_id, error)
                    feed.resumed = None
                    self._mark(feed.table_id, line.last)
                    self.channel_deleted(snapshot.channel_id, guild_id=snapshot.guild_id)
                    return
                seen = []
                log.warning(
                    "table %s: could not read the channel to find a line Discord may have posted (%s): "
                    "sending it again, it may show twice",
                    feed.table_id,
                    error,
                )
            missing = []
            for entry in lines:
                if entry[0] in seen:
                    seen.remove(entry[0])
                else:
                    missing.append(entry)
            lines = missing
            route = "untold"  # not shown: any route may tell it
        for index, (content, mention, nonce) in enumerate(lines):
            # Through the channel only, a line sent there before: its nonce answers for it.
            via = self._answered_via(feed) if route == "untold" else None
            try:
                sent = await self._send(snapshot, via, content, mentioning(mention), nonce)
            except Exception as error:
                rest = [[c, m, n] for c, m, n in lines[index:]]
                if via is not None and outcome_unknown(error):
                    # Posted, maybe: looked for again, after this one's predecessor.
                    floor = _newest(feed.last_line_id, attempt.get("after"))
                    again = {**attempt, "via": "followup", "after": floor, "at": time.time()}
                    self._resume_later(feed, line, {**again, "lines": rest}, error)
                    return
                if via is not None:
                    # Not posted (a 429, a connection never made, a token that no longer serves).
                    if not is_transient(error):
                        if feed.via is via:
                            feed.via = None  # its token no longer serves: the channel, at once
                        feed.resumed = UntoldLine(
                            line.first, line.last, {**attempt, "via": "untold", "lines": rest}
                        )
                        return
                    self._resume_later(feed, line, {**attempt, "via": "untold", "lines": rest}, error)
                    return
                if is_transient(error):
                    # The rest goes in the channel, with the nonces it had: tried again later.
                    self._resume_later(feed, line, {**attempt, "via": "channel", "lines": rest}, error)
                    return
                if not self._refused(feed, error):  # a deleted channel closes its table
                    log.warning("table %s: could not post the line in doubt: %s", feed.table_id, error)
                break
            feed.last_line_id = sent if sent is not None else feed.last_line_id
        feed.resumed = None
        feed.line_failures = 0
        self._mark(feed.table_id, line.last)

    def _resume_later(
        self, feed: TableFeed, line: UntoldLine, attempt: Mapping[str, Any], error: BaseException
    ) -> None:
        """The line in doubt (what is left of it: ``attempt``) is tried again after a growing pause."""
        feed.resumed = UntoldLine(line.first, line.last, attempt)
        feed.line_failures += 1
        delay = retry_delay(feed.line_failures)
        feed.line_retry_at = self._clock.monotonic() + delay
        log.warning(
            "table %s: could not tell the line in doubt (%s); trying again in %.0f s",
            feed.table_id,
            error,
            delay,
        )

    def _line_floor(self, feed: TableFeed, via: discord.Interaction | None) -> int | None:
        """A message id the line about to be sent will be newer than, for finding it in the channel's history
        should its delivery be in doubt: the table's line before it; for its first line here (none before
        it in this process), the newest of the table's board message and the interaction the line follows
        up, both Discord's own ids, older than anything posted after them. Never a time: the table before
        it in the channel (ended a moment ago) said the same words, and its lines are not this one's."""
        if feed.last_line_id is not None:
            return feed.last_line_id
        snapshot = feed.snapshot
        board = self._board.board_id(snapshot) if snapshot is not None else None
        return _newest(board, getattr(via, "id", None))

    async def _lines_in_channel(self, snapshot: TableSnapshot, attempt: Mapping[str, Any]) -> list[str]:
        """The bot's messages in the table's channel since the message ``attempt`` names (``_line_floor``: the
        line before it, or the table's board or interaction), oldest first: a table's channel has one open
        table. Without one (a line noted by an older version, or a table with none known), since a minute
        before the attempt."""
        after = attempt.get("after")
        if not isinstance(after, int):
            at = float(attempt.get("at") or time.time())
            after = discord.utils.time_snowflake(datetime.fromtimestamp(at - 60.0, UTC))
        me = self.client.user
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        return [
            message.content
            async for message in channel.history(limit=100, after=discord.Object(after), oldest_first=True)
            if me is not None and message.author.id == me.id
        ]

    def _told(self, feed: TableFeed) -> None:
        """The feed's moves are told up to the version before its first event still queued, and before the
        line in doubt (``feed.resumed``), if any."""
        version = feed.told_through()
        if feed.resumed is not None:
            version = min(version, feed.resumed.first - 1)
        self._mark(feed.table_id, version)

    def _mark(self, table_id: int, version: int) -> None:
        """Mark the table's moves told up to ``version`` in the outbox, with the other tables' marks due."""
        if version <= 0 or (self._closed and self._mark_task is None and not self._marks):
            return
        if version > self._marks.get(table_id, 0):
            self._marks[table_id] = version
        if self._mark_task is None:
            self._mark_task = asyncio.create_task(self._write_marks(), name="eights-outbox-marks")

    async def _write_marks(self) -> None:
        try:
            while self._marks:
                self._marks_gathering = True
                try:
                    await self._clock.wait(self._marks_due, MARK_GATHER)
                finally:
                    self._marks_gathering = False
                marks, self._marks = self._marks, {}
                try:
                    await self.service.mark_told(marks)
                except Exception as error:
                    # Left to the next note of a line (it tells the rows before it) or to a restart, whose
                    # notes and nonces keep it from telling a line twice.
                    log.log(level_of(error), "could not mark %s tables' moves told: %s", len(marks), error)
                    return
        finally:
            self._mark_task = None

    async def _send(
        self,
        snapshot: TableSnapshot,
        via: discord.Interaction | None,
        content: str,
        mentions: discord.AllowedMentions,
        nonce: str | None = None,
    ) -> int | None:
        """Send one message of a line; returns its id. In the channel with its ``nonce`` (Discord's
        ``enforce_nonce``: sent again, the first one is returned)."""
        if via is not None:
            # Only its id is kept: no message object is built from the answer.
            return await webhook_calls.send_followup(via, content, allowed_mentions=mentions)
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        sent: Any
        if nonce is not None:
            sent = await channel.send(content, allowed_mentions=mentions, nonce=nonce)
        else:
            sent = await channel.send(content, allowed_mentions=mentions)
        message_id = getattr(sent, "id", None)
        return message_id if isinstance(message_id, int) else None

    async def _refresh_hands(self, snapshot: TableSnapshot, users: set[int], feed: TableFeed) -> None:
        """Refresh the hand messages that may look different after this snapshot."""
        if snapshot.phase == "lobby":
            return
        if not snapshot.open:
            # Closed however it closed: no hand message may go on offering a turn (the mover's own answer
            # already told them; the others are told here, once).
            for seat in snapshot.seats:
                user_id = seat.user_id
                if user_id is not None and self.hand_is_fresh(snapshot.table_id, user_id):
                    await self.hands.show_closed(
                        snapshot.table_id, user_id, abandoned=snapshot.status == "abandoned"
                    )
            return
        for seat in snapshot.seats:
            user_id = seat.user_id
            # A seat a CPU took over is refreshed too: the message says so, and shows the cards it plays.
            if user_id is None or not self.hand_is_fresh(snapshot.table_id, user_id):
                continue
            # Only a hand that may look different is asked for again: the player's turn came or went,
            # their cards changed, or the round did.
            key = hand_key(snapshot, seat.position)
            if key != self.hands.shown_key(snapshot.table_id, user_id) or user_id in users:
                self.hands.note_shown(snapshot.table_id, user_id, key)
                await self.hands.refresh(snapshot.table_id, user_id)
