"""House rules at the table: ``/eights house [option] [value]`` and the lobby's House rules panel.

The table controls' cog (``_controls``) hands the panel's clicks to ``house_control``. Every refusal (not the
host, not in the lobby, an impossible combination) is a private answer with the reason, and the table keeps
its rules; a change shows on the board through the publisher.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.delivery.answers import answer_privately, from_private_message, update_in_place
from bot.delivery.webhook_calls import respond_once
from bot.exts._group import MAX_TYPED, MAX_TYPED_VALUE
from bot.exts.autocomplete import quiet_autocomplete
from bot.exts.tables._base import TableCog
from bot.i18n import _, fold
from bot.service import NO_TABLE, HouseOption, Outcome, ServiceError
from bot.service.rule_changes import NOT_LOBBY
from bot.ui.controls import HOUSE, HOUSE_OPTION, HOUSE_TYPE, HOUSE_VALUE, Control
from bot.ui.house_panel import HouseValueModal, option_content, option_view, panel_content, panel_view

MAX_CHOICES = 25


def changed_text(outcome: Outcome) -> str:
    """The private answer to a change: the rule as it now reads."""
    for event in outcome.public_events:
        if event.kind == "house_rule":
            return _("House rule changed: {text}.", text=event.data.get("text", ""))
    return _("House rules changed.")


class HouseCog(TableCog, name="Eights house rules"):
    @app_commands.command(
        name="house",
        description="Change a house rule of this table (host or manager, before the first deal).",
    )
    @app_commands.describe(
        option="The rule to change (leave empty to see them all)",
        value="Its new value (the list offers the values it takes)",
    )
    async def house(
        self,
        interaction: discord.Interaction,
        option: app_commands.Range[str, None, MAX_TYPED] | None = None,
        value: app_commands.Range[str, None, MAX_TYPED_VALUE] | None = None,
    ) -> None:
        table_id = await self.table_here(interaction)
        actor = await self.manager_actor(interaction)
        if option is None or value is None:
            options = await self.service.house_options(table_id, actor)
            if option is None:
                snapshot = await self.service.snapshot(table_id)
                await answer_privately(
                    interaction,
                    panel_content(snapshot.house_rules_words(), snapshot.preset),
                    view=panel_view(table_id, options),
                )
                return
            chosen = await self.service.house_option(table_id, option)
            await answer_privately(interaction, option_content(chosen), view=option_view(table_id, chosen))
            return
        outcome = await self.service.set_house_rule(table_id, actor, option, value)
        self.publisher.publish(outcome)
        await answer_privately(interaction, changed_text(outcome))

    @house.autocomplete("option")
    @quiet_autocomplete
    async def house_option_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        options = await self._options_here(interaction)
        typed = fold(current.strip())  # any case, accents optional ("equipes" for "Équipes")
        found = [
            o for o in options if not typed or typed in fold(o.label) or typed in o.key.replace("_", " ")
        ]
        return [
            app_commands.Choice(
                name=_("{option} (now {value})", option=o.label, value=o.described)[:100], value=o.key
            )
            for o in found[:MAX_CHOICES]
        ]

    @house.autocomplete("value")
    @quiet_autocomplete
    async def house_value_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        option = str(getattr(interaction.namespace, "option", "") or "")
        table_id = await self._table_id_here(interaction)
        values = await self.service.house_values(table_id, option, current)
        return [
            # The labels are the catalogue's words: in the player's language, as the panel shows them.
            app_commands.Choice(name=_(label)[:100], value=code[:100])
            for code, label in values[:MAX_CHOICES]
        ]

    async def _table_id_here(self, interaction: discord.Interaction) -> int | None:
        """The channel's open table, if any (read from the database when it is not held: may raise
        DatabaseFault, which the autocompletes answer with no choices)."""
        if interaction.channel_id is None:
            return None
        return await self.service.table_in_channel(interaction.channel_id)

    async def _options_here(self, interaction: discord.Interaction) -> list[HouseOption]:
        table_id = await self._table_id_here(interaction)
        if table_id is None:
            return []
        return await self.service.house_options(table_id)

    # --- the panel ------------------------------------------------------------------------------------------

    async def house_control(
        self, interaction: discord.Interaction, control: Control, values: list[str]
    ) -> None:
        """A click in the House rules panel (or the board's House rules button)."""
        table_id, action = control.table_id, control.action
        actor = await self.manager_actor(interaction)
        if action == HOUSE:
            options = await self.service.house_options(table_id, actor)
            snapshot = await self.service.snapshot(table_id)
            content = panel_content(snapshot.house_rules_words(), snapshot.preset)
            view = panel_view(table_id, options)
            if from_private_message(interaction):
                await update_in_place(interaction, content, view)
            else:
                await answer_privately(interaction, content, view=view)
        elif action == HOUSE_OPTION and values:
            await self.service.house_options(table_id, actor)  # refuses a non-host at once
            chosen = await self.service.house_option(table_id, values[0])
            await update_in_place(interaction, option_content(chosen), option_view(table_id, chosen))
        elif action == HOUSE_VALUE and values and control.arg:
            outcome = await self.service.set_house_rule(table_id, actor, control.arg, values[0])
            self.publisher.publish(outcome)
            chosen = await self.service.house_option(table_id, control.arg)
            await update_in_place(
                interaction, option_content(chosen, changed_text(outcome)), option_view(table_id, chosen)
            )
        elif action == HOUSE_TYPE and control.arg and _submitted_form(interaction):
            # The form opened by "Type a value" (below), submitted: ``values`` holds the typed text.
            outcome = await self.service.set_house_rule(
                table_id, actor, control.arg, values[0] if values else ""
            )
            self.publisher.publish(outcome)
            await answer_privately(interaction, changed_text(outcome))
        else:
            # (A click on "Type a value" is ``open_form``'s.)
            await answer_privately(interaction, _("That control is not valid any more."))

    async def open_form(self, interaction: discord.Interaction, control: Control) -> None:
        """A click on "Type a value": the form where the option's value is typed, as the click's answer.

        Discord takes a form only as an interaction's first answer (never after a deferral) and drops a click
        not answered within 3 seconds, so the deferral watchdog is not armed for this click (``_controls``)
        and nothing here waits on the database: the form is built from the table this process holds. A table
        it does not hold (a finished one) ends the button, as any control of a finished table; one past its
        lobby is refused, both privately. Whether the clicker may change the rule (the host, or a manager:
        the manager role is read from the database) is checked when the form is submitted (``set_house_rule``
        refuses anyone else privately, with the reason). A click that reached the bot after Discord's 3
        seconds cannot be answered at all (``answer_unexpected`` logs it, with no traceback)."""
        table_id = control.table_id
        snapshot = (
            await self.service.snapshot(table_id) if table_id in self.service.open_table_ids() else None
        )
        if (
            snapshot is None
            or snapshot.guild_id != interaction.guild_id
            or snapshot.channel_id != interaction.channel_id
        ):
            # As ``table_for_control`` answers a control of no table held here ("this button has expired").
            raise ServiceError("no_table", NO_TABLE)
        if snapshot.phase != "lobby":
            raise ServiceError("not_lobby", NOT_LOBBY)
        chosen = await self.service.house_option(table_id, control.arg or "")  # the table held: in memory
        await respond_once(
            interaction,
            interaction.response.send_modal(HouseValueModal(table_id, chosen)),
            discord.InteractionResponseType.modal,
        )


def _submitted_form(interaction: discord.Interaction) -> bool:
    return interaction.type is discord.InteractionType.modal_submit
