"""The ``/eights`` command group every feature hangs its commands on, and the answers to their errors.

discord.py gives a ``GroupCog`` its own group, so several cogs cannot share one that way: a ``FeatureCog``
moves its application commands under the bot's ``EightsGroup`` when it is loaded, keeping itself as their
binding (its ``interaction_check`` and autocompletes still apply).

Every refusal (``ServiceError``) is a short private answer and changes nothing public. Anything unexpected is
logged with a short reference the user sees; no traceback reaches Discord. An answer that cannot reach Discord
(``ANSWER_FAILURES``: a refusal of Discord's, or the network gone) is a WARNING without a traceback, and
nothing of it reaches discord.py's own handlers, which would log the item clicked (a hand's card) or the
command's error with it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.delivery import answers
from bot.delivery.answers import answer_privately
from bot.i18n import N_, _
from bot.service import DatabaseFault, ServiceError
from bot.ui.controls import ANSWER_FAILURES, contain_escaped, error_reference, failure_summary

log = logging.getLogger(__name__)

GROUP_NAME = "eights"
GROUP_DESCRIPTION = "Crazy Eights tables: one per channel, hands private, plays public."
STORE_FAILED = N_("The bot could not save this, so nothing changed. Try again in a moment.")
STORE_IN_DOUBT = N_(
    "The database did not answer: the bot cannot tell yet whether this was saved. The table will show it "
    "in a moment."
)
UNKNOWN_INTERACTION = 10062  # Discord's error code: the interaction's token is no longer valid
# An option whose value is not of its declared type or outside its declared range (only a tampered client
# sends one: Discord's own refuses it; ``bot.exts.tree``), or that discord.py could not convert.
UNREADABLE_OPTION = N_("I couldn't read one of the options.")
# The longest text a typed option takes (``Range[str, None, MAX_TYPED]``: Discord's client refuses more): as
# long as the value of an autocomplete's choice may be, far above any card, suit, name or house rule.
MAX_TYPED = 100
# A house rule's value typed in full (ranks with their numbers, "A:1 2:2 … K:10", in words): twice that.
MAX_TYPED_VALUE = 200


async def answer_or_warn(interaction: discord.Interaction, text: str, where: str) -> None:
    """A private answer (a refusal, an error's reference) that may not reach its user: Discord refused it, or
    the network is gone (``ANSWER_FAILURES``). That is logged as a WARNING without a traceback (no bug of the
    bot's; the traceback would carry along the error being answered), and goes no further."""
    try:
        await answer_privately(interaction, text)
    except ANSWER_FAILURES as failure:
        log.warning(
            "could not answer interaction %s (%s): %s", interaction.id, where, failure_summary(failure)
        )


async def answer_unexpected(interaction: discord.Interaction, error: BaseException, where: str) -> None:
    """Log an unexpected error with a reference, and give the user only the reference. A database that failed
    (e.g. a damaged file found mid-game) is said so: the move was not stored, and the service applies a move
    only once it is stored, so nothing of it happened."""
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION:
        # Discord gave up on the interaction (its answer came after Discord's 3 s: a slow database, a busy
        # bot; one that reached the bot that late is dropped before this, bot.client), so nobody can be
        # answered through it. What the click did stands; a hand it changed is refreshed in place.
        log.warning("interaction %s (%s) came too late to be answered: %s", interaction.id, where, error.text)
        return
    if isinstance(error, DatabaseFault) and error.unavailable:
        # An outage: the service logs it once when it starts and once when it ends, not once per click.
        log.debug("database unavailable in %s: %s", where, error)
        await answer_or_warn(interaction, _(STORE_IN_DOUBT if error.in_doubt else STORE_FAILED), where)
        return
    ref = error_reference()
    text = _("Something went wrong (ref {ref}).", ref=ref)
    if isinstance(error, DatabaseFault) and error.damaged:
        # The message names the file and what to do; a traceback would add nothing for the admin.
        log.error("database error in %s (ref %s): %s", where, ref, error)
        text = _("{problem} (ref {ref})", problem=_(STORE_FAILED), ref=ref)
    elif isinstance(error, DatabaseFault):
        log.error("database error in %s (ref %s)", where, ref, exc_info=error)
        text = _("{problem} (ref {ref})", problem=_(STORE_FAILED), ref=ref)
    else:
        log.error("unexpected error in %s (ref %s)", where, ref, exc_info=error)
    try:
        await answer_privately(interaction, text)
    except ANSWER_FAILURES as failure:
        log.warning("could not tell the user about error ref %s: %s", ref, failure_summary(failure))


@contextlib.asynccontextmanager
async def answering_control(
    interaction: discord.Interaction, where: str, *, update: bool | None
) -> AsyncIterator[None]:
    """The body of a button's or select's handler, which has no command error handler: watched by the deferral
    watchdog (``update``: its answer edits the clicked message, else it is a new private one; None: watched
    already, as a command is), a refusal (``ServiceError``) answered privately, anything unexpected answered
    as ``answer_unexpected`` does (else the user would see "This interaction failed")."""
    if update is not None:
        answers.watch(interaction, update=update)
    try:
        yield
    except ServiceError as error:
        await answer_or_warn(interaction, error.message, where)
    except Exception as error:
        await answer_unexpected(interaction, error, where)
    finally:
        if update is not None:
            answers.unwatch(interaction)


class EightsGroup(app_commands.Group):
    """``/eights``: guild only; answers the errors of every subcommand, whichever cog owns it."""

    def __init__(self) -> None:
        super().__init__(name=GROUP_NAME, description=GROUP_DESCRIPTION, guild_only=True)

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        """Answers the error; nothing it raises goes on to discord.py (``contain_escaped``), which would log
        it without a reference, the command's error chained to it (a ``TransformerError`` quotes the value
        typed)."""
        where = f"/{interaction.command.qualified_name if interaction.command else '?'}"
        try:
            await contain_escaped(interaction, where, self._answer_error(interaction, error, where))
        finally:
            answers.unwatch(interaction)

    async def _answer_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError, where: str
    ) -> None:
        original: BaseException = error
        if isinstance(error, app_commands.CommandInvokeError):
            original = error.original
        if isinstance(original, ServiceError):
            await answer_or_warn(interaction, original.message, where)
            return
        if isinstance(original, app_commands.TransformerError):
            await answer_or_warn(interaction, _(UNREADABLE_OPTION), where)
            return
        if isinstance(original, app_commands.CheckFailure):
            await answer_or_warn(interaction, _("You can't use this command here."), where)
            return
        await answer_unexpected(interaction, original, where)


class FeatureCog(commands.Cog):
    """A cog whose application commands are ``/eights`` subcommands (module docstring). Every one of them is
    answered in time: deferred if its work runs late (``answers.watch``; a database waiting on a lock can take
    longer than Discord's 3 seconds). The group's error handler and ``unwatch_on_completion`` drop the
    watch."""

    def __init__(self, group: EightsGroup, *, defer_after: float = answers.DEFER_AFTER) -> None:
        self.group = group
        self.defer_after = defer_after

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.type is discord.InteractionType.application_command:
            answers.watch(interaction, update=False, after=self.defer_after)
        return True

    async def cog_load(self) -> None:
        # Called by discord.py before it adds a cog's top-level commands to the tree: once they are children
        # of the group, there are none left to add there.
        commands_here: list[Any] = list(self.__cog_app_commands__)
        for command in commands_here:
            command.parent = self.group
            self.group.add_command(command)
        self.__cog_app_commands__ = []

    async def cog_unload(self) -> None:
        for command in list(self.group.commands):
            if getattr(command, "binding", None) is self:
                self.group.remove_command(command.name)


async def unwatch_on_completion(interaction: discord.Interaction, command: object) -> None:
    """A command done without an error (``on_app_command_completion``): its deferral watch is dropped."""
    answers.unwatch(interaction)
