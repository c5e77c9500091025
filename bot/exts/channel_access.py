"""Who may see what was played in a channel, from Discord's permissions in the bot's cache.

A match's replay shows its channel's lines and boards, and ``/eights history`` names its players: both are
what that channel saw, so they are for those who can read it (a staff channel's matches stay the staff's).
A match's players may always replay it. Computed from the guild's roles and the channel's overwrites that
the bot already holds (no request, no privileged intent); a channel the bot no longer knows (deleted) is
treated as one nobody may read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

Readable = Callable[[int], bool]  # a channel id -> may it be shown here


def _channel(interaction: discord.Interaction[Any], channel_id: int) -> Any:
    guild = interaction.guild
    return None if guild is None else guild.get_channel_or_thread(channel_id)


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

    def readable(channel_id: int) -> bool:
        if channel_id == interaction.channel_id:
            return True  # they are reading it now
        channel = _channel(interaction, channel_id)
        return channel is not None and isinstance(member, discord.Member) and _reads(channel, member)

    return readable


def readable_where_asked(interaction: discord.Interaction[Any]) -> Readable:
    """Channels whose matches may be listed in a public answer in the interaction's channel: that channel
    itself, and channels both the member asking and everyone in the server (its default role) can read.
    Anyone reading the answer can read such a channel too, so nobody learns of a match they could not see."""
    member = interaction.user
    guild = interaction.guild

    def readable(channel_id: int) -> bool:
        if channel_id == interaction.channel_id:
            return True
        channel = _channel(interaction, channel_id)
        if channel is None or guild is None or not isinstance(member, discord.Member):
            return False
        return _reads(channel, guild.default_role) and _reads(channel, member)

    return readable
