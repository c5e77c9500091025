"""What every cog of the tables feature shares (``TableCog``): who acts (and whether they may manage the
table), which table the channel has, showing a player their hand (in place or as a new private message),
making a game move then answering with the updated hand, and the deal of the first round (a command and the
lobby's Start button).

Every application command of a ``TableCog`` is watched by the deferral watchdog (``interaction_check``): a
command added to any table cog has it by construction, with no list to keep.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord
from discord import app_commands
from discord.ext import commands

from bot.delivery import answers
from bot.delivery.answers import answer_privately, from_private_message, update_in_place
from bot.delivery.publisher import TablePublisher
from bot.exts._group import EightsGroup, FeatureCog
from bot.service import (
    Actor,
    HandView,
    Intent,
    Outcome,
    ServiceError,
    TableEvent,
    TableService,
    preset_names,
)
from bot.ui import render
from bot.ui.controls import hand_view
from bot.ui.faces import TEXT, CardFaces

NOT_IN_GUILD = "Tables can only be opened in a server channel."
# The choices of a command option naming a preset.
PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in preset_names()]


def _display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


def _private_note(
    outcome: Outcome | None, user_id: int, lead: str | None = None, faces: CardFaces = TEXT
) -> str | None:
    """What only this player learnt from their move ("You drew 7♣."), to show in their hand message."""
    parts = [lead] if lead else []
    if outcome is not None:
        drawn: list[str] = []
        for event in outcome.private_events.get(user_id, ()):
            if event.kind == "drew_cards":
                drawn.extend(event.data.get("cards") or [])
        if drawn:
            parts.append(f"You drew {faces.cards(drawn)}.")
    return " ".join(parts) or None


def _played_note(events: Sequence[TableEvent], position: int | None, faces: CardFaces = TEXT) -> str | None:
    played = [e for e in events if e.kind == "played" and e.seat == position]
    if played:
        return "You played " + faces.cards([e.data["card"] for e in played]) + "."
    return None


class TableCog(FeatureCog):
    """The base of the tables feature's cogs; built by ``bot.exts.tables.setup``."""

    def __init__(
        self,
        bot: commands.Bot,
        group: EightsGroup,
        service: TableService,
        publisher: TablePublisher,
        *,
        defer_after: float = answers.DEFER_AFTER,
    ) -> None:
        super().__init__(group)
        self.bot = bot
        self.service = service
        self.publisher = publisher
        self.defer_after = defer_after

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Every command of a table cog is answered in time: deferred if its work runs late (``answers``).
        The group's error handler and ``unwatch_on_completion`` drop the watch."""
        if interaction.type is discord.InteractionType.application_command:
            answers.watch(interaction, update=False, after=self.defer_after)
        return True

    @staticmethod
    def actor(interaction: discord.Interaction, *, can_manage: bool = False) -> Actor:
        return Actor(interaction.user.id, _display_name(interaction.user), can_manage)

    async def manager_actor(self, interaction: discord.Interaction) -> Actor:
        """The actor, with ``can_manage`` from Manage Channels or the guild's manager role."""
        permissions = interaction.permissions
        can_manage = permissions.manage_channels or permissions.administrator
        if (
            not can_manage
            and interaction.guild_id is not None
            and isinstance(interaction.user, discord.Member)
        ):
            role_id = await self.service.manager_role_id(interaction.guild_id)
            can_manage = role_id is not None and any(role.id == role_id for role in interaction.user.roles)
        return self.actor(interaction, can_manage=can_manage)

    async def table_here(self, interaction: discord.Interaction) -> int:
        if interaction.channel_id is None:
            raise ServiceError("no_table", NOT_IN_GUILD)
        return await self.service.require_table(interaction.channel_id)

    async def show_hand(
        self,
        interaction: discord.Interaction,
        table_id: int,
        *,
        note: str | None = None,
        in_place: bool = False,
        outcome: Outcome | None = None,
    ) -> None:
        """Answer with the player's hand: in place (the clicked hand message) or as a new ephemeral message;
        from now on that message is the one refreshed when the hand changes. Under the player's hand lock, so
        that a refresh of their hand waits until this message is the one it refreshes. Never in place on a
        public message: a hand is shown to its player only."""
        in_place = in_place and from_private_message(interaction)
        async with self.publisher.hand_lock(table_id, interaction.user.id):
            await self._show_hand(interaction, table_id, note=note, in_place=in_place, outcome=outcome)

    async def _show_hand(
        self,
        interaction: discord.Interaction,
        table_id: int,
        *,
        note: str | None,
        in_place: bool,
        outcome: Outcome | None,
    ) -> None:
        user_id = interaction.user.id
        hand: HandView | None
        try:
            hand = await self.service.hand(table_id, user_id)
        except ServiceError:
            if outcome is None:
                raise
            hand = None
        if hand is None:
            # The move ended the match (the table is closed): nothing to show but the news.
            text = "The match is over: see the final ranking in the channel."
            if outcome is not None and outcome.snapshot.status == "abandoned":
                text = "The table is closed."
            full = f"{note}\n{text}" if note else text
            if in_place:
                await update_in_place(interaction, full, None)
            else:
                await answer_privately(interaction, full)
            return
        faces = await self.publisher.appearance.faces(hand.snapshot.guild_id)
        content = render.hand_content(hand, faces=faces)
        view = hand_view(hand, faces)
        shown = render.hand_content(hand, note=note, faces=faces) if note else content
        if in_place:
            await update_in_place(interaction, shown, view)
        else:
            if view is None:
                await answer_privately(interaction, shown)
            else:
                await answer_privately(interaction, shown, view=view)
            # The hand message shown before (if any) is updated in place too.
            await self.publisher.update_previous_hand(
                table_id, user_id, interaction, content, hand_view(hand, faces)
            )
        self.publisher.remember_hand(table_id, user_id, interaction, content, view, hand)

    async def play_move(
        self,
        interaction: discord.Interaction,
        table_id: int,
        intent: Intent,
        *,
        round_token: str | None = None,
        in_place: bool = False,
    ) -> None:
        """A game move by the interaction's user; answers with the updated hand."""
        user_id = interaction.user.id
        # The move itself is not under the hand lock (only showing the hand is): two racing clicks must both
        # reach the service, which applies one and answers the other "That move is no longer possible."
        outcome = await self.service.act(table_id, self.actor(interaction), intent, round_token)
        # The answer below shows this player their hand: the publisher need not look at it again.
        self.publisher.publish(outcome, shown_to=user_id, via=interaction)
        seat = outcome.snapshot.seat_of(user_id)
        faces = await self.publisher.appearance.faces(outcome.snapshot.guild_id)
        lead = _played_note(outcome.public_events, seat.position if seat else None, faces)
        note = _private_note(outcome, user_id, lead, faces)
        await self.show_hand(interaction, table_id, note=note, in_place=in_place, outcome=outcome)

    async def start_table(self, interaction: discord.Interaction, table_id: int) -> None:
        """Deal the first round: ``/eights start`` and the lobby's Start button."""
        outcome = await self.service.start(table_id, await self.manager_actor(interaction))
        try:
            if outcome.snapshot.seat_of(interaction.user.id) is not None:
                await self.show_hand(interaction, table_id, note="The game has started.", outcome=outcome)
            else:
                await answer_privately(interaction, "The game has started.")
        finally:
            # After the host's hand is shown, so that the turn line knows it can be refreshed in place; the
            # line follows up the host's click (exempt from the global limit).
            self.publisher.publish(outcome, via=interaction)
