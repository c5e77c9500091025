"""Every autocomplete of ``/eights`` is answered within Discord's 3 seconds, when the database is slow too
(``bot.exts.autocomplete``): Discord takes an autocomplete's answer (APPLICATION_COMMAND_AUTOCOMPLETE_RESULT)
only within 3 s of the keystroke, and it cannot be deferred. One whose database read is still waiting about
2.5 s after the keystroke is given up and answered with no choices, with no traceback in the log (the next
keystroke asks again); one that reached the bot too late to be answered is dropped quietly.

The slow database is a stand-in that sleeps before the store answers (as a SQLite file held by another
process, or a PostgreSQL statement waiting on a lock, would): it does not depend on the backend."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from tests.e2e.conftest import World
from tests.e2e.slow_store import slow_store_method
from tests.fakediscord import FakeUser

pytestmark = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)

SLOWER = 3.5  # seconds the database takes: past Discord's 3 s


async def ask_autocomplete(
    world: World, user: FakeUser, command: str, option: str
) -> tuple[object, list[str]]:
    """The bot's choices (or the fake's complaint) and what Discord's rules say it broke meanwhile."""
    try:
        got: object = await world.fake.autocomplete(user, world.channel, command, option, "", timeout=10.0)
    except AssertionError as error:  # the fake's wait fails at once on a broken rule
        got = f"no answer: {error}"
    await asyncio.sleep(0.1)
    return got, world.fake.take_violations()


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    gc.collect()  # a task whose exception was never retrieved says so when it is collected
    return [r.getMessage() for r in caplog.records if r.exc_info]


async def test_the_replay_autocomplete_answers_within_3_seconds_when_the_database_is_slow(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``/eights replay match:`` reads the server's recent matches from the database at every keystroke.
    With the database taking 3.5 s the member gets no choices in time (not "Loading options failed"), and
    the log has no traceback."""
    slow_store_method(world, monkeypatch, "recent_matches", delay=SLOWER)
    caplog.set_level(logging.ERROR)
    choices, broken = await ask_autocomplete(world, world.bob, "eights replay", "match")
    assert broken == [], broken
    assert choices == []
    assert not tracebacks(caplog), tracebacks(caplog)


async def test_a_table_autocomplete_gives_up_in_time_when_the_database_is_slow(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``/eights house option:`` typed in a channel whose table is not held in memory (here: none) reads the
    channel's table from the database at every keystroke, as every table autocomplete does. With the
    database taking 3.5 s it is answered in time with no choices, and the log has no traceback."""
    slow_store_method(world, monkeypatch, "open_table_in_channel", delay=SLOWER)
    caplog.set_level(logging.ERROR)
    choices, broken = await ask_autocomplete(world, world.alice, "eights house", "option")
    assert broken == [], broken
    assert choices == []
    assert not tracebacks(caplog), tracebacks(caplog)
    # The database answers in time again: so do the choices.
    monkeypatch.undo()
    await world.run(world.alice, "new", preset="classic")
    choices, broken = await ask_autocomplete(world, world.alice, "eights house", "option")
    assert broken == [] and isinstance(choices, list) and choices, (broken, choices)


async def test_an_autocomplete_that_reached_the_bot_too_late_logs_no_traceback(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """A keystroke that reaches the bot after Discord's 3 seconds can no longer be answered (404, 10062): the
    bot drops it with no traceback (discord.py would log "Ignoring exception in autocomplete"). (Discord's
    3 s are scaled down to none here.)"""
    await world.run(world.alice, "new", preset="classic")
    caplog.set_level(logging.ERROR)
    world.fake.callback_deadline = 0.0
    try:
        for command, option in (("eights house", "option"), ("eights replay", "match")):
            choices, broken = await ask_autocomplete(world, world.alice, command, option)
            assert broken and all("Unknown interaction" in v for v in broken), (command, broken, choices)
    finally:
        world.fake.callback_deadline = 3.0
    assert not tracebacks(caplog), tracebacks(caplog)
