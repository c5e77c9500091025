"""The players' hand messages, with one owner: ``HandMessages``.

A player's hand is shown privately (an ephemeral message), and that message is then kept up to date in place
through the interaction that showed it (``HandSession``), while its token lives. Two callers, one door each:

* the tables' cogs answer a player with ``show(interaction, table_id, …)``: in place (a click on their hand
  message) or as a new private message, which becomes the one refreshed from then on;
* the publisher's hands lane calls ``refresh(table_id, user_id)`` when a hand may look different (the
  player's turn came, a penalty draw), and ``note_shown`` / ``shown_key`` to skip a hand that cannot have
  changed.

Both go through the player's lock, so that a refresh waits until a hand being shown is the one it refreshes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any, Protocol

import discord

from bot.delivery import webhook_calls
from bot.delivery.answers import (
    answer_privately,
    from_private_message,
    original_is_private,
    update_in_place,
)
from bot.delivery.feed import hand_key
from bot.delivery.hand_session import HAND_EDIT_WINDOW, HandSession, view_signature
from bot.i18n import N_, _
from bot.service import HandView, Outcome, ServiceError, TableService
from bot.ui import render
from bot.ui.appearance import Appearance
from bot.ui.controls import hand_view, release
from bot.ui.faces import Note, note_text
from bot.ui.locales import use_player_locale

log = logging.getLogger(__name__)

HAND_ATTEMPTS = 4  # a hand refresh that fails for a reason that may pass is tried this many times in all
MATCH_OVER = N_("The match is over: see the final ranking in the channel.")
TABLE_CLOSED = N_("The table is closed.")


class HandClock(Protocol):
    """What the hands wait with: the lanes' clock (``bot.delivery.publisher.LaneClock``)."""

    def monotonic(self) -> float: ...

    async def sleep(self, delay: float) -> None: ...


