"""A player's hand message: the interaction that showed it, which can edit it in place while its token lives.

The publisher keeps one ``HandSession`` per (table, player); ``rendered`` is what the message shows now, so
that a refresh that would show the same is not sent.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import discord

from bot.delivery import webhook_calls

HAND_EDIT_WINDOW = 14 * 60.0  # interaction tokens last 15 minutes; keep a margin


@dataclass(slots=True)
class HandSession:
    """The interaction whose original response is a player's current hand message."""

    interaction: discord.Interaction | None
    since: float  # monotonic time the interaction arrived
    rendered: tuple[str, tuple[str, ...]] = ("", ())
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The interaction that created the hand message (Discord's ``interaction_metadata``): which message it
    # is, when a click on another hand message of the player's comes. None: not known.
    creator: int | None = None

    def fresh(self, now: float) -> bool:
        """Whether the message can still be edited in place: its token is younger than ``HAND_EDIT_WINDOW``
        and Discord has not refused it already (``webhook_calls.is_spent``: ended early, through any lane)."""
        return now - self.since < HAND_EDIT_WINDOW and not webhook_calls.is_spent(self.interaction)


def view_signature(view: discord.ui.View | None) -> tuple[str, ...]:
    if view is None:
        return ()
    return tuple(str(getattr(item, "custom_id", "")) for item in view.children)
