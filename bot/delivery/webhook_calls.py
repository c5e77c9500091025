"""Interaction-webhook calls that do not build a ``discord.Message`` from Discord's answer.

discord.py's ``Interaction.edit_original_response``, ``Webhook.edit_message``, ``Webhook.send(wait=True)`` and
``InteractionResponse.edit_message`` (whose callback asks for the resulting message) turn every answer into a
full message object (its author, embeds, components, attachments, a state of its own): about 5% of the event
loop's time under load, for objects the bot drops at once. The calls here take the same route through
discord.py's webhook adapter (``async_context``: its per-token rate-limit buckets, 429 retries and errors,
``discord.NotFound`` and the like, are unchanged) and return only what the bot uses: nothing, or the new
message's id. A view is stored for dispatch as discord.py would store it. An object that is not a
``discord.Interaction`` (the unit tests' stand-ins) is called through its own methods instead.

``let_go`` replaces a kept interaction and frees the one it held at once when nothing else holds it.

``note_refused`` / ``is_spent``: a token Discord refused for good (401 50027 "Invalid Webhook Token": it
ended, early or revoked; not 404 10015 "Unknown Webhook", which Discord also answers while a token still
serves, e.g. an edit that overtook the interaction's first answer) is remembered here, in one place, so
that every lane (the hand refreshes, the public lines, the board) stops using it at once instead of each
learning it with an invalid request of its own (Discord bans the bot's IP after 10,000 invalid requests).

This is the one place that reaches into discord.py's interaction internals;
``tests/delivery/test_webhook_calls`` fails if they change.
"""

from __future__ import annotations

import sys
import time
from collections import OrderedDict
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any, TypeVar

import discord
from discord.http import handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

from bot.delivery.budget import sent_once

T = TypeVar("T")


def let_go(holder: object, name: str, new: discord.Interaction | None) -> None:
    """``holder.<name> = new``; the interaction it held is freed now if nothing else holds it.

    A ``discord.Interaction`` whose ``response`` was used is a reference cycle (the interaction holds its
    ``InteractionResponse``, which holds it back), with the clicked message, its components, the member and
    the users it drags along: about 30 objects, kept for the cyclic garbage collector. The bot keeps a
    player's latest interaction (their hand message) and a table's (its public follow-ups) for seconds to
    minutes, long enough to reach the collector's oldest generation, where thousands of them waited for a
    full pass (with what they drag along, over half of that generation's objects at 300 busy tables), and
    made each pass longer (a stall of over a second at 1,000 tables). When ``holder`` held the last
    reference, the cached response is dropped, which breaks the cycle: the interaction is freed at once.
    Held elsewhere too (a task still answering with it, another holder), it is left alone: its last holder
    frees it, or the collector does."""
    old = getattr(holder, name)
    setattr(holder, name, new)
    if old is None or old is new or type(old) is not discord.Interaction:
        return
    # Nothing else holds ``old`` when it has only this frame's reference and its response's
    # (``InteractionResponse._parent``), as counted by this interpreter (``_ALONE``).
    if sys.getrefcount(old) == _ALONE and getattr(old, "_cs_response", None) is not None:
        delattr(old, "_cs_response")


class _Held:
    """Stands for an interaction in ``_alone``."""


def _alone() -> int:
    """What ``sys.getrefcount`` says in ``let_go`` of an object held only by that frame and by one other
    reference, measured the same way: 3 on CPython 3.11 (getrefcount's argument counts), and whatever a
    later interpreter counts (some leave borrowed references uncounted), so that a count never reads as
    "alone" while another holder exists."""
    holder = SimpleNamespace(held=_Held())
    old = holder.held  # a local, as in let_go
    holder.held = None
    back = [old]  # the response's reference
    count = sys.getrefcount(old)
    del back
    return count


_ALONE = _alone()


INVALID_WEBHOOK_TOKEN = (401, 50027)  # Discord's status and code: the token ended (early, or revoked)
SPENT_KEPT = 15 * 60.0  # a refused token is remembered this long: past it, no lane would use it anyway
SPENT_MAX = 10_000  # and at most this many (the oldest forgotten first)
_spent: OrderedDict[str, float] = OrderedDict()  # token -> time.monotonic() when refused


def refused_for_good(error: BaseException) -> bool:
    """Whether Discord refused an interaction-webhook call because its token will never serve again."""
    return isinstance(error, discord.HTTPException) and (error.status, error.code) == INVALID_WEBHOOK_TOKEN


def _token(interaction: object) -> str | None:
    token = getattr(interaction, "token", None)
    return token if isinstance(token, str) and token else None


def note_refused(interaction: object, error: BaseException) -> bool:
    """Remember ``interaction``'s token as spent when ``error`` says so (``refused_for_good``); True if it
    does."""
    token = _token(interaction)
    if token is None or not refused_for_good(error):
        return False
    now = time.monotonic()
    _spent[token] = now
    _spent.move_to_end(token)
    while _spent and (len(_spent) > SPENT_MAX or now - next(iter(_spent.values())) >= SPENT_KEPT):
        _spent.popitem(last=False)
    return True


def is_spent(interaction: object) -> bool:
    """Whether Discord refused ``interaction``'s token for good (``note_refused``): no lane uses it again."""
    if not _spent:
        return False
    token = _token(interaction)
    return token is not None and token in _spent


ALREADY_ACKNOWLEDGED = 40060  # Discord's code: the interaction has been answered already


