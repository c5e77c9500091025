"""What every table command and control of /eights shares: who acts (and whether they may manage the
table), which table the channel has, showing a player their hand (in place or as a new private message),
and making a game move then answering with the updated hand.

``TableHelpers`` is the base of the command mixins (``bot.cogs.lobby``, ``bot.cogs.play``,
``bot.cogs.information``) that ``EightsCog`` (``bot.cogs.eights``) is made of.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.delivery.answers import answer_privately, from_private_message, update_in_place
from bot.delivery.publisher import TablePublisher
from bot.engine import PRESETS
from bot.service import Actor, HandView, Intent, Outcome, ServiceError, TableEvent, TableService
from bot.ui import render
from bot.ui.controls import hand_view
from bot.ui.faces import TEXT, CardFaces

if TYPE_CHECKING:
    # For the type checker only: app_commands.command expects its methods on a Cog, and the class that
    # really carries them, EightsCog, is one. At run time the mixin stays a plain class (as in
    # ``bot.cogs.standings``).
    _MixinBase = commands.Cog
else:
    _MixinBase = object

NOT_IN_GUILD = "Tables can only be opened in a server channel."
# The choices of a command option naming a preset.
PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in PRESETS]


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


class TableHelpers(_MixinBase):
    bot: commands.Bot
    service: TableService
    publisher: TablePublisher
    defer_after: float

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
