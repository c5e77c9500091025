"""EightsBot.setup_hook's wiring: how the running bot's features are put together from the configuration."""

from __future__ import annotations

from pathlib import Path

from bot.client import EightsBot
from bot.config import PUBLIC_INTERVAL, Config, Secret
from bot.delivery.endpoints import apply_endpoints
from tests.fakediscord import FakeDiscord, fast_bot_options, running_bot


async def test_the_public_spacing_does_not_depend_on_the_cpu_delay(tmp_path: Path) -> None:
    # EIGHTS_CPU_DELAY=0 is allowed: the CPU then moves at once, but a channel still gets its lines and board
    # edits spaced for its own rate limit (429s there count toward Discord's invalid-request ban).
    async with FakeDiscord() as fake:
        config = Config(
            token=Secret(fake.token),
            database_url=f"sqlite:///{tmp_path / 'eights.sqlite3'}",
            api_base_url=fake.api_base_url,
            gateway_url=fake.gateway_url,
            cpu_delay=0.0,
        )
        try:
            async with running_bot(fake, EightsBot(config, **fast_bot_options())) as client:
                assert client.publisher.min_interval == PUBLIC_INTERVAL > 0
        finally:
            apply_endpoints(None, None)
