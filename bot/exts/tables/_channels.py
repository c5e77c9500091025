"""Discord's news about the places tables live in: a channel or thread deleted, the bot removed from a
server (their tables are closed: nothing of them could be shown again), and permissions changed (a channel
that refused the bot is tried again). See ``bot.delivery.channel_refusals``."""

from __future__ import annotations

import discord
from discord.ext import commands

from bot.delivery.publisher import TablePublisher


class ChannelsCog(commands.Cog, name="Channels"):
    def __init__(self, publisher: TablePublisher) -> None:
        self.publisher = publisher

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.publisher.channel_deleted(channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        self.publisher.channel_deleted(payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.publisher.guild_left(guild.id)

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        self.publisher.permissions_changed(channel_id=after.id)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        self.publisher.permissions_changed(guild_id=after.guild.id)
