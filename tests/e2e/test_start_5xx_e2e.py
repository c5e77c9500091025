"""A single passing 5xx from Discord at start-up (a 503 from its load balancer: "upstream connect error").
discord.py tries 500, 502, 504 and 524 again itself but raises at once on a 503; the bot then tries again
itself, a little later, in the background: the card emojis and the slash commands still arrive (README,
*Cards, emojis*: only a refusal leaves the cards as text until the next start)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e.conftest import PrivacyObserver, World
from tests.fakediscord import FakeDiscord


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_one_503_on_the_emoji_list_at_start_is_tried_again_and_the_emojis_come_into_use(
    world: World,
) -> None:
    """The emojis were uploaded by an earlier start; at the next start Discord answers the list of the app's
    emojis with one 503. The list is asked again a moment later and the cards are shown with their emojis,
    not as text for the whole run."""
    assert world.bot is not None
    assert await world.bot.card_emojis.wait()  # the first start uploaded them
    world.fake.server_errors.fail_next(1, path_contains="/emojis", status=503)
    await world.restart()
    bot = world.bot
    assert bot is not None
    await bot.card_emojis.wait()
    loop = asyncio.get_running_loop()
    end = loop.time() + 15.0
    while not bot.card_emojis.ready and loop.time() < end:
        await asyncio.sleep(0.1)
    assert bot.card_emojis.ready, (
        f"cards shown as text for the whole run after one 503: {bot.card_emojis.error}"
    )
    assert world.fake.server_errors.count >= 1  # the 503 was answered


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_one_503_on_the_first_command_sync_is_tried_again_and_the_commands_arrive(
    fake: FakeDiscord, tmp_path: Path, backend_url: str
) -> None:
    """A first start (or one after an upgrade that changed the commands) meets one 503 on
    ``PUT /applications/{id}/commands``. The bot starts and serves meanwhile, tries the sync again in the
    background a moment later, and the slash commands reach Discord without a restart."""
    fake.server_errors.fail_next(1, path_contains="/commands", status=503)
    world = World(fake, tmp_path, PrivacyObserver(), backend_url)
    await world.start()
    try:
        loop = asyncio.get_running_loop()
        end = loop.time() + 15.0
        while not fake.synced_commands() and loop.time() < end:
            await asyncio.sleep(0.1)
        assert fake.synced_commands(), "no slash command on Discord after one 503 at the first start"
        assert fake.server_errors.count >= 1  # the 503 was answered
        assert world.bot is not None
        while world.bot.commands_synced is not True and loop.time() < end:
            await asyncio.sleep(0.05)
        assert world.bot.commands_synced is True
    finally:
        await world.stop()
