"""Review of answers after 40060 (d3a5a87)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import web

from tests.e2e.conftest import World


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_an_answer_after_a_defer_discord_took_reaches_the_member(world: World) -> None:
    """The command's work runs late, so the watchdog defers ("thinking…"); Discord takes that callback but
    its edge answers 502, and discord.py sends it again and meets 400 40060 (already acknowledged). The
    defer stands, so the answer goes out as its edit: bob learns he left. (The defer was taken for failed,
    the answer was then sent as a response, met 40060 in turn and was taken for delivered: bob's
    "thinking…" was never filled.)"""
    fake = world.fake
    await world.run(world.alice, "new", target=1000)
    await world.run(world.bob, "join")
    await world.settle()
    assert world.bot is not None
    lobby = world.bot.get_cog("Eights lobby")
    lobby.defer_after = 0.0  # type: ignore[attr-defined]  # the work runs late: the watchdog defers at once
    service = lobby.service  # type: ignore[attr-defined]
    leave = service.leave

    async def slow_leave(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.3)  # a busy database: the watchdog's defer goes out first
        return await leave(*args, **kwargs)

    service.leave = slow_leave
    armed = {"left": 1}
    original = fake._handle

    async def handle(request: web.Request, handler: Any) -> web.StreamResponse:
        response = await original(request, handler)
        if request.path.endswith("/callback") and armed["left"] > 0 and response.status in (200, 204):
            armed["left"] -= 1  # taken by Discord; the edge answers 502
            return web.json_response({"message": "502: Bad Gateway", "code": 0}, status=502)
        return response

    fake._handle = handle  # type: ignore[method-assign]
    handle_ = await fake.invoke(world.bob, world.channel, "eights leave")
    await fake.wait_for(lambda: armed["left"] == 0, what="the callback")
    kind = await handle_.callback()
    await asyncio.sleep(1.0)
    await world.settle()
    fake.take_violations()
    assert kind == 5, kind  # the watchdog's "thinking…" is what Discord took
    assert [s.user_id for s in (await world.snapshot()).seats] == [world.alice.id]  # bob did leave
    handle_.record.errors.clear()  # the two 40060s, provoked on purpose (the retried defer, the answer)
    try:
        reply = await handle_.reply(timeout=3.0)
        text = reply.text()
    except AssertionError as error:
        text = f"<nothing: {error}>"
    assert "You left" in text, f"bob's answer is stuck at 'thinking…': {text!r}"
