"""Running a real discord.py bot against the fake, and the pytest fixtures that do it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest

from bot.delivery.endpoints import apply_endpoints

from .ratelimits import DiscordLimits
from .server import FakeDiscord


async def _no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
    """discord.py sleeps 5 s before every IDENTIFY but the first (a real rate limit); the fake has none."""


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord,
    client: discord.Client,
    *,
    ready_timeout: float = 10.0,
    fast_identify: bool = True,
    set_endpoints: bool = True,
) -> AsyncIterator[discord.Client]:
    """Point discord.py at ``fake`` (``apply_endpoints``), start ``client`` on this event loop, wait until
    it is ready, and close it (before the fake) on exit. Give the client a small ``guild_ready_timeout``
    (e.g. 0.05): ``on_ready`` waits that long after the last GUILD_CREATE.

    ``fast_identify`` skips discord.py's 5 s wait before each non-first IDENTIFY (sharded bots, re-identify).
    """
    if set_endpoints:
        apply_endpoints(fake.api_base_url, fake.gateway_url)
    if fast_identify:
        client.before_identify_hook = _no_identify_delay  # type: ignore[method-assign]
    task = asyncio.create_task(client.start(fake.token), name="bot-under-test")
    try:
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, task}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()  # re-raise why the bot stopped
            raise AssertionError(f"bot not ready after {ready_timeout}s; fake violations: {fake.violations}")
        yield client
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 5.0)
        if set_endpoints:
            apply_endpoints(None, None)


@pytest.fixture
async def fake_discord(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord; at teardown the test fails if the bot called an unknown endpoint or broke
    a rule.

    Mark a test ``@pytest.mark.discord_limits`` (keyword arguments: ``DiscordLimits``'s, e.g.
    ``global_limit=10``) to turn Discord's rate limits on: the test then also fails if the bot provoked a
    global 429 or got banned. ``@pytest.mark.discord_faults(server_error_rate=0.02, seed=1)`` answers that
    share of REST calls with a 5xx.

    Import it into a conftest.py: ``from tests.fakediscord.harness import fake_discord  # noqa: F401``.
    """
    limits_marker = request.node.get_closest_marker("discord_limits")
    faults_marker = request.node.get_closest_marker("discord_faults")
    limits = DiscordLimits(**limits_marker.kwargs) if limits_marker is not None else None
    faults = faults_marker.kwargs if faults_marker is not None else {}
    async with FakeDiscord(
        limits=limits,
        server_error_rate=faults.get("server_error_rate", 0.0),
        fault_seed=faults.get("seed", 0),
    ) as fake:
        yield fake
        fake.assert_clean()


@pytest.fixture
async def limited_fake_discord() -> AsyncIterator[FakeDiscord]:
    """``fake_discord`` with Discord's rate limits on (``DiscordLimits()``): fails the test at teardown if the
    bot provoked a global 429 or was banned."""
    async with FakeDiscord(limits=DiscordLimits()) as fake:
        yield fake
        fake.assert_clean()


def fast_bot_options() -> dict[str, Any]:
    """Options for a test bot: no 2 s wait for guilds, no member chunking."""
    return {"guild_ready_timeout": 0.05, "chunk_guilds_at_startup": False}
