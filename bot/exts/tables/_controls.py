"""The table's controls: a click on a board or hand button, a choice in a select, a form submitted. Each is
routed here (``bot.ui.controls`` dispatches to the cog named ``COG_NAME``), resolves who and where, calls the
service, and answers; a move is shown by the publisher, and the acting player gets their hand back at once,
in place.

Every refusal (``ServiceError``) is a short private answer and changes nothing public (a move refused as no
longer possible on a private hand message answers by showing the hand now in that message, the refusal as its
note: ``_refused_in_place``); anything unexpected is
answered with a reference (``bot.exts._group.answer_unexpected``). An answer that cannot reach Discord (the
network gone) is logged without a traceback (``answer_or_warn``), and nothing a handler raises reaches
discord.py (``bot.ui.controls.contain_escaped``), whose own log line would name the clicked item: a card.
"""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from bot.delivery import answers
from bot.delivery.answers import acknowledge, answer_privately, from_private_message
from bot.delivery.hands import HandMessages
from bot.delivery.publisher import TablePublisher
from bot.exts._group import EightsGroup, answer_or_warn, answer_unexpected
from bot.exts.tables._base import TableCog
from bot.exts.tables._house_rules import HouseCog
from bot.exts.tables._play import control_intent
from bot.i18n import N_, _
from bot.service import EXPIRED, ServiceError, TableService
from bot.ui.controls import (
    ANSWER_FAILURES,
    CATCH,
    COG_NAME,
    CPU,
    CRAZIER_ACTIONS,
    DRAW,
    HAND,
    HOUSE,
    HOUSE_ACTIONS,
    HOUSE_TYPE,
    JOIN,
    LAST,
    LEAVE,
    NEXT,
    PASS,
    PLAY,
    START,
    SUIT,
    Control,
    contain_escaped,
    failure_summary,
    modal_control,
    unclaimed,
)
from bot.ui.locales import use_player_locale

log = logging.getLogger(__name__)

FINISHED_BUTTON = N_("This table has finished; this button has expired.")


class ControlsCog(TableCog, name=COG_NAME):
    """The table's buttons, selects and forms; the house rules panel's go to ``HouseCog``."""

    def __init__(
        self,
        bot: commands.Bot,
        group: EightsGroup,
        service: TableService,
        publisher: TablePublisher,
        hands: HandMessages,
        house: HouseCog,
        *,
        defer_after: float = answers.DEFER_AFTER,
    ) -> None:
        super().__init__(bot, group, service, publisher, hands, defer_after=defer_after)
        self.house = house

    # --- buttons and selects --------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A form of the bot's submitted (``bot.ui.controls.modal_control``): handled as the table's controls
        are, from its custom id, whichever process opened it. A click or form with the bot's kind of custom
        id that none of its components takes (``bot.ui.controls.unclaimed``) is told privately that the
        control is not valid."""
        found = modal_control(interaction)
        if found is not None:
            control, typed = found
            await contain_escaped(
                interaction, f"form {control.action}", self.on_control(interaction, control, typed)
            )
        elif unclaimed(interaction):
            # The bot's kind of id that matches none of its controls (only a tampered client sends one):
            # nothing else answers it, so it gets the answer of a control that does not exist any more.
            use_player_locale(interaction)
            try:
                await answer_privately(interaction, _("That control is not valid any more."))
            except ANSWER_FAILURES as error:
                log.debug("could not answer a stray control %s: %s", interaction.id, failure_summary(error))

    async def on_control(self, interaction: discord.Interaction, control: Control, values: list[str]) -> None:
        """A click on a table's button, a choice in its select, or a form submitted (``bot.ui.controls``).
        Answered in the clicker's language (a form does not come through ``bot.ui.routing``)."""
        use_player_locale(interaction)
        submitted = interaction.type is discord.InteractionType.modal_submit
        # "Type a value" answers with a form, which Discord takes only as the first answer (never after a
        # deferral): it is not watched, and the form goes out before anything waits (``HouseCog.open_form``).
        opens_form = control.action == HOUSE_TYPE and bool(control.arg) and not submitted
        if not opens_form:
            # Moves and board buttons change a message in place; the rest (forms too) answer with a new
            # private message.
            in_place = control.action not in (HAND, START, NEXT, HOUSE) and not submitted
            answers.watch(interaction, update=in_place, after=self.defer_after)
        try:
            if opens_form:
                await self.house.open_form(interaction, control)
            else:
                await self._control(interaction, control, values)
        except ServiceError as error:
            message = refusal_text(error)
            # The answer may meet the network gone: it must not reach discord.py (module docstring).
            await answer_or_warn(interaction, message, f"control {control.action}")
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
                await self.show_hand(interaction, table_id, note=_("You took your seat back."))
        elif action == LEAVE:
            outcome = await self.service.leave(table_id, self.actor(interaction))
            self.publisher.publish(outcome)
            await acknowledge(interaction)
        elif action == CPU:
            arg = control.arg
            seen = int(arg) if arg is not None and arg.isascii() and arg.isdigit() and len(arg) < 3 else None
            outcome = await self.service.add_cpu(
                table_id, await self.manager_actor(interaction), cpus_seen=seen
            )
            self.publisher.publish(outcome)
            await acknowledge(interaction)
        elif action == START:
            await self.start_table(interaction, table_id)
        elif action == NEXT:
            outcome = await self.service.next_round(table_id, self.actor(interaction), token)
            self.publisher.publish(outcome, via=interaction)
            await self.show_hand(interaction, table_id, outcome=outcome)
        elif action == HAND:
            await self.show_hand(interaction, table_id)
        elif action in HOUSE_ACTIONS:
            await self.house.house_control(interaction, control, values)
        elif action in (PLAY, DRAW, PASS, SUIT, LAST, CATCH) or action in CRAZIER_ACTIONS:
            intent = control_intent(control, values)
            if intent is None:
                await answer_privately(interaction, _("That control is not valid any more."))
                return
            try:
                await self.play_move(interaction, table_id, intent, round_token=token, in_place=True)
            except ServiceError as error:
                if error.code not in ("stale", "expired") or not await self._refused_in_place(
                    interaction, table_id, refusal_text(error), f"control {action}"
                ):
                    raise
        else:
            await answer_privately(interaction, _("That control is not valid any more."))

    async def _refused_in_place(
        self, interaction: discord.Interaction, table_id: int, message: str, where: str
    ) -> bool:
        """A move refused as no longer possible, clicked on a private hand message the bot no longer keeps up
        to date (one that may show cards and a turn that are gone: its token ran out before the hand
        changed): that message shows the player's hand now, with the refusal as its note, rather than a
        separate answer leaving it stale.
        False when there is no hand to show (not seated any more, the table closed): the caller answers
        privately, as for any refusal. An answer that cannot reach Discord is logged as ``answer_or_warn``
        logs it (a WARNING without a traceback, which would hold the refusal)."""
        kept = self.publisher.hand_is_fresh(table_id, interaction.user.id)
        if kept or not from_private_message(interaction):
            # (A hand the bot still keeps up to date, a double tap's second click say: a short answer.)
            return False
        try:
            await self.show_hand(interaction, table_id, note=message, in_place=True)
        except ServiceError:
            return False
        except ANSWER_FAILURES as failure:
            log.warning(
                "could not answer interaction %s (%s): %s", interaction.id, where, failure_summary(failure)
            )
        return True


def refusal_text(error: ServiceError) -> str:
    """What a refused control is answered with."""
    if error.code == "expired":
        return _(EXPIRED)
    if error.code == "no_table":
        return _(FINISHED_BUTTON)
    return error.message