async def respond_once(
    interaction: discord.Interaction, call: Awaitable[T], kind: discord.InteractionResponseType
) -> T | None:
    """Await ``call``, the interaction's first answer (of type ``kind``). Discord refuses it when the
    interaction has an answer already: an earlier try of it reached Discord although its reply was lost (a
    5xx from Discord's edge after Discord took it, then sent again). That answer stands: it is recorded in
    discord.py as its own call records a success (what follows goes out as follow-ups), and None returned."""
    try:
        return await call
    except discord.HTTPException as error:
        if error.code != ALREADY_ACKNOWLEDGED:
            raise
        if isinstance(interaction, discord.Interaction):
            interaction.response._response_type = kind
        return None


def _session(interaction: discord.Interaction) -> dict[str, Any]:
    """The adapter call's session and proxy, as discord.py passes them."""
    http = interaction._state.http
    return {"session": interaction._session, "proxy": http.proxy, "proxy_auth": http.proxy_auth}


@contextmanager
def _message_call(interaction: discord.Interaction, **fields: Any) -> Iterator[dict[str, Any]]:
    """The keyword arguments of an adapter call that sends a message's fields (``handle_message_parameters``'
    payload, multipart and files, with the session and proxy); the files are closed when it ends."""
    with handle_message_parameters(
        previous_allowed_mentions=interaction._state.allowed_mentions, **fields
    ) as params:
        yield {
            **_session(interaction),
            "payload": params.payload,
            "multipart": params.multipart,
            "files": params.files,
        }


@contextmanager
def _noting(interaction: discord.Interaction) -> Iterator[None]:
    """A refusal of the call for good marks the interaction's token spent (``note_refused``)."""
    try:
        yield
    except discord.HTTPException as error:
        note_refused(interaction, error)
        raise


def _store_view(interaction: discord.Interaction, view: Any, message_id: int | None) -> None:
    # As discord.py does after these calls: a view with live components is routed to this message.
    if view and not view.is_finished() and view.is_dispatchable():
        interaction._state.store_view(view, message_id)


async def edit_original(interaction: discord.Interaction, **fields: Any) -> None:
    """``interaction.edit_original_response(**fields)`` without the message object."""
    if not isinstance(interaction, discord.Interaction):
        await interaction.edit_original_response(**fields)
        return
    view = fields.get("view", MISSING)
    with _message_call(interaction, **fields) as call, _noting(interaction):
        data = await async_context.get().edit_original_interaction_response(
            interaction.application_id, interaction.token, **call
        )
    _store_view(interaction, view, int(data["id"]) if view else None)


async def edit_followup(interaction: discord.Interaction, message_id: int, **fields: Any) -> None:
    """``interaction.followup.edit_message(message_id, **fields)`` without the message object."""
    if not isinstance(interaction, discord.Interaction):
        await interaction.followup.edit_message(message_id, **fields)
        return
    view = fields.get("view", MISSING)
    with _message_call(interaction, **fields) as call, _noting(interaction):
        await async_context.get().edit_webhook_message(
            interaction.application_id, interaction.token, message_id, **call, with_components=bool(view)
        )
    _store_view(interaction, view, message_id)


async def send_followup(
    interaction: discord.Interaction, content: str, *, allowed_mentions: discord.AllowedMentions
) -> int | None:
    """``interaction.followup.send(content, allowed_mentions=..., wait=True).id``: a public text follow-up;
    returns its message id. Sent once (``bot.delivery.budget.sent_once``): a follow-up takes no nonce, and a
    5xx may come after Discord posted it, so neither the budget nor discord.py sends it again; such a failure
    (or a connection lost on its way) raises ``OutcomeUnknown``, and the caller looks for the message before
    telling it again."""
    if not isinstance(interaction, discord.Interaction):
        with sent_once():
            sent = await interaction.followup.send(content, allowed_mentions=allowed_mentions, wait=True)
        message_id = getattr(sent, "id", None)
        return message_id if isinstance(message_id, int) else None
    with (
        _message_call(interaction, content=content, allowed_mentions=allowed_mentions) as call,
        _noting(interaction),
        sent_once(),
    ):
        data = await async_context.get().execute_webhook(
            interaction.application_id, interaction.token, **call, wait=True
        )
    return int(data["id"]) if data is not None else None


async def update_clicked(
    interaction: discord.Interaction, *, content: str, view: discord.ui.View | None
) -> None:
    """``interaction.response.edit_message(content=..., view=...)``: the click's answer replaces the message
    the button was on, without the message object. The response is marked done, as discord.py marks it."""
    response = interaction.response if isinstance(interaction, discord.Interaction) else None
    if response is None or interaction.type is not discord.InteractionType.component:
        await interaction.response.edit_message(content=content, view=view)
        return
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state = interaction._state
    message_id = interaction.message.id if interaction.message is not None else None
    if message_id is not None:
        state.prevent_view_updates_for(message_id)
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value,
        content=content,
        view=view,
        previous_allowed_mentions=state.allowed_mentions,
    )
    data = await async_context.get().create_interaction_response(
        interaction.id, interaction.token, **_session(interaction), params=params
    )
    response._response_type = discord.InteractionResponseType.message_update
    if message_id is None:
        resource: dict[str, Any] = dict((data or {}).get("resource") or {})
        found = (resource.get("message") or {}).get("id")
        message_id = int(found) if found is not None else None
    _store_view(interaction, view, message_id)
