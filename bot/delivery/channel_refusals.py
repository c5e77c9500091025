"""Channels that refuse the bot: deleted (404 Unknown Channel), or no longer visible or writable to it (403
Missing Access or Missing Permissions, after a moderator changed its permissions; 400 Thread is archived, a
thread a moderator locked and archived).

Discord counts every refused request towards its ban (10,000 invalid requests in 10 minutes), and a table
that plays on by itself (CPU seats, its players' interactions spent) would meet a refusal at every line and
board edit it sends through the channel. So a channel that refused is left alone for a while
(``REFUSED_FOR``, doubled at each new refusal up to ``REFUSED_MAX``): its lines are dropped meanwhile and its
board waits, and it is tried again after that, or at once when Discord says its permissions (or the
thread: unlocked, unarchived) changed (``forgive``). A deleted channel is never tried again (its table is
closed by the publisher).

Nothing here outlives its use: the publisher notes a channel deleted only when one of its tables is there,
and drops a channel's entries (``forget``) once it holds no table of that channel any more (Discord never
gives a deleted channel's id to another one); a pause long over is pruned when another channel is noted.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008  # the message is gone (not its channel)
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
# 400: the thread is archived (and locked: only Manage Threads reopens it); every post and edit there meets it
# until a moderator reopens it, which Discord says with THREAD_UPDATE
THREAD_ARCHIVED = 50083
REFUSED_FOR = 60.0  # seconds a channel is left alone after its first refusal ...
REFUSED_MAX = 900.0  # ... doubled at each refusal that follows, up to this
# Seconds past its end a pause is still kept (a refusal within them doubles it); older ones are pruned.
KEPT_AFTER = REFUSED_MAX


def is_gone(error: BaseException) -> bool:
    """The channel itself is gone (deleted), not only a message of it."""
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL


def is_refusal(error: BaseException) -> bool:
    """A refusal that would only repeat while the channel's permissions (or the thread's lock) stay as
    they are."""
    return (
        is_gone(error)
        or (isinstance(error, discord.Forbidden) and error.code in (MISSING_ACCESS, MISSING_PERMISSIONS))
        or (isinstance(error, discord.HTTPException) and error.code == THREAD_ARCHIVED)
    )


@dataclass(slots=True)
class _Refused:
    guild_id: int | None
    until: float
    pause: float


class ChannelRefusals:
    """Which channels' routes the publisher leaves alone now (see the module docstring)."""

    def __init__(self) -> None:
        self._refused: dict[int, _Refused] = {}
        self._gone: set[int] = set()

    def refused(self, channel_id: int, now: float) -> bool:
        if channel_id in self._gone:
            return True
        entry = self._refused.get(channel_id)
        return entry is not None and now < entry.until

    def gone(self, channel_id: int) -> bool:
        return channel_id in self._gone

    def until(self, channel_id: int) -> float | None:
        """When the channel's pause ends (None: not paused; a deleted channel has no end)."""
        entry = self._refused.get(channel_id)
        return None if entry is None or channel_id in self._gone else entry.until

    def note(self, channel_id: int, guild_id: int | None, error: BaseException, now: float) -> bool:
        """Record ``error`` of a request through the channel; True when it is a refusal (recorded)."""
        if is_gone(error):
            self.note_gone(channel_id)
            return True
        if not is_refusal(error):
            return False
        entry = self._refused.get(channel_id)
        if entry is not None and now < entry.until:
            return True  # another lane's request met it during the same pause
        self._prune(now)  # (this channel's own pause too, if it is long over: it starts over)
        entry = self._refused.get(channel_id)
        pause = REFUSED_FOR if entry is None else min(REFUSED_MAX, entry.pause * 2)
        self._refused[channel_id] = _Refused(guild_id, now + pause, pause)
        return True

    def pause(self, channel_id: int, guild_id: int | None, now: float) -> None:
        """Leave the channel alone as after a refusal, without one (the bot was removed from its server)."""
        entry = self._refused.get(channel_id)
        if entry is None or entry.until <= now:
            self._prune(now)
            self._refused[channel_id] = _Refused(guild_id, now + REFUSED_MAX, REFUSED_MAX)

    def _prune(self, now: float) -> None:
        """Drop the pauses over for longer than ``KEPT_AFTER``: a channel refused again after that starts
        over at ``REFUSED_FOR``."""
        for channel_id in [key for key, entry in self._refused.items() if entry.until + KEPT_AFTER <= now]:
            del self._refused[channel_id]

    def note_gone(self, channel_id: int) -> None:
        self._gone.add(channel_id)
        self._refused.pop(channel_id, None)

    def forget(self, channel_id: int) -> None:
        """Nothing of the publisher's is in the channel any more (its tables closed and shown, or it was
        deleted with none): drop what is known of it."""
        self._gone.discard(channel_id)
        self._refused.pop(channel_id, None)

    def forgive(self, *, channel_id: int | None = None, guild_id: int | None = None) -> None:
        """The permissions of a channel (or of every channel of a server: its roles) may have changed, or a
        thread was reopened: try it again at its next news."""
        for refused_id, entry in list(self._refused.items()):
            if refused_id == channel_id or (guild_id is not None and entry.guild_id == guild_id):
                del self._refused[refused_id]
