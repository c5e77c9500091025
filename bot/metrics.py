"""Prometheus metrics for admins, served at ``http://METRICS_ADDRESS:METRICS_PORT/metrics`` when
``METRICS_PORT`` is set (off by default).

What is there (all names start with ``eights_``):

* ``interactions_total{type}`` and ``interaction_answer_seconds``: interactions received, and how long the
  bot took from receiving one to Discord accepting its answer (Discord drops an interaction not answered
  within 3 s).
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

The server runs on the bot's own event loop (aiohttp, which discord.py already brings): a scrape reads the
bot's state without threads.
"""

from __future__ import annotations

import collections
import errno
import functools
import logging
import os
import socket
import time
from collections.abc import Callable

from aiohttp import web
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
        self._runner: web.AppRunner | None = None

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
        """Serve ``/metrics`` on ``address:port``. A port that cannot be opened raises ConfigError: an admin
        who asked for metrics gets them or a refusal to start, not a bot that runs unwatched."""

        async def metrics(request: web.Request) -> web.Response:
            return web.Response(body=self.scrape(), headers={"Content-Type": CONTENT_TYPE_LATEST})

        app = web.Application()
        app.router.add_get("/metrics", metrics)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, address, port).start()
        except OSError as error:
            await runner.cleanup()
            raise _cannot_listen(address, port, error) from None
        self._runner = runner
        log.info("serving Prometheus metrics at http://%s:%d/metrics", address, port)

    async def stop_server(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


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
