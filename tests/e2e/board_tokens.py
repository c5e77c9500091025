"""Helpers of the board-token tests: the boards of a table as the fake holds them, Discord's 15 minutes
scaled."""

from __future__ import annotations

from typing import Any

import pytest

from bot.delivery import carrier as carrier_mod
from bot.delivery import hand_session, hands
from bot.delivery import publisher as publisher_mod
from tests.e2e.conftest import World
from tests.fakediscord.model import FakeMessage


def boards(world: World, *, live: bool = True) -> list[FakeMessage]:
    """Every board message of the table's channel (public, its embed titled "Crazy Eights…"), oldest first;
    ``live``: only those not deleted."""
    return [
        m
        for m in world.fake.channel_messages(world.channel, include_deleted=not live)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


def scale_windows(monkeypatch: pytest.MonkeyPatch, *, repost: float, window: float | None = None) -> None:
    """The bot's REPOST_AFTER (and HAND_EDIT_WINDOW) scaled down, in every module that reads them."""
    for mod in (carrier_mod, publisher_mod):
        monkeypatch.setattr(mod, "REPOST_AFTER", repost)
    if window is not None:
        for mod in (carrier_mod, hand_session, hands, publisher_mod):
            if hasattr(mod, "HAND_EDIT_WINDOW"):
                monkeypatch.setattr(mod, "HAND_EDIT_WINDOW", window)


async def two_player_game(world: World, seed: int = 3) -> FakeMessage:
    """alice opens a table, bob joins, alice deals. Returns the /eights new answer (the first board)."""
    fake = world.fake
    world.service.seed_deals(seed)
    board = await world.run(world.alice, "new", target=1000)
    await (await fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    return board


def is_board_upload(request: Any) -> bool:
    """A follow-up carrying the board (multipart: its picture); turn lines are plain JSON."""
    return "multipart" in (request.content_type or "")
