"""The service's outcomes, shown on Discord: board edits, public turn lines and private hand refreshes.

``TablePublisher`` is the service's ``TableListener`` (CPU moves, timeouts, rounds starting on their own) and
also receives the outcomes of the players' own actions from the cog, so that everything a table shows goes
through one queue per table. Each table has at most one flush running; outcomes that arrive meanwhile are
gathered and shown together. While a CPU seat is to move, the flush waits for its move (up to
``gather_window``), so a run of CPU moves becomes one message and one edit; when a person is to move it goes
out at once, as that person is waiting. Hand refreshes (how the next player learns it is their turn) go out
at once for every outcome; the public part (the turn line and the board edit) is spaced by ``min_interval``
per table, for Discord's per-channel rate limit (about 5 messages per 5 s), so at a fast pace one line tells
several moves and one edit shows their result.

Hands: the last interaction that showed a player their hand is kept per (table, player); while its token is
younger than ``HAND_EDIT_WINDOW`` the hand message is edited in place when it changes (your turn came, a
penalty draw). When it is older, the public line tells the player to press "My hand".
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.engine import RulesetError, get_preset
from bot.service import HandView, Outcome, ServiceError, TableEvent, TableService, TableSnapshot
from bot.ui import render
from bot.ui.controls import board_view, hand_view

log = logging.getLogger(__name__)

HAND_EDIT_WINDOW = 14 * 60.0  # interaction tokens last 15 minutes; keep a margin
DEFAULT_DEBOUNCE = 0.3  # seconds: gather window while a CPU seat moves
# Seconds between a table's public flushes (line + board edit: two requests in the channel's bucket of about
# 5 per 5 s); hands are refreshed at once regardless.
PUBLIC_INTERVAL = 1.0
# Lobby chatter stays on the board; the channel hears about the game itself and about a table closing.
QUIET_IN_LOBBY = frozenset({"opened", "joined", "left", "cpu_added", "host_changed", "kicked"})


@dataclass(slots=True)
class HandSession:
    """The interaction whose original response is a player's current hand message."""

    interaction: discord.Interaction | None
    since: float  # monotonic time the interaction arrived
    rendered: tuple[str, tuple[str, ...]] = ("", ())
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def fresh(self, now: float) -> bool:
        return now - self.since < HAND_EDIT_WINDOW


@dataclass(slots=True)
class _Feed:
    events: list[TableEvent] = field(default_factory=list)
    snapshot: TableSnapshot | None = None  # the latest, not yet shown publicly
    hand_snapshot: TableSnapshot | None = None  # the latest, hands not yet refreshed for it
    private_users: set[int] = field(default_factory=set)  # players who learnt something (their hand changed)
    task: asyncio.Task[None] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # an outcome with no CPU seat to move next
    arrived: asyncio.Event = field(default_factory=asyncio.Event)  # any outcome
    last_flush: float = -1e9
    board_embed: dict[str, Any] | None = None  # the last board this process showed
    board_view_key: tuple[Any, ...] | None = None
    hand_keys: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    closed: bool = False


def view_signature(view: discord.ui.View | None) -> tuple[str, ...]:
    if view is None:
        return ()
    return tuple(str(getattr(item, "custom_id", "")) for item in view.children)


