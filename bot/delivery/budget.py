"""One budget for every request Discord counts against the bot's global rate limit.

Discord allows a bot about 50 requests per second in all (``DISCORD_GLOBAL_RATE`` when Discord raised the
bot's limit); interaction callbacks (``/interactions/{id}/{token}/callback``) and interaction webhooks
(``/webhooks/{application_id}/{token}...``: follow-ups, edits of an interaction's messages) are exempt. And
an IP that makes 10,000 invalid requests (401, 403, 429) in 10 minutes is banned for an hour. discord.py
obeys the 429s it gets, but does nothing to stay under the global limit: past it, every request is answered
429 and the invalid requests pile up.

How it hooks in: discord.py sends every REST request (its ``HTTPClient`` and the interaction webhooks alike)
through one aiohttp session, and accepts an aiohttp ``TraceConfig`` (the ``http_trace`` client option).
``GlobalBudget.trace_config`` puts ``GlobalBudget.middleware`` on that session at its first request (a
middleware is cheaper than a trace's signals): aiohttp calls it around each attempt, so it paces every
attempt, retries after a 429 or a 5xx included, and reads every response's status and rate-limit headers at
the end. Nothing of discord.py's own request code is copied or replaced. A request exempt from the global
limit (an interaction's answer, a call through its token) met by a 5xx is sent again after 0.05 s, then
0.2 s, then 0.5 s (an answer only while Discord's 3 s leave time; a 5xx's Retry-After in full): discord.py's
own pauses (1 s, then 3 s) lost a click whose answer met two, and held a hand's refresh for a second. A 5xx
that says its route's bucket is spent (``X-RateLimit-Remaining: 0``) is never sent again before the bucket's
``X-RateLimit-Reset-After``: the quick retry waits for it (or, when that is longer than its pauses, leaves the
retry to discord.py), and discord.py's own retry of that request, which does not read those headers between
its tries, is held here until then (``_bucket_holds``), so no route 429 is provoked.

A follow-up's creation (``POST /webhooks/{application_id}/{token}``, Discord's execute webhook) is not
idempotent and takes no nonce: a 5xx from Discord's edge may come after Discord posted the message, and the
same request sent again posts it twice. It is never sent again here. A request made within ``sent_once`` (the
turn lines' follow-ups: ``bot.delivery.webhook_calls.send_followup``) is not sent again by discord.py either:
a 5xx, or a connection lost once the request may have reached Discord, raises ``OutcomeUnknown`` at once
instead of letting discord.py's webhook adapter retry it (1 s, then 3 s later); its caller finds out whether
the message is there before telling it again (``bot.delivery.publisher``).

The pacing: at most ``rate`` globally limited requests in any window of ``WINDOW + WINDOW_MARGIN`` seconds,
counted when each really goes, turns given to the work due longest first (``acquire(since)``; by default first
come, first served). The publisher holds its turn (``turn(since)``) while it reads the latest state and draws
what it sends: a held turn counts as a request sent at every moment until its request goes (for up to
``HOLD_MAX``), so a GC pause or drawing a picture costs no second wait and no second turn. Discord counts in
fixed 1-second windows whose edges the bot does not know; a sliding window that holds no more than the limit
in any 1.3 s holds no more in any of Discord's windows either, allowing 300 ms for requests to arrive unevenly
(a loop busy for a moment on either side, a slow network path; 200 ms was not enough against the fake Discord
on a busy machine). The cost: 50/s paces at about 38/s. A global 429 (``X-RateLimit-Scope: global`` or
``X-RateLimit-Global``) stops every globally limited request for its ``Retry-After``, and lowers the pace (by
a fifth, down to a fifth of the rate), which comes back by a tenth of the rate every 30 s without one: some
other client is spending the same budget (another process without a shared proxy), or requests reach Discord
more unevenly than the margin allows, and the bot gives way. Route 429s (scope ``user``, ``shared``) are
discord.py's to obey: it sleeps for ``retry_after`` on that route's bucket before it retries.

``rate=None`` hands the global limit to a shared REST proxy in front of Discord (``DISCORD_GLOBAL_RATE=proxy``
with ``DISCORD_API_BASE_URL`` pointing at, e.g., nirn-proxy): the bot no longer paces itself, since the proxy
sees every process's requests and paces them together; global 429s are still obeyed and every request is
still counted.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import heapq
import itertools
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Protocol

import aiohttp
import yarl
from discord.http import Route
from discord.utils import snowflake_time

log = logging.getLogger(__name__)

DEFAULT_GLOBAL_RATE = 50  # requests per second: Discord's global limit for a bot
WINDOW = 1.0  # seconds: Discord counts the global limit per second
WINDOW_MARGIN = 0.3  # seconds added to the window, for requests that arrive unevenly (a busy loop)
INVALID_WINDOW = 600.0  # seconds: Discord bans an IP after 10,000 invalid requests in 10 minutes
INVALID_BAN_AT = 10_000
INVALID_WARN_AT = 1_000  # a tenth of the ban: worth an admin's attention
SLOWDOWN = 0.8  # the pace after a global 429, as a part of the pace before it
SLOWEST = 0.2  # never slower than this part of the rate
RECOVERY_STEP = 0.1  # part of the rate regained ...
RECOVERY_EVERY = 30.0  # ... every this many seconds without a global 429
INVALID_STATUSES = frozenset({401, 403, 429})
INTERACTION_WINDOW = 3.0  # seconds: Discord drops an interaction whose first answer has not come by then
# Seconds before an exempt request (an answer, a token's call) goes again after each 5xx in a row: most 5xx
# are one request's bad luck (the next goes through), so the first try comes soon; then the pauses grow. Three
# such tries at most for each of discord.py's own (a longer outage is its to wait). A 5xx's Retry-After, if
# it has one, is waited in full.
QUICK_RETRY_PAUSES = (0.05, 0.2, 0.5)
CALLBACK_MARGIN = 0.5  # seconds an answer may take to reach Discord: no new try with less time left
BUCKET_HOLDS_MAX = 1024  # requests held for their spent bucket at once (a bound; each is forgotten at reset)
CLOCK_SKEW = 2.0  # seconds this machine's clock may run behind Discord's before an id's time is not trusted

# A follow-up's creation (execute webhook), as ``classify`` names its route: never sent again by the budget.
FOLLOWUP_CREATE = "POST /webhooks/{id}/{token}"
# Set (``sent_once``) around a request that must not be sent again after a 5xx or a lost connection: Discord
# may have taken it. Read only when such an attempt fails.
_SENT_ONCE: contextvars.ContextVar[bool] = contextvars.ContextVar("eights_sent_once", default=False)

_INTERACTION_CALLBACK = re.compile(r"^/interactions/(\d+)/[^/]+/callback$")
_TOKEN_WEBHOOK = re.compile(r"^/webhooks/(\d+)/[^/]+(?:/.*)?$")
_SNOWFLAKE = re.compile(r"^\d+$")
# A turn held (``GlobalBudget.turn``) for the next globally limited request of this task. Until that request
# goes, the held turn counts as a request sent at every moment, so nothing can join a burst behind it; it is
# good for ``HOLD_MAX`` seconds (time to draw a board picture, or a loop busy for a moment: a GC pause). A
# request that took longer (it waited for its route's bucket in discord.py) takes a new turn, still first in
# line by when its work became due.
_HELD: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("eights_held_turn", default=None)
HOLD_MAX = 1.0  # seconds
BURSTS = 5  # a window holds its limit in at least this many parts
RESUME_POLL = 0.005  # seconds between looks while every turn of the window is given but not yet used


@dataclass(eq=False, slots=True)
class _Held:
    """A turn taken ahead by ``GlobalBudget.turn``: ``at`` when it was given (None once used)."""

    since: float  # when the work it is for became due: its place in line for any further request
    at: float | None


class OutcomeUnknown(aiohttp.ClientError):
    """A request made within ``sent_once`` met a 5xx (``status``) or lost its connection (``status`` None)
    after it may have reached Discord: Discord may have done it. Raised at its first such failure, so that
    neither the budget nor discord.py sends it again."""

    def __init__(self, route: str, status: int | None) -> None:
        answer = f"answered {status}" if status is not None else "lost its connection"
        super().__init__(f"{route} {answer}: Discord may have taken it")
        self.route = route
        self.status = status


class sent_once:  # (lower case: used as a function, ``with sent_once():``)
    """Requests made in this block, in this task, are sent once: after a 5xx or a connection lost once the
    request may have reached Discord, ``OutcomeUnknown`` is raised instead of any retry (the budget's quick
    tries, discord.py's own). A connection that could not be made (the request never left) is raised as it
    was. (A class rather than a generator: it wraps every turn line's follow-up.)"""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _SENT_ONCE.set(True)

    def __exit__(self, *exc_info: object) -> None:
        _SENT_ONCE.reset(self._token)


@dataclass(frozen=True, slots=True)
class RouteInfo:
    """What the budget needs to know about one request."""

    route: str  # "METHOD /path/{id}/...": ids and tokens replaced, so it is safe as a metric label
    exempt: bool  # an interaction callback or interaction webhook: not counted by Discord's global limit
    interaction_id: int | None = None  # for an interaction callback


def route_template(path: str) -> str:
    """``/channels/123/messages/456`` → ``/channels/{id}/messages/{id}``. The segment after an interaction's
    or webhook's id is its token: it becomes ``{token}`` and never reaches a log line or a metric label."""
    parts = path.split("/")
    out: list[str] = []
    for index, part in enumerate(parts):
        if index >= 2 and parts[index - 2] in ("interactions", "webhooks"):
            out.append("{token}")
        elif _SNOWFLAKE.match(part):
            out.append("{id}")
        elif len(part) > 32:
            out.append("{token}")  # nothing the bot calls has a word this long: a secret-looking segment
        else:
            out.append(part)
    return "/".join(out)


def classify(method: str, path: str, application_id: int | None) -> RouteInfo:
    """``path`` relative to the API base (``/channels/1/messages``)."""
    template = f"{method.upper()} {route_template(path)}"
    callback = _INTERACTION_CALLBACK.match(path)
    if callback is not None:
        return RouteInfo(template, True, int(callback.group(1)))
    webhook = _TOKEN_WEBHOOK.match(path)
    if webhook is not None and (application_id is None or int(webhook.group(1)) == application_id):
        # Before the application id is known (it comes with login) no interaction exists yet either.
        return RouteInfo(template, True)
    return RouteInfo(template, False)


def callback_time_left(interaction_id: int, now: float) -> float:
    """Seconds left, at Unix time ``now``, of Discord's 3 s for an interaction's first answer (counted from
    the time in its id); 0 when the two clocks disagree by more than a plausible delay."""
    age = now - snowflake_time(interaction_id).timestamp()
    if not -CLOCK_SKEW <= age <= INTERACTION_WINDOW:
        return 0.0
    return INTERACTION_WINDOW - max(age, 0.0)


def scope_of_429(headers: Mapping[str, str], body: Any) -> str:
    """``global``, ``user`` (a route's bucket), ``shared`` (a resource's limit, not counted as invalid), or
    ``cloudflare`` (no ``Via`` header: an IP-wide block in front of Discord)."""
    if not headers.get("Via"):
        return "cloudflare"
    scope = (headers.get("X-RateLimit-Scope") or "").lower()
    if scope in ("global", "user", "shared"):
        return scope
    if (headers.get("X-RateLimit-Global") or "").lower() == "true":
        return "global"
    if isinstance(body, dict) and body.get("global"):
        return "global"
    return "user"


def retry_after_of(headers: Mapping[str, str], body: Any) -> float:
    """Seconds to wait after a 429: the body's ``retry_after`` (fractional), else the headers'."""
    candidates: list[Any] = []
    if isinstance(body, dict):
        candidates.append(body.get("retry_after"))
    candidates += [headers.get("Retry-After"), headers.get("X-RateLimit-Reset-After")]
    for value in candidates:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            continue
        if math.isfinite(seconds) and seconds >= 0:
            return min(seconds, 3600.0)
    return 1.0


class BudgetObserver(Protocol):
    """What the budget reports (``bot.metrics.BotMetrics`` implements it)."""

    def request_done(self, route: str, exempt: bool, status: int | None, seconds: float) -> None: ...

    def rate_limited(self, scope: str) -> None: ...

    def waited(self, seconds: float) -> None: ...

    def interaction_answered(self, interaction_id: int) -> None: ...


class InvalidRequests:
    """401, 403 and counted 429 answers in the last ``INVALID_WINDOW`` seconds, per second."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._seconds: collections.deque[list[int]] = collections.deque()  # [second, count], oldest first
        self._total = 0
        self._warned_at = 0.0

    def add(self) -> None:
        now = int(self._clock())
        if self._seconds and self._seconds[-1][0] == now:
            self._seconds[-1][1] += 1
        else:
            self._seconds.append([now, 1])
        self._total += 1
        self._expire(now)
        if self._total >= INVALID_WARN_AT and now - self._warned_at >= 60:
            self._warned_at = now
            log.warning(
                "%d invalid requests (401, 403, 429) in the last 10 minutes; Discord bans the bot's IP at %d",
                self._total,
                INVALID_BAN_AT,
            )

    def count(self) -> int:
        self._expire(int(self._clock()))
        return self._total

    def _expire(self, now: int) -> None:
        while self._seconds and self._seconds[0][0] <= now - INVALID_WINDOW:
            self._total -= self._seconds.popleft()[1]


class GlobalBudget:
    """See the module docstring. ``rate`` None: a shared proxy paces the bot's requests.

    ``clock`` and ``sleep`` are the event loop's by default; the tests pass a virtual clock. ``wall``: Unix
    time (how old an interaction is, by the time in its id)."""

    def __init__(
        self,
        rate: int | None = DEFAULT_GLOBAL_RATE,
        *,
        window: float = WINDOW + WINDOW_MARGIN,
        application_id: Callable[[], int | None] = lambda: None,
        observer: BudgetObserver | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        wall: Callable[[], float] = time.time,
    ) -> None:
        if rate is not None and rate < 1:
            raise ValueError("the global rate is a number of requests per second, 1 or more")
        self.rate = rate
        self.window = window
        self.application_id = application_id
        self.observer = observer
        self._clock = clock
        self._sleep = sleep
        self._wall = wall  # Unix time, to tell an interaction's age from the time in its id
        self._sent: collections.deque[float] = collections.deque()  # send times in the current window
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []  # a heap, by since then arrival
        self._order = itertools.count()
        self._pump: asyncio.Task[None] | None = None
        self._granted = 0  # turns given to waiters that have not resumed yet
        self._holds: set[_Held] = set()  # turns taken ahead whose request has not gone yet
        self.holds_expired = 0  # held turns not used: too late, or a global 429's pause (tests, diagnostics)
        self._given: collections.deque[float] = collections.deque()  # when turns were given, recent ones
        self._paused_until = 0.0
        self._edge_until = 0.0  # an edge block's end: exempt requests wait for it too
        self._pace = 1.0  # part of the rate in use (lowered by global 429s)
        self._pace_since = 0.0  # when the pace last changed
        self._last_slowdown = -math.inf
        self.invalid = InvalidRequests(clock)
        self._base = ("", yarl.URL())
        # (method, URL) of a request answered 5xx with its bucket spent -> when the bucket resets: the next
        # attempt of that request (discord.py's retry) waits until then. In memory only (the URL may hold a
        # token: never logged).
        self._bucket_holds: dict[tuple[str, yarl.URL], float] = {}

    # --- pacing ---------------------------------------------------------------------------------------------

    @property
    def limit(self) -> int | None:
        """Requests allowed per window now (None: no pacing)."""
        if self.rate is None:
            return None
        self._recover()
        return max(1, math.floor(self.rate * self._pace))

    @property
    def paused_for(self) -> float:
        return max(0.0, self._paused_until - self._clock())

    @property
    def waiting(self) -> int:
        """Requests waiting for their turn now."""
        return sum(1 for _, _, future in self._waiting if not future.done())

    async def acquire(self, since: float | None = None) -> float:
        """Wait for this request's turn; returns the seconds waited. Turns go to the waiters by ``since``
        (when their work became due; by default, now: first come, first served), as many at once as the
        window allows, so that a backlog drains at the full rate however busy the event loop is."""
        waited = await self._wait_turn(since)
        self._take(self._clock())
        return waited

    async def _wait_turn(self, since: float | None) -> float:
        """Wait until a request may go; the caller counts it (``_take``) or holds it, at once."""
        start = self._clock()
        if not self._waiting and self._wait_needed(start) <= 0:
            self._give(start)
            return 0.0
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (start if since is None else since, next(self._order), future))
        if self._pump is None:
            self._pump = asyncio.create_task(self._hand_out(), name="eights-global-budget")
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._granted -= 1  # given a turn, but cancelled before it could use it
            raise
        # Counted when the request really goes: a busy loop may resume a waiter a while after its turn came.
        self._granted -= 1
        waited = self._clock() - start
        if self.observer is not None and waited > 0:
            self.observer.waited(waited)
        return waited

    def now(self) -> float:
        """The budget's own clock (monotonic seconds), which ``since`` values are on."""
        return self._clock()

    def _wait_needed(self, now: float) -> float:
        """Seconds until the next request may go (0 or less: now). Turns given to waiters that have not
        resumed yet count as sent now."""
        wait = self._paused_until - now
        limit = self.limit
        if limit is not None:
            while self._sent and self._sent[0] <= now - self.window:
                self._sent.popleft()
            held = sum(1 for turn in self._holds if turn.at is not None and now - turn.at < HOLD_MAX)
            # Turns given but not used yet count as sent now; the excess is the sends to leave the window
            # first, less one.
            excess = len(self._sent) + self._granted + held - limit
            if excess >= 0:
                if excess < len(self._sent):
                    wait = max(wait, self._sent[excess] + self.window - now)
                else:
                    wait = max(wait, RESUME_POLL)  # only turns given out: wait for their waiters to go
            # And no burst: at most a fifth of the limit given in a fifth of the window (a burst reaches
            # Discord as a queue, and the last of it late, in the next second with the next burst).
            part = self.window / BURSTS
            while self._given and self._given[0] <= now - part:
                self._given.popleft()
            part_limit = math.ceil(limit / BURSTS)
            if len(self._given) >= part_limit:
                wait = max(wait, self._given[-part_limit] + part - now)
        return wait

    def _take(self, now: float) -> None:
        if self.rate is not None:
            self._sent.append(now)

    def _give(self, now: float) -> None:
        if self.rate is not None:
            self._given.append(now)

    async def _hand_out(self) -> None:
        """Wake the waiters, the earliest first, as the window opens."""
        try:
            while self._waiting:
                now = self._clock()
                wait = self._wait_needed(now)
                if wait > 0:
                    await self._sleep(wait)
                    continue
                while self._waiting and self._wait_needed(now) <= 0:
                    _, _, future = heapq.heappop(self._waiting)
                    if not future.done():  # a waiter cancelled meanwhile gives its place away
                        self._granted += 1
                        self._give(now)
                        future.set_result(None)
        finally:
            self._pump = None

    @contextlib.asynccontextmanager
    async def turn(self, since: float | None = None) -> AsyncIterator[None]:
        """Wait for a turn (``since`` as for ``acquire``) and hold it for the next globally limited request
        made in this block, in this task: the block runs once the turn is taken, so what it sends is the
        latest, and its first request goes without waiting again. Further requests of the block (a retry,
        a second message) wait as any request does, first in line by ``since``. A turn not used by the end of
        the block is given back."""
        waited = await self._wait_turn(since)
        now = self._clock()
        held = _Held(since if since is not None else now - waited, now)
        if self.rate is not None:
            self._holds.add(held)
        token = _HELD.set(held)
        try:
            yield
        finally:
            _HELD.reset(token)
            # Given back; a task started in the block (it inherits the context) waits for its own turn.
            held.at = None
            self._holds.discard(held)

    async def _use_turn(self) -> None:
        """A globally limited request is about to go: use the task's held turn, or wait for one."""
        held = _HELD.get()
        if held is None:
            await self.acquire()
            return
        now = self._clock()
        if held.at is not None:
            at, held.at = held.at, None
            self._holds.discard(held)
            if now - at < HOLD_MAX and self.paused_for <= 0:
                self._take(now)
                return
            # Held too long, or a global 429 came meanwhile: a turn after the pause, first in line.
            self.holds_expired += 1
        await self.acquire(held.since)

    def _recover(self) -> None:
        if self._pace >= 1.0:
            return
        steps = int((self._clock() - self._pace_since) / RECOVERY_EVERY)
        if steps > 0:
            self._pace = min(1.0, self._pace + steps * RECOVERY_STEP)
            self._pace_since += steps * RECOVERY_EVERY

    # --- answers --------------------------------------------------------------------------------------------

    def observe(
        self, info: RouteInfo, status: int, headers: Mapping[str, str], body: Any, seconds: float
    ) -> None:
        """Read one response: 429s (their scope and wait), invalid requests, and the observer's figures."""
        if status == 429:
            scope = scope_of_429(headers, body)
            retry_after = retry_after_of(headers, body)
            if self.observer is not None:
                self.observer.rate_limited(scope)
            if scope != "shared":
                self.invalid.add()
            if scope == "global" and not info.exempt:
                self._global_429(retry_after)
            elif scope == "cloudflare":
                # The edge blocks the bot's IP: every request would meet a 429 there (exempt ones too: they go
                # through it alike), each counted towards the ban. Stop them all for as long as we are told.
                log.error("Discord's edge refused the bot (429 without Via): pausing %.0f s", retry_after)
                self._pause(retry_after)
                self._edge_until = max(self._edge_until, self._clock() + retry_after)
            else:
                log.debug("%s answered 429 (%s scope), retry after %.2f s", info.route, scope, retry_after)
        elif status in INVALID_STATUSES:
            self.invalid.add()
        if self.observer is not None:
            self.observer.request_done(info.route, info.exempt, status, seconds)
            if info.interaction_id is not None and status < 300:
                self.observer.interaction_answered(info.interaction_id)

    def _global_429(self, retry_after: float) -> None:
        self._recover()
        now = self._clock()
        if self.rate is not None and self._last_slowdown + 1.0 <= now:
            # One slowdown per burst of 429s: the requests already in flight answer 429 too.
            self._pace = max(SLOWEST, self._pace * SLOWDOWN)
            self._pace_since = self._last_slowdown = now
        log.warning(
            "global rate limit hit: pausing globally limited requests for %.2f s; pace now %s/s",
            retry_after,
            self.limit if self.limit is not None else "the proxy's",
        )
        self._pause(retry_after)

    def _pause(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    # --- aiohttp ------------------------------------------------------------------------------------------

    def info_for(self, method: str, url: yarl.URL) -> RouteInfo | None:
        """The route of a request to Discord's REST API, or None for anything else (the gateway, the CDN)."""
        if self._base[0] != Route.BASE:
            self._base = (Route.BASE, yarl.URL(Route.BASE))
        base = self._base[1]
        if url.host != base.host or url.port != base.port:
            return None
        base_path = base.path.rstrip("/")
        if not url.path.startswith(base_path + "/"):
            return None
        return classify(method, url.path[len(base_path) :], self.application_id())

    def trace_config(self) -> aiohttp.TraceConfig:
        """For discord.py's ``http_trace`` option: puts ``middleware`` on the client's session at its first
        request, which aiohttp then sends through it too (it reads the session's middlewares after the
        trace's start), and leaves the session. A trace's eight or so signals per request, each with its
        parameters built, cost about 25 us of CPU per request, a tenth of the request's own; a middleware
        is one call around each attempt. The two attributes set are the session's own settings
        (``middlewares=``, ``trace_configs=``), set after discord.py built the session without them."""
        trace = aiohttp.TraceConfig()

        async def on_start(
            session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestStartParams
        ) -> None:
            if self.middleware not in session._middlewares:
                session._middlewares = (*session._middlewares, self.middleware)
            session._trace_configs = [config for config in session._trace_configs if config is not trace]

        trace.on_request_start.append(on_start)
        return trace

    async def middleware(
        self, request: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType
    ) -> aiohttp.ClientResponse:
        """An aiohttp client middleware: paces and reads every attempt of a REST request (``trace_config``
        installs it; retries are discord.py's own requests, each an attempt of its own), and sends a request
        exempt from the global limit again soon after a 5xx (an answer while Discord's 3 s allow it; never a
        follow-up's creation, which may have been posted); never before the reset of a bucket a 5xx said was
        spent. A request made within ``sent_once`` is never sent again: its 5xx or lost connection raises
        ``OutcomeUnknown``."""
        info = self.info_for(request.method, request.url)
        if info is None:
            return await handler(request)
        if self._bucket_holds:  # (nearly always empty: no key is made for every request)
            await self._wait_bucket((request.method, request.url))
        try:
            response = await self._attempt(info, request, handler)
        except (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError):
            raise  # no connection was made: the request never reached Discord
        except (aiohttp.ClientError, OSError) as error:
            if _SENT_ONCE.get():
                raise OutcomeUnknown(info.route, None) from error
            raise
        # discord.py waits 1 s, then 3 s, before it sends a request again after a 5xx. An interaction's first
        # answer counts only within 3 s of its creation: after two 5xx the click was lost ("This interaction
        # failed"); a hand or a board edit through a token waited a second or more. Those, exempt from the
        # global limit, are tried again sooner here (a few times; a click's answer only while its 3 s leave
        # time), then discord.py's own retries as before.
        for pause in QUICK_RETRY_PAUSES:
            if response.status < 500 or not info.exempt or info.route == FOLLOWUP_CREATE:
                break  # (a follow-up's creation may have been posted: sent again, it would show twice)
            # A spent bucket (Remaining 0) is not tried again before it resets: an attempt before then is
            # answered 429, an invalid request towards Discord's ban.
            pause = max(pause, _retry_after_5xx(response.headers), self._bucket_reset(response.headers))
            if info.interaction_id is not None:
                if callback_time_left(info.interaction_id, self._wall()) <= pause + CALLBACK_MARGIN:
                    break
            elif pause > QUICK_RETRY_PAUSES[-1]:
                break  # Discord asks for longer: discord.py's own pauses will do (held for the bucket)
            response.release()
            log.info("%s answered %s: trying again in %.2f s", info.route, response.status, pause)
            await self._sleep(pause)
            response = await self._attempt(info, request, handler)
        if response.status >= 500:
            if _SENT_ONCE.get():
                status = response.status
                response.release()
                raise OutcomeUnknown(info.route, status)
            self._hold_bucket((request.method, request.url), response.headers)
        return response

    def _bucket_reset(self, headers: Mapping[str, str]) -> float:
        """Seconds until the route's bucket resets when a response says it is spent (``X-RateLimit-Remaining``
        0): its ``X-RateLimit-Reset-After``, else its ``X-RateLimit-Reset`` (Unix time); 0 when not spent."""
        if (headers.get("X-RateLimit-Remaining") or "").strip() != "0":
            return 0.0
        for name, base in (("X-RateLimit-Reset-After", 0.0), ("X-RateLimit-Reset", self._wall())):
            try:
                seconds = float(headers.get(name) or "nan") - base
            except ValueError:
                continue
            if math.isfinite(seconds):
                return min(max(seconds, 0.0), 3600.0)
        return 0.0

    def _hold_bucket(self, key: tuple[str, yarl.URL], headers: Mapping[str, str]) -> None:
        """A 5xx said the request's bucket is spent: its next attempt (discord.py's retry, which does not
        wait for the bucket between its tries) waits for the reset (``_wait_bucket``)."""
        reset = self._bucket_reset(headers)
        if reset <= 0:
            return
        now = self._clock()
        holds = self._bucket_holds
        if len(holds) >= BUCKET_HOLDS_MAX:
            for stale in [k for k, until in holds.items() if until <= now]:
                del holds[stale]
            while len(holds) >= BUCKET_HOLDS_MAX:
                del holds[next(iter(holds))]  # the oldest: its reset is likely the nearest
        holds[key] = now + reset

    async def _wait_bucket(self, key: tuple[str, yarl.URL]) -> None:
        """Wait, if the last attempt of this request met a 5xx with its bucket spent, until that resets."""
        until = self._bucket_holds.pop(key, None)
        if until is None:
            return
        wait = until - self._clock()
        if wait > 0:
            log.debug("waiting %.2f s for a route's bucket before trying a request again", wait)
            await self._sleep(wait)

    async def _attempt(
        self, info: RouteInfo, request: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType
    ) -> aiohttp.ClientResponse:
        if not info.exempt:
            await self._use_turn()
        else:
            edge = self._edge_until - self._clock()
            if edge > 0:  # an edge block: an answer sent into it fails all the same, and counts as invalid
                await self._sleep(edge)
        started = self._clock()
        try:
            response = await handler(request)
        except BaseException:
            if self.observer is not None:
                self.observer.request_done(info.route, info.exempt, None, self._clock() - started)
            raise
        await self._read_answer(info, response, started)
        return response

    async def _read_answer(self, info: RouteInfo, response: aiohttp.ClientResponse, started: float) -> None:
        body: Any = None
        if response.status == 429 and "X-RateLimit-Scope" not in response.headers:
            body = await _json_body(response)
        self.observe(info, response.status, response.headers, body, self._clock() - started)


def _retry_after_5xx(headers: Mapping[str, str]) -> float:
    """A 5xx's Retry-After in seconds (0 without one, or one that is not a number of seconds)."""
    try:
        seconds = float(headers.get("Retry-After") or 0)
    except ValueError:
        return 0.0
    return seconds if math.isfinite(seconds) and seconds > 0 else 0.0


async def _json_body(response: aiohttp.ClientResponse) -> Any:
    """The body of a 429 without a scope header (read once; aiohttp keeps it for discord.py to read)."""
    try:
        return await response.json(content_type=None)
    except (ValueError, aiohttp.ClientError):
        return None
