"""Answering interactions within Discord's 3 seconds, whatever the work in between costs.

``watch(interaction, update=...)`` watches an interaction while it is handled: when no answer has
gone out ``DEFER_AFTER`` seconds after Discord created the interaction (its id says when) it defers (a
silent deferred update for a click that will change its own message, a private "thinking…" otherwise).
The answer helpers below look at what was done and pick the matching call: the interaction response, or the
follow-up / original-response edit after a defer. One lock per interaction keeps the watchdog and the answer
from both responding.

A public answer after a private defer goes through the channel (``answer_publicly``): a request of the bot's
own, which a channel that shuts the bot out refuses (403, counted towards Discord's ban at 10,000 invalid
requests in 10 minutes). It is not sent where the interaction's own permissions say the bot may not post,
nor where the channel refused the bot lately (``bot.delivery.channel_refusals``, the publisher's record); a
refusal it meets is recorded there. Either way its asker is told privately that the bot cannot post there.
(Without Attach Files it goes without its file: the board as text, as through the channel's routes.)

What this keeps per interaction (its lock, watch and answered event) lives here, keyed by interaction id (a
discord.Interaction cannot be weakly referenced): from the first use until ``unwatch``, when the handler is
done. After that only whether it was answered is kept, in a bounded record, for the publisher that follows
the answer up.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord

from bot.delivery import channel_refusals, webhook_calls
from bot.i18n import N_, _, ngettext
from bot.ui.controls import release
from bot.ui.render import MAX_CONTENT

log = logging.getLogger(__name__)

DEFER_AFTER = 2.0  # seconds after its creation; Discord drops an interaction not answered within 3
TRUSTED_AGE = 10.0  # seconds: an interaction older than this by our clock means the clock is off
# A handler that never calls ``unwatch`` (none of the bot's) would leave its state behind: the oldest goes
# first past this many, long after its 3 seconds are over.
MAX_IN_FLIGHT = 10_000
# Whether a finished interaction was answered: the publisher asks within the token's 15 minutes.
REMEMBER_DONE = 10_000
MESSAGE_ANSWER = discord.InteractionResponseType.channel_message  # an answer that is a message


@dataclass(slots=True, eq=False)
class _Answering:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    watch: asyncio.TimerHandle | None = None


_in_flight: dict[int, _Answering] = {}
_done: OrderedDict[int, bool] = OrderedDict()  # interaction id: answered
# The public message an interaction's own answer posted (interaction id: message id), for the publisher to
# edit through the interaction's token while it lives (``public_original``).
_originals: OrderedDict[int, int] = OrderedDict()


def _remember(record: OrderedDict[int, int], key: int, value: int) -> None:
    record[key] = value
    if len(record) > REMEMBER_DONE:
        record.popitem(last=False)


def _state(interaction: discord.Interaction) -> _Answering:
    state = _in_flight.get(interaction.id)
    if state is not None:
        return state
    state = _Answering()
    if interaction.id in _done:  # a helper called after the handler was done: nothing more to keep
        if _done[interaction.id]:
            state.answered.set()
        return state
    _in_flight[interaction.id] = state
    if len(_in_flight) > MAX_IN_FLIGHT:
        del _in_flight[next(iter(_in_flight))]
    return state


def _mark_answered(interaction: discord.Interaction, state: _Answering) -> None:
    state.answered.set()
    if interaction.id in _done:
        _done[interaction.id] = True


def in_flight() -> int:
    """How many interactions have state here (handled now, or not yet ``unwatch``ed)."""
    return len(_in_flight)


def remembered() -> int:
    """How many finished interactions are remembered as answered or not."""
    return len(_done)


def answered_event(interaction: discord.Interaction) -> asyncio.Event:
    """Set once the interaction's own answer has gone out through the helpers below (a defer does not
    count): only then may the bot add public follow-ups to it. After a private "thinking…" defer, Discord
    turns the first follow-up into that private answer, so a public line sent before it would be seen by
    one person only. (The publisher waits for it on its own clock.)"""
    return _state(interaction).answered


def is_answered(interaction: discord.Interaction) -> bool:
    """Whether the interaction's own answer has gone out (see ``answered_event``), without waiting."""
    state = _in_flight.get(interaction.id)
    if state is not None:
        return state.answered.is_set()
    return _done.get(interaction.id, False)


_deferring: set[asyncio.Task[None]] = set()


async def _defer(interaction: discord.Interaction, update: bool) -> None:
    state = _state(interaction)
    async with state.lock:
        if interaction.response.is_done():
            return
        try:
            # A first try that reached Discord although its reply was lost stands: the answer edits it.
            if update:
                await webhook_calls.respond_once(
                    interaction,
                    interaction.response.defer(),
                    discord.InteractionResponseType.deferred_message_update,
                )
            else:
                await webhook_calls.respond_once(
                    interaction,
                    interaction.response.defer(ephemeral=True, thinking=True),
                    discord.InteractionResponseType.deferred_channel_message,
                )
        except discord.HTTPException as error:
            log.warning("could not defer interaction %s: %s", interaction.id, error)


