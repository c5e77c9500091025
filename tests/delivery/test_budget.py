"""bot.delivery.budget: which requests count, the pace, and what 429 answers do to it.

The pace is checked on a virtual clock (no timing in the test); the hook into discord.py is checked with the
real ``HTTPClient`` against a small local aiohttp server that answers like Discord.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace
from typing import Any

import aiohttp
import pytest
import yarl
from aiohttp import web
from discord.http import HTTPClient, Route
from discord.webhook.async_ import async_context

from bot.delivery.budget import (
    CALLBACK_MARGIN,
    FOLLOWUP_CREATE,
    HOLD_MAX,
    INTERACTION_WINDOW,
    INVALID_WINDOW,
    QUICK_RETRY_PAUSES,
    RECOVERY_EVERY,
    GlobalBudget,
    OutcomeUnknown,
    RouteInfo,
    callback_time_left,
    classify,
    retry_after_of,
    route_template,
    scope_of_429,
    sent_once,
)
from bot.delivery.endpoints import apply_endpoints

APP = 4242
TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OnNlY3JldC10b2tlbi12YWx1ZQ"


class VirtualClock:
    """``now`` moves only when a waiter sleeps: the budget's pace is read off exactly."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)  # the waiters woken before this sleep go first, at the time they were woken
        self.now += seconds
        await asyncio.sleep(0)


def budget_on(clock: VirtualClock, rate: int | None, **kwargs: Any) -> GlobalBudget:
    return GlobalBudget(rate, clock=clock, sleep=clock.sleep, **kwargs)


# --- which requests count -----------------------------------------------------------------------------------


def test_interaction_callbacks_and_interaction_webhooks_are_exempt() -> None:
    callback = classify("POST", f"/interactions/123/{TOKEN}/callback", APP)
    assert callback.exempt and callback.interaction_id == 123
    for path in (
        f"/webhooks/{APP}/{TOKEN}",
        f"/webhooks/{APP}/{TOKEN}/messages/@original",
        f"/webhooks/{APP}/{TOKEN}/messages/99",
    ):
        assert classify("PATCH", path, APP).exempt, path
    for method, path in (
        ("POST", "/channels/1/messages"),
        ("PATCH", "/channels/1/messages/2"),
        ("GET", "/users/@me"),
        ("PUT", f"/applications/{APP}/commands"),
        ("POST", f"/webhooks/777/{TOKEN}"),  # a channel's webhook, not an interaction's
    ):
        assert not classify(method, path, APP).exempt, path


def test_route_classes_never_carry_an_id_or_a_token() -> None:
    assert route_template("/channels/123/messages/456") == "/channels/{id}/messages/{id}"
    assert route_template(f"/interactions/1/{TOKEN}/callback") == "/interactions/{id}/{token}/callback"
    assert route_template(f"/webhooks/{APP}/short/messages/@original") == (
        "/webhooks/{id}/{token}/messages/@original"
    )
    info = classify("PATCH", f"/webhooks/{APP}/{TOKEN}/messages/5", APP)
    assert TOKEN not in info.route and str(APP) not in info.route


def test_the_scope_and_wait_of_a_429_are_read_from_headers_or_body() -> None:
    via = {"Via": "1.1 google"}
    assert scope_of_429({**via, "X-RateLimit-Scope": "global"}, None) == "global"
    assert scope_of_429({**via, "X-RateLimit-Global": "true"}, None) == "global"
    assert scope_of_429({**via, "X-RateLimit-Scope": "shared"}, None) == "shared"
    assert scope_of_429(via, {"global": True, "retry_after": 1}) == "global"
    assert scope_of_429(via, {"retry_after": 1}) == "user"
    assert scope_of_429({"X-RateLimit-Scope": "global"}, None) == "cloudflare"  # no Via: not Discord itself
    assert retry_after_of({"Retry-After": "3"}, {"retry_after": 2.5}) == 2.5
    assert retry_after_of({"Retry-After": "3"}, None) == 3.0
    assert retry_after_of({}, None) == 1.0


