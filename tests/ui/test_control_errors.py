"""What a click, a form or a command logs when its answer cannot reach Discord, or something else escapes its
handler: never what discord.py would log itself ("Ignoring exception in dynamic item callback for <TableButton
item=<Button ... label='K♥' ...>>": a card of a private hand, and no reference).

A failed answer (Discord's error, or the network's: aiohttp's errors, which are not
``discord.HTTPException``s, an OSError, a timeout) is one WARNING without a traceback; anything else is an
ERROR with a reference (the one the user is told) and its traceback. ``asyncio.CancelledError`` goes on
(bot/ui/controls.py ``contain_escaped``, bot/exts/_group.py ``answer_or_warn``)."""

from __future__ import annotations

import asyncio
import logging
import re
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.exts._group import EightsGroup, answer_or_warn, answer_unexpected, answering_control
from bot.service import DatabaseFault, ServiceError
from bot.ui.controls import COG_NAME, Control, TableButton, TableSelect

CARD = re.compile(r"K♥|\bKH\b|King of Hearts")


def http_error(status: int, code: int = 0) -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason="Service Unavailable")
    return discord.HTTPException(response, {"code": code, "message": "no"})  # type: ignore[arg-type]


NETWORK_FAILURES = [
    pytest.param(aiohttp.ServerDisconnectedError(), id="server-disconnected"),
    pytest.param(aiohttp.ClientOSError(104, "Connection reset by peer"), id="connection-reset"),
    pytest.param(aiohttp.ClientConnectionError("Connection lost"), id="connection-lost"),
    pytest.param(OSError(101, "Network is unreachable"), id="os-error"),
    pytest.param(TimeoutError(), id="timeout"),
    pytest.param(http_error(503), id="discord-503"),
]


class Response:
    """An interaction's response whose sending fails with ``failure`` (if any)."""

    def __init__(self, failure: BaseException | None = None) -> None:
        self.failure = failure
        self.sent: list[str] = []

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, content: str, **kwargs: Any) -> None:
        if self.failure is not None:
            raise self.failure
        self.sent.append(content)


def interaction(client: Any = None, failure: BaseException | None = None) -> Any:
    return SimpleNamespace(
        id=4242,
        client=client,
        guild_id=None,
        locale=None,
        guild_locale=None,
        response=Response(failure),
        followup=None,
        command=None,
    )


async def bot_raising(error: BaseException) -> commands.Bot:
    """A bot whose table controls' handler raises ``error`` (as an answer that failed would)."""

    class Controls(commands.Cog, name=COG_NAME):
        async def on_control(
            self, interaction: discord.Interaction, control: Control, values: list[str]
        ) -> None:
            raise error

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    await bot.add_cog(Controls())
    return bot


def king_button() -> TableButton:
    item = TableButton.make(Control(7, "7:1:9f1c2a7b5e6d", "play", "KH"), "K♥")
    view = discord.ui.View(timeout=None)
    view.add_item(item)
    return item


def logged(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("bot.")]


def assert_names_no_card(records: list[logging.LogRecord]) -> None:
    for record in records:
        assert not CARD.search(record.getMessage()), record.getMessage()
        assert record.exc_info is None or not CARD.search(str(record.exc_info[1])), record.exc_info


@pytest.mark.parametrize("failure", NETWORK_FAILURES)
async def test_a_card_click_whose_answer_fails_is_one_warning_without_the_card(
    failure: BaseException, caplog: pytest.LogCaptureFixture
) -> None:
    """K♥ clicked, and the answer meets the network gone: nothing leaves the button's callback (discord.py
    would log the button, label and all), and one WARNING says which action could not be answered, with a
    reference and the failure's kind, without a traceback and without the card."""
    item = king_button()
    clicked = interaction(await bot_raising(failure))
    with caplog.at_level(logging.DEBUG):
        await item.callback(clicked)
    records = logged(caplog)
    assert [(r.levelno, r.exc_info) for r in records] == [(logging.WARNING, None)]
    message = records[0].getMessage()
    assert "interaction 4242 (control play) could not be answered (ref " in message
    assert type(failure).__name__ in message
    assert_names_no_card(records)
    assert item.view is None  # the rebuilt view is let go all the same


async def test_a_hand_select_whose_answer_fails_is_contained_too(caplog: pytest.LogCaptureFixture) -> None:
    """The hand's select of cards (its options name them) goes the same way as its buttons."""
    select: discord.ui.Select[Any] = discord.ui.Select(
        custom_id="e8s:7:7.1.9f1c2a7b5e6d:play:0",
        options=[discord.SelectOption(label="King of Hearts", value="KH", emoji="♥")],
    )
    item = TableSelect(select, Control(7, "7:1:9f1c2a7b5e6d", "play", "0"))
    discord.ui.View(timeout=None).add_item(item)
    with caplog.at_level(logging.DEBUG):
        await item.callback(interaction(await bot_raising(aiohttp.ServerDisconnectedError())))
    records = logged(caplog)
    assert [r.levelno for r in records] == [logging.WARNING]
    assert_names_no_card(records)


