"""Who may see what was played in a channel, from Discord's permissions in the bot's cache.

A match's replay shows its channel's lines and boards, and ``/eights history`` names its players: both are
what that channel saw, so they are for those who can read it (a staff channel's matches stay the staff's).
A match's players may always replay it. Computed from the guild's roles and the channel's overwrites that
the bot already holds (no request, no privileged intent); a channel the bot no longer knows (deleted) is
treated as one nobody may read. A thread Discord archived is not in that cache (nor any thread after a
restart): it is fetched once (a request), and kept a while.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import discord

Readable = Callable[[int], Awaitable[bool]]  # a channel id -> may its matches be shown here
FETCHED_FOR = 600.0  # seconds a channel fetched (not in the cache) is kept
FETCHED_KEPT = 1_000  # channels kept at most
_fetched: OrderedDict[int, tuple[float, Any]] = OrderedDict()  # channel id -> (when, channel or None)


async def _channel(interaction: discord.Interaction[Any], channel_id: int) -> Any:
    guild = interaction.guild
    if guild is None:
        return None
    cached = guild.get_channel_or_thread(channel_id)
    if cached is not None:
        return cached
    now = time.monotonic()
    kept = _fetched.get(channel_id)
    if kept is not None and now - kept[0] < FETCHED_FOR:
        return kept[1]
    try:
        found: Any = await interaction.client.fetch_channel(channel_id)
    except (discord.NotFound, discord.Forbidden):
        found = None  # deleted, or the bot may not see it: nobody is shown it
    except discord.HTTPException:
        return None  # a failure that passes: not kept
    if getattr(found, "guild", None) is not guild:
        found = None  # another server's channel
    _fetched[channel_id] = (now, found)
    _fetched.move_to_end(channel_id)
    while len(_fetched) > FETCHED_KEPT:
        _fetched.popitem(last=False)
    return found


def _reads(channel: Any, who: discord.Member | discord.Role) -> bool:
    try:
        permissions = channel.permissions_for(who)
    except discord.ClientException:  # a thread whose parent channel is not cached
        return False
    if not permissions.view_channel:
        return False
    if isinstance(channel, discord.Thread) and channel.is_private():
        # A private thread is its members' (not known for certain without a request) and its moderators'.
        return bool(permissions.manage_threads)
    return True


def readable_by_member(interaction: discord.Interaction[Any]) -> Readable:
    """Channels the member who sent ``interaction`` can read (for what only they are shown)."""
    member = interaction.user

    async def readable(channel_id: int) -> bool:
        if channel_id == interaction.channel_id:
            return True  # they are reading it now
        channel = await _channel(interaction, channel_id)
        return channel is not None and isinstance(member, discord.Member) and _reads(channel, member)

    return readable


def readable_where_asked(interaction: discord.Interaction[Any]) -> Readable:
    """Channels whose matches may be listed in a public answer in the interaction's channel: that channel
    itself, and channels both the member asking and everyone in the server (its default role) can read.
    Anyone reading the answer can read such a channel too, so nobody learns of a match they could not see."""
    member = interaction.user
    guild = interaction.guild

    async def readable(channel_id: int) -> bool:
        if channel_id == interaction.channel_id:
            return True
        channel = await _channel(interaction, channel_id)
        if channel is None or guild is None or not isinstance(member, discord.Member):
            return False
        return _reads(channel, guild.default_role) and _reads(channel, member)

    return readable
