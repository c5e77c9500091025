"""A CPU seat leads round 1, and Discord is slow to confirm the Start click's answer.

The deal is committed when Start is pressed, and the CPU's turn timer (the bot's default 1 s delay) runs from
then: its first move may be committed before Discord has confirmed the host's answer. The channel still reads
"The game has started / Round 1 dealt" before the CPU's plays, and the board ends up showing the table as it
is (starter card, stock, the turn marker), not as it was dealt. (The start's outcome is handed to the
publisher as soon as it is committed, before the answer goes to Discord, and the publisher never shows an
older state over a newer one.)
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from aiohttp import web

from tests.e2e.board_checks import board_disagreements
from tests.e2e.conftest import World
from tests.e2e.race_steps import with_default_cpu_delay

DISCORD_ANSWER = 1.6  # seconds Discord takes to confirm an interaction callback (a slow moment)


async def test_a_cpu_leading_round_one_is_told_after_the_start_and_the_board_is_current(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await with_default_cpu_delay(world)
    board = await world.run(world.alice, "new", preset="classic", target=1000)
    await world.run(world.alice, "cpu", level="easy")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "leave")  # the opener leaves: the seats are CPU 1 (it leads), bob
    await world.settle()
    snapshot = await world.snapshot()
    assert [s.name for s in snapshot.seats] == ["CPU 1", "bob"] and snapshot.seats[0].is_cpu

    fake = world.fake
    handle = fake._handle

    async def slow_callbacks(request: web.Request, handler: Any) -> web.StreamResponse:
        response = await handle(request, handler)
        if request.path.endswith("/callback"):
            await asyncio.sleep(DISCORD_ANSWER)
        return response

    monkeypatch.setattr(fake, "_handle", slow_callbacks)
    start = await fake.click(world.bob, world.board(), label="Start")
    await start.reply(timeout=10)
    monkeypatch.setattr(fake, "_handle", handle)

    async def told() -> bool:
        texts = "\n".join(world.public_texts())
        return "The game has started" in texts and ("CPU 1 played" in texts or "CPU 1 drew" in texts)

    await world.until(told, "the start and the CPU's first move told")
    await world.settle()
    assert (await world.snapshot()).phase == "playing"
    texts = "\n".join(world.public_texts())
    started = texts.find("The game has started")
    cpu_moved = min(i for i in (texts.find("CPU 1 played"), texts.find("CPU 1 drew")) if i >= 0)
    assert started < cpu_moved, f"the CPU's move was told before the game started: {texts!r}"
    assert not await board_disagreements(world)
    # Nobody was answered "Something went wrong", nothing was logged as an unexpected error.
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, errors
    for user in (world.alice, world.bob):
        for message in fake.ephemeral_messages(user):
            assert "Something went wrong" not in message.content, message.content
