"""The fake's rate limits: Discord's headers, buckets, the global limit and its exemptions, the ban."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest

from tests.fakediscord import FakeDiscord
from tests.fakediscord.ratelimits import (
    MESSAGE_CREATE,
    MESSAGE_EDIT,
    ROUTES,
    DiscordLimits,
    RouteLimit,
)

MESSAGES = ("POST", "/channels/{channel}/messages")


@dataclass
class Clock:
    """The limits' clock, moved by the test."""

    now: float = 1000.0

    def read(self) -> float:
        return self.now


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client:
        yield client


async def start(limits: DiscordLimits, clock: Clock | None = None, **options: Any) -> FakeDiscord:
    fake = FakeDiscord(limits=limits, **options)
    await fake.start()
    if clock is not None:
        assert fake.limits is not None
        fake.limits.clock = clock.read
    return fake


def channel_of(fake: FakeDiscord) -> int:
    guild = fake.create_guild("g")
    return fake.create_channel(guild, f"c{len(fake.channels)}").id


async def post(
    session: aiohttp.ClientSession, fake: FakeDiscord, path: str, body: Any = None, *, method: str = "POST"
) -> tuple[int, dict[str, str], Any]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with session.request(method, fake.api_base_url + path, json=body, headers=headers) as response:
        data: Any = (
            await response.json() if response.content_type == "application/json" else await response.text()
        )
        return response.status, dict(response.headers), data


async def test_a_channel_takes_five_messages_per_five_seconds_with_discords_headers(
    session: aiohttp.ClientSession,
) -> None:
    clock = Clock()
    fake = await start(DiscordLimits(), clock)
    try:
        channel, other = channel_of(fake), channel_of(fake)
        seen = []
        for i in range(5):
            clock.now += 0.5
            status, headers, _ = await post(
                session, fake, f"/channels/{channel}/messages", {"content": f"{i}"}
            )
            assert status == 200
            assert headers["X-RateLimit-Limit"] == "5"
            assert headers["X-RateLimit-Bucket"] == MESSAGE_CREATE.bucket_hash
            assert headers["Via"] == "1.1 google"
            reset = float(headers["X-RateLimit-Reset"])
            assert abs(reset - (time.time() + float(headers["X-RateLimit-Reset-After"]))) < 0.5
            seen.append((headers["X-RateLimit-Remaining"], headers["X-RateLimit-Reset-After"]))
        # The window started with the first request (at 1000.5) and lasts 5 s.
        assert seen == [("4", "5.000"), ("3", "4.500"), ("2", "4.000"), ("1", "3.500"), ("0", "3.000")]

        clock.now += 1.0
        status, headers, body = await post(session, fake, f"/channels/{channel}/messages", {"content": "6"})
        assert status == 429
        assert body == {"message": "You are being rate limited.", "retry_after": 2.0, "global": False}
        assert headers["X-RateLimit-Scope"] == "user"
        assert headers["Retry-After"] == "2"
        assert headers["X-RateLimit-Remaining"] == "0"
        assert headers["X-RateLimit-Reset-After"] == "2.000"
        assert headers["Via"] == "1.1 google"
        assert "X-RateLimit-Global" not in headers

        # Another channel has a bucket of its own; edits have their own bucket in the same channel.
        status, headers, _ = await post(session, fake, f"/channels/{other}/messages", {"content": "x"})
        assert (status, headers["X-RateLimit-Remaining"]) == (200, "4")
        first = fake.channel_messages(fake.channels[channel])[0]
        status, headers, _ = await post(
            session, fake, f"/channels/{channel}/messages/{first.id}", {"content": "e"}, method="PATCH"
        )
        assert status == 200
        assert headers["X-RateLimit-Bucket"] == MESSAGE_EDIT.bucket_hash != MESSAGE_CREATE.bucket_hash
        assert headers["X-RateLimit-Remaining"] == "4"

        clock.now += 2.0  # the window is over
        status, headers, _ = await post(session, fake, f"/channels/{channel}/messages", {"content": "7"})
        assert (status, headers["X-RateLimit-Remaining"]) == (200, "4")
        assert fake.limits is not None
        counters = fake.limits.counters
        assert (counters.route_429, counters.global_429, fake.limits.invalid_recent()) == (1, 0, 1)
    finally:
        await fake.close()