class TablePublisher:
    """Implements ``TableListener``; see the module docstring."""

    def __init__(
        self,
        client: discord.Client,
        *,
        gather_window: float = DEFAULT_DEBOUNCE,
        min_interval: float = DEFAULT_DEBOUNCE,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.gather_window = gather_window
        self.min_interval = min_interval
        self.service: TableService | None = None
        self._monotonic = monotonic
        self._feeds: dict[int, _Feed] = {}
        self._boards: dict[int, int] = {}  # table id -> board message id, as last set by this process
        self._sessions: dict[tuple[int, int], HandSession] = {}
        self._closed = False

    # --- the listener ---------------------------------------------------------------------------------------

    async def on_outcome(self, outcome: Outcome) -> None:
        self.publish(outcome)

    def publish(self, outcome: Outcome, *, shown_to: int | None = None) -> None:
        """Queue an outcome for showing; returns at once. ``shown_to``: the player whose own move this is and
        whose answer shows them their hand as of this outcome, so no refresh of that hand is due for it."""
        if self._closed:
            return
        table_id = outcome.table_id
        feed = self._feeds.get(table_id)
        if feed is None:
            feed = self._feeds[table_id] = _Feed()
        feed.events.extend(outcome.public_events)
        seat = outcome.snapshot.seat_of(shown_to) if shown_to is not None else None
        if shown_to is not None and seat is not None:
            feed.hand_keys[shown_to] = _hand_key(outcome.snapshot, seat.position)
            feed.private_users.update(user for user in outcome.private_events if user != shown_to)
        else:
            feed.private_users.update(outcome.private_events)
        # Outcomes arrive in the order they were committed; a closed table stays closed.
        if feed.snapshot is None or feed.snapshot.open:
            feed.snapshot = outcome.snapshot
        if feed.hand_snapshot is None or feed.hand_snapshot.open:
            feed.hand_snapshot = outcome.snapshot
        feed.arrived.set()
        if not _cpu_to_act(outcome.snapshot):
            feed.wake.set()
        if feed.task is None:
            feed.task = asyncio.create_task(self._drain(table_id, feed), name=f"eights-board-{table_id}")

    async def idle(self, timeout: float = 5.0) -> None:
        """Wait until every queued outcome has been shown (tests and shutdown)."""
        deadline = self._monotonic() + timeout
        while True:
            tasks = [feed.task for feed in self._feeds.values() if feed.task is not None]
            if not tasks:
                return
            remaining = deadline - self._monotonic()
            if remaining <= 0:
                return
            await asyncio.wait(tasks, timeout=remaining)

    async def close(self) -> None:
        """Show what is queued (briefly), then stop."""
        await self.idle(timeout=2.0)
        self._closed = True
        for feed in self._feeds.values():
            if feed.task is not None:
                feed.task.cancel()

    # --- boards ---------------------------------------------------------------------------------------------

    def board_id(self, snapshot: TableSnapshot) -> int | None:
        return self._boards.get(snapshot.table_id, snapshot.board_message_id)

    async def remember_board(self, table_id: int, message_id: int) -> None:
        """A new board message (``/eights new``, ``/eights status``, a repost): edit that one from now on."""
        self._boards[table_id] = message_id
        feed = self._feeds.get(table_id)
        if feed is not None:
            feed.board_embed = None
            feed.board_view_key = None
        if self.service is not None:
            await self.service.set_board_message(table_id, message_id)

    async def post_board(self, snapshot: TableSnapshot) -> int | None:
        """Post the board as a fresh message in the table's channel and make it the board."""
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        view = board_view(snapshot)
        try:
            if view is None:
                message = await channel.send(embed=render.board_embed(snapshot))
            else:
                message = await channel.send(embed=render.board_embed(snapshot), view=view)
        except discord.HTTPException as error:
            log.warning("table %s: could not post the board: %s", snapshot.table_id, error)
            return None
        await self.remember_board(snapshot.table_id, message.id)
        return message.id

    async def check_board(self, snapshot: TableSnapshot) -> None:
        """At start-up: repost a restored table's board if its message is gone, else bring it up to date."""
        board_id = self.board_id(snapshot)
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        if board_id is not None:
            try:
                await channel.fetch_message(board_id)
            except discord.NotFound:
                board_id = None
            except discord.HTTPException as error:
                log.warning("table %s: could not check the board: %s", snapshot.table_id, error)
                return
        if board_id is None:
            await self.post_board(snapshot)
        else:
            self._boards[snapshot.table_id] = board_id
            await self._edit_board(snapshot, self._feeds.setdefault(snapshot.table_id, _Feed()))

    async def _edit_board(self, snapshot: TableSnapshot, feed: _Feed) -> None:
        board_id = self.board_id(snapshot)
        if board_id is None:
            await self.post_board(snapshot)
            return
        embed = render.board_embed(snapshot)
        embed_data: dict[str, Any] = dict(embed.to_dict())
        view_key = _board_view_key(snapshot)
        view_changed = view_key != feed.board_view_key
        if embed_data == feed.board_embed and not view_changed:
            return
        message = self.client.get_partial_messageable(
            snapshot.channel_id, guild_id=snapshot.guild_id
        ).get_partial_message(board_id)
        try:
            if view_changed:
                await message.edit(embed=embed, view=board_view(snapshot))
            else:
                await message.edit(embed=embed)  # the buttons stay as they are
        except discord.NotFound:
            if self._boards.get(snapshot.table_id, board_id) != board_id:
                return  # a newer board was posted meanwhile
            log.info("table %s: the board message was deleted; posting it again", snapshot.table_id)
            if snapshot.open:
                await self.post_board(snapshot)
            return
        except discord.HTTPException as error:
            log.warning("table %s: could not edit the board: %s", snapshot.table_id, error)
            return
        feed.board_embed = embed_data
        feed.board_view_key = view_key

    # --- hands ----------------------------------------------------------------------------------------------

    def session(self, table_id: int, user_id: int) -> HandSession | None:
        return self._sessions.get((table_id, user_id))

    def hand_lock(self, table_id: int, user_id: int) -> asyncio.Lock:
        """The lock that orders a player's own hand replies and the refreshes of that hand."""
        session = self._sessions.get((table_id, user_id))
        if session is None:
            session = self._sessions[(table_id, user_id)] = HandSession(None, -HAND_EDIT_WINDOW * 2)
        return session.lock

    def remember_hand(
        self,
        table_id: int,
        user_id: int,
        interaction: discord.Interaction,
        content: str,
        view: discord.ui.View | None,
        hand: HandView | None = None,
    ) -> None:
        """The hand message this interaction shows is now the player's hand, to refresh in place. ``hand``,
        the view it was rendered from, spares the next flush asking for the same hand again."""
        if hand is not None:
            feed = self._feeds.setdefault(table_id, _Feed())
            feed.hand_keys[user_id] = _hand_key(hand.snapshot, hand.position)
        session = self._sessions.get((table_id, user_id))
        rendered = (content, view_signature(view))
        if session is None:
            self._sessions[(table_id, user_id)] = HandSession(interaction, self._monotonic(), rendered)
        else:
            session.interaction = interaction
            session.since = self._monotonic()
            session.rendered = rendered

    async def update_previous_hand(
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
        if not session.fresh(self._monotonic()) or session.rendered == (content, view_signature(view)):
            return
        try:
            await session.interaction.edit_original_response(content=content, view=view)
        except discord.HTTPException as error:
            log.debug("table %s: previous hand message not updated: %s", table_id, error)

    def hand_is_fresh(self, table_id: int, user_id: int) -> bool:
        session = self._sessions.get((table_id, user_id))
        return session is not None and session.interaction is not None and session.fresh(self._monotonic())

    async def refresh_hand(self, table_id: int, user_id: int) -> None:
        session = self._sessions.get((table_id, user_id))
        if session is None or self.service is None:
            return
        async with session.lock:
            if session.interaction is None or not session.fresh(self._monotonic()):
                return
            try:
                hand = await self.service.hand(table_id, user_id)
            except ServiceError:
                return
            content = render.hand_content(hand)
            view = hand_view(hand)
            rendered = (content, view_signature(view))
            if rendered == session.rendered:
                return
            try:
                await session.interaction.edit_original_response(content=content, view=view)
            except discord.HTTPException as error:
                log.debug("table %s: hand message no longer editable: %s", table_id, error)
                session.since = -HAND_EDIT_WINDOW * 2
                return
            session.rendered = rendered

    def forget_table(self, table_id: int) -> None:
        for key in [key for key in self._sessions if key[0] == table_id]:
            del self._sessions[key]
        self._boards.pop(table_id, None)

    # --- the flush ------------------------------------------------------------------------------------------

    async def _drain(self, table_id: int, feed: _Feed) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                # A CPU seat to move: its move is coming, show it together with what is queued.
                deadline = loop.time() + self.gather_window
                while True:
                    latest = feed.hand_snapshot or feed.snapshot
                    if latest is None or not _cpu_to_act(latest):
                        break
                    remaining = deadline - loop.time()
                    if remaining <= 0:
                        break
                    feed.wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(feed.wake.wait(), remaining)
                hands, users = feed.hand_snapshot, feed.private_users
                feed.hand_snapshot, feed.private_users = None, set()
                jobs = []
                if hands is not None:
                    jobs.append(self._refresh_hands(hands, users, feed))
                public = feed.snapshot
                if public is not None and feed.last_flush + self.min_interval <= loop.time():
                    events, feed.events, feed.snapshot = feed.events, [], None
                    feed.last_flush = loop.time()
                    jobs.append(self._flush(public, events, feed))
                else:
                    public = None
                # The line, the board and the hands go to different places (and rate-limit buckets): at once.
                for result in await asyncio.gather(*jobs, return_exceptions=True):
                    if isinstance(result, BaseException):
                        log.error("table %s: showing an outcome failed", table_id, exc_info=result)
                if public is not None and not public.open:
                    feed.closed = True
                    self.forget_table(table_id)
                if feed.snapshot is None and feed.hand_snapshot is None:
                    break
                if feed.hand_snapshot is None:
                    # Only the public part waits, for its spacing; a new outcome's hands go out before.
                    feed.arrived.clear()
                    spacing = feed.last_flush + self.min_interval - loop.time()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(feed.arrived.wait(), max(0.0, spacing))
        finally:
            feed.task = None
            if (
                feed.closed
                and feed.snapshot is None
                and feed.hand_snapshot is None
                and self._feeds.get(table_id) is feed
            ):
                del self._feeds[table_id]

    async def _refresh_hands(self, snapshot: TableSnapshot, users: set[int], feed: _Feed) -> None:
        """Refresh the hand messages that may look different after this snapshot."""
        if not snapshot.open or snapshot.phase == "lobby":
            return
        for seat in snapshot.seats:
            user_id = seat.user_id
            if user_id is None or seat.taken_over or not self.hand_is_fresh(snapshot.table_id, user_id):
                continue
            # Only a hand that may look different is asked for again: the player's turn came or went,
            # their cards changed, or the round did.
            key = _hand_key(snapshot, seat.position)
            if key != feed.hand_keys.get(user_id) or user_id in users:
                feed.hand_keys[user_id] = key
                await self.refresh_hand(snapshot.table_id, user_id)

    async def _flush(self, snapshot: TableSnapshot, events: list[TableEvent], feed: _Feed) -> None:
        """The public part: the turn line (and the final ranking) and the board edit."""
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        shown = events if snapshot.phase != "lobby" else [e for e in events if e.kind not in QUIET_IN_LOBBY]
        to_act_user = _user_to_act(snapshot)
        fresh = to_act_user is not None and self.hand_is_fresh(snapshot.table_id, to_act_user)
        turn_changed = any(e.kind in ("turn", "round_started", "started", "rejoined") for e in events)
        content, mention = render.turn_line(shown, snapshot, hand_is_fresh=fresh, announce_turn=turn_changed)
        match_over = any(e.kind == "match_over" for e in events) and bool(snapshot.ranking)

        async def post_lines() -> None:
            if content:
                mentions = discord.AllowedMentions(
                    everyone=False,
                    roles=False,
                    replied_user=False,
                    users=[discord.Object(mention)] if mention is not None else False,
                )
                try:
                    await channel.send(content, allowed_mentions=mentions)
                except discord.HTTPException as error:
                    log.warning("table %s: could not post the turn line: %s", snapshot.table_id, error)
            if match_over:
                with contextlib.suppress(discord.HTTPException):
                    await channel.send(
                        render.final_ranking_text(snapshot), allowed_mentions=discord.AllowedMentions.none()
                    )

        for result in await asyncio.gather(
            post_lines(), self._edit_board(snapshot, feed), return_exceptions=True
        ):
            if isinstance(result, BaseException):
                log.error("table %s: showing an outcome failed", snapshot.table_id, exc_info=result)


def _user_to_act(snapshot: TableSnapshot) -> int | None:
    if snapshot.phase != "playing" or snapshot.to_act is None:
        return None
    for seat in snapshot.seats:
        if seat.position == snapshot.to_act and not seat.is_cpu:
            return seat.user_id
    return None


def _cpu_to_act(snapshot: TableSnapshot) -> bool:
    if snapshot.phase != "playing" or snapshot.to_act is None:
        return False
    return any(seat.position == snapshot.to_act and seat.is_cpu for seat in snapshot.seats)


def _board_view_key(snapshot: TableSnapshot) -> tuple[Any, ...]:
    """What the board's buttons depend on (see ``board_view``)."""
    return (snapshot.phase, snapshot.round_token, any(seat.taken_over for seat in snapshot.seats))


@functools.cache
def _has_last_card(preset: str) -> bool:
    try:
        return get_preset(preset).has_last_card
    except RulesetError:
        return True


def _hand_key(snapshot: TableSnapshot, position: int) -> tuple[Any, ...]:
    """What one player's hand message depends on, read from the public snapshot: when it is unchanged the
    hand needs no refresh (private changes, such as cards drawn, come as the player's private events)."""
    mine = snapshot.to_act == position
    counts = tuple(seat.card_count for seat in snapshot.seats)
    return (
        snapshot.phase,
        snapshot.round_number,
        mine,
        counts[position] if position < len(counts) else None,
        (snapshot.target_card, snapshot.declared_suit, snapshot.pending_draw) if mine else None,
        # Last card calls and catches depend on everyone's hand size.
        counts if _has_last_card(snapshot.preset) else None,
    )
