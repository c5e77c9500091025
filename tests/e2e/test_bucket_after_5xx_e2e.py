"""A 5xx that carries the route's bucket headers (X-RateLimit-Remaining: 0, Reset-After) on a request through
an interaction's token: the bot's quick retry waits for the bucket, so no 429 is provoked."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import World
from tests.fakediscord import DiscordLimits
from tests.fakediscord.ratelimits import ROUTES, RouteLimit

# Discord's limits are discovered from the headers (README: "which discord.py reads from the headers and keeps
# to"); this token's bucket allows one request per 2 s.
TIGHT_TOKEN = RouteLimit("interaction-webhook", 1, 2.0, ("app", "token"), global_exempt=True)


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_quick_retry_after_a_5xx_obeys_the_bucket_headers(world: World) -> None:
    """README, *Discord's rate limits*: each token "has a small limit of its own ... which discord.py reads
    from the headers and keeps to", and never a 429 provoked by ignoring Discord's headers. The board edit
    through ``/eights new``'s token meets a 503 whose answer says the bucket is spent
    (X-RateLimit-Remaining 0, Reset-After 2 s): the edit is sent again only once the bucket has reset (by
    ``GlobalBudget.middleware``'s quick retry or discord.py's later one), the board shows the join, and no
    route 429 is counted towards Discord's invalid-request ban."""
    routes = dict(ROUTES)
    for key, kind in ROUTES.items():
        if kind.bucket == "interaction-webhook":
            routes[key] = TIGHT_TOKEN
    limits = world.fake.enable_limits(DiscordLimits(routes=routes))
    await world.run(world.alice, "new", target=1000)
    await world.settle()
    await asyncio.sleep(2.2)  # every bucket fresh
    world.fake.server_errors.fail_next(1, path_contains="/webhooks/", status=503)
    await world.run(world.bob, "join")  # the board is edited through alice's token
    await world.settle()
    await asyncio.sleep(3.0)
    await world.settle()
    assert world.fake.server_errors.count == 1
    assert "bob" in world.board().text()
    assert limits.counters.route_429 == 0, limits.summary()
