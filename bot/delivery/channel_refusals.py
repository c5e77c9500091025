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

Discord's events say that something changed, not that the bot may now post: a role's colour edited, another
channel's topic. Anyone allowed such an edit would buy one more refused request per edit and refused channel,
without bound. So the events are judged (``judge``, by ``bot.exts.tables._channels``) against the bot's
permissions in the channel as discord.py's cache has them: a channel is tried again only when they allow
what was refused and have changed since the event before (the first event after a refusal is given the
benefit of the doubt once: the cache cannot tell every refusal, a private thread the bot is not in, say).
A channel tried again keeps its grown pause (refused again, it doubles), unless its permissions were seen
to change.

The interactions' own public answers sent through the channel (``bot.delivery.answers``) share the
publisher's record (``share``, ``shared``): a channel that refused one is left alone by the other.

Nothing here outlives its use: the publisher notes a channel deleted only when one of its tables is there,
and drops a channel's entries (``forget``) once it holds no table of that channel any more (Discord never
gives a deleted channel's id to another one); a pause long over is pruned when another channel is noted.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
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
    pause: float  # 0: refused again, it starts over at REFUSED_FOR
    code: int | None = None  # Discord's code of the last refusal
    forgiven: bool = False  # tried again at its next news (the pause kept for the next refusal)
    seen: Hashable | None = None  # the bot's permissions there at the last event judged (None: none yet)


class ChannelRefusals:
    """Which channels' routes the publisher leaves alone now (see the module docstring)."""

    def __init__(self) -> None:
        self._refused: dict[int, _Refused] = {}
        self._gone: set[int] = set()

    def refused(self, channel_id: int, now: float) -> bool:
        if channel_id in self._gone:
            return True
        entry = self._refused.get(channel_id)
        return entry is not None and not entry.forgiven and now < entry.until

    def gone(self, channel_id: int) -> bool:
        return channel_id in self._gone

    def until(self, channel_id: int) -> float | None:
        """When the channel's pause ends (None: not paused; a deleted channel has no end)."""
        entry = self._refused.get(channel_id)
        return None if entry is None or entry.forgiven or channel_id in self._gone else entry.until

    def code(self, channel_id: int) -> int | None:
        """Discord's code of the channel's last refusal (None: none known)."""
        entry = self._refused.get(channel_id)
        return None if entry is None else entry.code

    def channels(self, guild_id: int) -> list[int]:
        """The channels of a server that refused the bot and are still recorded (paused, or tried again)."""
        return [channel_id for channel_id, entry in self._refused.items() if entry.guild_id == guild_id]

    def note(self, channel_id: int, guild_id: int | None, error: BaseException, now: float) -> bool:
        """Record ``error`` of a request through the channel; True when it is a refusal (recorded)."""
        if is_gone(error):
            self.note_gone(channel_id)
            return True
        if not is_refusal(error):
            return False
        code = error.code if isinstance(error, discord.HTTPException) else None
        entry = self._refused.get(channel_id)
        if entry is not None and not entry.forgiven and now < entry.until:
            return True  # another lane's request met it during the same pause
        self._prune(now)  # (this channel's own pause too, if it is long over: it starts over)
        entry = self._refused.get(channel_id)
        if entry is None:
            self._refused[channel_id] = _Refused(guild_id, now + REFUSED_FOR, REFUSED_FOR, code)
            return True
        # Refused again (after its pause, or tried again at an event): twice as long, what was seen kept.
        entry.pause = REFUSED_FOR if entry.pause < REFUSED_FOR else min(REFUSED_MAX, entry.pause * 2)
        entry.until, entry.code, entry.forgiven = now + entry.pause, code, False
        return True

    def pause(self, channel_id: int, guild_id: int | None, now: float) -> None:
        """Leave the channel alone as after a refusal, without one (the bot was removed from its server)."""
        entry = self._refused.get(channel_id)
        if entry is None or entry.forgiven or entry.until <= now:
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

    def judge(self, channel_id: int, *, allowed: bool, seen: Hashable) -> bool:
        """Discord said something that may change the bot's permissions in the channel: ``allowed``, whether
        they allow what the channel refused (as discord.py's cache has them now), ``seen``, what they are
        made of. True when the channel is to be tried again (``forgive``): allowed, and either changed since
        the event judged before (its pause then starts over at the next refusal) or the first event judged
        since it refused (its pause kept). Nothing else forgives it: an event that leaves the permissions as
        they were buys no request."""
        entry = self._refused.get(channel_id)
        if entry is None or channel_id in self._gone:
            return False
        first, changed = entry.seen is None, entry.seen is not None and entry.seen != seen
        entry.seen = seen
        if not allowed or not (first or changed):
            return False
        if changed:
            entry.pause = 0.0
        entry.forgiven = True
        return True

    def forgive(self, *, channel_id: int | None = None, guild_id: int | None = None) -> None:
        """Try the channel again at its next news (its permissions changed, or the thread was reopened),
        its pause kept for the next refusal (``judge`` says when it starts over). A whole server's channels
        (``guild_id``: the bot added back to it, or the server back from an outage) start over."""
        if channel_id is not None and (entry := self._refused.get(channel_id)) is not None:
            entry.forgiven = True
        if guild_id is not None:
            for refused_id, entry in list(self._refused.items()):
                if entry.guild_id == guild_id:
                    del self._refused[refused_id]


@dataclass(frozen=True, slots=True)
class Shared:
    """A bot's record of the channels that refuse it, and the clock it is kept by (the publisher's)."""

    refusals: ChannelRefusals
    monotonic: Callable[[], float]


_shared: weakref.WeakKeyDictionary[object, Shared] = weakref.WeakKeyDictionary()


def share(client: object, refusals: ChannelRefusals, monotonic: Callable[[], float]) -> None:
    """Make ``refusals`` (the publisher's) the record the client's interactions' answers consult."""
    _shared[client] = Shared(refusals, monotonic)


def shared(client: object) -> Shared | None:
    """The record ``share`` gave the client (None: none, e.g. a test's stand-in)."""
    try:
        return _shared.get(client)
    except TypeError:  # not weakly referenceable
        return None
