"""Discord's news about the places tables live in: a channel or thread deleted, the bot removed from a
server (their tables are closed: nothing of them could be shown again; what the bot kept of the server, its
display settings included, goes once they are: ``TablePublisher.guild_left``), a server in an outage (its
tables' timers wait until it is back: ``TableService.guild_unavailable``), and permissions changed or a
thread reopened: a channel that refused the bot is tried again, once the bot's permissions there (as
discord.py's cache has them) allow it and changed (``ChannelsCog.judge``). See
``bot.delivery.channel_refusals``. A deleted channel also leaves its server's list of table channels
(``bot.exts.server``)."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import discord
from discord.ext import commands

from bot.delivery import channel_refusals
from bot.delivery.channel_refusals import ChannelRefusals
from bot.delivery.interactions_once import SessionGuilds
from bot.delivery.publisher import TablePublisher
from bot.service import TableService

Place = discord.abc.GuildChannel | discord.Thread
UNKNOWN = "unknown"  # what is seen of a channel discord.py's cache does not hold


def access(channel: Place | None, me: discord.Member | None) -> tuple[bool, Hashable]:
    """Whether the bot's permissions in the channel, as discord.py's cache has them, let it do what the
    publisher does there (see it and post in it; in a thread, one open), and what they are made of
    (to tell a change). A channel the cache does not hold (an archived thread, say) is taken as allowed,
    seen as ``UNKNOWN``: its first event tries it again, the next ones alike do not."""
    if channel is None or me is None:
        return True, UNKNOWN
    try:
        granted = channel.permissions_for(me)
    except discord.ClientException:  # a thread whose parent channel is not cached
        return True, UNKNOWN
    seen: tuple[bool, ...] = (
        granted.view_channel,
        granted.send_messages,
        granted.send_messages_in_threads,
        granted.embed_links,
        granted.attach_files,
        granted.read_message_history,
    )
    if isinstance(channel, discord.Thread):
        # Archived, it refuses every edit; locked, every post but a moderator's (Manage Threads).
        open_ = not channel.archived and (not channel.locked or granted.manage_threads)
        seen += (granted.manage_threads, channel.archived, channel.locked, channel.me is not None)
        return granted.view_channel and granted.send_messages_in_threads and open_, seen
    return granted.view_channel and granted.send_messages, seen


def _parent_of(channel: Place | None) -> int | None:
    return channel.parent_id if isinstance(channel, discord.Thread) else None


def _category_of(channel: Place | None) -> int | None:
    """The category a channel (or a thread's channel) is in: its overwrites reach the synced ones."""
    if isinstance(channel, discord.Thread):
        channel = channel.parent
    return None if channel is None else channel.category_id


class ChannelsCog(commands.Cog, name="Channels"):
    def __init__(self, bot: commands.Bot, service: TableService, publisher: TablePublisher) -> None:
        self.bot = bot
        self.service = service
        self.publisher = publisher
        # The publisher's record of the channels that refuse the bot: judged at the events below, and
        # consulted by the interactions' own public answers sent through the channel (``answers``).
        record = getattr(publisher, "refusals", None)
        self.refusals = record if isinstance(record, ChannelRefusals) else ChannelRefusals()  # (a stand-in's)
        if isinstance(record, ChannelRefusals):
            channel_refusals.share(bot, record, publisher.clock.monotonic)

    def judge(
        self,
        guild: discord.Guild,
        concerned: Callable[[Place | None, int], bool] | None = None,
        known: Place | None = None,
    ) -> None:
        """Try again the server's refused channels that the event may concern (``concerned``: all of them
        when None; ``known``: the event's own channel, as it says it) where the bot's permissions now allow
        it and changed (``ChannelRefusals.judge``). An event that changes nothing for the bot there buys no
        request: each would cost one more 403 per refused channel, towards Discord's ban."""
        for channel_id in self.refusals.channels(guild.id):
            channel = known if known is not None and known.id == channel_id else None
            channel = channel or guild.get_channel_or_thread(channel_id)
            if concerned is not None and not concerned(channel, channel_id):
                continue
            allowed, seen = access(channel, guild.me)
            if self.refusals.judge(channel_id, allowed=allowed, seen=seen):
                self.publisher.permissions_changed(channel_id=channel_id)

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard's gateway session is ready: at start-up, and after a session Discord could not resume
        (op 9 INVALID SESSION: what it dispatched meanwhile is lost). A server of that shard whose tables
        this process keeps, and that the session's READY left out, removed the bot while it had no session
        (it was down, or the server's GUILD_DELETE went to the dead session), and Discord says nothing else
        about it: its tables are closed as at once. discord.py's cache cannot tell (its sharded state keeps
        the guilds of earlier sessions); the READY's own list does (``SessionGuilds``). A server that is
        only unavailable, in an outage, is still listed."""
        count = self.bot.shard_count or 1
        # A server the session lists as unavailable whose GUILD_CREATE did not come before the shard was ready
        # is in an outage: its tables wait for it as after GUILD_DELETE ``unavailable``.
        for guild_id in self.service.guilds_with_tables():
            guild = self.bot.get_guild(guild_id)
            if guild is not None and guild.unavailable and (guild_id >> 22) % count == shard_id:
                self.service.guild_unavailable(guild_id)
        sessions = getattr(self.bot, "session_guilds", None)
        if not isinstance(sessions, SessionGuilds):
            return
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
        self.publisher.channel_deleted(channel.id, guild_id=channel.guild.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        self.publisher.channel_deleted(payload.thread_id, guild_id=payload.guild_id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.publisher.guild_left(guild.id)

    # A channel's overwrites reach its threads too (and a category's, its synced channels), and a role or
    # the bot's own roles reach every channel: each of these judges the refused channels it may concern.

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        def concerned(channel: Place | None, channel_id: int) -> bool:
            return after.id in (channel_id, _parent_of(channel), _category_of(channel))

        self.judge(after.guild, concerned, known=after)

    @commands.Cog.listener()
    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        # A moderator unlocked or unarchived a thread: Discord says so with THREAD_UPDATE only (no channel,
        # role or member event), and a locked or archived thread refused every post and edit there. (A
        # thread discord.py did not hold, an archived one, comes back as ``on_thread_join``.)
        self.judge(after.guild, lambda _channel, channel_id: channel_id == after.id, known=after)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        if before.permissions == after.permissions:
            return  # its name, colour, place in the list: no channel's permissions change
        me = after.guild.me
        if me is not None and not after.is_default() and me.get_role(after.id) is None:
            return  # a role the bot does not have
        self.judge(after.guild)

    @commands.Cog.listener()
    async def on_guild_role_delete(self, role: discord.Role) -> None:
        # A deleted role takes its overwrites with it (one that shut the bot out, say): Discord sends only
        # GUILD_ROLE_DELETE, no channel or member event.
        self.judge(role.guild)

    @commands.Cog.listener()
    async def on_thread_join(self, thread: discord.Thread) -> None:
        # The bot added to a private thread (THREAD_MEMBERS_UPDATE), or a thread unarchived: the thread may
        # be reached now.
        self.judge(thread.guild, lambda _channel, channel_id: channel_id == thread.id, known=thread)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        me = after.guild.me
        if me is None or after.id != me.id:
            return
        if _roles(before) == _roles(after) and before.timed_out_until == after.timed_out_until:
            return  # its nickname, avatar ...: the bot's permissions are as they were
        self.judge(after.guild)  # the bot's own roles (or its timeout) changed

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.publisher.permissions_changed(guild_id=guild.id)  # added back: its channels are reachable again
        # (A server back from an outage whose GUILD_CREATE does not say "unavailable: false" comes here.)
        self.service.guild_available(guild.id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        # Discord's GUILD_CREATE says "unavailable: false" both after an outage and, at times, for a server
        # that added the bot back: either way its channels may be reached again, and its tables' timers,
        # waiting through an outage, go on.
        self.publisher.permissions_changed(guild_id=guild.id)
        self.service.guild_available(guild.id)

    @commands.Cog.listener()
    async def on_guild_unavailable(self, guild: discord.Guild) -> None:
        # GUILD_DELETE "unavailable: true": an outage, not the bot removed (``on_guild_remove``). Nobody there
        # can reach the bot: no turn of theirs runs out, no CPU plays on meanwhile.
        self.service.guild_unavailable(guild.id)


def _roles(member: discord.Member) -> set[int]:
    return {role.id for role in member.roles}
