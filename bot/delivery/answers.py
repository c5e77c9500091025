"""Answering interactions within Discord's 3 seconds, whatever the work in between costs.

``watch(interaction, update=...)`` watches an interaction while it is handled: when no answer has
gone out after ``DEFER_AFTER`` seconds it defers (a silent deferred update for a click that will change its
own message, a private "thinking…" otherwise). The answer helpers below look at what was done and pick the
matching call: the interaction response, or the follow-up / original-response edit after a defer. One lock per
interaction keeps the watchdog and the answer from both responding.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

log = logging.getLogger(__name__)

DEFER_AFTER = 2.0  # seconds; Discord drops an interaction not answered within 3
_LOCK_KEY = "eights_answer_lock"
_WATCH_KEY = "eights_answer_watch"
_ANSWERED_KEY = "eights_answered"
_ORIGINAL_KEY = "eights_original_public"


def _lock(interaction: discord.Interaction) -> asyncio.Lock:
    lock = interaction.extras.get(_LOCK_KEY)
    if lock is None:
        lock = interaction.extras[_LOCK_KEY] = asyncio.Lock()
    return lock


def answered_event(interaction: discord.Interaction) -> asyncio.Event:
    """Set once the interaction's own answer has gone out through the helpers below (a defer does not
    count): only then may the bot add public follow-ups to it. After a private "thinking…" defer, Discord
    turns the first follow-up into that private answer, so a public line sent before it would be seen by
    one person only. (The publisher waits for it on its own clock.)"""
    event = interaction.extras.get(_ANSWERED_KEY)
    if event is None:
        event = interaction.extras[_ANSWERED_KEY] = asyncio.Event()
    return event


def is_answered(interaction: discord.Interaction) -> bool:
    """Whether the interaction's own answer has gone out (see ``answered_event``), without waiting."""
    return answered_event(interaction).is_set()


_deferring: set[asyncio.Task[None]] = set()


async def _defer(interaction: discord.Interaction, update: bool) -> None:
    async with _lock(interaction):
        if interaction.response.is_done():
            return
        try:
            if update:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
        except discord.HTTPException as error:
            log.warning("could not defer interaction %s: %s", interaction.id, error)


def watch(interaction: discord.Interaction, *, update: bool, after: float = DEFER_AFTER) -> None:
    """Defer the interaction if it is still unanswered after ``after`` seconds (see the module docstring).
    Answered in time, the watch does nothing. Call ``unwatch`` when the handler is done."""
    loop = asyncio.get_running_loop()

    def fire() -> None:
        interaction.extras.pop(_WATCH_KEY, None)
        task = loop.create_task(_defer(interaction, update))
        _deferring.add(task)
        task.add_done_callback(_deferring.discard)

    interaction.extras[_WATCH_KEY] = loop.call_later(after, fire)


def unwatch(interaction: discord.Interaction) -> None:
    """The handler is done: drop the watch. A pending timer holds the interaction and everything it
    references; left to run out, thousands of them pile up under load and slow the garbage collector."""
    handle = interaction.extras.pop(_WATCH_KEY, None)
    if handle is not None:
        handle.cancel()


async def answer_privately(interaction: discord.Interaction, text: str, **kwargs: Any) -> None:
    """A short ephemeral answer, whether or not the interaction was answered or deferred already."""
    async with _lock(interaction):
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(text, ephemeral=True, **kwargs)
        answered_event(interaction).set()
    view = kwargs.get("view")
    if isinstance(view, discord.ui.View):
        release(view)


def release(view: discord.ui.View) -> None:
    """Stop discord.py tracking a view it was just sent with. Our components are persistent dynamic items
    found by their custom ids (``bot.ui.controls``), so the view object is not needed after sending; but
    discord.py gives a view sent in an ephemeral message a 15-minute timeout task, which would hold every
    hand message's view and buttons in memory for that long."""
    view.stop()


def from_private_message(interaction: discord.Interaction) -> bool:
    """The control was on a private (ephemeral) message: a hand or a panel, which may be edited in place."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


async def update_in_place(
    interaction: discord.Interaction, content: str, view: discord.ui.View | None
) -> None:
    """Replace the clicked message (a hand message): the response, or an edit after a deferred update. A
    control found on a public message (only a tampered client sends one there) is answered with a new
    private message instead: what answers a player's control is theirs only."""
    if not from_private_message(interaction):
        if view is None:
            await answer_privately(interaction, content)
        else:
            await answer_privately(interaction, content, view=view)
        return
    async with _lock(interaction):
        if interaction.response.is_done():
            await interaction.edit_original_response(content=content, view=view)
        else:
            await interaction.response.edit_message(content=content, view=view)
        answered_event(interaction).set()


async def acknowledge(interaction: discord.Interaction) -> None:
    """A click whose effect shows elsewhere (the board): a silent deferred update."""
    async with _lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.defer()
        answered_event(interaction).set()


def public_original(interaction: discord.Interaction) -> int | None:
    """The id of the public message this interaction's own answer posted (``answer_publicly``), if any: that
    message can be edited through the interaction's token, off the global limit, while the token lives."""
    value = interaction.extras.get(_ORIGINAL_KEY)
    return value if isinstance(value, int) else None


async def answer_publicly(
    interaction: discord.Interaction,
    *,
    embed: discord.Embed,
    view: discord.ui.View | None = None,
    file: discord.File | None = None,
) -> int | None:
    """A public message (the board, with its picture as ``file``) as the answer; returns its id. After a
    private defer the message goes to the channel instead, and the deferred answer says where it is."""
    extra: dict[str, Any] = {} if view is None else {"view": view}
    if file is not None:
        extra["file"] = file
    async with _lock(interaction):
        if not interaction.response.is_done():
            response = await interaction.response.send_message(embed=embed, **extra)
            answered_event(interaction).set()
            interaction.extras[_ORIGINAL_KEY] = response.message_id
            return response.message_id
    channel = interaction.channel
    if not isinstance(channel, discord.abc.Messageable):
        return None
    message = await channel.send(embed=embed, **extra)
    await answer_privately(interaction, "Posted below.")
    return message.id