def _age(interaction: discord.Interaction) -> float | None:
    """Seconds since Discord created the interaction (the time in its id), by this machine's clock; None when
    that cannot be told or trusted (not a recent id: a clock far off, a test's stand-in)."""
    try:
        created = discord.utils.snowflake_time(int(interaction.id))
    except (TypeError, ValueError, OverflowError):
        return None
    age = (datetime.now(UTC) - created).total_seconds()
    return age if 0.0 <= age <= TRUSTED_AGE else None


def watch(interaction: discord.Interaction, *, update: bool, after: float = DEFER_AFTER) -> None:
    """Defer the interaction if it is still unanswered ``after`` seconds after Discord created it (see the
    module docstring): a click that reached a busy bot late has that much less time. Answered in time, the
    watch does nothing. Call ``unwatch`` when the handler is done."""
    loop = asyncio.get_running_loop()
    # Counted from the interaction's creation, not from now: under load a click can reach its handler a second
    # or two after Discord sent it, and Discord's 3 seconds run from the creation. A clock ahead of Discord's
    # only makes the bot defer sooner (a deferred answer costs one request more); one far off is not trusted.
    age = _age(interaction)
    if age is not None:
        after = max(0.0, after - age)

    state = _state(interaction)

    def fire() -> None:
        state.watch = None
        task = loop.create_task(_defer(interaction, update))
        _deferring.add(task)
        task.add_done_callback(_deferring.discard)

    state.watch = loop.call_later(after, fire)


def unwatch(interaction: discord.Interaction) -> None:
    """The handler is done: drop the watch. A pending timer holds the interaction and everything it
    references; left to run out, thousands of them pile up under load and slow the garbage collector.
    The interaction's state goes too; whether it was answered is remembered."""
    state = _in_flight.pop(interaction.id, None)
    answered = False
    if state is not None:
        if state.watch is not None:
            state.watch.cancel()
        answered = state.answered.is_set()
    _done[interaction.id] = _done.get(interaction.id, False) or answered
    _done.move_to_end(interaction.id)
    while len(_done) > REMEMBER_DONE:
        _done.popitem(last=False)


async def answer_privately(interaction: discord.Interaction, text: str | None, **kwargs: Any) -> None:
    """A short ephemeral answer (text, or None beside an ``embed``), whether or not the interaction was
    answered or deferred already."""
    if text is not None and len(text) > MAX_CONTENT:
        # Cut rather than refused by Discord (nobody answered): what quotes input is clipped before this.
        text = text[: MAX_CONTENT - 1] + "…"
    state = _state(interaction)
    async with state.lock:
        if interaction.response.is_done():
            await interaction.followup.send(
                text if text is not None else discord.utils.MISSING, ephemeral=True, **kwargs
            )
        else:
            await webhook_calls.respond_once(
                interaction, interaction.response.send_message(text, ephemeral=True, **kwargs), MESSAGE_ANSWER
            )
        _mark_answered(interaction, state)
    release(kwargs.get("view"))


async def edit_in_place(interaction: discord.Interaction, **fields: Any) -> None:
    """Replace the clicked message's ``fields`` (content, embed, view, attachments): the response, or an edit
    after a deferred update. The caller has checked that the message is one the control may change."""
    state = _state(interaction)
    async with state.lock:
        if interaction.response.is_done():
            await interaction.edit_original_response(**fields)
        else:
            await webhook_calls.respond_once(
                interaction,
                interaction.response.edit_message(**fields),
                discord.InteractionResponseType.message_update,
            )
        _mark_answered(interaction, state)
    release(fields.get("view"))


