"""How every autocomplete of the ``/eights`` commands answers when it cannot: with no choices, never an error,
and always in time.

An autocomplete is asked at every keystroke. Discord takes its answer only within 3 seconds of the keystroke
(it cannot be deferred), and discord.py logs whatever escapes one with a traceback and leaves it unanswered
(Discord's client shows "Loading options failed"). Each is answered with no choices instead: a refusal
(``ServiceError``: no table here, not seated) silently; the database failing (``DatabaseFault``, e.g. the
channel's table read while PostgreSQL is away) with no traceback, at DEBUG while the database is unavailable
(an outage is logged by the service, once, not at every keystroke) and as a warning otherwise (a damaged
file); anything else with the error logged (a bug).

One whose work is still waiting ``ANSWER_BY`` seconds after Discord created the interaction (its id says
when), e.g. on a database that is slow or locked (the channel's table when it is not held, the server's
recent matches), is given up (its work cancelled) and answered with no choices, at DEBUG: the next keystroke
asks again. The answer is sent here (discord.py then sends none), so that one Discord no longer takes (a
keystroke that reached the bot after its 3 seconds) is dropped with a DEBUG line, not a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.delivery.answers import TRUSTED_AGE
from bot.delivery.store_failures import level_of
from bot.service import DatabaseFault, ServiceError
from bot.ui.controls import ANSWER_FAILURES

log = logging.getLogger(__name__)

# Seconds after Discord created the interaction by which an autocomplete is answered, whatever its work is
# waiting on: Discord drops one not answered within 3, and the answer itself takes a moment to get there.
ANSWER_BY = 2.5
# The least an autocomplete's work is given, whatever the clock says of its age (a clock may run ahead).
LEAST_WAIT = 0.4

ChoiceT = TypeVar("ChoiceT", str, int, float)
Choices = list[app_commands.Choice[ChoiceT]]
Autocomplete = Callable[[Any, discord.Interaction, str], Coroutine[Any, Any, Choices[ChoiceT]]]

# The work of autocompletes given up, cancelled and not yet finished (a task is only weakly held by the loop).
_abandoned: set[asyncio.Task[Any]] = set()


def time_left(interaction: discord.Interaction) -> float:
    """Seconds left until the interaction is ``ANSWER_BY`` seconds old (its creation is in its id), by this
    machine's clock; when its age cannot be told or trusted (a clock far off), ``ANSWER_BY`` from now."""
    try:
        created = discord.utils.snowflake_time(int(interaction.id))
    except (TypeError, ValueError, OverflowError):
        return ANSWER_BY
    age = (datetime.now(UTC) - created).total_seconds()
    if not 0.0 <= age <= TRUSTED_AGE:
        return ANSWER_BY
    return ANSWER_BY - age


def quiet_autocomplete(method: Autocomplete[ChoiceT]) -> Autocomplete[ChoiceT]:
    """Decorate a cog's autocomplete (under its ``@command.autocomplete``): it is answered in time, and what
    it cannot answer is answered with no choices (module docstring)."""

    @functools.wraps(method)
    async def choices(cog: Any, interaction: discord.Interaction, current: str) -> Choices[ChoiceT]:
        found = await _choices_in_time(method, cog, interaction, current)
        if not interaction.response.is_done():
            try:
                await interaction.response.autocomplete(found)
            except ANSWER_FAILURES as error:  # 10062 (it reached the bot after Discord's 3 s), the network
                log.debug("autocomplete %s could not be answered: %s", method.__name__, error)
                # Nobody can answer it now: discord.py, which answers an autocomplete whose response is not
                # done, must not try again (and log the same refusal with a traceback).
                interaction.response._response_type = discord.InteractionResponseType.autocomplete_result
        return found

    return choices


async def _choices_in_time(
    method: Autocomplete[ChoiceT], cog: Any, interaction: discord.Interaction, current: str
) -> Choices[ChoiceT]:
    name = method.__name__
    # Never less than a moment: a clock a few seconds ahead of Discord's must not cost every choice (a
    # keystroke really too late is refused by Discord, quietly, below).
    left = max(time_left(interaction), LEAST_WAIT)
    work = asyncio.create_task(method(cog, interaction, current), name=f"autocomplete {name}")
    try:
        await asyncio.wait({work}, timeout=left)
    except asyncio.CancelledError:
        _abandon(work)
        raise
    if not work.done():
        _abandon(work)
        log.debug("autocomplete %s gave up: no answer %.1f s after the keystroke", name, ANSWER_BY)
        return []
    try:
        return work.result()
    except ServiceError:
        return []
    except DatabaseFault as error:
        # No traceback: while the database is away the service's outage says it once (DEBUG here).
        log.log(level_of(error), "autocomplete %s: the database failed: %s", name, error)
        return []
    except Exception:
        log.exception("autocomplete %s failed", name)
        return []


def _abandon(work: asyncio.Task[Any]) -> None:
    """Cancel ``work`` without waiting for it (its cancellation may itself wait), and collect how it ends."""
    work.cancel()
    _abandoned.add(work)
    work.add_done_callback(_collect)


def _collect(work: asyncio.Task[Any]) -> None:
    _abandoned.discard(work)
    if not work.cancelled() and work.exception() is not None:
        log.debug("autocomplete given up ended with %r", work.exception())