# --- the pace -----------------------------------------------------------------------------------------------


async def test_no_window_ever_holds_more_than_the_rate() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, 10)
    sent: list[float] = []

    async def request() -> None:
        await budget.acquire()
        sent.append(clock.now)

    await asyncio.gather(*(request() for _ in range(45)))
    assert len(sent) == 45 and sent == sorted(sent)
    for index in range(len(sent) - 10):
        # The 11th request after any one is at least a window (1 s plus margin) later.
        assert sent[index + 10] - sent[index] >= budget.window - 1e-9, index
    for index in range(len(sent) - 2):
        # And no burst: the 3rd after any one is at least a fifth of the window later.
        assert sent[index + 2] - sent[index] >= budget.window / 5 - 1e-9, index
    assert sent[1] == 0.0  # the first two go at once
    assert sent[-1] <= 4.5 * budget.window + 1e-9  # and no slower than the rate needs


async def test_turns_go_to_the_longest_waiting_work_first_and_a_cancelled_waiter_gives_its_place() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, 1)
    await budget.acquire()  # the window's one turn
    order: list[str] = []

    async def wait(name: str, since: float | None) -> None:
        await budget.acquire(since)
        order.append(name)

    tasks = [
        asyncio.create_task(wait(name, since))
        for name, since in (("new", -1.0), ("gone", -5.0), ("now", None), ("old", -9.0), ("mid", -3.0))
    ]
    await asyncio.sleep(0)
    assert budget.waiting == 5
    tasks[1].cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert order == ["old", "mid", "new", "now"]  # "now" came at 0: after work due since before
    assert clock.now == pytest.approx(4 * budget.window)  # one per window; the cancelled one took none


async def test_a_proxy_paces_instead_no_request_waits() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, None)
    waited = await asyncio.gather(*(budget.acquire() for _ in range(500)))
    assert max(waited) == 0.0 and clock.now == 0.0 and budget.limit is None


async def test_a_global_429_pauses_everyone_and_slows_the_pace_until_it_recovers() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, 50)
    info = classify("POST", "/channels/1/messages", APP)
    headers = {"Via": "1.1 google", "X-RateLimit-Scope": "global", "Retry-After": "2"}
    budget.observe(info, 429, headers, {"global": True, "retry_after": 2.0}, 0.01)
    assert budget.paused_for == pytest.approx(2.0)
    assert budget.limit == 40  # a fifth slower
    assert await budget.acquire() == pytest.approx(2.0)  # waits the whole pause
    assert budget.invalid.count() == 1
    clock.now += RECOVERY_EVERY * 3
    assert budget.limit == 50  # back to the rate after quiet time


async def test_a_proxy_still_obeys_a_global_429() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, None)
    headers = {"Via": "1.1 google", "X-RateLimit-Scope": "global", "Retry-After": "1.5"}
    budget.observe(classify("GET", "/users/@me", APP), 429, headers, None, 0.01)
    assert await budget.acquire() == pytest.approx(1.5)


async def test_route_429s_are_left_to_discord_py_and_shared_ones_are_not_invalid() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, 50)
    info = classify("POST", "/channels/1/messages", APP)
    budget.observe(info, 429, {"Via": "x", "X-RateLimit-Scope": "user", "Retry-After": "4"}, None, 0.0)
    budget.observe(info, 429, {"Via": "x", "X-RateLimit-Scope": "shared", "Retry-After": "4"}, None, 0.0)
    assert budget.paused_for == 0.0 and budget.limit == 50
    assert budget.invalid.count() == 1  # the shared one does not count towards the ban
    budget.observe(info, 403, {}, None, 0.0)
    budget.observe(info, 401, {}, None, 0.0)
    budget.observe(info, 404, {}, None, 0.0)
    assert budget.invalid.count() == 3
    clock.now += INVALID_WINDOW + 1
    assert budget.invalid.count() == 0