class HandMessages:
    """See the module docstring. ``service``: the table service (for the hands themselves); ``clock``: the
    lanes' clock (token lifetimes, retry pauses); ``is_transient`` / ``retry_delay``: the publisher's rules
    for a failure that may pass."""

    def __init__(
        self,
        service: TableService,
        appearance: Appearance,
        clock: HandClock,
        *,
        is_transient: Callable[[BaseException], bool],
        retry_delay: Callable[[int], float],
    ) -> None:
        self.service = service
        self.appearance = appearance
        self._clock = clock
        self._is_transient = is_transient
        self._retry_delay = retry_delay
        self._sessions: dict[tuple[int, int], HandSession] = {}
        # What each player's hand message was last drawn from (``bot.delivery.feed.hand_key``).
        self._keys: dict[tuple[int, int], tuple[Any, ...]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # refreshes tried again
        self._closed = False

    # --- for the cogs ---------------------------------------------------------------------------------------

    async def show(
        self,
        interaction: discord.Interaction,
        table_id: int,
        *,
        note: str | None = None,
        in_place: bool = False,
        outcome: Outcome | None = None,
        tell_move: bool = False,
    ) -> None:
        """Answer with the player's hand: in place (the clicked hand message) or as a new ephemeral message;
        from now on that message is the one refreshed when the hand changes. Never in place on a public
        message: a hand is shown to its player only. ``outcome``: the player's own move, if this answers
        one (with ``tell_move``, the hand message says what they played and drew)."""
        in_place = in_place and from_private_message(interaction)
        shown_note: Note | None = note
        if tell_move and outcome is not None:
            # Made for the faces the hand is shown with (a hand too long for emojis is shown as text).
            shown_note = partial(render.move_note, outcome, interaction.user.id)
        async with self.lock(table_id, interaction.user.id):
            await self._show(interaction, table_id, note=shown_note, in_place=in_place, outcome=outcome)

    async def _show(
        self,
        interaction: discord.Interaction,
        table_id: int,
        *,
        note: Note | None,
        in_place: bool,
        outcome: Outcome | None,
    ) -> None:
        user_id = interaction.user.id
        hand: HandView | None
        refused: ServiceError | None = None
        try:
            hand = await self.service.hand(table_id, user_id)
        except ServiceError as error:
            if outcome is None:
                raise
            hand, refused = None, error
        if hand is None:
            # The table closed (the move ended the match, or the table was ended or closed while the move was
            # answered: its outcome then still says it is playing): nothing to show but the news.
            text = (
                _(MATCH_OVER)
                if outcome is not None and outcome.snapshot.status == "finished"
                else _(TABLE_CLOSED)
            )
            if refused is not None and refused.code == "kicked":
                text = refused.message
            told = note_text(note)
            full = f"{told}\n{text}" if told else text
            if len(full) > render.MAX_CONTENT:
                full = f"{note_text(note, brief=True)}\n{text}"
            if in_place:
                await update_in_place(interaction, full, None)
            else:
                await answer_privately(interaction, full)
            # Told: the publisher's word that the table closed (show_closed) must not replace this one.
            self._sessions.pop((table_id, user_id), None)
            return
        faces = await self.appearance.faces(hand.snapshot.guild_id)
        content = render.hand_content(hand, faces=faces)
        view = hand_view(hand, faces)
        signature = view_signature(view)  # read before sending: a sent view is released (emptied)
        shown = render.hand_content(hand, note=note, faces=faces) if note else content
        if in_place:
            await update_in_place(interaction, shown, view)
            release(view)
            # Played from an older hand message: the newer one, refreshed until now, is brought up to date too
            # (it would keep old cards and controls), before this one becomes the one refreshed.
            session = self._sessions.get((table_id, user_id))
            clicked = created_by(interaction.message)
            if session is not None and None not in (clicked, session.creator) and clicked != session.creator:
                await self._update_previous(table_id, user_id, interaction, content, hand_view(hand, faces))
        else:
            if view is None:
                await answer_privately(interaction, shown)
            else:
                await answer_privately(interaction, shown, view=view)
            # The hand message shown before (if any) is updated in place too.
            await self._update_previous(table_id, user_id, interaction, content, hand_view(hand, faces))
        if original_is_private(interaction):
            creator = created_by(interaction.message) if in_place else interaction.id
            self.remember(table_id, user_id, interaction, content, signature, hand, creator=creator)
        # Else the hand went as a follow-up of a board's button deferred as an update (a slow "Take my seat
        # back"): the interaction's original is the public board, never to be edited with a hand. The hand
        # message shown before stays the one refreshed; "My hand" gives a new one.

    # --- sessions -------------------------------------------------------------------------------------------

    def session(self, table_id: int, user_id: int) -> HandSession | None:
        return self._sessions.get((table_id, user_id))

    def lock(self, table_id: int, user_id: int) -> asyncio.Lock:
        """The lock that orders a player's own hand replies and the refreshes of that hand."""
        session = self._sessions.get((table_id, user_id))
        if session is None:
            session = self._sessions[(table_id, user_id)] = HandSession(None, -HAND_EDIT_WINDOW * 2)
        return session.lock

    def remember(
        self,
        table_id: int,
        user_id: int,
        interaction: discord.Interaction,
        content: str,
        signature: tuple[str, ...],
        hand: HandView | None = None,
        *,
        creator: int | None = None,
    ) -> None:
        """The hand message this interaction shows is now the player's hand, to refresh in place.
        ``signature``: its controls' (``view_signature``, read before the view was sent and released; ``()``
        for none). ``hand``, the view it was rendered from, spares the next refresh asking for it again.
        ``creator``: the id of the interaction that created that message, when known."""
        if hand is not None:
            self.note_shown(table_id, user_id, hand_key(hand.snapshot, hand.position))
        session = self._sessions.get((table_id, user_id))
        rendered = (content, signature)
        if session is None:
            self._sessions[(table_id, user_id)] = HandSession(
                interaction, self._clock.monotonic(), rendered, creator=creator
            )
        else:
            webhook_calls.let_go(session, "interaction", interaction)
            session.since = self._clock.monotonic()
            session.rendered = rendered
            session.creator = creator

    async def _update_previous(
        self,
        table_id: int,
        user_id: int,
        interaction: discord.Interaction,
        content: str,
        view: discord.ui.View | None,
    ) -> None:
        """A new hand message is being shown (a typed move, "My hand"): the previous one, if it can still be
        edited, is brought up to date in place, so that no hand message shows old cards or old controls."""
        session = self._sessions.get((table_id, user_id))
        if session is None or session.interaction is None or session.interaction is interaction:
            return
        if not session.fresh(self._clock.monotonic()) or session.rendered == (content, view_signature(view)):
            return
        try:
            await webhook_calls.edit_original(session.interaction, content=content, view=view)
        except discord.HTTPException as error:
            log.debug("table %s: previous hand message not updated: %s", table_id, error)
        finally:
            release(view)

    def is_fresh(self, table_id: int, user_id: int) -> bool:
        """Whether the player's hand message can still be edited in place (its token lives)."""
        session = self._sessions.get((table_id, user_id))
        if session is None or session.interaction is None:
            return False
        return session.fresh(self._clock.monotonic())

    def forget(self, table_id: int) -> None:
        """The table is over: its hand messages are no longer refreshed."""
        for key in [key for key in self._sessions if key[0] == table_id]:
            del self._sessions[key]
        for key in [key for key in self._keys if key[0] == table_id]:
            del self._keys[key]

    # --- for the publisher ----------------------------------------------------------------------------------

    def shown_key(self, table_id: int, user_id: int) -> tuple[Any, ...] | None:
        """What the player's hand message was last drawn from (None: not known)."""
        return self._keys.get((table_id, user_id))

    def note_shown(self, table_id: int, user_id: int, key: tuple[Any, ...]) -> None:
        self._keys[(table_id, user_id)] = key

    async def refresh(self, table_id: int, user_id: int, attempt: int = 1) -> None:
        """Edit the player's hand message to show their hand now. A failure that may pass is tried again a
        little later (``HAND_ATTEMPTS`` in all); one that will not (the token expired) leaves the hand to the
        "My hand" button."""
        async with self._editable(table_id, user_id) as editable:
            if editable is None:
                return
            session, interaction = editable
            try:
                hand = await self.service.hand(table_id, user_id)
            except ServiceError as error:
                if error.code == "kicked":  # their old hand, with its buttons, would mislead
                    await self._say(table_id, session, interaction, error.message)
                return
            faces = await self.appearance.faces(hand.snapshot.guild_id)
            content = render.hand_content(hand, faces=faces)
            view = hand_view(hand, faces)
            rendered = (content, view_signature(view))
            if rendered == session.rendered:
                return
            try:
                await webhook_calls.edit_original(interaction, content=content, view=view)
                release(view)
            except Exception as error:
                if self._is_transient(error) and attempt < HAND_ATTEMPTS and not self._closed:
                    log.info("table %s: hand refresh failed (%s); trying again", table_id, error)
                    self._retry(table_id, user_id, attempt)
                    return
                if not isinstance(error, discord.HTTPException | discord.RateLimited):
                    raise
                log.debug("table %s: hand message no longer editable: %s", table_id, error)
                session.since = -HAND_EDIT_WINDOW * 2
                return
            session.rendered = rendered

    @contextlib.asynccontextmanager
    async def _editable(
        self, table_id: int, user_id: int
    ) -> AsyncIterator[tuple[HandSession, discord.Interaction] | None]:
        """The player's hand session and its interaction, locked, when its message can still be edited (else
        None). Its edits
        run in the publisher's lane, after someone else's move: in the language of the hand's owner (the
        interaction that showed it says which)."""
        session = self._sessions.get((table_id, user_id))
        if session is None:
            yield None
            return
        async with session.lock:
            interaction = session.interaction
            if interaction is None or not session.fresh(self._clock.monotonic()):
                yield None
                return
            use_player_locale(interaction)
            yield session, interaction

    async def show_closed(self, table_id: int, user_id: int, *, abandoned: bool) -> None:
        """The table closed (ended, abandoned, or its match is over): the player's hand message says so, with
        no buttons, instead of offering a turn that is gone. Once; a failure leaves the buttons, which
        answer that they have expired."""
        async with self._editable(table_id, user_id) as editable:
            if editable is None:
                return
            session, interaction = editable
            await self._say(table_id, session, interaction, _(TABLE_CLOSED) if abandoned else _(MATCH_OVER))

    async def _say(
        self, table_id: int, session: HandSession, interaction: discord.Interaction, content: str
    ) -> None:
        """The hand message shows ``content`` and no buttons (once)."""
        rendered = (content, view_signature(None))
        if rendered == session.rendered:
            return
        try:
            await webhook_calls.edit_original(interaction, content=content, view=None)
        except (discord.HTTPException, discord.RateLimited) as error:
            log.debug("table %s: hand message not updated: %s", table_id, error)
            return
        session.rendered = rendered

    def _retry(self, table_id: int, user_id: int, attempt: int) -> None:
        async def retry() -> None:
            await self._clock.sleep(self._retry_delay(attempt))
            await self.refresh(table_id, user_id, attempt + 1)

        task = asyncio.create_task(retry(), name=f"eights-hand-retry-{table_id}-{user_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def tasks(self) -> list[asyncio.Task[None]]:
        """The refreshes waiting to be tried again (the publisher's ``busy`` and ``idle`` count them)."""
        return list(self._tasks)

    def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()


def created_by(message: discord.Message | None) -> int | None:
    """The id of the interaction whose answer (or follow-up) ``message`` is, as Discord says it; None when it
    does not say."""
    metadata = message.interaction_metadata if message is not None else None
    return metadata.id if metadata is not None else None
