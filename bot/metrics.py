"""Prometheus metrics for admins, served at ``http://METRICS_ADDRESS:METRICS_PORT/metrics`` when
``METRICS_PORT`` is set (off by default).

What is there (all names start with ``eights_``):

* ``interactions_total{type}`` and ``interaction_answer_seconds``: interactions received, and how long the
  bot took from receiving one to Discord accepting its answer (Discord drops an interaction not answered
  within 3 s). ``interactions_late_total{type}``: of those, the ones that reached the bot after Discord's
  3 s (replayed when a silent gateway session was resumed, or read late by a busy bot), not acted on.
* ``discord_requests_total{route,limit,status}``: REST requests by route class (``PATCH
  /channels/{id}/messages/{id}``...; ids and tokens never appear), whether Discord's global limit counts them
  (``global``) or not (``exempt``: interaction callbacks and webhooks), and the answer's status class.
  ``discord_request_seconds{limit}``: their latency. ``discord_budget_wait_seconds``: how long requests
  waited for the global budget; ``discord_budget_waiting``, ``discord_budget_rate``: the queue and the pace
  now (``-1`` when a shared proxy paces).
* ``discord_rate_limited_total{scope}``: 429s by scope (``user``: a route's bucket; ``global``; ``shared``;
  ``cloudflare``). ``discord_invalid_requests_10m``: 401/403/429 answers in the last 10 minutes (Discord bans
  the IP at 10,000).
* ``public_backlog_tables``: tables whose channel has not yet seen their latest state;
  ``board_behind_seconds``: how long the longest of them has waited; ``board_delay_seconds``: from a move to
  the board showing it. ``open_tables``: tables open in this process.
* ``failed_commits_total``: moves the database could not commit (unreachable, locked by another process,
  full).

The server (``MetricsServer``) is a small HTTP responder on the bot's own event loop: the exposition reads
the bot's state, which only the loop may touch, so it is made there, not in a thread. Whatever reaches the
port (a storm of scrapes, requests sent a byte at a time, malformed ones) must cost the loop no more than a
sliver: at most ``MAX_CONNECTIONS`` connections at once, counted as they are accepted (more wait in the
kernel's queue, holding no descriptor of the bot's), ``ACCEPTS_PER_SECOND`` new ones a second, a request head
within ``HEAD_SECONDS`` and ``MAX_HEAD`` bytes, one answer per connection, and the exposition made again only
once it is stale (``MetricsServer.exposition``). A bad request gets its 400 and one DEBUG line, never a
traceback.
"""

from __future__ import annotations

import asyncio
import collections
import errno
import functools
import logging
import os
import re
import socket
import time
from collections.abc import Callable
from typing import cast

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from bot.config import ConfigError
from bot.delivery.budget import GlobalBudget

log = logging.getLogger(__name__)

INTERACTION_TYPES = {1: "ping", 2: "command", 3: "component", 4: "autocomplete", 5: "modal"}
ANSWER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
BOARD_BUCKETS = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
PENDING_INTERACTIONS = 10_000  # interactions waiting for their answer, at most (older ones are forgotten)
PENDING_TIMEOUT = 30.0  # seconds; an interaction not answered by then is not waited for any more


def status_class(status: int | None) -> str:
    if status is None:
        return "error"  # no answer: connection failed
    if status == 429:
        return "429"
    return f"{status // 100}xx"


