"""Discord's REST rate limits, as the fake enforces them when a test turns them on.

What Discord documents (developer docs, "Rate Limits"; developer support, "My Bot is Being Rate Limited") and
this module models:

- A **global** limit of 50 requests per second per bot, in 1-second windows. Interaction callbacks
  (``POST /interactions/{id}/{token}/callback``) and interaction webhooks
  (``/webhooks/{application_id}/{token}...``: follow-ups and edits of interaction responses) are not
  bound to it. A global 429 carries
  ``X-RateLimit-Global: true`` and ``X-RateLimit-Scope: global`` and no per-route headers.
- **Per-route buckets**, keyed by the bucket (the ``X-RateLimit-Bucket`` hash) and the route's *major
  parameters*: ``channel_id``, ``guild_id``, or ``webhook_id`` + ``webhook_token`` (discord.py keys its own
  buckets the same way: ``Route.major_parameters``). Every response of a limited route carries
  ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch seconds), ``-Reset-After`` (seconds) and
  ``-Bucket``; a 429 adds ``-Scope`` (``user`` for the bot's own bucket, ``shared`` for a resource's limit
  that every user shares) and ``Retry-After``.
- 429 bodies: ``{"message": "You are being rate limited.", "retry_after": 0.123, "global": false}``, with
  ``code`` where Discord sends one (20028 for a channel's shared write limit).
- Every response of Discord's API has ``Via: 1.1 google``. discord.py reads a 429 without ``Via`` (or with a
  text body) as a Cloudflare ban and raises at once instead of waiting: so does this fake's ban.
- The **invalid-request limit**: 10,000 responses with status 401, 403 or 429 (429s with scope ``shared``
  excepted) within 10 minutes get the IP banned (an hour): every request is then refused by "Cloudflare"
  with a 429 and an HTML page (or 403, ``ban_status``).

Assumptions where Discord publishes no figure (its limits are per route and discovered from the headers):
message creates 5 per 5 s per channel; message edits a separate bucket of 5 per 5 s per channel (Discord
answers edits with another bucket hash than creates); message deletes 5 per 1 s per channel; channel reads
5 per 1 s per channel; interaction webhooks 5 per 2 s per application id + token (webhook executes are
documented at that pace); an interaction callback 5 per 1 s per interaction; other routes 50 per 1 s per
route and major parameters. A request that fails a route bucket still counts in the global window (it
reached Discord). Buckets are fixed windows that start with their first request, as Discord's reset
timestamps show.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

API_PREFIX = "/api/v10"
VIA = "1.1 google"
INVALID_STATUSES = (401, 403, 429)
INVALID_WINDOW = 600.0
CLOUDFLARE_PAGE = (
    "<!DOCTYPE html><html><head><title>Access denied | discord.com used Cloudflare to restrict access"
    "</title></head><body><h1>Error 1015</h1><p>You are being rate limited.</p>"
    "<p>The owner of this website (discord.com) has banned you temporarily from accessing this website."
    "</p></body></html>"
)


@dataclass(frozen=True)
class RouteLimit:
    """A bucket kind: ``limit`` requests per ``per`` seconds for each value of the ``major`` parameters."""

    bucket: str  # a name; the header carries a hash of it, as Discord's opaque bucket ids
    limit: int
    per: float
    major: tuple[str, ...]  # aiohttp match_info keys: "channel", "guild", ("app", "token"), ...
    global_exempt: bool = False

    @property
    def bucket_hash(self) -> str:
        return hashlib.sha1(self.bucket.encode()).hexdigest()[:32]


MESSAGE_CREATE = RouteLimit("message-create", 5, 5.0, ("channel",))
MESSAGE_EDIT = RouteLimit("message-edit", 5, 5.0, ("channel",))
MESSAGE_DELETE = RouteLimit("message-delete", 5, 1.0, ("channel",))
CHANNEL_READ = RouteLimit("channel-read", 5, 1.0, ("channel",))
INTERACTION_WEBHOOK = RouteLimit("interaction-webhook", 5, 2.0, ("app", "token"), global_exempt=True)
INTERACTION_CALLBACK = RouteLimit(
    "interaction-callback", 5, 1.0, ("interaction", "token"), global_exempt=True
)

# (method, route template under /api/v10) -> its bucket kind; other routes get ``default_route``.
ROUTES: dict[tuple[str, str], RouteLimit] = {
    ("POST", "/channels/{channel}/messages"): MESSAGE_CREATE,
    ("PATCH", "/channels/{channel}/messages/{message}"): MESSAGE_EDIT,
    ("DELETE", "/channels/{channel}/messages/{message}"): MESSAGE_DELETE,
    ("GET", "/channels/{channel}"): CHANNEL_READ,
    ("GET", "/channels/{channel}/messages"): CHANNEL_READ,
    ("GET", "/channels/{channel}/messages/{message}"): CHANNEL_READ,
    ("POST", "/interactions/{interaction}/{token}/callback"): INTERACTION_CALLBACK,
    ("POST", "/webhooks/{app}/{token}"): INTERACTION_WEBHOOK,
    ("GET", "/webhooks/{app}/{token}/messages/{message}"): INTERACTION_WEBHOOK,
    ("PATCH", "/webhooks/{app}/{token}/messages/{message}"): INTERACTION_WEBHOOK,
    ("DELETE", "/webhooks/{app}/{token}/messages/{message}"): INTERACTION_WEBHOOK,
}


@dataclass
class _Bucket:
    remaining: int
    resets_at: float  # clock time


@dataclass
class Ticket:
    """What ``RateLimits.admit`` decided for a request that may go on: the headers its answer carries."""

    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class DiscordLimits:
    """The settings; ``FakeDiscord(limits=DiscordLimits(...))`` or ``fake.enable_limits(...)``.

    ``shared_channel_writes``: when set, a channel accepts at most this many message creates per
    ``shared_per`` seconds from everyone together (Discord's shared write limit, scope ``shared``, code
    20028); off by default. ``routes`` overrides bucket kinds by (method, template)."""

    global_limit: int = 50
    global_window: float = 1.0
    ban_threshold: int = 10_000
    ban_seconds: float = 3600.0
    ban_status: int = 429
    default_route: RouteLimit = RouteLimit("default", 50, 1.0, ("channel", "guild", "app"))
    routes: dict[tuple[str, str], RouteLimit] = field(default_factory=lambda: dict(ROUTES))
    shared_channel_writes: int | None = None
    shared_per: float = 5.0


@dataclass
class LimitCounters:
    """What the limits did, for tests and benches (read ``fake.limits.counters``)."""

    global_offered: int = 0  # requests bound to the global limit
    global_passed: int = 0  # ... not answered with a global 429
    exempt: int = 0  # interaction callbacks and webhooks
    global_429: int = 0
    route_429: int = 0
    shared_429: int = 0
    banned_refusals: int = 0  # requests refused because of the ban
    invalid_total: int = 0  # 401/403/429 (not shared) answered, ever
    invalid_peak: int = 0  # the most within any 10 minutes
    # Per whole second of the clock: (offered, passed) global requests, for a bench's rate per second.
    per_second: dict[int, list[int]] = field(default_factory=dict)


class RateLimits:
    """Enforces ``DiscordLimits`` on the fake's REST API (hooked into its middleware)."""

    def __init__(self, settings: DiscordLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.counters = LimitCounters()
        self._window_start = -math.inf
        self._window_count = 0
        self._buckets: dict[tuple[str, tuple[str, ...]], _Bucket] = {}
        self._shared: dict[str, _Bucket] = {}
        self._invalid: deque[float] = deque()
        self.banned_at: float | None = None
        self.banned_until: float | None = None

    # --- reading --------------------------------------------------------------------------------------------

    @property
    def banned(self) -> bool:
        return self.banned_until is not None and self.clock() < self.banned_until

    def invalid_recent(self) -> int:
        """Invalid requests (401, 403, 429 but shared ones) in the last 10 minutes."""
        self._prune(self.clock())
        return len(self._invalid)

    def assert_no_global_429(self) -> None:
        """Fail if the bot provoked a global 429 or got banned (for tests with limits on)."""
        c = self.counters
        if c.global_429 or self.banned_at is not None:
            raise AssertionError(
                f"the bot exceeded Discord's global rate limit: {c.global_429} global 429s, "
                f"{c.route_429} route 429s, {self.invalid_recent()} invalid requests in 10 minutes, "
                f"banned: {self.banned_at is not None}"
            )

    def summary(self) -> str:
        c = self.counters
        return (
            f"global {c.global_offered}→{c.global_passed} (exempt {c.exempt}); 429s: global {c.global_429}, "
            f"route {c.route_429}, shared {c.shared_429}; invalid in 10 min {self.invalid_recent()} "
            f"(peak {c.invalid_peak}); banned {self.banned_at is not None}"
        )

    # --- the middleware's hooks -----------------------------------------------------------------------------

    def admit(self, request: web.Request, application_id: int) -> web.Response | Ticket:
        """Decide before the handler runs: a refusal (ban, global or route 429) or a ticket to go on."""
        now = self.clock()
        if self.banned:
            self.counters.banned_refusals += 1
            return self._ban_response(now)
        method = request.method
        template = _template(request)
        kind = self.settings.routes.get((method, template), self.settings.default_route)
        info = request.match_info
        exempt = kind.global_exempt and info.get("app", str(application_id)) == str(application_id)
        if exempt:
            self.counters.exempt += 1
        else:
            refusal = self._global(now)
            if refusal is not None:
                return refusal
        major = tuple(info.get(name, "") for name in kind.major)
        key = (kind.bucket, major)
        bucket = self._buckets.get(key)
        if bucket is None or now >= bucket.resets_at:
            bucket = self._buckets[key] = _Bucket(kind.limit, now + kind.per)
        headers = {
            "X-RateLimit-Limit": str(kind.limit),
            "X-RateLimit-Bucket": kind.bucket_hash,
        }
        if bucket.remaining <= 0:
            self.counters.route_429 += 1
            self._count_invalid(now)
            return self._too_many(now, bucket, headers, scope="user")
        if kind is self.settings.routes.get(("POST", "/channels/{channel}/messages")):
            refusal = self._shared_write(now, info.get("channel", ""), headers)
            if refusal is not None:
                return refusal
        bucket.remaining -= 1
        headers.update(self._bucket_headers(now, bucket))
        return Ticket(headers)

    def answered(self, ticket: Ticket, response: web.StreamResponse) -> None:
        """After the handler: the bucket headers on the answer; 401 and 403 count as invalid."""
        response.headers.update(ticket.headers)
        if response.status in (401, 403):
            self._count_invalid(self.clock())

    # --- internals ------------------------------------------------------------------------------------------

    def _global(self, now: float) -> web.Response | None:
        s = self.settings
        c = self.counters
        c.global_offered += 1
        second = c.per_second.setdefault(int(now), [0, 0])
        second[0] += 1
        if now >= self._window_start + s.global_window:
            self._window_start = now - (now % s.global_window)
            self._window_count = 0
        if self._window_count >= s.global_limit:
            c.global_429 += 1
            self._count_invalid(now)
            retry = max(0.001, self._window_start + s.global_window - now)
            body = {"message": "You are being rate limited.", "retry_after": round(retry, 3), "global": True}
            headers = {
                "Retry-After": str(max(1, math.ceil(retry))),
                "X-RateLimit-Global": "true",
                "X-RateLimit-Scope": "global",
            }
            return _json_429(body, headers)
        self._window_count += 1
        c.global_passed += 1
        second[1] += 1
        return None

    def _shared_write(self, now: float, channel: str, headers: dict[str, str]) -> web.Response | None:
        limit = self.settings.shared_channel_writes
        if limit is None:
            return None
        shared = self._shared.get(channel)
        if shared is None or now >= shared.resets_at:
            shared = self._shared[channel] = _Bucket(limit, now + self.settings.shared_per)
        if shared.remaining > 0:
            shared.remaining -= 1
            return None
        self.counters.shared_429 += 1  # not an invalid request: Discord excepts the shared scope
        return self._too_many(now, shared, headers, scope="shared", code=20028)

    def _too_many(
        self, now: float, bucket: _Bucket, headers: dict[str, str], *, scope: str, code: int | None = None
    ) -> web.Response:
        retry = max(0.001, bucket.resets_at - now)
        headers = {
            **headers,
            **self._bucket_headers(now, bucket, remaining=0),
            "X-RateLimit-Scope": scope,
            "Retry-After": str(max(1, math.ceil(retry))),
        }
        message = (
            "The channel you are writing has hit the write rate limit"
            if code == 20028
            else "You are being rate limited."
        )
        body: dict[str, object] = {"message": message, "retry_after": round(retry, 3), "global": False}
        if code is not None:
            body["code"] = code
        return _json_429(body, headers)

    def _bucket_headers(self, now: float, bucket: _Bucket, remaining: int | None = None) -> dict[str, str]:
        after = max(0.0, bucket.resets_at - now)
        return {
            "X-RateLimit-Remaining": str(bucket.remaining if remaining is None else remaining),
            "X-RateLimit-Reset": f"{time.time() + after:.3f}",
            "X-RateLimit-Reset-After": f"{after:.3f}",
        }

    def _count_invalid(self, now: float) -> None:
        self._prune(now)
        self._invalid.append(now)
        self.counters.invalid_total += 1
        self.counters.invalid_peak = max(self.counters.invalid_peak, len(self._invalid))
        if len(self._invalid) >= self.settings.ban_threshold and not self.banned:
            self.banned_at = now
            self.banned_until = now + self.settings.ban_seconds

    def _prune(self, now: float) -> None:
        while self._invalid and self._invalid[0] <= now - INVALID_WINDOW:
            self._invalid.popleft()

    def _ban_response(self, now: float) -> web.Response:
        assert self.banned_until is not None
        retry = max(1, math.ceil(self.banned_until - now))
        # No Via header and an HTML body: what discord.py takes for a Cloudflare ban.
        return web.Response(
            text=CLOUDFLARE_PAGE,
            status=self.settings.ban_status,
            headers={"Retry-After": str(retry)},
            content_type="text/html",
        )


def _template(request: web.Request) -> str:
    resource = request.match_info.route.resource
    canonical = resource.canonical if resource is not None else request.path
    return canonical.removeprefix(API_PREFIX)


def _json_429(body: dict[str, object], headers: dict[str, str]) -> web.Response:
    return web.Response(
        body=json.dumps(body).encode(),
        status=429,
        headers={**headers, "Content-Type": "application/json", "Via": VIA},
    )


@dataclass
class ServerErrors:
    """A seeded fraction of REST calls answered 5xx before Discord handles them (so a retry is safe)."""

    rate: float = 0.0
    statuses: tuple[int, ...] = (500, 502, 503, 504)
    seed: int = 0
    count: int = 0
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    # ``fail_next``: the next calls whose path holds a text, each answered a given status (an exact fault).
    _next: list[tuple[str, int]] = field(init=False, default_factory=list)

    def fail_next(self, count: int, *, path_contains: str = "", status: int = 503) -> None:
        """Answer the next ``count`` REST calls whose path contains ``path_contains`` with ``status``."""
        self._next.extend([(path_contains, status)] * count)

    def roll(self, path: str = "") -> web.Response | None:
        planned = next((i for i, (text, _status) in enumerate(self._next) if text in path), None)
        if planned is not None:
            status = self._next.pop(planned)[1]
        elif self.rate <= 0 or self._rng.random() >= self.rate:
            return None
        else:
            status = self._rng.choice(self.statuses)
        self.count += 1
        if status == 500:
            return web.json_response({"message": "500: Internal Server Error", "code": 0}, status=500)
        # Discord's load balancers answer the others with a short text body.
        return web.Response(text="upstream connect error or disconnect/reset before headers", status=status)