async def test_a_bug_escaping_a_click_is_logged_with_the_reference_its_user_is_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Anything else that escapes the handler is a bug: an ERROR with a reference and its traceback, the
    reference told to the user if nothing answered them; the item (its card) is not in the line."""
    clicked = interaction(await bot_raising(RuntimeError("the handler broke")))
    with caplog.at_level(logging.DEBUG):
        await king_button().callback(clicked)
    records = logged(caplog)
    assert [r.levelno for r in records] == [logging.ERROR]
    assert records[0].exc_info is not None and str(records[0].exc_info[1]) == "the handler broke"
    ref = re.fullmatch(r"unexpected error in control play \(ref ([0-9a-f]{8})\)", records[0].getMessage())
    assert ref is not None, records[0].getMessage()
    assert clicked.response.sent == [f"Something went wrong (ref {ref[1]})."]
    assert_names_no_card(records)


async def test_a_bug_whose_reference_cannot_be_told_either_stays_contained(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clicked = interaction(
        await bot_raising(RuntimeError("the handler broke")), aiohttp.ServerDisconnectedError()
    )
    with caplog.at_level(logging.DEBUG):
        await king_button().callback(clicked)
    records = logged(caplog)
    assert [r.levelno for r in records] == [logging.ERROR, logging.WARNING]
    assert "could not tell the user about error ref" in records[1].getMessage()
    assert records[1].exc_info is None


async def test_a_click_cancelled_is_not_swallowed() -> None:
    """Cancelling a click's task (the bot closing) goes on: it is no error to log."""
    item = king_button()
    with pytest.raises(asyncio.CancelledError):
        await item.callback(interaction(await bot_raising(asyncio.CancelledError())))
    assert item.view is None


@pytest.mark.parametrize("failure", NETWORK_FAILURES)
async def test_an_unexpected_error_whose_reference_cannot_be_told_is_logged_once_with_it(
    failure: BaseException, caplog: pytest.LogCaptureFixture
) -> None:
    """answer_unexpected: the error is logged with its reference and traceback; the answer that failed is a
    WARNING naming the same reference, and nothing is raised."""
    with caplog.at_level(logging.DEBUG, logger="bot.exts._group"):
        await answer_unexpected(interaction(failure=failure), RuntimeError("bug"), "control play")
    records = logged(caplog)
    assert [r.levelno for r in records] == [logging.ERROR, logging.WARNING]
    ref = re.search(r"\(ref ([0-9a-f]{8})\)", records[0].getMessage())
    assert ref is not None
    assert (
        f"could not tell the user about error ref {ref[1]}: {type(failure).__name__}"
        in records[1].getMessage()
    )
    assert records[1].exc_info is None


async def test_a_database_outage_whose_answer_cannot_reach_discord_either_is_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The host's network gone: the database is unavailable (logged by the service, DEBUG here) and the
    answer saying so fails too (aiohttp's ClientOSError): a WARNING without a traceback, nothing raised."""
    outage = DatabaseFault("could not connect to the database", unavailable=True)
    network = aiohttp.ClientOSError(101, "Network is unreachable")
    with caplog.at_level(logging.DEBUG, logger="bot.exts._group"):
        await answer_unexpected(interaction(failure=network), outage, "control play")
    records = logged(caplog)
    assert [(r.levelno, r.exc_info) for r in records] == [(logging.DEBUG, None), (logging.WARNING, None)]
    assert "could not answer interaction 4242 (control play): ClientOSError" in records[1].getMessage()


async def test_a_refusal_whose_answer_fails_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="bot.exts._group"):
        await answer_or_warn(interaction(failure=aiohttp.ServerDisconnectedError()), "No.", "control play")
    records = logged(caplog)
    assert [(r.levelno, r.exc_info) for r in records] == [(logging.WARNING, None)]


async def test_a_refusal_whose_answer_is_cancelled_goes_on() -> None:
    with pytest.raises(asyncio.CancelledError):
        await answer_or_warn(interaction(failure=asyncio.CancelledError()), "No.", "control play")


async def test_a_feature_controls_refusal_whose_answer_fails_is_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """answering_control (the leaderboard's, replays' and forget's buttons): a refusal whose answer meets the
    network gone does not leave the handler."""
    with caplog.at_level(logging.DEBUG, logger="bot.exts._group"):
        async with answering_control(
            interaction(failure=aiohttp.ClientOSError(104, "reset")), "replay", update=None
        ):
            raise ServiceError("gone", "That match is not available.")
    records = logged(caplog)
    assert [(r.levelno, r.exc_info) for r in records] == [(logging.WARNING, None)]


@pytest.mark.parametrize(
    "original",
    [
        pytest.param(ServiceError("no_card", "You don't have that card."), id="refusal"),
        pytest.param(RuntimeError("bug"), id="unexpected"),
    ],
)
async def test_a_commands_error_whose_answer_fails_does_not_reach_discord_py(
    original: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    """/eights …: the group's error handler answers; an answer that fails is a WARNING, and nothing goes on
    to discord.py (which would log the command's error, chained, with no reference)."""
    error = app_commands.CommandInvokeError(SimpleNamespace(name="play"), original)  # type: ignore[arg-type]
    failed = interaction(failure=aiohttp.ServerDisconnectedError())
    with caplog.at_level(logging.DEBUG):
        await EightsGroup().on_error(failed, error)
    records = logged(caplog)
    assert records[-1].levelno == logging.WARNING and records[-1].exc_info is None
    assert all(r.levelno < logging.ERROR for r in records) == isinstance(original, ServiceError)