class BotMetrics:
    """The bot's metrics, in a registry of their own (so that several bots in one process, as in the tests,
    do not collide). Implements ``bot.delivery.budget.BudgetObserver``."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.registry = CollectorRegistry()
        counter = functools.partial(Counter, registry=self.registry)
        histogram = functools.partial(Histogram, registry=self.registry)
        gauge = functools.partial(Gauge, registry=self.registry)
        self.interactions = counter("eights_interactions", "Interactions received", ["type"])
        self.interactions_late = counter(
            "eights_interactions_late",
            "Interactions that reached the bot after Discord's 3 s: not acted on (their player saw "
            "'This interaction failed')",
            ["type"],
        )
        self.answer_seconds = histogram(
            "eights_interaction_answer_seconds",
            "Seconds from receiving an interaction to Discord accepting its answer",
            buckets=ANSWER_BUCKETS,
        )
        self.requests = counter(
            "eights_discord_requests",
            "REST requests to Discord by route class, global limit or exempt, and status class",
            ["route", "limit", "status"],
        )
        self.request_seconds = histogram(
            "eights_discord_request_seconds", "REST request latency", ["limit"], buckets=REQUEST_BUCKETS
        )
        self._request_counters: dict[tuple[str, str, int | None], Counter] = {}
        self._request_timers: dict[str, Histogram] = {}
        self.rate_limited_total = counter("eights_discord_rate_limited", "429 answers by scope", ["scope"])
        self.budget_wait = histogram(
            "eights_discord_budget_wait_seconds",
            "Seconds globally limited requests waited for the bot's global budget",
            buckets=REQUEST_BUCKETS,
        )
        self.board_delay = histogram(
            "eights_board_delay_seconds",
            "Seconds from a table's move to its board showing it",
            buckets=BOARD_BUCKETS,
        )
        # Read from the bot's state at each scrape (``watch_*`` below).
        self.invalid_requests = gauge(
            "eights_discord_invalid_requests_10m",
            "401, 403 and 429 answers in the last 10 minutes (Discord bans the IP at 10,000)",
        )
        self.budget_waiting = gauge(
            "eights_discord_budget_waiting", "Requests waiting for the global budget now"
        )
        self.budget_rate = gauge(
            "eights_discord_budget_rate",
            "Globally limited requests per second allowed now (-1: a shared proxy paces them)",
        )
        self.backlog = gauge(
            "eights_public_backlog_tables", "Tables whose channel does not show their latest state"
        )
        self.behind = gauge(
            "eights_board_behind_seconds",
            "How long the table waiting longest for its board or line has waited",
        )
        self.open_tables = gauge("eights_open_tables", "Tables open in this process")
        self.failed_commits = counter(
            "eights_failed_commits", "Moves the database could not commit (unreachable, locked, full)"
        )
        for scope in ("user", "global", "shared", "cloudflare"):
            self.rate_limited_total.labels(scope)  # present at 0 from the start
        self._pending: collections.OrderedDict[int, float] = collections.OrderedDict()
        self._server: MetricsServer | None = None

    # --- interactions ---------------------------------------------------------------------------------------

    def interaction_received(self, interaction_id: int, kind: int) -> None:
        self.interactions.labels(INTERACTION_TYPES.get(kind, "other")).inc()
        now = self._clock()
        pending = self._pending
        pending[interaction_id] = now
        while pending:
            oldest_id, since = next(iter(pending.items()))
            if now - since <= PENDING_TIMEOUT and len(pending) <= PENDING_INTERACTIONS:
                break
            del pending[oldest_id]

    def interaction_late(self, kind: int) -> None:
        """An interaction received after Discord's 3 s: counted among those received, and as late; never
        answered (Discord takes no answer to it)."""
        label = INTERACTION_TYPES.get(kind, "other")
        self.interactions.labels(label).inc()
        self.interactions_late.labels(label).inc()

    def interaction_answered(self, interaction_id: int) -> None:
        since = self._pending.pop(interaction_id, None)
        if since is not None:
            self.answer_seconds.observe(self._clock() - since)

    # --- BudgetObserver -------------------------------------------------------------------------------------

    def request_done(self, route: str, exempt: bool, status: int | None, seconds: float) -> None:
        limit = "exempt" if exempt else "global"
        # The labelled children kept by their labels: ``labels`` takes a lock and checks its labels at every
        # call, 3.4 times per move (a few dozen routes in all).
        key = (route, limit, status)
        counted = self._request_counters.get(key)
        if counted is None:
            counted = self._request_counters[key] = self.requests.labels(route, limit, status_class(status))
        counted.inc()
        timed = self._request_timers.get(limit)
        if timed is None:
            timed = self._request_timers[limit] = self.request_seconds.labels(limit)
        timed.observe(seconds)

    def rate_limited(self, scope: str) -> None:
        self.rate_limited_total.labels(scope).inc()

    def waited(self, seconds: float) -> None:
        self.budget_wait.observe(seconds)

    # --- the database ---------------------------------------------------------------------------------------

    def commit_failed(self) -> None:
        """A move could not be committed (``TableService.store_outage().on_failed_commit``)."""
        self.failed_commits.inc()

    # --- what is read at each scrape ------------------------------------------------------------------------

    def watch_budget(self, budget: GlobalBudget) -> None:
        self.invalid_requests.set_function(budget.invalid.count)
        self.budget_waiting.set_function(lambda: budget.waiting)
        self.budget_rate.set_function(lambda: -1 if budget.limit is None else budget.limit)

    def watch_publisher(self, backlog: Callable[[], int], behind: Callable[[], float]) -> None:
        self.backlog.set_function(backlog)
        self.behind.set_function(behind)

    def watch_open_tables(self, count: Callable[[], int]) -> None:
        self.open_tables.set_function(count)

    # --- serving --------------------------------------------------------------------------------------------

    def scrape(self) -> bytes:
        return generate_latest(self.registry)

    async def start_server(self, address: str, port: int) -> None:
        """Serve ``/metrics`` on ``address:port`` (``MetricsServer``). A port that cannot be opened raises
        ConfigError: an admin who asked for metrics gets them or a refusal to start, not a bot that runs
        unwatched."""
        server = MetricsServer(self.scrape)
        try:
            await server.start(address, port)
        except OSError as error:
            raise _cannot_listen(address, port, error) from None
        self._server = server
        log.info("serving Prometheus metrics at http://%s:%d/metrics", address, port)

    async def stop_server(self) -> None:
        """Stop listening and close the connections still open (the bot does it as it shuts down)."""
        if self._server is not None:
            server, self._server = self._server, None
            await server.stop()


MAX_CONNECTIONS = 8  # connections served at once; more wait in the kernel's queue, unaccepted
LISTEN_BACKLOG = 64  # that queue's length; beyond it the kernel drops a client's SYN (the client retries)
ACCEPTS_PER_SECOND = 100  # new connections accepted a second, at most (MAX_CONNECTIONS at once after a pause)
HEAD_SECONDS = 5.0  # from accepting a connection to the end of its request head: closed if it is not there
MAX_HEAD = 8192  # bytes of a request head, at most (answered 400 beyond)
LINGER_SECONDS = 5.0  # after the answer, for the client to read it and close: then the connection is cut
MAX_LINGER_BYTES = 65_536  # read and dropped after the answer (a request body), at most; then it is cut
CACHE_SECONDS = 1.0  # the exposition is made at most once in this time when it is dear...
GENERATION_SHARE = 0.05  # ...and at most this share of the loop's time in any case
ACCEPT_RETRY_SECONDS = 0.5  # after an accept that failed (no descriptor left, e.g.)

_END_OF_HEAD = re.compile(rb"\r?\n\r?\n")
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # a method or a header's name (RFC 9110)
_VERSION = re.compile(rb"HTTP/1\.[0-9]")
_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    500: "Internal Server Error",
}


def examine_request(head: bytes) -> tuple[int, str | None, bool]:
    """How to answer a request head (its request line and header lines, without the blank line that ends it):
    the status, what was wrong with it (for the debug line; never the sender's bytes), and whether it asked
    for the headers only (HEAD). Its headers are checked for form, not read: every answer is the same."""
    request_line, *header_lines = head.split(b"\n")
    parts = request_line.rstrip(b"\r").split(b" ")
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or not _VERSION.fullmatch(parts[2]):
        return 400, "a malformed request line", False
    for line in header_lines:
        name, colon, _value = line.rstrip(b"\r").partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            return 400, "a malformed header line", False
    method, target = parts[0], parts[1]
    if target.partition(b"?")[0] != b"/metrics":
        return 404, None, False
    if method not in (b"GET", b"HEAD"):
        return 405, None, False
    return 200, None, method == b"HEAD"


class MetricsServer:
    """``GET /metrics`` (and ``HEAD``) over HTTP/1.x on the bot's event loop, one request per connection; any
    other path 404, another method 405, a malformed request 400. See the module docstring for its limits.

    Connections are accepted by a task per listening socket, each holding one of ``MAX_CONNECTIONS`` slots
    from before its accept to its close: while none is free nothing is accepted, so clients beyond them (a
    storm, or a slow sender's hundreds of connections) wait in the kernel's queue, costing the bot neither
    a descriptor nor any work."""

    def __init__(self, scrape: Callable[[], bytes]) -> None:
        self._scrape = scrape
        self._slots = asyncio.Semaphore(MAX_CONNECTIONS)
        self._listeners: list[socket.socket] = []
        self._acceptors: list[asyncio.Task[None]] = []
        self._connections: set[_MetricsConnection] = set()
        self._next_accept = 0.0  # when the next accept is due, by the loop's clock (a GCRA pace)
        self._exposition: bytes | None = None
        self._made_at = -1.0
        self._fresh_for = 0.0

    async def start(self, address: str, port: int) -> None:
        """Listen on every address ``address`` resolves to, as asyncio's ``create_server`` (and aiohttp before
        this server) does: SO_REUSEADDR, IPv6 sockets IPv6 only. Raises the OSError (``socket.gaierror`` for a
        name that does not resolve) of the first address that cannot be listened on."""
        loop = asyncio.get_running_loop()
        found = await loop.getaddrinfo(
            address, port, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        if not found:
            raise OSError(f"getaddrinfo({address!r}) returned no address")
        listeners: list[socket.socket] = []
        try:
            for family, kind, proto, _name, where in dict.fromkeys(found):
                listener = socket.socket(family, kind, proto)
                listeners.append(listener)
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                    listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                listener.bind(where)
                listener.listen(LISTEN_BACKLOG)
                listener.setblocking(False)
        except OSError:
            for listener in listeners:
                listener.close()
            raise
        self._listeners = listeners
        self._acceptors = [asyncio.create_task(self._accept(listener)) for listener in listeners]

    async def stop(self) -> None:
        for acceptor in self._acceptors:
            acceptor.cancel()
        await asyncio.gather(*self._acceptors, return_exceptions=True)
        self._acceptors = []
        for listener in self._listeners:
            listener.close()
        self._listeners = []
        for connection in list(self._connections):
            connection.cut()
        await asyncio.sleep(0)  # their connection_lost, called soon after the cut

    def exposition(self) -> bytes | None:
        """The exposition, made again only once the last one is older than 20 times the work of making it
        (``GENERATION_SHARE``; the thread's CPU time) or than ``CACHE_SECONDS``: however many scrapes arrive,
        making it takes at most 5 % of the loop's time, and happens at most once a second when it is dear
        (hundreds of series), while scrapes some way apart (Prometheus', an admin's curl after a game) see
        the figures of their moment. None if it could not be made (a bug of the bot's, logged with its
        traceback once, and tried again a second later)."""
        now = time.monotonic()
        if now - self._made_at >= self._fresh_for:
            self._made_at, self._fresh_for, self._exposition = now, CACHE_SECONDS, None
            working = time.thread_time()  # the loop's work (a loaded machine's pauses are not the scrape's)
            try:
                self._exposition = self._scrape()
            except Exception:
                log.exception("metrics: the exposition could not be made")
            else:
                self._fresh_for = min(CACHE_SECONDS, (time.thread_time() - working) / GENERATION_SHARE)
        return self._exposition

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._slots.acquire()
            try:
                await self._pace(loop)
                connected, _peer = await loop.sock_accept(listener)
            except OSError as error:  # out of descriptors, or a connection reset while queued
                self._slots.release()
                log.debug("metrics: cannot accept a connection (%s)", error.strerror or error)
                await asyncio.sleep(ACCEPT_RETRY_SECONDS)
                continue
            except BaseException:
                self._slots.release()
                raise
            connection = _MetricsConnection(self)
            try:
                await loop.connect_accepted_socket(_given(connection), connected)
            except OSError as error:
                log.debug("metrics: a connection was lost as it was accepted (%s)", error.strerror or error)
                connected.close()
            finally:
                if not connection.made:  # else connection_lost gives its slot back
                    self._slots.release()

    async def _pace(self, loop: asyncio.AbstractEventLoop) -> None:
        """Waits until the next accept is due: ``ACCEPTS_PER_SECOND``, with bursts of ``MAX_CONNECTIONS``."""
        now = loop.time()
        interval = 1 / ACCEPTS_PER_SECOND
        self._next_accept = max(self._next_accept, now - MAX_CONNECTIONS * interval) + interval
        if self._next_accept > now:
            await asyncio.sleep(self._next_accept - now)

    def _opened(self, connection: _MetricsConnection) -> None:
        self._connections.add(connection)

    def _closed(self, connection: _MetricsConnection) -> None:
        self._connections.discard(connection)
        self._slots.release()


def _given(protocol: asyncio.Protocol) -> Callable[[], asyncio.Protocol]:
    return lambda: protocol


class _MetricsConnection(asyncio.Protocol):
    """One connection: its request head is gathered (``MAX_HEAD`` bytes within ``HEAD_SECONDS``, else it is
    answered 400 or cut), answered, and the connection closed: the answer, then an end of stream (a client
    reading to the end gets all of it), then the connection is closed once the client closes its side, or
    cut after ``LINGER_SECONDS``."""

    def __init__(self, server: MetricsServer) -> None:
        self._server = server
        self._transport: asyncio.Transport | None = None
        self._head = bytearray()
        self._answered = False
        self._dropped = 0
        self._deadline: asyncio.TimerHandle | None = None
        self.made = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)
        self.made = True
        self._server._opened(self)
        self._deadline = asyncio.get_running_loop().call_later(HEAD_SECONDS, self._late)

    def data_received(self, data: bytes) -> None:
        if self._answered:  # a body, or more of an over-long head: dropped
            self._dropped += len(data)
            if self._dropped > MAX_LINGER_BYTES:
                self.cut()
            return
        self._head += data
        end = _END_OF_HEAD.search(self._head)
        if end is None or end.start() > MAX_HEAD:
            if len(self._head) > MAX_HEAD:
                self._answer(400, f"a request head over {MAX_HEAD} bytes", headers_only=False)
            return
        status, problem, headers_only = examine_request(bytes(self._head[: end.start()]))
        self._answer(status, problem, headers_only=headers_only)

    def eof_received(self) -> bool:
        if not self._answered:
            self._debug("closed before its request was complete")
        return False  # close our side too (after what is left of the answer is sent)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._server._closed(self)

    def cut(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    def _late(self) -> None:
        if not self._answered:
            self._debug(f"no complete request within {HEAD_SECONDS:g} s")
        self.cut()

    def _answer(self, status: int, problem: str | None, *, headers_only: bool) -> None:
        transport = self._transport
        assert transport is not None
        self._answered = True
        self._head = bytearray()
        if problem is not None:
            self._debug(f"answered {status}: {problem}")
        exposition = self._server.exposition() if status == 200 else None
        if status == 200 and exposition is None:
            status = 500
        reason = _REASONS[status]
        if exposition is not None:
            body, kind = exposition, CONTENT_TYPE_LATEST
        else:
            body, kind = f"{status} {reason}\n".encode(), "text/plain; charset=utf-8"
        lines = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {kind}", f"Content-Length: {len(body)}"]
        if status == 405:
            lines.append("Allow: GET, HEAD")
        lines.append("Connection: close")
        transport.write(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
        if not headers_only:
            transport.write(body)
        if transport.can_write_eof():
            transport.write_eof()  # reading goes on: a close with unread bytes would reset the connection
        else:
            transport.close()
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = asyncio.get_running_loop().call_later(LINGER_SECONDS, self.cut)

    def _debug(self, what: str) -> None:
        peer = self._transport.get_extra_info("peername") if self._transport is not None else None
        log.debug("metrics: a connection from %s: %s", peer[0] if isinstance(peer, tuple) else "?", what)


# Errors of the address itself (not this machine's, or of a family it has no interface for), not of the port.
ADDRESS_ERRNOS = frozenset({errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT})


def address_problem(address: str) -> ConfigError | None:
    """What ``run`` would refuse about METRICS_ADDRESS (a name that does not resolve, an address this machine
    does not have), found by binding to it on a port the system picks: the port setting itself is left
    alone, since the running bot holds it while ``check`` runs beside it."""
    try:
        found = socket.getaddrinfo(address, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return _cannot_listen(address, 0, error)
    for family, kind, proto, _name, where in found:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.bind(where)
        except OSError as error:
            if error.errno in ADDRESS_ERRNOS:
                return _cannot_listen(address, 0, error)
    return None


def _cannot_listen(address: str, port: int, error: OSError) -> ConfigError:
    """The setting to change when ``address:port`` cannot be listened on: METRICS_ADDRESS for a name that
    does not resolve or an address this machine does not have, else METRICS_PORT (in use, or refused)."""
    if isinstance(error, socket.gaierror):
        # Its errno is getaddrinfo's own code (os.strerror reads it "Unknown error -2"); its text is the
        # resolver's.
        return ConfigError(
            "METRICS_ADDRESS",
            f"{address!r} cannot be resolved ({error.strerror or error}): give an address of this machine, "
            "127.0.0.1 (this machine only) or 0.0.0.0 (every interface, as in a container)",
        )
    reason = os.strerror(error.errno) if error.errno else str(error)
    if error.errno in ADDRESS_ERRNOS:
        return ConfigError(
            "METRICS_ADDRESS",
            f"{address} is not an address of this machine ({reason}): give one of its own, 127.0.0.1 (this "
            "machine only) or 0.0.0.0 (every interface, as in a container)",
        )
    return ConfigError(
        "METRICS_PORT",
        f"port {port} on {address} cannot be opened ({reason}): stop what uses it, choose another port, or "
        "leave METRICS_PORT empty for no metrics",
    )
