"""bot.exts.autocomplete.quiet_autocomplete: every autocomplete is answered within Discord's 3 seconds, with
no choices when its work fails or is still waiting (a slow database) about 2.5 s after the keystroke, and
never with a traceback."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

import bot.exts.autocomplete as autocomplete_module
from bot.exts.autocomplete import ANSWER_BY, LEAST_WAIT, quiet_autocomplete, time_left
from bot.service import DatabaseFault, ServiceError

CHOICES = [app_commands.Choice(name="Hand size", value="hand_size")]


class RecordingResponse:
    def __init__(self, refuse: Exception | None = None) -> None:
        self.answers: list[list[app_commands.Choice[str]]] = []
        self.refuse = refuse
        self._response_type: discord.InteractionResponseType | None = None

    def is_done(self) -> bool:
        return self._response_type is not None

    async def autocomplete(self, choices: list[app_commands.Choice[str]]) -> None:
        if self.refuse is not None:
            raise self.refuse
        self.answers.append(choices)
        self._response_type = discord.InteractionResponseType.autocomplete_result


def keystroke(age: float = 0.0, refuse: Exception | None = None) -> Any:
    """An autocomplete interaction Discord created ``age`` seconds ago."""
    created = datetime.now(UTC) - timedelta(seconds=age)
    return SimpleNamespace(id=discord.utils.time_snowflake(created), response=RecordingResponse(refuse))


def unknown_interaction() -> discord.NotFound:
    response = SimpleNamespace(status=404, reason="Not Found")
    return discord.NotFound(response, {"code": 10062, "message": "Unknown interaction"})


class Cog:
    def __init__(self, work: Any) -> None:
        self.work = work
        self.called = 0

    @quiet_autocomplete
    async def options(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        self.called += 1
        result: list[app_commands.Choice[str]] = await self.work()
        return result


async def ask(cog: Cog, interaction: Any) -> list[app_commands.Choice[str]]:
    return await cog.options(interaction, "")


async def test_choices_found_in_time_are_the_answer() -> None:
    async def found() -> list[app_commands.Choice[str]]:
        return CHOICES

    asked = keystroke()
    assert await ask(Cog(found), asked) == CHOICES
    assert asked.response.answers == [CHOICES]


async def test_work_still_waiting_at_2_5_seconds_of_age_is_cancelled_and_answered_with_none(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A keystroke 2.3 s old whose database read takes seconds more: answered with no choices 0.2 s later
    (by 2.5 s of its age, in Discord's 3), its read cancelled, at DEBUG."""
    cancelled = asyncio.Event()

    async def slow() -> list[app_commands.Choice[str]]:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return CHOICES

    asked = keystroke(age=ANSWER_BY - 0.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with caplog.at_level(logging.DEBUG, logger="bot.exts.autocomplete"):
        assert await ask(Cog(slow), asked) == []
    assert loop.time() - started < 1.0  # not the 10 s the read would take
    assert asked.response.answers == [[]]
    await asyncio.wait_for(cancelled.wait(), 1.0)
    assert [r.levelno for r in caplog.records if r.name == "bot.exts.autocomplete"] == [logging.DEBUG]


async def test_work_given_up_that_fails_when_cancelled_leaves_no_unretrieved_task_error() -> None:
    """The cancelled read may end with an error of its own (a store turning the cancellation into its own
    error): it is collected, not reported by asyncio as "Task exception was never retrieved"; and the answer
    does not wait for it to end."""
    reported: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    ended = asyncio.Event()

    async def fails_when_cancelled() -> list[app_commands.Choice[str]]:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(1.0)  # its cancellation itself waits
            ended.set()
            raise DatabaseFault("the statement was cancelled", unavailable=True) from None
        return CHOICES

    try:
        started = loop.time()
        assert await ask(Cog(fails_when_cancelled), keystroke(age=ANSWER_BY - 0.1)) == []
        assert loop.time() - started < 0.8  # answered without waiting for the cancellation
        await asyncio.wait_for(ended.wait(), 3.0)
        await asyncio.sleep(0.05)
        gc.collect()
    finally:
        loop.set_exception_handler(None)
    assert reported == []


async def test_a_keystroke_already_past_its_time_is_still_given_a_moment() -> None:
    """A keystroke the clock calls past its time (it may be a clock running ahead of Discord's) is still
    tried for ``LEAST_WAIT``: choices ready at once are sent (Discord refuses them, quietly, if it really
    was late), work that takes longer is given up then."""

    async def found() -> list[app_commands.Choice[str]]:
        return CHOICES

    asked = keystroke(age=ANSWER_BY + 0.1)
    assert await ask(Cog(found), asked) == CHOICES

    async def slow() -> list[app_commands.Choice[str]]:
        await asyncio.sleep(5)
        return CHOICES

    late = keystroke(age=ANSWER_BY + 0.1)
    began = time.monotonic()
    assert await ask(Cog(slow), late) == []
    assert LEAST_WAIT <= time.monotonic() - began < LEAST_WAIT + 1.0
    assert late.response.answers == [[]]


async def test_an_answer_discord_no_longer_takes_is_dropped_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Refused with 10062 (the keystroke reached the bot after Discord's 3 s): logged at DEBUG, and the
    response counts as done, so discord.py does not try again (and log a traceback)."""

    async def found() -> list[app_commands.Choice[str]]:
        return CHOICES

    asked = keystroke(refuse=unknown_interaction())
    with caplog.at_level(logging.DEBUG, logger="bot.exts.autocomplete"):
        assert await ask(Cog(found), asked) == CHOICES
    assert asked.response.is_done()
    assert all(r.exc_info is None and r.levelno == logging.DEBUG for r in caplog.records)


@pytest.mark.parametrize(
    "failure",
    [aiohttp.ServerDisconnectedError(), ConnectionResetError("reset by peer"), TimeoutError()],
    ids=["disconnected", "reset", "timeout"],
)
async def test_an_answer_the_network_loses_is_dropped_without_a_traceback(
    caplog: pytest.LogCaptureFixture, failure: Exception
) -> None:
    """The connection dropped while the choices were sent: logged at DEBUG like a refusal, never escaping to
    discord.py (which would log a traceback per keystroke)."""

    async def found() -> list[app_commands.Choice[str]]:
        return CHOICES

    asked = keystroke(refuse=failure)
    with caplog.at_level(logging.DEBUG):
        assert await ask(Cog(found), asked) == CHOICES
    assert asked.response.is_done()
    assert all(r.exc_info is None and r.levelno == logging.DEBUG for r in caplog.records)


@pytest.mark.parametrize(
    ("error", "level"),
    [
        (ServiceError("no_table", "There is no open table in this channel."), None),
        (DatabaseFault("PostgreSQL is away", unavailable=True), logging.DEBUG),
        (DatabaseFault("the file is damaged", damaged=True), logging.WARNING),
        (RuntimeError("a bug"), logging.ERROR),
    ],
)
async def test_what_cannot_be_answered_is_answered_with_no_choices(
    caplog: pytest.LogCaptureFixture, error: Exception, level: int | None
) -> None:
    async def fails() -> list[app_commands.Choice[str]]:
        raise error

    asked = keystroke()
    with caplog.at_level(logging.DEBUG, logger="bot.exts.autocomplete"):
        assert await ask(Cog(fails), asked) == []
    assert asked.response.answers == [[]]
    records = [r for r in caplog.records if r.name == "bot.exts.autocomplete"]
    assert [r.levelno for r in records] == ([] if level is None else [level])
    assert all((r.exc_info is not None) == (r.levelno == logging.ERROR) for r in records)


def test_time_left_counts_from_the_interactions_creation() -> None:
    assert time_left(keystroke(age=1.0)) == pytest.approx(ANSWER_BY - 1.0, abs=0.05)
    assert time_left(keystroke(age=4.0)) < 0
    # An id whose time cannot be trusted (a clock far off, a stand-in): counted from now.
    assert time_left(keystroke(age=-60.0)) == ANSWER_BY
    assert time_left(SimpleNamespace(id=99)) == ANSWER_BY  # type: ignore[arg-type]


class _ClockAhead(datetime):
    """This machine's clock, 3 s ahead of Discord's (within the 10 s the bot still trusts)."""

    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return datetime.now(tz) + timedelta(seconds=3)


class InMemoryCog:
    @quiet_autocomplete
    async def suits(self, interaction: Any, current: str) -> list[app_commands.Choice[str]]:
        return CHOICES  # answered from memory at once: nothing to wait for


async def test_a_fresh_keystroke_is_answered_when_the_clock_runs_a_little_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A keystroke Discord created just now, 3 s old by this machine's clock running ahead, whose choices are
    ready at once gets them, not an empty list (as answers.py: a clock ahead of Discord's only makes the bot
    hurry)."""
    monkeypatch.setattr(autocomplete_module, "datetime", _ClockAhead)
    asked = keystroke(age=0.0)
    found = await InMemoryCog().suits(asked, "")
    assert found == CHOICES
    assert asked.response.answers == [CHOICES]
