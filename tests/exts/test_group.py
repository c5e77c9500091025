"""bot.exts._group.answer_unexpected: what a player is told, and what is logged, when a control fails."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.exts._group import UNKNOWN_INTERACTION, answer_unexpected


class RecordingResponse:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def is_done(self) -> bool:
        return False

    async def send_message(self, content: str, **kwargs: Any) -> None:
        self.sent.append(content)


def interaction() -> Any:
    return SimpleNamespace(id=99, response=RecordingResponse(), followup=None)


def not_found(code: int) -> discord.NotFound:
    response = SimpleNamespace(status=404, reason="Not Found")
    return discord.NotFound(response, {"code": code, "message": "Unknown interaction"})  # type: ignore[arg-type]


async def test_an_interaction_discord_gave_up_on_is_logged_in_one_line_and_not_answered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    late = interaction()
    with caplog.at_level(logging.WARNING, logger="bot.exts._group"):
        await answer_unexpected(late, not_found(UNKNOWN_INTERACTION), "control play")
    assert late.response.sent == []  # answering would only fail again
    records = [r for r in caplog.records if r.name == "bot.exts._group"]
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    assert records[0].exc_info is None and "too late" in records[0].getMessage()


async def test_any_other_failure_gives_the_player_a_reference_and_logs_the_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    failed = interaction()
    with caplog.at_level(logging.ERROR, logger="bot.exts._group"):
        await answer_unexpected(failed, not_found(10008), "control play")  # Unknown Message: a real surprise
    assert len(failed.response.sent) == 1 and failed.response.sent[0].startswith("Something went wrong (ref ")
    records = [r for r in caplog.records if r.name == "bot.exts._group"]
    assert records and records[0].exc_info is not None
