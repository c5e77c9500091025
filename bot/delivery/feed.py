"""One table's queued news for the publisher, and what a snapshot says about what must be shown again.

``TableFeed`` holds, per table, the events not yet told in a line, the state the board does not show yet, the
hands to refresh, and each lane's task and retry state. The functions read a ``TableSnapshot`` for the
publisher: whose turn it is, what a hand message or the board's buttons depend on (unchanged: no edit), and
how a line's events are split into messages. Nothing here sends anything.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.service import TableEvent, TableSnapshot, UntoldLine
from bot.ui import render
from bot.ui.controls import cpu_seats

# Lines of events in one message at most (``render.MAX_LINES`` with the "your turn" line): more, after a wait,
# are told in several messages rather than summarised, so that every play is told.
LINES_PER_MESSAGE = render.MAX_LINES - 1
# Room left in a message for the turn's line (several mentions and the hint to "My hand").
CHARS_PER_MESSAGE = render.MAX_CONTENT - 400
UNKNOWN = object()  # a board picture this process has not shown yet
# Lobby chatter stays on the board; the channel hears about the game itself and about a table closing.
QUIET_IN_LOBBY = frozenset({"opened", "joined", "left", "cpu_added", "host_changed", "kicked"})
TURN_EVENTS = frozenset({"turn", "round_started", "started"})  # a line then says who moves


@dataclass(slots=True)
class TableFeed:
    """One table's news not shown yet and the state of its three lanes (see ``bot.delivery.publisher``)."""

    table_id: int
    snapshot: TableSnapshot | None = None  # the latest state (a closed table stays closed)
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # set, and replaced, by every outcome
    # lines
    events: list[TableEvent] = field(default_factory=list)  # not told in a line yet
    versions: list[int] = field(default_factory=list)  # the state version of each of them (the move's)
    seen_version: int = 0  # the latest version any outcome brought (its moves are told once events are)
    resumed: UntoldLine | None = None  # a line the previous process was sending (told first)
    last_line_id: int | None = None  # the last line message sent, from which a restart looks for its line
    line_since: float | None = None  # lanes' clock (monotonic) when the oldest of them arrived
    line_task: asyncio.Task[None] | None = None
    last_line: float = -1e9
    line_retry_at: float = 0.0
    line_failures: int = 0
    turns: int = 0  # outcomes so far that passed the turn (or started a round) ...
    announced: int = 0  # ... and how many of them a posted line has announced
    via: discord.Interaction | None = None  # the table's latest player interaction, for public follow-ups
    via_since: float = 0.0
    # board
    board_since: float | None = None  # lanes' clock when the oldest outcome the board does not show came
    board_busy: bool = False  # an edit is in flight
    board_next: float | None = None  # loop time of the first outcome that came while it was
    board_task: asyncio.Task[None] | None = None
    last_board: float = -1e9
    board_retry_at: float = 0.0
    board_failures: int = 0
    board_embed: dict[str, Any] | None = None  # the last board this process showed
    board_view_key: tuple[Any, ...] | None = None
    # What the board's picture shows (None: no picture; UNKNOWN: not known to this process, so the next
    # edit says it, e.g. after a restart or a new board message).
    board_picture_key: Any = UNKNOWN
    # hands
    hand_snapshot: TableSnapshot | None = None  # the latest, hands not yet refreshed for it
    private_users: set[int] = field(default_factory=set)  # players who learnt something (their hand changed)
    hand_task: asyncio.Task[None] | None = None

    def told_through(self) -> int:
        """The latest version whose moves are all told: the version before the oldest event still queued
        (outcomes may come a little out of order: a move's own answer published after a CPU's next move)."""
        return min(self.versions) - 1 if self.versions else self.seen_version

    def tasks(self) -> list[asyncio.Task[None]]:
        return [task for task in (self.line_task, self.board_task, self.hand_task) if task is not None]

    def pending_since(self) -> float | None:
        times = [t for t in (self.line_since, self.board_since) if t is not None]
        return min(times) if times else None


def line_chunks(events: list[TableEvent], snapshot: TableSnapshot) -> list[list[TableEvent]]:
    """The events split into messages of at most ``LINES_PER_MESSAGE`` lines and ``CHARS_PER_MESSAGE``
    characters as text (usually one message): long names (a markdown name is twice as long escaped) could
    otherwise fill a message before its lines do."""
    if _fits(render.event_lines(events, snapshot)):
        return [events]
    chunks: list[list[TableEvent]] = [[]]
    for event in events:
        chunk = chunks[-1]
        chunk.append(event)
        if len(chunk) > 1 and not _fits(render.event_lines(chunk, snapshot)):
            chunk.pop()
            chunks.append([event])
    return chunks


def _fits(lines: list[str]) -> bool:
    return len(lines) <= LINES_PER_MESSAGE and sum(len(line) + 1 for line in lines) <= CHARS_PER_MESSAGE


