"""A server's own matters under /eights: its settings (``settings``: default preset, turn timeout, channels,
manager role, house rules new tables start with, card display switches; Manage Server) and a member's
``forget`` (their statistics deleted everywhere, once they confirm with ``bot.ui.standings.ForgetButton``).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.delivery import answers
from bot.exts._group import MAX_TYPED, MAX_TYPED_VALUE, EightsGroup, FeatureCog, answering_control
from bot.exts.autocomplete import quiet_autocomplete
from bot.i18n import LANGUAGE_NAMES, N_, _, fold
from bot.service import house_option_labels, house_value_suggestions, preset_names
from bot.service.errors import DatabaseFault, ServiceError
from bot.service.server import (
    AUTO_LANGUAGE,
    MAX_TURN_TIMEOUT,
    MIN_TURN_TIMEOUT,
    ChannelCheck,
    ServerService,
)
from bot.ui.appearance import Appearance
from bot.ui.standings import FORGET_QUESTION, FORGOTTEN, SERVER_COG, forget_view, settings_embed

log = logging.getLogger(__name__)

NOT_IN_GUILD = N_("Use this command in a server.")
PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in preset_names()]
# What the list of table channels takes: the channels a table's board may live in, or whose threads (forum
# posts) it may; a thread counts as its channel (``bot.service.server.in_table_channels``).
TableChannel = discord.TextChannel | discord.ForumChannel | discord.VoiceChannel | discord.StageChannel


async def _private(interaction: discord.Interaction, message: str) -> None:
    await answers.answer_privately(interaction, message)


def thread_parent(interaction: discord.Interaction) -> int | None:
    """The channel a thread (or forum post) belongs to, when the interaction comes from one."""
    channel = interaction.channel
    return channel.parent_id if isinstance(channel, discord.Thread) else None


def channel_check(interaction: discord.Interaction) -> ChannelCheck | None:
    """Whether a channel is still one of the interaction's server's, when the bot knows its channels: the
    server in discord.py's cache and available (its GUILD_CREATE lists every channel, and CHANNEL_CREATE and
    CHANNEL_DELETE keep the list). None otherwise (a server not cached, or in an outage: its channels are
    not known, and no listed channel may be taken for deleted)."""
    if interaction.guild_id is None:
        return None
    guild = interaction.client.get_guild(interaction.guild_id)
    if guild is None or guild.unavailable:
        return None
    return lambda channel_id: guild.get_channel_or_thread(channel_id) is not None


# The languages by their own names (Discord shows a choice's name in the reader's language only when a
# translation exists; a language's own name needs none), and the default: Discord's server language.
LANGUAGE_CHOICES = [
    app_commands.Choice(name="Discord's server language", value=AUTO_LANGUAGE),
    *(app_commands.Choice(name=name, value=code) for code, name in LANGUAGE_NAMES.items()),
]


class ServerCog(FeatureCog, name=SERVER_COG):
    """A server's settings and a member's forget."""

    def __init__(self, group: EightsGroup, server: ServerService, appearance: Appearance) -> None:
        super().__init__(group)
        self.server = server
        self.appearance = appearance
        # Per server, while a settings command of it runs (``_settings_lock``).
        self._settings_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def _settings_lock(self, guild_id: int) -> asyncio.Lock:
        return self._settings_locks.setdefault(guild_id, asyncio.Lock())

    async def in_table_channels(self, interaction: discord.Interaction) -> bool:
        """Whether the interaction's channel is one of its server's table channels (a thread counts as its
        channel; every channel, when the server lists none): where the standings answer in public."""
        if interaction.guild_id is None or interaction.channel_id is None:
            return True
        return await self.server.in_table_channels(
            interaction.guild_id,
            interaction.channel_id,
            thread_parent(interaction),
            exists=channel_check(interaction),
        )

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted: off the server's list of table channels, if listed (its tables are closed
        by ``bot.exts.tables._channels``)."""
        try:
            await self.server.channels_deleted(channel.guild.id, (channel.id,))
        except DatabaseFault as error:  # the list is checked again when it is next shown or used
            log.warning("guild %s: deleted channel %s still listed: %s", channel.guild.id, channel.id, error)

    @app_commands.command(
        name="settings", description="Show or change this server's Crazy Eights settings (Manage Server)."
    )
    @app_commands.describe(
        default_preset="The preset new tables use",
        turn_timeout=f"Seconds a player has for a turn ({MIN_TURN_TIMEOUT}–{MAX_TURN_TIMEOUT})",
        allow_channel="Add a channel where tables may be opened, threads included (none listed: any channel)",
        disallow_channel="Remove a channel from that list",
        clear_channels="Empty the list, so tables may be opened in any channel",
        manager_role="A role whose members may manage tables",
        clear_manager_role="Remove the manager role",
        house_option="A house rule new tables start with (with house_value)",
        house_value="Its value (the list offers the values it takes)",
        clear_house_rules="New tables start from their preset as it is",
        card_emojis="Show the card pictures (emojis) beside the card names",
        board_picture="Attach a picture of the table to the board message",
        language="The language of the tables' public messages (default: the server's language in Discord)",
    )
    @app_commands.choices(default_preset=PRESET_CHOICES, language=LANGUAGE_CHOICES)
    async def settings(
        self,
        interaction: discord.Interaction,
        default_preset: str | None = None,
        turn_timeout: app_commands.Range[int, MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT] | None = None,
        allow_channel: TableChannel | None = None,
        disallow_channel: TableChannel | None = None,
        clear_channels: bool = False,
        manager_role: discord.Role | None = None,
        clear_manager_role: bool = False,
        house_option: app_commands.Range[str, None, MAX_TYPED] | None = None,
        house_value: app_commands.Range[str, None, MAX_TYPED_VALUE] | None = None,
        clear_house_rules: bool = False,
        card_emojis: bool | None = None,
        board_picture: bool | None = None,
        language: str | None = None,
    ) -> None:
        if interaction.guild_id is None:
            await _private(interaction, _(NOT_IN_GUILD))
            return
        # Checked here, when the command runs, and not only through default permissions: a server can grant
        # the command to anyone in its integration settings, and those overrides must not open the settings.
        if not interaction.permissions.manage_guild:
            await _private(interaction, _("You need the Manage Server permission to use this command."))
            return
        changes = (
            default_preset is not None
            or turn_timeout is not None
            or allow_channel is not None
            or disallow_channel is not None
            or clear_channels
            or manager_role is not None
            or clear_manager_role
            or house_option is not None
            or house_value is not None
            or clear_house_rules
            or card_emojis is not None
            or board_picture is not None
            or language is not None
        )
        guild_id = interaction.guild_id
        exists = channel_check(interaction)
        # One settings command of the server at a time here, so that the switches kept for its boards are
        # those saved last (two commands' answers may come back from the database in either order).
        async with self._settings_lock(guild_id):
            try:
                if not changes:
                    settings = await self.server.settings(guild_id, exists)
                    display = await self.server.card_display(guild_id)
                else:
                    # One change, saved whole or not at all (a failed one answers that nothing changed).
                    settings, display = await self.server.change_settings(
                        guild_id,
                        default_preset=default_preset,
                        turn_timeout=turn_timeout,
                        allow_channel=allow_channel.id if allow_channel else None,
                        disallow_channel=disallow_channel.id if disallow_channel else None,
                        clear_channels=clear_channels,
                        manager_role=manager_role.id if manager_role else None,
                        clear_manager_role=clear_manager_role,
                        house_option=house_option,
                        house_value=house_value,
                        clear_house_rules=clear_house_rules,
                        card_emojis=card_emojis,
                        board_picture=board_picture,
                        language=language,
                        exists=exists,
                    )
            except ServiceError as error:
                await _private(interaction, error.message)
                return
            # Boards and hands use the switches as saved (with another admin's change of the same moment)
            # from their next update on.
            self.appearance.set_switches(guild_id, display)
        await answers.answer_privately(
            interaction, None, embed=settings_embed(settings, display, changed=changes)
        )

    @settings.autocomplete("house_option")
    @quiet_autocomplete  # a keystroke that came too late: no choices, no traceback
    async def settings_house_option_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        typed = fold(current.strip())  # any case, accents optional, as /eights house
        return [
            app_commands.Choice(name=label, value=key)
            for key, label in house_option_labels()
            if not typed or typed in fold(label) or typed in key.replace("_", " ")
        ][:25]

    @settings.autocomplete("house_value")
    @quiet_autocomplete
    async def settings_house_value_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        option = str(getattr(interaction.namespace, "house_option", "") or "")
        values = house_value_suggestions(option, current)
        return [app_commands.Choice(name=label[:100], value=code[:100]) for code, label in values[:25]]

    async def on_forget_answer(
        self, interaction: discord.Interaction[Any], user_id: int, confirm: bool
    ) -> None:
        """The answer to /eights forget's question (``bot.ui.standings.ForgetButton``): the question, edited
        in place. Pressed on any other message (only a tampered client sends it there), the answer is a new
        private message and that message is left alone."""
        in_place = answers.from_private_message(interaction)
        async with answering_control(interaction, "forget", update=in_place):
            if interaction.user.id != user_id:
                await _private(interaction, _("Only the member who asked can answer this."))
                return
            if confirm:
                await self.server.forget(user_id)
            text = _(FORGOTTEN) if confirm else _("Your statistics are kept.")
            if in_place:
                await answers.edit_in_place(interaction, content=text, view=None)
            else:
                await _private(interaction, text)

    @app_commands.command(name="forget", description="Delete your Crazy Eights statistics everywhere.")
    async def forget(self, interaction: discord.Interaction) -> None:
        # The deletion itself happens when the member confirms (bot.ui.standings.ForgetButton).
        await answers.answer_privately(interaction, _(FORGET_QUESTION), view=forget_view(interaction.user.id))