async def test_a_429_from_the_edge_without_via_pauses_everything() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, 50)
    budget.observe(classify("GET", "/users/@me", APP), 429, {"Retry-After": "60"}, None, 0.0)
    assert budget.paused_for == pytest.approx(60.0)


def test_a_rate_below_one_is_refused() -> None:
    with pytest.raises(ValueError):
        GlobalBudget(0)


# --- through discord.py ------------------------------------------------------------------------------------


class StubDiscord:
    """Answers like Discord: a global 429 for the first channel message, 200 otherwise; records arrivals."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[float, str]] = []
        self.global_429s = 1
        self.server_errors = 0  # the next this many requests through an interaction's token answer 500
        self.server_error_retry_after: str | None = None  # their Retry-After header, if any
        self.release = asyncio.Event()
        self.release.set()

    async def handle(self, request: web.Request) -> web.Response:
        loop = asyncio.get_running_loop()
        self.arrivals.append((loop.time(), f"{request.method} {request.path}"))
        json = {"Content-Type": "application/json", "Via": "1.1 google"}
        if self.server_errors and "/webhooks/" in request.path:
            self.server_errors -= 1
            headers = {"Via": "1.1 google"}
            if self.server_error_retry_after is not None:
                headers["Retry-After"] = self.server_error_retry_after
            return web.Response(status=500, text="internal server error", headers=headers)
        if request.path.endswith("/callback"):
            return web.Response(body=b'{"interaction": {"id": "1", "type": 2}}', headers=json)
        if request.method == "POST" and request.path.endswith("/messages") and self.global_429s:
            self.global_429s -= 1
            headers = {
                **json,
                "X-RateLimit-Scope": "global",
                "X-RateLimit-Global": "true",
                "Retry-After": "1",
            }
            body = b'{"message": "You are being rate limited.", "retry_after": 0.4, "global": true}'
            return web.Response(status=429, body=body, headers=headers)
        return web.Response(body=b'{"id": "5", "channel_id": "1"}', headers=json)


@pytest.fixture
def restore_endpoints() -> Iterator[None]:
    yield
    apply_endpoints(None, None)


@pytest.fixture
async def stub(restore_endpoints: None) -> AsyncIterator[StubDiscord]:
    server = StubDiscord()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    apply_endpoints(f"http://127.0.0.1:{port}/api/v10", None)
    yield server
    await runner.cleanup()


class Observed:
    def __init__(self) -> None:
        self.done: list[tuple[str, bool, int | None]] = []
        self.scopes: list[str] = []
        self.answered: list[int] = []

    def request_done(self, route: str, exempt: bool, status: int | None, seconds: float) -> None:
        self.done.append((route, exempt, status))

    def rate_limited(self, scope: str) -> None:
        self.scopes.append(scope)

    def waited(self, seconds: float) -> None:
        pass

    def interaction_answered(self, interaction_id: int) -> None:
        self.answered.append(interaction_id)


async def http_client(budget: GlobalBudget) -> HTTPClient:
    http = HTTPClient(asyncio.get_running_loop(), http_trace=budget.trace_config())
    await http.static_login("a-token")  # GET /users/@me
    return http


async def test_discord_py_obeys_a_global_429_and_exempt_calls_do_not_wait(stub: StubDiscord) -> None:
    observed = Observed()
    budget = GlobalBudget(50, observer=observed, application_id=lambda: APP)
    http = await http_client(budget)
    try:
        loop = asyncio.get_running_loop()
        post = Route("POST", "/channels/{channel_id}/messages", channel_id=1)
        first = asyncio.create_task(http.request(post, json={"content": "hello"}))
        while budget.paused_for == 0:  # the 429 arrives
            await asyncio.sleep(0.005)
        paused_at = loop.time()
        # A globally limited request made now waits out the pause ...
        other = asyncio.create_task(http.request(Route("GET", "/channels/{channel_id}", channel_id=2)))
        # ... while an interaction callback goes at once.
        callback = Route("POST", "/interactions/{id}/{token}/callback", id=77, token="tok")
        await asyncio.wait_for(http.request(callback, json={"type": 4, "data": {}}), 0.5)
        answered_at = loop.time()
        await asyncio.gather(first, other)
    finally:
        await http.close()
    assert answered_at - paused_at < 0.5
    arrivals = {path: at for at, path in stub.arrivals}
    # Retry-After (1 s) is what the budget obeys; discord.py's own sleep uses the body's 0.4 s.
    assert arrivals["GET /api/v10/channels/2"] - paused_at >= 0.9
    messages = [at for at, path in stub.arrivals if path == "POST /api/v10/channels/1/messages"]
    assert len(messages) == 2 and messages[1] - messages[0] >= 0.9  # retried once, after the pause
    assert observed.scopes == ["global"]
    assert ("POST /interactions/{id}/{token}/callback", True, 200) in observed.done
    assert ("POST /channels/{id}/messages", False, 429) in observed.done
    assert observed.answered == [77]
    assert budget.invalid.count() == 1


async def test_after_login_a_middleware_reads_each_request_once_instead_of_the_trace(
    stub: StubDiscord,
) -> None:
    observed = Observed()
    budget = GlobalBudget(50, observer=observed, application_id=lambda: APP)
    http = await http_client(budget)
    try:
        session = http._HTTPClient__session  # type: ignore[attr-defined]
        assert session._middlewares == (budget.middleware,)
        assert session._trace_configs == []
        await http.request(Route("GET", "/channels/{channel_id}", channel_id=5))
        await http.request(Route("GET", "/channels/{channel_id}", channel_id=6))
    finally:
        await http.close()
    assert observed.done == [
        ("GET /users/@me", False, 200),
        ("GET /channels/{id}", False, 200),
        ("GET /channels/{id}", False, 200),
    ]
    assert len(budget._sent) == 3  # each took one turn of the window


async def test_the_gateway_and_other_hosts_are_not_counted(stub: StubDiscord) -> None:
    budget = GlobalBudget(1)
    assert budget.info_for("GET", yarl.URL("wss://gateway.discord.gg/?v=10")) is None
    assert budget.info_for("GET", yarl.URL("https://cdn.discordapp.com/a.png")) is None
    assert budget.info_for("GET", yarl.URL(Route.BASE + "/users/@me")) is not None


async def test_a_turn_taken_ahead_serves_the_next_request_and_only_that_one(stub: StubDiscord) -> None:
    budget = GlobalBudget(1, window=0.4)
    http = await http_client(budget)  # GET /users/@me took the one turn of this window
    try:
        loop = asyncio.get_running_loop()
        async with budget.turn():  # waits for the next window: the publisher's turn
            taken = loop.time()
            await http.request(Route("GET", "/channels/{channel_id}", channel_id=3))
            sent = loop.time()
            await http.request(Route("GET", "/channels/{channel_id}", channel_id=4))  # a second one waits
            again = loop.time()
    finally:
        await http.close()
    assert sent - taken < 0.2  # did not wait a second time
    assert again - taken >= 0.35


async def test_a_held_turn_is_counted_when_its_request_goes(stub: StubDiscord) -> None:
    """A board picture is drawn between the turn and the edit: the held turn still serves the edit, without
    waiting again, and the window counts it from when it went."""
    budget = GlobalBudget(1, window=0.4)
    http = await http_client(budget)
    try:
        loop = asyncio.get_running_loop()
        async with budget.turn():
            taken = loop.time()
            await asyncio.sleep(0.15)  # e.g. drawing the board picture, or a GC pause
            await http.request(Route("GET", "/channels/{channel_id}", channel_id=3))
            sent = loop.time()
        await http.request(Route("GET", "/channels/{channel_id}", channel_id=4))
        next_sent = loop.time()
    finally:
        await http.close()
    assert sent - taken < 0.3  # the held turn served it
    assert next_sent - sent >= 0.38  # a whole window after it went, not after the turn was taken
    assert budget.holds_expired == 0


async def test_a_held_turn_blocks_others_until_it_is_used_or_given_back() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, 2, window=1.0)
    other: list[float] = []

    async def request() -> None:
        await budget.acquire()
        other.append(clock.now)

    async with budget.turn(), budget.turn():  # both turns of the window held, none used yet
        waiter = asyncio.create_task(request())
        while clock.now < 0.7:
            await clock.sleep(0.1)  # the held turns count as sent at every moment
        assert other == []
        released = clock.now
    assert released < HOLD_MAX
    await waiter  # given back unused: the other request goes at once
    assert other and other[0] - released < 0.05


async def test_a_turn_held_too_long_takes_a_new_one_first_in_line() -> None:
    """A request that waited for its route's bucket (in discord.py) longer than a held turn lasts no longer
    counts on it; it waits for a new turn, but before the work that became due after its own."""
    clock = VirtualClock()
    budget = budget_on(clock, 1, window=1.0)
    order: list[str] = []

    async def later_work() -> None:
        await budget.acquire(since=5.0)
        order.append("later")

    async with budget.turn(since=1.0):
        clock.now = 4.0  # the turn was held past HOLD_MAX: it no longer counts ...
        await budget.acquire()  # ... so another request used the window
        order.append("other")
        task = asyncio.create_task(later_work())
        await asyncio.sleep(0)
        await budget._use_turn()  # the held request goes now: it waits for a turn again
        order.append("held")
    await task
    assert order == ["other", "held", "later"]
    assert budget.holds_expired == 1


async def test_a_held_turn_the_block_did_not_use_is_given_back(stub: StubDiscord) -> None:
    """The board turned out unchanged, or the line went as an interaction's follow-up (exempt): the turn
    held for it is not spent, and the next request takes it at once."""
    budget = GlobalBudget(1, window=0.4)
    http = await http_client(budget)  # GET /users/@me took the one turn of this window
    try:
        loop = asyncio.get_running_loop()
        async with budget.turn():
            callback = Route("POST", "/interactions/{id}/{token}/callback", id=78, token="tok")
            await http.request(callback, json={"type": 4, "data": {}})  # exempt: the turn stays unused
        given_back = loop.time()
        await http.request(Route("GET", "/channels/{channel_id}", channel_id=5))
        sent = loop.time()
    finally:
        await http.close()
    assert sent - given_back < 0.1


async def test_a_task_started_in_a_turn_block_does_not_use_its_turn_later(stub: StubDiscord) -> None:
    budget = GlobalBudget(1, window=0.4)
    http = await http_client(budget)
    go = asyncio.Event()
    sent: list[float] = []

    async def later() -> None:  # inherits the block's context, as any task started in it does
        await go.wait()
        await http.request(Route("GET", "/channels/{channel_id}", channel_id=6))
        sent.append(asyncio.get_running_loop().time())

    try:
        async with budget.turn():
            child = asyncio.create_task(later())
        await budget.acquire()  # the turn given back is taken by another request
        taken = asyncio.get_running_loop().time()
        go.set()
        await child
    finally:
        await http.close()
    assert sent and sent[0] - taken >= 0.35  # the child waited for a turn of its own


async def test_a_held_turn_waits_out_a_global_429_that_came_meanwhile() -> None:
    clock = VirtualClock()
    budget = budget_on(clock, 10, window=1.0)
    async with budget.turn():
        # Another request is answered with a global 429 while this one is being drawn ...
        global_429 = {"Via": "1.1 google", "X-RateLimit-Scope": "global", "Retry-After": "2"}
        budget.observe(RouteInfo("POST /channels/{id}/messages", False), 429, global_429, None, 0.01)
        await budget._use_turn()  # ... so this one, about to go, waits out the pause (the trace's hook)
        assert clock.now == pytest.approx(2.0)


def test_an_interactions_time_left_is_told_from_the_time_in_its_id() -> None:
    from datetime import UTC, datetime, timedelta

    from discord.utils import time_snowflake

    created = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)
    interaction_id = time_snowflake(created)
    at = created.timestamp()
    assert callback_time_left(interaction_id, at) == pytest.approx(INTERACTION_WINDOW, abs=0.002)
    assert callback_time_left(interaction_id, at + 2.25) == pytest.approx(0.75, abs=0.002)
    # Within the margin no new try is made: a try needs the pause and the margin both.
    assert callback_time_left(interaction_id, at + 2.5) < QUICK_RETRY_PAUSES[0] + CALLBACK_MARGIN
    assert callback_time_left(interaction_id, at + 3.5) == 0.0  # too late
    # A clock a little behind Discord's: the whole window; one far off either way is not trusted.
    assert callback_time_left(interaction_id, at - 1.0) == pytest.approx(INTERACTION_WINDOW, abs=0.002)
    assert callback_time_left(interaction_id, at - 60.0) == 0.0
    assert callback_time_left(interaction_id, (created + timedelta(hours=1)).timestamp()) == 0.0


async def test_a_call_through_an_interactions_token_met_by_5xx_goes_again_soon(stub: StubDiscord) -> None:
    """discord.py waits 1 s, then 3 s, after a 5xx; a hand's or a board's edit through an interaction's
    token (exempt from the global limit) is tried again after 0.05 s, then 0.2 s, then 0.5 s instead."""
    observed = Observed()
    budget = GlobalBudget(50, observer=observed, application_id=lambda: APP)
    http = await http_client(budget)
    edit = Route("PATCH", "/webhooks/{id}/{token}/messages/{m}", id=APP, token="tok", m=9)
    try:
        stub.server_errors = 2
        await http.request(edit, json={"content": "your turn"})
        # More 5xx than the quick tries: discord.py's own retry (after its 1 s) still comes.
        stub.server_errors = 4
        await http.request(edit, json={"content": "your turn"})
    finally:
        await http.close()
    edits = [at for at, path in stub.arrivals if path.startswith("PATCH /api/v10/webhooks/")]
    assert len(edits) == 3 + 5
    first, second = edits[:3], edits[3:]
    gaps = [b - a for a, b in itertools.pairwise(first)] + [b - a for a, b in itertools.pairwise(second[:4])]
    pauses = [*QUICK_RETRY_PAUSES[:2], *QUICK_RETRY_PAUSES]
    assert all(pause <= gap < pause + 0.3 for gap, pause in zip(gaps, pauses, strict=True)), gaps
    assert second[4] - second[3] >= 0.9  # discord.py's pause
    statuses = [status for route, _exempt, status in observed.done if route.startswith("PATCH")]
    assert statuses == [500, 500, 200, 500, 500, 500, 500, 200]  # each attempt read once
    assert budget.invalid.count() == 0  # a 5xx is not an invalid request


async def test_a_5xx_that_says_when_to_come_back_is_waited_in_full(stub: StubDiscord) -> None:
    budget = GlobalBudget(50, observer=Observed(), application_id=lambda: APP)
    http = await http_client(budget)
    edit = Route("PATCH", "/webhooks/{id}/{token}/messages/{m}", id=APP, token="tok", m=9)
    try:
        stub.server_errors, stub.server_error_retry_after = 1, "0.4"
        await http.request(edit, json={"content": "your turn"})
        # Longer than the quick tries' last pause: left to discord.py's own (after its 1 s).
        stub.server_errors, stub.server_error_retry_after = 1, "2"
        await http.request(edit, json={"content": "your turn"})
    finally:
        await http.close()
    edits = [at for at, path in stub.arrivals if path.startswith("PATCH /api/v10/webhooks/")]
    assert len(edits) == 4
    assert 0.4 <= edits[1] - edits[0] < 0.7
    assert edits[3] - edits[2] >= 0.9


async def test_a_follow_ups_creation_met_by_5xx_is_not_sent_again_by_the_budget(stub: StubDiscord) -> None:
    """Execute webhook takes no nonce, and Discord's edge answers 5xx at times after Discord posted the
    message: the budget's quick tries never send a follow-up's creation again (discord.py's own retry of a
    request not sent once is left as it was)."""
    assert classify("POST", f"/webhooks/{APP}/{TOKEN}", APP).route == FOLLOWUP_CREATE
    budget = GlobalBudget(50, observer=Observed(), application_id=lambda: APP)
    http = await http_client(budget)
    create = Route("POST", "/webhooks/{id}/{token}", id=APP, token="tok")
    try:
        stub.server_errors = 1
        await http.request(create, json={"content": "your turn"})
    finally:
        await http.close()
    posts = [at for at, path in stub.arrivals if path.startswith("POST /api/v10/webhooks/")]
    assert len(posts) == 2 and posts[1] - posts[0] >= 0.9  # discord.py's retry, none of the budget's


async def test_a_request_sent_once_raises_at_its_5xx_instead_of_any_retry(stub: StubDiscord) -> None:
    """Within ``sent_once`` (a turn line's follow-up), a 5xx raises ``OutcomeUnknown`` at once: neither the
    budget nor discord.py (its HTTP client, its webhook adapter) sends the request again."""
    budget = GlobalBudget(50, observer=Observed(), application_id=lambda: APP)
    http = await http_client(budget)
    create = Route("POST", "/webhooks/{id}/{token}", id=APP, token="tok")
    try:
        stub.server_errors = 1
        with pytest.raises(OutcomeUnknown) as raised, sent_once():
            await http.request(create, json={"content": "your turn"})
        assert raised.value.status == 500 and "{token}" in str(raised.value)
        stub.server_errors = 1
        session = http._HTTPClient__session  # type: ignore[attr-defined]
        with pytest.raises(OutcomeUnknown), sent_once():
            await async_context.get().execute_webhook(
                APP, "tok", session=session, payload={"content": "your turn"}, wait=True
            )
        # Outside the block, and when it goes through: as ever.
        await http.request(create, json={"content": "your turn"})
    finally:
        await http.close()
    posts = [path for _, path in stub.arrivals if path.startswith("POST /api/v10/webhooks/")]
    assert len(posts) == 3


class _Request:
    def __init__(self, method: str, url: str) -> None:
        self.method = method
        self.url = yarl.URL(url)


async def test_a_request_sent_once_that_loses_its_connection_raises_but_one_never_made_does_not() -> None:
    """A connection lost once the request may have reached Discord: ``OutcomeUnknown`` (Discord may have
    posted it). A connection that could not be made: raised as it was (the request never left)."""
    budget = GlobalBudget(None, application_id=lambda: APP)
    request = _Request("POST", f"{Route.BASE}/webhooks/{APP}/{TOKEN}?wait=1")

    async def dropped(_: Any) -> Any:
        raise aiohttp.ServerDisconnectedError()

    async def refused(_: Any) -> Any:
        key = SimpleNamespace(host="discord.com", port=443, ssl=True)
        raise aiohttp.ClientConnectorError(key, OSError(111, "Connection refused"))  # type: ignore[arg-type]

    with sent_once():
        with pytest.raises(OutcomeUnknown) as raised:
            await budget.middleware(request, dropped)  # type: ignore[arg-type]
        assert raised.value.status is None
        with pytest.raises(aiohttp.ClientConnectorError):
            await budget.middleware(request, refused)  # type: ignore[arg-type]
    with pytest.raises(aiohttp.ServerDisconnectedError):  # not sent once: as it was
        await budget.middleware(request, dropped)  # type: ignore[arg-type]