def told_in_line(events: list[TableEvent], snapshot: TableSnapshot) -> list[TableEvent]:
    """The events a line tells: lobby chatter stays on the board."""
    if snapshot.phase != "lobby":
        return events
    return [event for event in events if event.kind not in QUIET_IN_LOBBY]


def told_with_versions(
    events: list[TableEvent], versions: list[int], snapshot: TableSnapshot
) -> tuple[list[TableEvent], list[int]]:
    """``told_in_line`` for events and their versions side by side."""
    if snapshot.phase != "lobby":
        return events, versions
    kept = [(e, v) for e, v in zip(events, versions, strict=True) if e.kind not in QUIET_IN_LOBBY]
    return [e for e, _ in kept], [v for _, v in kept]


def line_nonce(table_id: int, first: int, last: int, index: int) -> str:
    """The nonce of a line's ``index``-th message telling the table's moves ``first``..``last``: the same
    message sent again (a restart that cannot know whether Discord accepted it) gets the same nonce, and
    Discord's ``enforce_nonce`` returns the first message instead of posting a second. 24 characters (at
    most 25 are allowed)."""
    return hashlib.blake2b(f"{table_id}:{first}:{last}:{index}".encode(), digest_size=12).hexdigest()


def mentioning(mention: object) -> discord.AllowedMentions:
    """Only the people to move are pinged (``mention``: a user id, several, or None; as stored in the
    outbox, a list): never everyone, roles, or anyone named in a display name."""
    users = mentioned_users(mention)
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        replied_user=False,
        users=[discord.Object(user_id) for user_id in users] if users else False,
    )


def mentioned_users(mention: object) -> tuple[int, ...]:
    """The user ids of a line's ``mention`` (an id, a sequence of ids, or None); anything else is none."""
    if isinstance(mention, int) and not isinstance(mention, bool):
        return (mention,)
    if isinstance(mention, list | tuple):
        return tuple(m for m in mention if isinstance(m, int) and not isinstance(m, bool))
    return ()


def turn_comes(events: Sequence[TableEvent], snapshot: TableSnapshot) -> bool:
    """Whether one outcome's ``events`` (``snapshot``: the state they left) bring a turn its line announces:
    the turn passed or a round started (``TURN_EVENTS``), or a person took their seat back from the CPU
    while it is theirs to move (the CPU had the turn: the person is told it is theirs now). A seat taken
    back during someone else's turn announces nothing: that turn did not pass, and its player was told."""
    if any(event.kind in TURN_EVENTS for event in events):
        return True
    people = snapshot.people_to_act()
    return any(event.kind == "rejoined" and event.data.get("user_id") in people for event in events)


def acting_joined(before: TableSnapshot | None, after: TableSnapshot) -> bool:
    """Whether a person may move in ``after`` who could not in ``before`` without a new turn: with Crazier
    Eights teams, a member whose beginning of turn came once a teammate's choice was made. Their turn is
    announced as a new one's would be."""
    if before is None or after.crazier is None or before.round_token != after.round_token:
        return False
    return bool(set(after.people_to_act()) - set(before.people_to_act()))


def cpu_to_act(snapshot: TableSnapshot) -> bool:
    if snapshot.phase != "playing" or snapshot.to_act is None:
        return False
    return any(seat.position == snapshot.to_act and seat.is_cpu for seat in snapshot.seats)


def board_view_key(snapshot: TableSnapshot) -> tuple[Any, ...]:
    """What the board's buttons depend on (see ``board_view``)."""
    return (
        snapshot.phase,
        snapshot.round_token,
        any(seat.taken_over for seat in snapshot.seats),
        cpu_seats(snapshot) if snapshot.phase == "lobby" else None,  # "Add CPU" carries the CPUs it saw
    )


def hand_key(snapshot: TableSnapshot, position: int) -> tuple[Any, ...]:
    """What one player's hand message depends on, read from the public snapshot: when it is unchanged the
    hand needs no refresh (private changes, such as cards drawn, come as the player's private events)."""
    crazier = snapshot.crazier
    # crazier-abilities: a team's members act at once, and effects depend on the cards in play.
    mine = snapshot.to_act == position or (crazier is not None and position in crazier.acting)
    counts = tuple(seat.card_count for seat in snapshot.seats)
    return (
        snapshot.phase,
        snapshot.round_number,
        mine,
        counts[position] if position < len(counts) else None,
        (snapshot.target_card, snapshot.declared_suit, snapshot.pending_draw) if mine else None,
        # Last card calls and catches depend on everyone's hand size, and a catch on whether the card was
        # called: the table's rules say whether they exist (a house rule may add them to a preset without).
        (counts, snapshot.last_card_open) if snapshot.has_last_card else None,
        crazier.in_play if crazier is not None and mine else None,
    )
