"""The bot's command tree: every slash command and autocomplete is answered in its player's language, and
only once its options are what the command declares.

discord.py runs ``interaction_check`` in the task that then runs the command (or the autocomplete), so the
language set here holds for everything the command says privately; what it publishes goes through the
delivery part, which writes in the server's language.

Discord's own client sends each option with its declared type, within its declared range (``Range``), length
and choices; a tampered client may send anything ("7" for an integer, 2**63, a 6,000-character card), and
discord.py hands a plain ``int``, ``str`` or ``Range`` parameter's value on unchecked (it reads the
snowflake options' ids with ``int()`` before any check of the command's). So the tree checks every option
against the command's parameters first, before discord.py reads them: a value that does not fit gets the
short private "I couldn't read one of the options." and the command does not run (an autocomplete gets an
empty list).
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.delivery.answers import answer_privately
from bot.exts._group import UNREADABLE_OPTION
from bot.i18n import _
from bot.ui.controls import ANSWER_FAILURES
from bot.ui.locales import use_player_locale

log = logging.getLogger(__name__)

# Discord's integer and number options lie within ±(2**53 - 1) whatever a command declares.
DISCORD_MAX_NUMBER = 2**53 - 1
SUBCOMMAND_TYPES = (1, 2)  # a subcommand, a subcommand group
MAX_SNOWFLAKE_DIGITS = 20
_Kind = discord.AppCommandOptionType


class EightsTree(app_commands.CommandTree[Any]):
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        use_player_locale(interaction)
        if interaction.type in (
            discord.InteractionType.application_command,
            discord.InteractionType.autocomplete,
        ) and unreadable_option(interaction):
            log.debug("interaction %s: an option that does not fit its command, refused", interaction.id)
            try:
                if interaction.type is discord.InteractionType.autocomplete:
                    await interaction.response.autocomplete([])
                else:
                    await answer_privately(interaction, _(UNREADABLE_OPTION))
            except ANSWER_FAILURES as error:  # (a network failure too: no traceback quoting the option)
                log.debug("could not refuse interaction %s: %s", interaction.id, error)
            return False
        return True


def unreadable_option(interaction: discord.Interaction[Any]) -> bool:
    """Whether a slash command's (or autocomplete's) options are not as its command declares them: of
    another type, out of range or length, not among its choices, a required one missing. What an
    autocomplete is being typed into (its focused option) may hold anything. An option the command does not
    have (a client's outdated list of commands) is ignored, as discord.py ignores it."""
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return False
    options = _leaf_options(interaction.data)
    if options is None:
        return True
    autocomplete = interaction.type is discord.InteractionType.autocomplete
    parameters = {parameter.display_name: parameter for parameter in command.parameters}
    given: set[str] = set()
    for option in options:
        if not isinstance(option, dict):
            return True
        parameter = parameters.get(str(option.get("name")))
        if parameter is None:
            continue
        given.add(parameter.display_name)
        if autocomplete and option.get("focused"):
            continue
        if option.get("type") != parameter.type.value or not _fits(parameter, option.get("value")):
            return True
    if autocomplete:  # a command being filled in: its required options may not be there yet
        return False
    return any(p.required and p.display_name not in given for p in parameters.values())


def _leaf_options(data: object) -> list[Any] | None:
    """The options of the subcommand invoked (as discord.py finds it: through the first option while it is a
    subcommand or group); None if the data is not a list of options."""
    options = data.get("options", []) if isinstance(data, dict) else None
    while isinstance(options, list):
        first = options[0] if options else None
        if not (isinstance(first, dict) and first.get("type") in SUBCOMMAND_TYPES):
            return options
        options = first.get("options", [])
    return None


def _fits(parameter: app_commands.Parameter, value: object) -> bool:
    kind = parameter.type
    measured: float
    if kind is _Kind.boolean:
        return isinstance(value, bool)
    if kind is _Kind.string:
        if not isinstance(value, str):
            return False
        measured = len(value)  # a string's range is its length
    elif kind is _Kind.integer:
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        measured = value
    elif kind is _Kind.number:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        measured = value
    else:  # a user, member, channel, role, mentionable or attachment: Discord sends its id
        text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
        return text.isascii() and text.isdigit() and len(text) <= MAX_SNOWFLAKE_DIGITS
    if kind is not _Kind.string and not abs(measured) <= DISCORD_MAX_NUMBER:  # (NaN is within nothing)
        return False
    low, high = parameter.min_value, parameter.max_value  # (a string's: its length)
    if (low is not None and measured < low) or (high is not None and measured > high):
        return False
    return not parameter.choices or value in {choice.value for choice in parameter.choices}
