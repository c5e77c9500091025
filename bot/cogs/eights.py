"""The /eights cog: the commands (from the mixins ``bot.cogs.lobby``, ``bot.cogs.play``,
``bot.cogs.information`` and ``bot.cogs.standings``, with what they share in ``bot.cogs.table_helpers``), the
table's buttons and selects, and the answers to errors. Each resolves who and where, calls the service, and
renders the answer.

Every refusal (``ServiceError``) is a short private answer and changes nothing public. Anything unexpected is
logged with a short reference the user sees; no traceback reaches Discord. Successful moves are shown by
``TablePublisher`` (board edit, public line, hand refreshes); the acting player gets their hand back at once,
privately: in place when they clicked a control of their hand, as a new ephemeral message when they typed.
"""

from __future__ import annotations

import logging
import uuid

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.house import HouseCommands
from bot.cogs.information import InformationCommands
from bot.cogs.lobby import LobbyCommands
from bot.cogs.play import PlayCommands, control_intent
from bot.cogs.standings import StandingsCommands
from bot.delivery import answers
from bot.delivery.answers import acknowledge, answer_privately
from bot.delivery.publisher import TablePublisher
from bot.service import EXPIRED, ServiceError, TableService
from bot.store import DamagedDatabaseError, StoreError
from bot.ui.controls import (
    CATCH,
    COG_NAME,
    CPU,
    DRAW,
    HAND,
    HOUSE,
    HOUSE_ACTIONS,
    JOIN,
    LAST,
    LEAVE,
    NEXT,
    PASS,
    PLAY,
    START,
    SUIT,
    Control,
    modal_control,
)

log = logging.getLogger(__name__)

FINISHED_BUTTON = "This table has finished; this button has expired."
STORE_FAILED = "The bot could not save this, so nothing changed. Try again later."
# The commands of this cog (the standings commands of the mixin answer on their own).
GAME_COMMANDS = frozenset(
    {
        "new",
        "join",
        "leave",
        "cpu",
        "start",
        "end",
        "kick",
        "hand",
        "play",
        "last",
        "catch",
        "draw",
        "pass",
        "suit",
        "status",
        "scores",
        "rules",
        "house",
    }
)


def error_reference() -> str:
    return uuid.uuid4().hex[:8]


UNKNOWN_INTERACTION = 10062  # Discord's error code: the interaction's token is no longer valid


async def answer_unexpected(interaction: discord.Interaction, error: BaseException, where: str) -> None:
    """Log an unexpected error with a reference, and give the user only the reference. A database that failed
    (e.g. a damaged file found mid-game) is said so: the move was not stored, and the service applies a move
    only once it is stored, so nothing of it happened."""
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION:
        # Discord gave up on the interaction (more than 3 s old: it reached the bot late, e.g. replayed after
        # a gateway resume), so nobody can be answered through it. What the click did stands; a hand it
        # changed is refreshed in place by the publisher.
        log.warning("interaction %s (%s) came too late to be answered: %s", interaction.id, where, error.text)
        return
    ref = error_reference()
    text = f"Something went wrong (ref {ref})."
    if isinstance(error, DamagedDatabaseError):
        # The message names the file and what to do; a traceback would add nothing for the admin.
        log.error("database error in %s (ref %s): %s", where, ref, error)
        text = f"{STORE_FAILED} (ref {ref})"
    elif isinstance(error, StoreError):
        log.error("database error in %s (ref %s)", where, ref, exc_info=error)
        text = f"{STORE_FAILED} (ref {ref})"
    else:
        log.error("unexpected error in %s (ref %s)", where, ref, exc_info=error)
    try:
        await answer_privately(interaction, text)
    except discord.HTTPException:
        log.warning("could not tell the user about error ref %s", ref)


