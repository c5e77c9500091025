"""The DEBUG log (README: Troubleshooting) holds no player's hand and no interaction token: the bot against
the fake Discord with logging set up as `python -m bot run` sets it (LOG_LEVEL=DEBUG, LOG_FORMAT=json), while
two people play a round. discord.py logs every gateway event (each interaction carries the clicked hand
message and its token) and every webhook URL (the token is in it)."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import pytest

from bot.logging_setup import setup_logging
from tests.e2e.conftest import World
from tests.e2e.test_round import open_and_start

CARD = r"(?:10|[2-9AJQK])[♣♦♥♠]"
HAND = re.compile(rf"Your hand\*?\*? \(\d+ cards?\): [^'\"]*?{CARD}")
INTERACTION_TOKEN = re.compile(r"(?:/(?:webhooks|interactions)/\d+/|'token': ')(itk\.[\w.-]+)")


@pytest.fixture
def debug_json_log(world: World) -> Iterator[io.StringIO]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    setup_logging("DEBUG", "json", secrets=world.config().secrets(), stream=stream)
    yield stream
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


async def played_round(world: World, stream: io.StringIO) -> list[dict[str, str]]:
    await open_and_start(world)
    await world.play_round_by_buttons()
    await world.settle()
    return [json.loads(line) for line in stream.getvalue().splitlines()]


async def test_debug_log_shows_no_players_hand(world: World, debug_json_log: io.StringIO) -> None:
    leaks = [
        (e["logger"], m.group(0))
        for e in await played_round(world, debug_json_log)
        if (m := HAND.search(e["message"]))
    ]
    assert not leaks, f"{len(leaks)} lines, e.g. {leaks[:2]}"


async def test_debug_log_shows_no_interaction_token(world: World, debug_json_log: io.StringIO) -> None:
    lines = await played_round(world, debug_json_log)
    leaks = sorted(
        {(e["logger"], m.group(1)) for e in lines for m in INTERACTION_TOKEN.finditer(e["message"])}
    )
    # The lines are still there, without what they carried.
    assert any("INTERACTION_CREATE" in e["message"] for e in lines if e["logger"] == "discord.gateway")
    assert any("/webhooks/" in e["message"] and "{token}" in e["message"] for e in lines)
    assert not leaks, f"{len(leaks)} tokens, by {sorted({lg for lg, _ in leaks})}, e.g. {leaks[:2]}"
