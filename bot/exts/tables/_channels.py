"""Discord's news about the places tables live in: a channel or thread deleted, the bot removed from a
server (their tables are closed: nothing of them could be shown again; what the bot kept of the server, its
display settings included, goes once they are: ``TablePublisher.guild_left``), and permissions changed or a
thread reopened (a channel that refused the bot is tried again). See ``bot.delivery.channel_refusals``. A
deleted channel also leaves its server's list of table channels (``bot.exts.server``)."""

from __future__ import annotations

import discord
from discord.ext import commands

from bot.delivery.interactions_once import SessionGuilds
from bot.delivery.publisher import TablePublisher
from bot.service import TableService


class ChannelsCog(commands.Cog, name="Channels"):
    def __init__(self, bot: commands.Bot, service: TableService, publisher: TablePublisher) -> None:
        self.bot = bot
        self.service = service
        self.publisher = publisher

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard's gateway session is ready: at start-up, and after a session Discord could not resume
        (op 9 INVALID SESSION: what it dispatched meanwhile is lost). A server of that shard whose tables
        this process keeps, and that the session's READY left out, removed the bot while it had no session
        (it was down, or the server's GUILD_DELETE went to the dead session), and Discord says nothing else
        about it: its tables are closed as at once. discord.py's cache cannot tell (its sharded state keeps
        the guilds of earlier sessions); the READY's own list does (``SessionGuilds``). A server that is
        only unavailable, in an outage, is still listed."""
        sessions = getattr(self.bot, "session_guilds", None)
        if not isinstance(sessions, SessionGuilds):
            return
        count = self.bot.shard_count or 1
        for guild_id in sessions.left_out(shard_id, self.service.guilds_with_tables(), count):
            self.publisher.guild_left(guild_id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # Without the sessions' record (a client that does not keep one), the guilds discord.py knows: a
        # server that removed the bot while it was down is not among them after a start.
        if isinstance(getattr(self.bot, "session_guilds", None), SessionGuilds):
            return  # done at each shard's ready
        for guild_id in self.service.guilds_with_tables():
            if self.bot.get_guild(guild_id) is None:
                self.publisher.guild_left(guild_id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.publisher.channel_deleted(channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        self.publisher.channel_deleted(payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.publisher.guild_left(guild.id)

    # A channel's overwrites reach its threads too, and a role or the bot's own roles reach every channel:
    # each of these tries again every refused channel of the server (one request each, at its next news).

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        self.publisher.permissions_changed(guild_id=after.guild.id)

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        # A moderator unlocked or unarchived a thread: Discord says so with THREAD_UPDATE only (no channel,
        # role or member event), and a locked or archived thread refused every post and edit there.
        self.publisher.permissions_changed(channel_id=payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        self.publisher.permissions_changed(guild_id=after.guild.id)

    @commands.Cog.listener()
    async def on_guild_role_delete(self, role: discord.Role) -> None:
        # A deleted role takes its overwrites with it (one that shut the bot out, say): Discord sends only
        # GUILD_ROLE_DELETE, no channel or member event.
        self.publisher.permissions_changed(guild_id=role.guild.id)

    @commands.Cog.listener()
    async def on_thread_join(self, thread: discord.Thread) -> None:
        # The bot added to a private thread (THREAD_MEMBERS_UPDATE): the thread may be reached now.
        self.publisher.permissions_changed(channel_id=thread.id)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        me = after.guild.me
        if me is not None and after.id == me.id:  # the bot's own roles changed
            self.publisher.permissions_changed(guild_id=after.guild.id)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.publisher.permissions_changed(guild_id=guild.id)  # added back: its channels are reachable again

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        # Discord's GUILD_CREATE says "unavailable: false" both after an outage and, at times, for a server
        # that added the bot back: either way its channels may be reached again.
        self.publisher.permissions_changed(guild_id=guild.id)
