"""The connection to Discord times out while a turn line goes out as a follow-up (a network fault: the
connect does not complete within aiohttp's connect timeout). aiohttp names the request's whole URL in the
error, and the URL of an interaction webhook holds the interaction's token, which lets anyone post as the bot
in its channel for 15 minutes. README, *Configuration* (``LOG_LEVEL``): no line holds an interaction's token:
the bot's own warning about the line writes the error with the token masked."""

from __future__ import annotations

import io
import logging
import re
from typing import Any

import pytest

from bot.logging_setup import TEXT_FORMAT, PayloadFilter, RedactFilter
from tests.e2e.conftest import World
from tests.e2e.test_bad_input import start_two


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_connect_timeout_on_a_follow_up_logs_no_interaction_token(world: World) -> None:
    fake = world.fake
    assert world.bot is not None
    # The bot's own log handler, as ``setup_logging`` installs it for ``python -m bot run``.
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    handler.addFilter(PayloadFilter())
    handler.addFilter(RedactFilter([fake.token]))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        world.service.seed_deals(1)  # alice leads with a playable card
        await start_two(world)
        session: Any = world.bot.http._HTTPClient__session  # type: ignore[attr-defined]
        connector = session._connector
        connect = connector.connect
        armed = {"left": 1}

        async def stalled_connect(req: Any, *args: Any, **kwargs: Any) -> Any:
            if armed["left"] > 0 and req.method == "POST" and "/webhooks/" in req.url.path:
                armed["left"] -= 1
                raise TimeoutError  # aiohttp turns it into ConnectionTimeoutError(url)
            return await connect(req, *args, **kwargs)

        connector.connect = stalled_connect
        mover = await world.human_to_act()
        assert mover is world.alice
        await world.play_by_buttons(mover)
        await world.settle(timeout=30.0)
        assert armed["left"] == 0, "no follow-up was sent"
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    tokens = [record.token for record in fake.interactions.values()]
    logged = out.getvalue()
    leaked = [line for line in logged.splitlines() if any(token in line for token in tokens)]
    # No interaction token in any line (the secret part masked as discord.py's own lines are).
    assert not leaked, "\n".join(re.sub(r"itk\.\d+\.", "itk.<id>.", line) for line in leaked)
