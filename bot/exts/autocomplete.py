"""How every autocomplete of the ``/eights`` commands answers when it cannot: with no choices, never an error.

An autocomplete is asked at every keystroke, and discord.py logs whatever escapes one with a traceback and
leaves it unanswered (Discord's client shows "Loading options failed"). Each is answered with no choices
instead: a refusal (``ServiceError``: no table here, not seated) silently; the database failing
(``DatabaseFault``, e.g. the channel's table read while PostgreSQL is away) with no traceback, at DEBUG while
the database is unavailable (an outage is logged by the service, once, not at every keystroke) and as a
warning otherwise (a damaged file); anything else with the error logged (a bug).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.delivery.store_failures import level_of
from bot.service import DatabaseFault, ServiceError

log = logging.getLogger(__name__)

ChoiceT = TypeVar("ChoiceT", str, int, float)
Choices = list[app_commands.Choice[ChoiceT]]
Autocomplete = Callable[[Any, discord.Interaction, str], Coroutine[Any, Any, Choices[ChoiceT]]]


def quiet_autocomplete(method: Autocomplete[ChoiceT]) -> Autocomplete[ChoiceT]:
    """Decorate a cog's autocomplete (under its ``@command.autocomplete``): what it cannot answer is
    answered with no choices (module docstring)."""

    @functools.wraps(method)
    async def choices(cog: Any, interaction: discord.Interaction, current: str) -> Choices[ChoiceT]:
        try:
            return await method(cog, interaction, current)
        except ServiceError:
            return []
        except DatabaseFault as error:
            # No traceback: while the database is away the service's outage says it once (DEBUG here).
            log.log(level_of(error), "autocomplete %s: the database failed: %s", method.__name__, error)
            return []
        except Exception:
            log.exception("autocomplete %s failed", method.__name__)
            return []

    return choices