def from_private_message(interaction: discord.Interaction) -> bool:
    """The control was on a private (ephemeral) message: a hand or a panel, which may be edited in place."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


def original_is_private(interaction: discord.Interaction) -> bool:
    """Whether the interaction's original response is a private message: its own answer (or the "thinking"
    message its first follow-up fills), or a private message it updated. After a deferred update of a public
    message (a board's button), the original is that public message: a private answer went as a follow-up,
    and an edit of the original would show it to everyone."""
    kind = interaction.response.type
    updates = (
        discord.InteractionResponseType.deferred_message_update,
        discord.InteractionResponseType.message_update,
    )
    return kind not in updates or from_private_message(interaction)


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
    state = _state(interaction)
    async with state.lock:
        if interaction.response.is_done():
            await interaction.edit_original_response(content=content, view=view)
        else:
            # No message object is built from the callback's answer: nothing here reads it.
            await webhook_calls.respond_once(
                interaction,
                webhook_calls.update_clicked(interaction, content=content, view=view),
                discord.InteractionResponseType.message_update,
            )
        _mark_answered(interaction, state)


async def acknowledge(interaction: discord.Interaction) -> None:
    """A click whose effect shows elsewhere (the board): a silent deferred update."""
    state = _state(interaction)
    async with state.lock:
        if not interaction.response.is_done():
            await webhook_calls.respond_once(
                interaction,
                interaction.response.defer(),
                discord.InteractionResponseType.deferred_message_update,
            )
        _mark_answered(interaction, state)


def public_original(interaction: discord.Interaction) -> int | None:
    """The id of the public message this interaction's own answer posted (``answer_publicly``), if any: that
    message can be edited through the interaction's token, off the global limit, while the token lives."""
    return _originals.get(interaction.id)


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
    try:
        return await _post_publicly(interaction, embed, extra)
    finally:
        release(view)  # routed by custom id: nothing to keep (a cycle otherwise)


async def _post_publicly(
    interaction: discord.Interaction, embed: discord.Embed, extra: dict[str, Any]
) -> int | None:
    state = _state(interaction)
    async with state.lock:
        if not interaction.response.is_done():
            response = await webhook_calls.respond_once(
                interaction, interaction.response.send_message(embed=embed, **extra), MESSAGE_ANSWER
            )
            # None: the board was posted by a first try whose reply was lost; its id is read back.
            message_id = (
                response.message_id if response is not None else (await interaction.original_response()).id
            )
            _mark_answered(interaction, state)
            if message_id is not None:
                _remember(_originals, interaction.id, message_id)
            return message_id
    channel = interaction.channel
    if not isinstance(channel, discord.abc.Messageable):
        return None
    if "file" in extra and not getattr(interaction.app_permissions, "attach_files", True):
        del extra["file"]  # without Attach Files: the message as text, as through the channel's routes
    refused = _refused_names(interaction)
    if refused:
        await answer_privately(interaction, _cannot_post(refused))
        return None
    try:
        message = await channel.send(embed=embed, **extra)
    except discord.HTTPException as error:
        if not isinstance(error, discord.Forbidden) and not channel_refusals.is_refusal(error):
            raise
        if channel_refusals.is_gone(error):
            raise  # a deleted channel: its table is closed by the publisher, not here
        _note_refusal(interaction, error)
        await answer_privately(interaction, _cannot_post(_names_for(interaction, error.code)))
        return None
    await answer_privately(interaction, _("Posted below."))
    return message.id


# What a message sent through the channel takes of the bot's own permissions there, named as ``/eights new``
# names them (bot.exts.tables._lobby).
VIEW_CHANNEL = N_("View Channel")
SEND_MESSAGES = N_("Send Messages")
SEND_MESSAGES_IN_THREADS = N_("Send Messages in Threads")
EMBED_LINKS = N_("Embed Links")
_THREADS = (
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)


def _in_thread(interaction: discord.Interaction) -> bool:
    return getattr(interaction.channel, "type", None) in _THREADS


def _refused_names(interaction: discord.Interaction) -> list[str]:
    """What keeps the bot from posting in the interaction's channel, as names of permissions: those its
    permissions there (the interaction's, as Discord computed them) lack, else the one the channel's last
    refusal was about while the channel is left alone; none when it may post."""
    granted = interaction.app_permissions
    send = "send_messages_in_threads" if _in_thread(interaction) else "send_messages"
    needed = (
        ("view_channel", VIEW_CHANNEL),
        (send, SEND_MESSAGES_IN_THREADS if _in_thread(interaction) else SEND_MESSAGES),
        ("embed_links", EMBED_LINKS),
    )
    missing = [label for name, label in needed if not getattr(granted, name, True)]
    if missing:
        return missing
    shared = channel_refusals.shared(interaction.client)
    channel_id = interaction.channel_id
    if shared is None or channel_id is None or not shared.refusals.refused(channel_id, shared.monotonic()):
        return []
    return _names_for(interaction, shared.refusals.code(channel_id))


def _names_for(interaction: discord.Interaction, code: int | None) -> list[str]:
    """The permission a refusal of the channel (Discord's ``code``) was most likely about."""
    if code == channel_refusals.MISSING_ACCESS:
        return [VIEW_CHANNEL]
    return [SEND_MESSAGES_IN_THREADS if _in_thread(interaction) else SEND_MESSAGES]


def _cannot_post(names: list[str]) -> str:
    # (The names are joined first: a ``_()`` among ngettext's arguments makes the extractor read the whole
    # call as ``_()``.) The message ``/eights new`` gives where the bot lacks a permission.
    shown = ", ".join(_(label) for label in names)
    return ngettext(
        "I can't run a table in this channel: I'm missing the permission {permissions}.",
        "I can't run a table in this channel: I'm missing the permissions {permissions}.",
        len(names),
        permissions=shown,
    )


def _note_refusal(interaction: discord.Interaction, error: discord.HTTPException) -> None:
    """The channel refused the answer: recorded in the publisher's record, so that neither the next answers
    nor the table's lines and board try it again for a while (logged once a pause, without a traceback)."""
    shared = channel_refusals.shared(interaction.client)
    channel_id = interaction.channel_id
    if shared is None or channel_id is None:
        log.warning("interaction %s: its channel refused the public answer: %s", interaction.id, error)
        return
    now = shared.monotonic()
    known = shared.refusals.refused(channel_id, now)
    if shared.refusals.note(channel_id, interaction.guild_id, error, now) and not known:
        log.warning(
            "channel %s refuses the bot (%s): a public answer of interaction %s was not posted; the channel "
            "is left alone until its permissions change",
            channel_id,
            error,
            interaction.id,
        )
