"""What every cog of the tables feature shares (``TableCog``): who acts (and whether they may manage the
table), which table the channel has, showing a player their hand (in place or as a new private message),
making a game move then answering with the updated hand, and the deal of the first round (a command and the
lobby's Start button).

Every application command of a ``TableCog`` is watched by the deferral watchdog (``FeatureCog``'s
``interaction_check``): a command added to any table cog has it by construction, with no list to keep.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.delivery import answers
from bot.delivery.answers import answer_privately
from bot.delivery.hands import HandMessages
from bot.delivery.publisher import TablePublisher
from bot.exts._group import EightsGroup, FeatureCog
from bot.exts.server import thread_parent
from bot.i18n import N_, _
from bot.service import (
    Actor,
    Intent,
    Outcome,
    ServiceError,
    TableService,
    preset_names,
)

NOT_IN_GUILD = N_("Tables can only be opened in a server channel.")
# A server the bot is not a member of (the app installed by a user, used there): it can't post there, and no
# permission granted there changes that.
NOT_A_MEMBER = N_("The bot isn't in this server. Add it to the server to play here.")
# The choices of a command option naming a preset.
PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in preset_names()]


def _display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


def bot_absent(interaction: discord.Interaction) -> bool:
    """Whether the interaction comes from a server the bot is not a member of: the app was installed by a user
    (User Install), or by the server without the bot user. Discord still sends the server's id, but the
    gateway never listed the server, so discord.py does not know it (an unavailable server it does: READY
    lists it). Which installation authorized the command (``authorizing_integration_owners``) is not what
    counts: a server that has the bot plays there either way."""
    guild_id = interaction.guild_id
    return guild_id is not None and interaction.client.get_guild(guild_id) is None


class TableCog(FeatureCog):
    """The base of the tables feature's cogs; built by ``bot.exts.tables.setup``."""

    def __init__(
        self,
        bot: commands.Bot,
        group: EightsGroup,
        service: TableService,
        publisher: TablePublisher,
        hands: HandMessages,
        *,
        defer_after: float = answers.DEFER_AFTER,
    ) -> None:
        super().__init__(group, defer_after=defer_after)
        self.bot = bot
        self.service = service
        self.publisher = publisher
        self.hands = hands

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
        if interaction.channel_id is None or interaction.guild_id is None:
            # A DM has a channel but no table: it says where tables are, not "open one" (which it refuses).
            raise ServiceError("no_table", _(NOT_IN_GUILD))
        if bot_absent(interaction):
            raise ServiceError("no_table", _(NOT_A_MEMBER))  # nor in a server without the bot
        return await self.service.require_table(
            interaction.channel_id,
            guild_id=interaction.guild_id,
            user_id=interaction.user.id,
            parent_id=thread_parent(interaction),
        )

    async def show_hand(
        self,
        interaction: discord.Interaction,
        table_id: int,
        *,
        note: str | None = None,
        in_place: bool = False,
        outcome: Outcome | None = None,
    ) -> None:
        """Answer with the player's hand (``bot.delivery.hands.HandMessages.show``)."""
        await self.hands.show(interaction, table_id, note=note, in_place=in_place, outcome=outcome)

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
        await self.hands.show(interaction, table_id, in_place=in_place, outcome=outcome, tell_move=True)

    async def start_table(self, interaction: discord.Interaction, table_id: int) -> None:
        """Deal the first round: ``/eights start`` and the lobby's Start button."""
        outcome = await self.service.start(table_id, await self.manager_actor(interaction))
        # Published at once, before anything awaits Discord (as every move is): the deal is committed, so a
        # CPU seat leading the round moves on its own timer meanwhile, and its news must come after the
        # start's. The line still follows up the host's click (exempt from the global limit) once its answer
        # below went out (the lines lane waits for it), and by then the turn line knows whether the host's
        # hand can be refreshed in place.
        self.publisher.publish(outcome, via=interaction)
        if outcome.snapshot.seat_of(interaction.user.id) is not None:
            await self.show_hand(interaction, table_id, note=_("The game has started."), outcome=outcome)
        else:
            await answer_privately(interaction, _("The game has started."))