async def test_the_global_limit_spares_interaction_callbacks_and_webhooks(
    session: aiohttp.ClientSession,
) -> None:
    clock = Clock()
    fake = await start(DiscordLimits(global_limit=3), clock)
    try:
        channels = [channel_of(fake) for _ in range(4)]
        statuses = []
        for channel in channels:
            status, headers, body = await post(
                session, fake, f"/channels/{channel}/messages", {"content": "x"}
            )
            statuses.append(status)
        assert statuses == [200, 200, 200, 429]
        assert body == {"message": "You are being rate limited.", "retry_after": 1.0, "global": True}
        assert headers["X-RateLimit-Global"] == "true"
        assert headers["X-RateLimit-Scope"] == "global"
        assert headers["Retry-After"] == "1"
        assert headers["Via"] == "1.1 google"
        assert "X-RateLimit-Bucket" not in headers  # a global 429 names no route bucket

        # Exempt while the window is full: they reach the handler (404: no such interaction).
        app = fake.application_id
        status, headers, _ = await post(session, fake, "/interactions/1/tok/callback", {"type": 1})
        assert status == 404 and headers["X-RateLimit-Bucket"]
        status, _, _ = await post(
            session, fake, f"/webhooks/{app}/tok/messages/@original", {}, method="PATCH"
        )
        assert status == 404
        # A webhook that is not this application's interaction webhook is bound to the global limit.
        status, _, body = await post(session, fake, "/webhooks/123/tok", {"content": "x"})
        assert status == 429 and body["global"] is True

        clock.now += 1.0  # the next 1-second window
        status, _, _ = await post(session, fake, f"/channels/{channels[3]}/messages", {"content": "x"})
        assert status == 200
        assert fake.limits is not None
        c = fake.limits.counters
        assert (c.global_offered, c.global_passed, c.global_429, c.exempt) == (6, 4, 2, 2)
        assert sum(offered for offered, _ in c.per_second.values()) == 6
        with pytest.raises(AssertionError, match="2 global 429s"):
            fake.limits.assert_no_global_429()
        with pytest.raises(AssertionError, match="global rate limit"):
            fake.assert_clean()
    finally:
        await fake.close()


async def test_invalid_requests_over_ten_minutes_get_the_bot_banned(session: aiohttp.ClientSession) -> None:
    clock = Clock()
    fake = await start(DiscordLimits(ban_threshold=6, ban_seconds=60, shared_channel_writes=1), clock)
    try:
        channel = channel_of(fake)
        assert fake.limits is not None
        # 401s and 403s count; 404s do not; a shared 429 does not either.
        status, _, _ = await post(session, fake, f"/channels/{channel}/messages", {"content": "a"})
        status, headers, body = await post(session, fake, f"/channels/{channel}/messages", {"content": "b"})
        assert status == 429 and headers["X-RateLimit-Scope"] == "shared" and body["code"] == 20028
        assert fake.limits.invalid_recent() == 0
        for _ in range(3):
            async with session.get(f"{fake.api_base_url}/channels/{channel}") as response:  # no token
                assert response.status == 401
        await post(session, fake, "/channels/999/messages", {"content": "x"})  # 404: not invalid
        assert fake.limits.invalid_recent() == 3
        clock.now += 601.0  # they leave the 10-minute window
        assert fake.limits.invalid_recent() == 0
        for _ in range(5):
            clock.now += 1.0  # past the channel-read bucket's window
            async with session.get(f"{fake.api_base_url}/channels/{channel}") as response:
                assert response.status == 401
        assert not fake.limits.banned
        clock.now += 1.0
        async with session.get(f"{fake.api_base_url}/channels/{channel}") as response:
            assert response.status == 401  # the sixth in 10 minutes: banned from now on
        assert fake.limits.banned

        app = fake.application_id
        for path in (f"/channels/{channel}/messages", "/interactions/1/tok/callback", f"/webhooks/{app}/t"):
            status, headers, body = await post(session, fake, path, {"content": "x"})
            assert status == 429 and "Via" not in headers and "Error 1015" in body
            assert int(headers["Retry-After"]) == 60
        clock.now += 61.0
        assert not fake.limits.banned
        status, _, _ = await post(session, fake, f"/channels/{channel}/messages", {"content": "c"})
        assert status == 200
        assert fake.limits.counters.banned_refusals == 3
        assert fake.limits.counters.invalid_peak == 6
    finally:
        await fake.close()