@app_commands.guild_only()
class EightsCog(
    LobbyCommands,
    PlayCommands,
    InformationCommands,
    HouseCommands,
    StandingsCommands,
    commands.GroupCog,
    name=COG_NAME,
    group_name="eights",
):
    """Crazy Eights tables: one per channel, hands private, plays public."""

    def __init__(self, bot: commands.Bot, service: TableService, publisher: TablePublisher) -> None:
        self.bot = bot
        self.service = service
        self.publisher = publisher
        self.defer_after = answers.DEFER_AFTER
        super().__init__()

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Every /eights game command is answered in time: deferred if its work runs late (``answers``)."""
        command = interaction.command
        if (
            interaction.type is discord.InteractionType.application_command
            and command is not None
            and command.name in GAME_COMMANDS
        ):
            answers.watch(interaction, update=False, after=self.defer_after)
        return True

    # --- errors ---------------------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_app_command_completion(self, interaction: discord.Interaction, command: object) -> None:
        answers.unwatch(interaction)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        try:
            await self._answer_error(interaction, error)
        finally:
            answers.unwatch(interaction)

    async def _answer_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        original: BaseException = error
        if isinstance(error, app_commands.CommandInvokeError):
            original = error.original
        if isinstance(original, ServiceError):
            await answer_privately(interaction, original.message)
            return
        if isinstance(original, app_commands.TransformerError):
            await answer_privately(interaction, "I couldn't read one of the options.")
            return
        if isinstance(original, app_commands.CheckFailure):
            await answer_privately(interaction, "You can't use this command here.")
            return
        await answer_unexpected(
            interaction, original, f"/{interaction.command.qualified_name if interaction.command else '?'}"
        )

    # --- buttons and selects --------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A form of the bot's submitted (``bot.ui.controls.modal_control``): handled as the table's controls
        are, from its custom id, whichever process opened it."""
        found = modal_control(interaction)
        if found is not None:
            await self.on_control(interaction, *found)

    async def on_control(self, interaction: discord.Interaction, control: Control, values: list[str]) -> None:
        """A click on a table's button, a choice in its select, or a form submitted (``bot.ui.controls``)."""
        # Moves and board buttons change a message in place; the rest (forms too) answer with a new private
        # message.
        in_place = control.action not in (HAND, START, NEXT, HOUSE)
        if interaction.type is discord.InteractionType.modal_submit:
            in_place = False
        answers.watch(interaction, update=in_place, after=self.defer_after)
        try:
            await self._control(interaction, control, values)
        except ServiceError as error:
            if error.code == "expired":
                message = EXPIRED
            elif error.code == "no_table":
                message = FINISHED_BUTTON
            else:
                message = error.message
            await answer_privately(interaction, message)
        except Exception as error:
            await answer_unexpected(interaction, error, f"control {control.action}")
        finally:
            answers.unwatch(interaction)

    async def _control(self, interaction: discord.Interaction, control: Control, values: list[str]) -> None:
        # Discord sends only the components of the message they are on, but nothing here depends on it: a
        # control acts on its table only where that table is (its channel, its server).
        action, token = control.action, control.token or None
        table_id = await self.service.table_for_control(
            control.table_id, interaction.guild_id, interaction.channel_id, token
        )
        if action == JOIN:
            outcome = await self.service.join(table_id, self.actor(interaction))
            self.publisher.publish(outcome)
            if outcome.snapshot.phase == "lobby":
                await acknowledge(interaction)
            else:
                await self.show_hand(interaction, table_id, note="You took your seat back.")
        elif action == LEAVE:
            outcome = await self.service.leave(table_id, self.actor(interaction))
            self.publisher.publish(outcome)
            await acknowledge(interaction)
        elif action == CPU:
            outcome = await self.service.add_cpu(table_id, await self.manager_actor(interaction))
            self.publisher.publish(outcome)
            await acknowledge(interaction)
        elif action == START:
            await self._start(interaction, table_id)
        elif action == NEXT:
            outcome = await self.service.next_round(table_id, self.actor(interaction), token)
            self.publisher.publish(outcome, via=interaction)
            await self.show_hand(interaction, table_id, outcome=outcome)
        elif action == HAND:
            await self.show_hand(interaction, table_id)
        elif action in HOUSE_ACTIONS:
            await self.house_control(interaction, control, values)
        elif action in (PLAY, DRAW, PASS, SUIT, LAST, CATCH):
            intent = control_intent(control, values)
            if intent is None:
                await answer_privately(interaction, "That control is not valid any more.")
                return
            await self.play_move(interaction, table_id, intent, round_token=token, in_place=True)
        else:
            await answer_privately(interaction, "That control is not valid any more.")
