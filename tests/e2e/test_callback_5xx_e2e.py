"""The answer to ``/eights new`` (the board, posted as the interaction's callback) meets a 5xx that Discord's
edge answered after Discord had taken the callback (the fake answers the request, then replaces the answer
with a 502). The bot's quick retry sends the callback again and Discord answers 400 "already acknowledged"
(40060): the first try went through. One board, kept up to date (its id read back through the token), and no
error logged (README, *Discord's rate limits*: one board per table; "A 5xx costs a twentieth of a second, not
a click")."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from aiohttp import web

from tests.e2e.conftest import World


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_board_whose_callback_met_a_5xx_after_discord_took_it_is_kept(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    armed = {"left": 1}
    original = fake._handle

    async def handle(request: web.Request, handler: Any) -> web.StreamResponse:
        response = await original(request, handler)
        if request.path.endswith("/callback") and armed["left"] > 0 and response.status == 200:
            armed["left"] -= 1  # taken by Discord; the edge answers 502
            return web.json_response({"message": "502: Bad Gateway", "code": 0}, status=502)
        return response

    fake._handle = handle  # type: ignore[method-assign]
    await fake.invoke(world.alice, world.channel, "eights new", target=1000)
    await fake.wait_for(lambda: armed["left"] == 0, what="the callback")
    await asyncio.sleep(0.5)
    await world.settle()
    await world.run(world.bob, "join")
    await world.settle()
    fake.take_violations()  # the callback sent again, refused as Discord refuses it
    boards = [m for m in fake.channel_messages(world.channel) if m.embeds]
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(boards) == 1, [
        (b.id, "bob listed" if "bob" in b.text() else "frozen: bob missing") for b in boards
    ] + errors
    assert "bob" in boards[0].text()
    assert not errors, errors