def test_the_default_limits_are_discords() -> None:
    limits = DiscordLimits()
    assert (limits.global_limit, limits.global_window) == (50, 1.0)
    assert (limits.ban_threshold, limits.ban_seconds) == (10_000, 3600.0)
    assert (MESSAGE_CREATE.limit, MESSAGE_CREATE.per, MESSAGE_CREATE.major) == (5, 5.0, ("channel",))
    assert ROUTES[("PATCH", "/channels/{channel}/messages/{message}")] is MESSAGE_EDIT
    assert ROUTES[("POST", "/interactions/{interaction}/{token}/callback")].global_exempt
    assert ROUTES[("PATCH", "/webhooks/{app}/{token}/messages/{message}")].global_exempt


# --- the real discord.py client against the limits ------------------------------------------------------


async def client_for(fake: FakeDiscord) -> discord.Client:
    from bot.delivery.endpoints import apply_endpoints

    apply_endpoints(fake.api_base_url, fake.gateway_url)
    client = discord.Client(intents=discord.Intents.none())
    await client.login(fake.token)
    return client


async def test_discord_py_reads_the_bucket_headers_and_waits_instead_of_a_429() -> None:
    fast = RouteLimit("message-create", 3, 1.0, ("channel",))
    fake = await start(DiscordLimits(routes={**ROUTES, MESSAGES: fast}))
    client = await client_for(fake)
    try:
        channel = client.get_partial_messageable(channel_of(fake))
        started = time.monotonic()
        for i in range(7):
            await channel.send(f"line {i}")
        elapsed = time.monotonic() - started
        assert fake.limits is not None
        assert fake.limits.counters.route_429 == 0  # discord.py waited for the resets the headers named
        assert elapsed >= 2.0  # 3 + 3 + 1 in three windows of a second
        assert len(fake.channel_messages(fake.channels[channel.id])) == 7
    finally:
        await client.close()
        await fake.close()


async def test_discord_py_obeys_a_global_429_and_a_ban_looks_like_cloudflare_to_it() -> None:
    fake = await start(DiscordLimits(global_limit=4, ban_threshold=50))
    client = await client_for(fake)
    try:
        channels = [client.get_partial_messageable(channel_of(fake)) for _ in range(6)]
        await asyncio.gather(*(c.send("hi") for c in channels))  # two wait for the next window
        assert fake.limits is not None
        assert fake.limits.counters.global_429 >= 1
        assert all(len(fake.channel_messages(fake.channels[c.id])) == 1 for c in channels)
        while not fake.limits.banned:
            fake.limits._count_invalid(fake.limits.clock())
        with pytest.raises(discord.HTTPException) as raised:
            await channels[0].send("after the ban")
        assert raised.value.status == 429  # at once, not retried: discord.py saw no Via header
    finally:
        await client.close()
        await fake.close()


async def test_a_share_of_calls_answered_5xx_is_retried_by_discord_py() -> None:
    fake = await start(DiscordLimits(), server_error_rate=0.3, fault_seed=3)
    fake.server_errors.statuses = (500, 502)
    client = await client_for(fake)
    try:
        channel = client.get_partial_messageable(channel_of(fake))
        for i in range(6):
            await channel.send(f"line {i}")
        assert fake.server_errors.count >= 1
        assert [m.content for m in fake.channel_messages(fake.channels[channel.id])] == [
            f"line {i}" for i in range(6)
        ]
    finally:
        await client.close()
        await fake.close()


@pytest.mark.discord_limits(global_limit=2)
async def test_the_marker_turns_limits_on_for_the_fixture(fake_discord: FakeDiscord) -> None:
    assert fake_discord.limits is not None
    assert fake_discord.limits.settings.global_limit == 2
