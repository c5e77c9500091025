"""The table use cases (issues 6 and 7): open, join, leave, CPU seats, start, play, timers, matches, restarts.

Every mutation follows one path: take the table's lock, work on a copy of its live state (the engine Match and
the service's JSON document), commit the whole new state with ``store.commit_move`` (version-checked), then
swap the copy in and schedule the table's timers again. A move is therefore stored before anyone hears of it,
and a move that fails (an engine error, a lost race) leaves the table exactly as it was.

The document stored as the table's state::

    {"format": 1, "phase": "lobby" | "playing" | "between_rounds" | ..., "host_id": int, "seed": int,
     "match": Match.to_json() | None, "timeouts": [int per seat], "kicked": [user ids], "recent": [events],
     "round_winners": [[seats] per round], "opened_at": t, "last_human_at": t, "lobby_until": t | None,
     "pause_until": t | None, "turn": {"key": [round, turn, seat], "deadline": t} | None}

Deadlines are absolute Unix seconds, so after a restart each timer resumes with the time it had left.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.engine import (
    PRESETS,
    Action,
    ActionKind,
    EngineError,
    Match,
    Round,
    Ruleset,
    RulesetError,
    card_code,
    card_label,
    card_name,
    get_preset,
    parse_card,
    parse_suit,
    rank_of,
    rules_help,
    sort_key,
    suit_code,
    suit_of,
)
from bot.engine import cpu as engine_cpu
from bot.service.clock import Clock, Timer
from bot.service.errors import EXPIRED, NO_LONGER_POSSIBLE, NO_TABLE, ServiceError
from bot.service.models import (
    CPU_LEVELS,
    Actor,
    CardChoice,
    HandCard,
    HandView,
    Intent,
    IntentKind,
    Outcome,
    Phase,
    RankingLine,
    SeatView,
    TableEvent,
    TableListener,
    TableSnapshot,
)
from bot.service.situation import situation_token, split_token
from bot.store.base import (
    ConflictError,
    MatchResult,
    RankingEntry,
    RoundResult,
    SeatRecord,
    Store,
    TableExistsError,
    TableRecord,
    TableStatus,
)

log = logging.getLogger(__name__)

STATE_FORMAT = 1
MIN_TURN_TIMEOUT = 15.0
MAX_TURN_TIMEOUT = 24 * 3600.0
DEFAULT_NEXT_ROUND_PAUSE = 10.0
MAX_NEXT_ROUND_PAUSE = 60.0
LOBBY_TTL = 30 * 60.0  # a lobby nobody starts closes itself
IDLE_TTL = 24 * 3600.0  # a table where no person acted for a day is abandoned
TIMEOUTS_BEFORE_TAKEOVER = 3
TAKEOVER_LEVEL = "normal"
RESTORE_GRACE = (
    30.0  # a turn whose deadline passed while the bot was down gets this long, at most its timeout
)
RECENT_EVENTS = 12
RETRY_DELAY = 30.0  # seconds before a table whose automatic move failed sets its timers again
MAX_STEPS_PER_MOVE = 400  # safety bound on referee/CPU action chains inside one move
_ON_TURN = (ActionKind.PLAY, ActionKind.DRAW, ActionKind.PASS, ActionKind.SUIT)
# Engine events not worth keeping in the board's "last plays".
_NOT_RECENT = {"turn", "dealt", "drew_cards", "round_started", "next_round_at"}


def _phase_of(doc: dict[str, Any]) -> Phase:
    phase: Phase = doc["phase"]
    return phase


@dataclass
class _Live:
    """A table kept in memory: the last committed state and what belongs to this process only."""

    record: TableRecord
    seats: list[SeatRecord]
    doc: dict[str, Any]  # the committed document, without "match"
    match: Match | None
    ruleset: Ruleset
    version: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timers: list[Timer] = field(default_factory=list)
    notes: dict[int, deque[TableEvent]] = field(default_factory=dict)  # user id -> latest private events
    # The snapshot of (version, record) last built: a move's answer, its hand refreshes and its board all
    # show the same committed state.
    snapshot_of: tuple[int, TableRecord, TableSnapshot] | None = None

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def phase(self) -> Phase:
        return _phase_of(self.doc)


@dataclass
class _Work:
    """A copy of a table's state being changed by one move; committed as a whole or thrown away."""

    live: _Live
    now: float
    doc: dict[str, Any]
    seats: list[SeatRecord]
    match: Match | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    public: list[TableEvent] = field(default_factory=list)
    private: dict[int, list[TableEvent]] = field(default_factory=dict)
    log_events: list[dict[str, Any]] = field(default_factory=list)
    seats_changed: bool = False
    status: TableStatus | None = None
    round_result: RoundResult | None = None
    match_result: MatchResult | None = None

    @property
    def phase(self) -> Phase:
        return _phase_of(self.doc)

    def say(self, kind: str, seat: int | None = None, **data: Any) -> None:
        event = TableEvent(kind, seat, data, "service")
        self.public.append(event)
        self.log_events.append({"kind": kind, "seat": seat, "data": data, "to": None})

    def tell(self, user_id: int, kind: str, seat: int | None = None, **data: Any) -> None:
        event = TableEvent(kind, seat, data, "service")
        self.private.setdefault(user_id, []).append(event)
        self.log_events.append({"kind": kind, "seat": seat, "data": data, "to": user_id})


class TableService:
    """The use cases of a Crazy Eights table, without Discord.

    ``listener.on_outcome`` receives what happens on its own (CPU moves, timeouts, the next round starting, a
    lobby expiring, an idle table abandoned); quick automatic moves within ``batch_window`` seconds are
    gathered into one outcome. ``cpu_delay``: seconds a CPU seat waits before it moves. ``rng`` seeds the
    deals (tests pass a seeded one)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        cpu_delay: float = 1.5,
        listener: TableListener | None = None,
        batch_window: float = 0.3,
        rng: random.Random | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._cpu_delay = max(0.0, cpu_delay)
        self._listener = listener
        self._batch_window = max(0.0, batch_window)
        self._rng = rng or random.Random()
        self._tables: dict[int, _Live] = {}
        self._by_channel: dict[int, int] = {}
        self._pending: dict[int, Outcome] = {}
        self._closing = False
        self._running: set[asyncio.Task[Any]] = set()

    def set_listener(self, listener: TableListener) -> None:
        """Attach the Discord layer's listener (when it is built after the service)."""
        self._listener = listener

    # ------------------------------------------------------------------------------------------------
    # Look-ups
    # ------------------------------------------------------------------------------------------------

    async def manager_role_id(self, guild_id: int) -> int | None:
        """The guild's manager role: a member with it counts as ``Actor.can_manage`` (as Manage Channels)."""
        settings = await self._store.get_guild_settings(guild_id)
        return settings.manager_role_id

    async def table_in_channel(self, channel_id: int) -> int | None:
        """The id of the channel's open table, or None."""
        table_id = self._by_channel.get(channel_id)
        if table_id is not None:
            return table_id
        record = await self._store.open_table_in_channel(channel_id)
        if record is None:
            return None
        live = await self._load(record.id)
        return None if live is None else live.id

    async def require_table(self, channel_id: int) -> int:
        """The id of the channel's open table; ServiceError("no_table") with how to open one otherwise."""
        table_id = await self.table_in_channel(channel_id)
        if table_id is None:
            raise ServiceError("no_table", NO_TABLE)
        return table_id

    async def snapshot(self, table_id: int) -> TableSnapshot:
        """The board of an open table (ServiceError "no_table" when it is closed or unknown)."""
        live = await self._require(table_id, None)
        return self._snapshot(live)

    async def scores(self, table_id: int) -> TableSnapshot:
        """The standings: the snapshot's ``totals``, ``round_scores`` and ``ranking`` (for a private
        reply)."""
        return await self.snapshot(table_id)

    async def rules_text(self, preset: str | None = None, table_id: int | None = None) -> str:
        """The rules help: of ``preset`` when given, else of the table's ruleset, else of classic."""
        if preset is not None:
            return rules_help(self._preset(preset))
        if table_id is not None:
            live = self._tables.get(table_id)
            if live is not None:
                return rules_help(live.ruleset)
        return rules_help(get_preset("classic"))

    @staticmethod
    def preset_names() -> list[str]:
        """The presets, in the order the choices list shows them."""
        return list(PRESETS)

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        """Remember the public board's message id (not a move)."""
        await self._store.set_board_message(table_id, message_id, self._clock.now())
        live = self._tables.get(table_id)
        if live is not None:
            live.record = dataclasses.replace(live.record, board_message_id=message_id)

    async def hand(self, table_id: int, user_id: int) -> HandView:
        """The player's private hand view, with every control that is legal now. In memory."""
        live = await self._require(table_id, None)
        position = self._position_of(live.seats, user_id)
        if position is None:
            raise ServiceError("not_seated", "You are not seated at this table.")
        if live.match is None:
            raise ServiceError("not_started", "The game hasn't started yet.")
        seat = live.seats[position]
        rnd = live.match.round
        playing = live.phase == "playing" and not rnd.over
        # A seat the CPU plays offers no controls: the person must take it back first.
        legal = list(rnd.legal_actions(position)) if playing and not seat.cpu_takeover else []
        plays: dict[int, list[Action]] = {}
        for action in legal:
            if action.kind == ActionKind.PLAY and action.card is not None:
                plays.setdefault(action.card, []).append(action)
        cards = tuple(
            HandCard(
                code=card_code(card),
                label=card_label(card),
                name=card_name(card),
                playable=card in plays,
                wild=rank_of(card) == live.ruleset.wild_rank,
            )
            for card in sorted(rnd.hand(position), key=sort_key)
        )
        kinds = {a.kind for a in legal}
        your_turn = playing and rnd.to_act == position and not seat.cpu_takeover
        turn = live.doc.get("turn")
        return HandView(
            table_id=live.id,
            round_token=self._hand_token(live, position),
            position=position,
            cards=cards,
            your_turn=your_turn,
            can_draw=ActionKind.DRAW in kinds,
            can_pass=ActionKind.PASS in kinds,
            must_name_suit=ActionKind.SUIT in kinds,
            can_call_last=ActionKind.CALL_LAST in kinds,
            catch_targets=tuple(
                sorted({a.target for a in legal if a.kind == ActionKind.CATCH and a.target is not None})
            ),
            taken_over=seat.cpu_takeover,
            deadline=turn["deadline"] if your_turn and turn and not seat.cpu_takeover else None,
            recent_private=tuple(live.notes.get(user_id, ())),
            snapshot=self._snapshot(live),
        )

    async def legal_card_choices(self, channel_id: int, user_id: int, current: str = "") -> list[CardChoice]:
        """Autocomplete for /eights play: on the user's turn exactly their legal cards (at most 25, filtered
        by what is typed so far); nothing when it is not their turn, they have no playable card, or there is
        no round. In memory, never raises."""
        table_id = self._by_channel.get(channel_id)
        live = self._tables.get(table_id) if table_id is not None else None
        if live is None or live.match is None or live.phase != "playing":
            return []
        position = self._position_of(live.seats, user_id)
        rnd = live.match.round
        if position is None or live.seats[position].cpu_takeover or rnd.over or rnd.to_act != position:
            return []
        cards: list[int] = []
        for action in rnd.legal_actions(position):
            if action.kind == ActionKind.PLAY and action.card is not None and action.card not in cards:
                cards.append(action.card)
        cards.sort(key=sort_key)
        typed = current.strip().lower()
        parsed: int | None = None
        if typed:
            try:
                parsed = parse_card(typed)
            except EngineError:
                parsed = None
        choices: list[CardChoice] = []
        for card in cards:
            label = f"{card_label(card)} {card_name(card)}"
            if (
                typed
                and card != parsed
                and not card_code(card).lower().startswith(typed)
                and not label.lower().startswith(typed)
                and typed not in card_name(card).lower()
            ):
                continue
            choices.append(CardChoice(value=card_code(card), label=label))
        return choices[:25]

    # ------------------------------------------------------------------------------------------------
    # Lobby use cases
    # ------------------------------------------------------------------------------------------------

    async def open_table(
        self,
        guild_id: int,
        channel_id: int,
        actor: Actor,
        preset: str | None = None,
        target: int | None = None,
        seats: int | None = None,
        turn_timeout: float | None = None,
        *,
        auto_draw: bool = True,
        next_round_pause: float | None = None,
    ) -> Outcome:
        """/eights new: open a table in the channel; the actor is host in seat 0.

        Errors: "wrong_channel" (the guild allows tables elsewhere; the message names the channels as <#id>),
        "table_exists" (``table_id`` is the open one), "bad_option" (unknown preset, target, seats outside 2
        to the ruleset's maximum, turn timeout outside 15 s – 24 h, pause outside 0–60 s)."""
        self._check_open()
        settings = await self._store.get_guild_settings(guild_id)
        if settings.allowed_channel_ids and channel_id not in settings.allowed_channel_ids:
            where = ", ".join(f"<#{c}>" for c in settings.allowed_channel_ids)
            raise ServiceError("wrong_channel", f"Tables can only be opened in {where}.")
        existing = await self.table_in_channel(channel_id)
        if existing is not None:
            raise _table_exists(existing)
        preset_name = preset or settings.default_preset
        ruleset = self._preset(preset_name)
        if target is not None:
            try:
                ruleset = ruleset.replace(target=target)
            except (RulesetError, TypeError, ValueError) as exc:
                raise ServiceError("bad_option", f"That target can't be used: {exc}") from None
        max_seats = ruleset.max_players
        capacity = max_seats if seats is None else seats
        low = max(2, ruleset.min_players)
        if not low <= capacity <= max_seats:
            raise ServiceError("bad_option", f"Seats must be between {low} and {max_seats}.")
        timeout = settings.default_turn_timeout if turn_timeout is None else float(turn_timeout)
        if not MIN_TURN_TIMEOUT <= timeout <= MAX_TURN_TIMEOUT:
            raise ServiceError("bad_option", "The turn timeout must be between 15 seconds and 24 hours.")
        pause = DEFAULT_NEXT_ROUND_PAUSE if next_round_pause is None else float(next_round_pause)
        if not 0 <= pause <= MAX_NEXT_ROUND_PAUSE:
            raise ServiceError("bad_option", "The pause between rounds must be between 0 and 60 seconds.")
        now = self._clock.now()
        host = SeatRecord(position=0, user_id=actor.user_id, display_name=actor.display_name, joined_at=now)
        doc: dict[str, Any] = {
            "format": STATE_FORMAT,
            "phase": "lobby",
            "host_id": actor.user_id,
            "seed": self._rng.randrange(1, 2**62),
            "timeouts": [0],
            "kicked": [],
            "recent": [],
            "round_winners": [],
            "opened_at": now,
            "last_human_at": now,
            "lobby_until": now + LOBBY_TTL,
            "pause_until": None,
            "turn": None,
        }
        options = {
            "preset": ruleset.name,
            "target": ruleset.target,
            "seats": capacity,
            "auto_draw": bool(auto_draw),
            "next_round_pause": pause,
        }
        try:
            record = await self._store.create_table(
                guild_id=guild_id,
                channel_id=channel_id,
                host=host,
                ruleset=ruleset.to_json(),
                options=options,
                turn_timeout=timeout,
                state={**doc, "match": None},
                deadline=doc["lobby_until"],
                now=now,
            )
        except TableExistsError as exc:
            raise _table_exists(exc.table_id) from None
        live = _Live(record=record, seats=[host], doc=doc, match=None, ruleset=ruleset, version=0)
        self._add_live(live)
        self._schedule(live)
        event = TableEvent(
            "opened", 0, {"user_id": actor.user_id, "name": actor.display_name, "preset": ruleset.name}
        )
        log.info("table %s opened in channel %s (%s)", record.id, channel_id, ruleset.name)
        return Outcome(self._snapshot(live), (event,), {})

    async def join(self, table_id: int, actor: Actor) -> Outcome:
        """/eights join: take a free seat in the lobby, or take back one's own seat from the CPU during a
        match.

        Errors: "already_seated", "full", "kicked", "started" (a match runs and the actor has no seat)."""

        def change(work: _Work) -> None:
            position = self._position_of(work.seats, actor.user_id)
            if actor.user_id in work.doc["kicked"]:
                raise ServiceError("kicked", "The host removed you from this table.")
            if work.phase == "lobby":
                if position is not None:
                    raise ServiceError("already_seated", "You are already seated at this table.")
                if len(work.seats) >= work.live.record.options.get("seats", work.live.ruleset.max_players):
                    raise ServiceError("full", "This table is full.")
                seat = SeatRecord(
                    position=len(work.seats),
                    user_id=actor.user_id,
                    display_name=actor.display_name,
                    joined_at=work.now,
                )
                work.seats.append(seat)
                work.doc["timeouts"].append(0)
                work.seats_changed = True
                work.say("joined", seat.position, user_id=actor.user_id, name=actor.display_name)
                return
            if position is None:
                raise ServiceError("started", "The game has already started; wait for the next table.")
            seat = work.seats[position]
            if not seat.cpu_takeover:
                raise ServiceError("already_seated", "You are already seated at this table.")
            work.seats[position] = dataclasses.replace(
                seat, cpu_takeover=False, cpu_level=None, display_name=actor.display_name, left_at=None
            )
            work.doc["timeouts"][position] = 0
            work.seats_changed = True
            work.say("rejoined", position, user_id=actor.user_id, name=actor.display_name)

        return await self._mutate(table_id, None, actor, {"kind": "join"}, change)

    async def leave(self, table_id: int, actor: Actor) -> Outcome:
        """/eights leave. In the lobby the seat is freed (the host's role passes to the next person; a lobby
        left with no person closes). During a match a CPU player (normal) takes the seat over; the player can
        take it back with join while the match lasts. Errors: "not_seated", "taken_over"."""

        def change(work: _Work) -> None:
            position = self._position_of(work.seats, actor.user_id)
            if position is None:
                raise ServiceError("not_seated", "You are not seated at this table.")
            if work.phase == "lobby":
                self._remove_seat(work, position)
                work.say("left", None, user_id=actor.user_id, name=actor.display_name)
                self._after_lobby_departure(work, actor.user_id)
                return
            if work.seats[position].cpu_takeover:
                raise ServiceError("taken_over", "A CPU player already has your seat.")
            self._take_over(work, position, "left")
            self._pass_host(work, actor.user_id)

        return await self._mutate(table_id, None, actor, {"kind": "leave"}, change)

    async def add_cpu(self, table_id: int, actor: Actor, level: str = "normal") -> Outcome:
        """/eights cpu [level]: the host (or a manager) adds a CPU seat in the lobby.
        Errors: "not_host", "not_lobby", "full", "bad_option" (unknown level)."""

        def change(work: _Work) -> None:
            self._check_host(work, actor)
            if work.phase != "lobby":
                raise ServiceError("not_lobby", "CPU players can only be added before the game starts.")
            if level not in CPU_LEVELS:
                raise ServiceError("bad_option", "The CPU level must be easy, normal or hard.")
            if len(work.seats) >= work.live.record.options.get("seats", work.live.ruleset.max_players):
                raise ServiceError("full", "This table is full.")
            number = sum(1 for s in work.seats if s.user_id is None) + 1
            seat = SeatRecord(
                position=len(work.seats),
                user_id=None,
                display_name=f"CPU {number}",
                cpu_level=level,
                joined_at=work.now,
            )
            work.seats.append(seat)
            work.doc["timeouts"].append(0)
            work.seats_changed = True
            work.say("cpu_added", seat.position, level=level, name=seat.display_name)

        return await self._mutate(table_id, None, actor, {"kind": "add_cpu", "level": level}, change)

    async def kick(self, table_id: int, actor: Actor, member_id: int) -> Outcome:
        """/eights kick member (host or manager): in the lobby the seat is freed; during a match a CPU player
        takes the seat over. A kicked member can't join this table again.
        Errors: "not_host", "not_seated" (the member has no seat), "kick_self"."""

        def change(work: _Work) -> None:
            self._check_host(work, actor)
            if member_id == actor.user_id:
                raise ServiceError("kick_self", "You can't kick yourself; use /eights leave.")
            position = self._position_of(work.seats, member_id)
            if position is None:
                raise ServiceError("not_seated", "That member is not seated at this table.")
            name = work.seats[position].display_name
            work.doc["kicked"].append(member_id)
            if work.phase == "lobby":
                self._remove_seat(work, position)
                work.say("kicked", None, user_id=member_id, name=name)
                self._after_lobby_departure(work, member_id)
                return
            work.say("kicked", position, user_id=member_id, name=name)
            if not work.seats[position].cpu_takeover:
                self._take_over(work, position, "kicked")
            self._pass_host(work, member_id)

        return await self._mutate(table_id, None, actor, {"kind": "kick", "member": member_id}, change)

    async def start(self, table_id: int, actor: Actor) -> Outcome:
        """/eights start (host or manager, at least two seats): deals round 1 of the match.
        Errors: "not_host", "not_lobby", "too_few"."""

        def change(work: _Work) -> None:
            self._check_host(work, actor)
            if work.phase != "lobby":
                raise ServiceError("not_lobby", "The game has already started.")
            ruleset = work.live.ruleset
            needed = max(2, ruleset.min_players)
            if len(work.seats) < needed:
                raise ServiceError("too_few", f"At least {needed} seats are needed to start.")
            count = len(work.seats)
            # The dealer is the last seat, so the host (seat 0, left of the dealer) leads the first round.
            work.match = Match.new(ruleset, count, seed=work.doc["seed"], dealer=count - 1)
            work.doc["phase"] = "playing"
            work.doc["lobby_until"] = None
            work.status = "playing"
            work.say("started", None, round_number=1, seats=count)
            work.say(
                "round_started",
                None,
                round_number=1,
                dealer=work.match.dealer,
                round_token=self._token(work.live.id, work.match),
            )

        return await self._mutate(table_id, None, actor, {"kind": "start"}, change)

    async def end(self, table_id: int, actor: Actor) -> Outcome:
        """/eights end (host or manager): abandon the table; no result is recorded. Errors: "not_host"."""

        def change(work: _Work) -> None:
            self._check_host(work, actor)
            self._close(work, "abandoned", "ended")

        return await self._mutate(table_id, None, actor, {"kind": "end"}, change)

    # ------------------------------------------------------------------------------------------------
    # Game use cases
    # ------------------------------------------------------------------------------------------------

    async def act(
        self, table_id: int, actor: Actor, intent: Intent, round_token: str | None = None
    ) -> Outcome:
        """A game action by a seated player: play (card, optional suit for a wild in the same step), draw,
        pass, suit, call last card, catch. ``round_token`` (from a button: ``HandView.round_token``) must be
        the current round's, else "This button has expired."; the situation it also carries must be the
        seat's current one, else "That move is no longer possible." (a double press: see
        ``bot.service.situation``). Typed commands pass None and act on the table as it is.

        Errors: engine errors with their code ("That card doesn't match the target. (907)"); "not_seated",
        "taken_over", "no_round" (lobby or between rounds), "expired", "stale" ("That move is no longer
        possible.": another move got in first, or the player's situation changed since the button was
        shown)."""
        round_token, situation = split_token(round_token)
        live = await self._require(table_id, round_token)
        seen_version = live.version

        def change(work: _Work) -> None:
            seated = self._position_of(work.seats, actor.user_id)
            if (
                situation is not None
                and seated is not None
                and not work.seats[seated].cpu_takeover
                and situation != self._situation(work.doc, work.match, seated)
            ):
                raise ServiceError("stale", NO_LONGER_POSSIBLE)
            if work.phase == "between_rounds":
                raise ServiceError("no_round", "The round is over; the next one starts soon.")
            if work.phase != "playing" or work.match is None or work.match.round.over:
                raise ServiceError("no_round", "The game hasn't started yet.")
            position = self._position_of(work.seats, actor.user_id)
            if position is None:
                raise ServiceError("not_seated", "You are not seated at this table.")
            if work.seats[position].cpu_takeover:
                raise ServiceError(
                    "taken_over", "A CPU player has your seat; use /eights join to take it back."
                )
            try:
                self._apply_intent(work, position, intent)
            except EngineError as exc:
                # A control offered only legal moves: refused now, the table moved on since it was shown.
                if work.live.version != seen_version or situation is not None:
                    raise ServiceError("stale", NO_LONGER_POSSIBLE) from None
                raise ServiceError(exc.code, f"{exc.message} ({exc.code})") from None
            work.doc["timeouts"][position] = 0
            work.doc["last_human_at"] = work.now

        action = {"kind": str(intent.kind), "card": intent.card, "suit": intent.suit, "target": intent.target}
        return await self._mutate(table_id, round_token, actor, action, change)

    async def next_round(self, table_id: int, actor: Actor, round_token: str | None = None) -> Outcome:
        """The "Next round" button (any seated player, between rounds): deal the next round now.
        Errors: "not_seated", "stale" (the round already started: a second press, or the pause ran out),
        "expired" (a button of an older round)."""

        def change(work: _Work) -> None:
            if self._position_of(work.seats, actor.user_id) is None:
                raise ServiceError("not_seated", "You are not seated at this table.")
            if work.phase != "between_rounds":
                raise ServiceError("stale", NO_LONGER_POSSIBLE)
            work.doc["last_human_at"] = work.now
            self._deal_next(work)

        try:
            return await self._mutate(table_id, round_token, actor, {"kind": "next_round"}, change)
        except ServiceError as error:
            live = self._tables.get(table_id)
            # The button of the round just over: the next round was dealt meanwhile.
            if (
                error.code == "expired"
                and live is not None
                and live.match is not None
                and round_token == self._round_token(table_id, live.match.round_number - 1)
            ):
                raise ServiceError("stale", NO_LONGER_POSSIBLE) from None
            raise

    # ------------------------------------------------------------------------------------------------
    # Start-up and shutdown
    # ------------------------------------------------------------------------------------------------

    async def restore_all(self) -> int:
        """Load every open table from the store and resume its timers with the time they had left (a CPU whose
        turn it is moves after the CPU delay). Call once at start-up before answering anything. Returns the
        number of tables restored."""
        count = 0
        for open_table in await self._store.load_open_tables():
            if open_table.table.id in self._tables:
                continue  # already loaded (restore_all called twice, or a request loaded it first)
            try:
                live = self._live_from(
                    open_table.table, open_table.seats, open_table.state.state, open_table.state.version
                )
            except Exception:
                log.exception("table %s: its stored state can't be loaded; left alone", open_table.table.id)
                continue
            self._add_live(live)
            self._schedule(live, restoring=True)
            count += 1
        log.info("restored %s open tables", count)
        return count

    async def close(self) -> None:
        """Stop every timer and wait for the moves in flight (used at shutdown). Nothing moves afterwards."""
        self._closing = True
        for live in self._tables.values():
            for timer in live.timers:
                timer.cancel()
            live.timers.clear()
        current = asyncio.current_task()
        others = [task for task in self._running if task is not current]
        if others:
            await asyncio.gather(*others, return_exceptions=True)
        for live in list(self._tables.values()):
            async with live.lock:
                pass

    # ------------------------------------------------------------------------------------------------
    # The mutation path
    # ------------------------------------------------------------------------------------------------

    async def _mutate(
        self,
        table_id: int,
        round_token: str | None,
        actor: Actor | None,
        action: dict[str, Any],
        change: Callable[[_Work], None],
    ) -> Outcome:
        self._check_open()
        live = await self._require(table_id, round_token)
        async with live.lock:
            if self._tables.get(table_id) is not live:
                if table_id in self._tables:  # reloaded after a lost race while this request waited
                    raise ServiceError("stale", NO_LONGER_POSSIBLE)
                raise ServiceError(
                    "expired" if round_token else "no_table", EXPIRED if round_token else NO_TABLE
                )
            if round_token is not None and round_token != self._token(live.id, live.match):
                raise ServiceError("expired", EXPIRED)
            work = self._work(live)
            change(work)
            if actor is not None:
                work.doc["last_human_at"] = work.now
            return await self._commit(live, work, actor.user_id if actor else None, action)

    def _work(self, live: _Live) -> _Work:
        match = live.match.clone() if live.match is not None else None
        return _Work(
            live=live,
            now=self._clock.now(),
            doc=_copy_doc(live.doc),
            seats=list(live.seats),
            match=match,
        )

    async def _commit(
        self, live: _Live, work: _Work, actor_id: int | None, action: dict[str, Any]
    ) -> Outcome:
        self._settle(work)
        doc = work.doc
        deadline = self._store_deadline(work)
        state = {**doc, "match": work.match.to_json() if work.match is not None else None}
        try:
            version = await self._store.commit_move(
                live.id,
                live.version,
                actor_id=actor_id,
                action={**action, "steps": work.steps},
                events=work.log_events,
                new_state=state,
                deadline=deadline,
                now=work.now,
                seats=work.seats if work.seats_changed else None,
                status=work.status,
                round_result=work.round_result,
                match_result=work.match_result,
            )
        except ConflictError:
            log.warning("table %s: state version moved on; reloading", live.id)
            await self._reload(live.id)
            raise ServiceError("stale", NO_LONGER_POSSIBLE) from None
        live.doc = doc
        live.seats = work.seats
        live.match = work.match
        live.version = version
        for user_id, events in work.private.items():
            notes = live.notes.setdefault(user_id, deque(maxlen=8))
            notes.extend(events)
        if work.status in ("finished", "abandoned"):
            self._drop_live(live)
        else:
            self._schedule(live)
        return Outcome(
            self._snapshot(live),
            tuple(work.public),
            {user: tuple(events) for user, events in work.private.items()},
        )

    def _settle(self, work: _Work) -> None:
        """What follows any move: the referee's automatic draws, the end of a round or match, the turn timer,
        the board's recent plays."""
        if work.phase == "playing" and work.match is not None:
            self._auto_draw(work)
            if work.match.round.over:
                self._finish_round(work)
        if work.phase == "playing" and work.match is not None:
            rnd = work.match.round
            seat = rnd.to_act
            if seat is not None and not self._is_cpu(work.seats[seat]):
                key = [work.match.round_number, rnd.turn_number, seat]
                turn = work.doc.get("turn")
                if not turn or turn.get("key") != key:
                    work.doc["turn"] = {"key": key, "deadline": work.now + work.live.record.turn_timeout}
            else:
                work.doc["turn"] = None
        else:
            work.doc["turn"] = None
        recent: list[dict[str, Any]] = work.doc["recent"]
        for event in work.public:
            if event.kind not in _NOT_RECENT:
                recent.append(
                    {"kind": event.kind, "seat": event.seat, "data": dict(event.data), "source": event.source}
                )
        del recent[:-RECENT_EVENTS]

    def _store_deadline(self, work: _Work) -> float | None:
        times = [work.doc["last_human_at"] + IDLE_TTL]
        turn = work.doc.get("turn")
        if turn:
            times.append(turn["deadline"])
        for key in ("pause_until", "lobby_until"):
            if work.doc.get(key) is not None:
                times.append(work.doc[key])
        return min(times) if work.status not in ("finished", "abandoned") else None

    # ------------------------------------------------------------------------------------------------
    # Engine steps
    # ------------------------------------------------------------------------------------------------

    def _apply(self, work: _Work, action: Action) -> None:
        assert work.match is not None
        events = work.match.apply(action)
        work.steps.append(action.to_json())
        for event in events:
            self._route(work, event)

    def _route(self, work: _Work, event: Any) -> None:
        data = dict(event.data)
        table_event = TableEvent(str(event.kind), event.seat, data, "engine")
        visible_to = event.visible_to
        if visible_to is None:
            work.public.append(table_event)
            work.log_events.append({"kind": table_event.kind, "seat": event.seat, "data": data, "to": None})
            return
        seat = work.seats[visible_to] if 0 <= visible_to < len(work.seats) else None
        user_id = seat.user_id if seat is not None else None
        work.log_events.append(
            {"kind": table_event.kind, "seat": event.seat, "data": data, "to": user_id, "to_seat": visible_to}
        )
        if user_id is not None:
            work.private.setdefault(user_id, []).append(table_event)

    def _apply_intent(self, work: _Work, position: int, intent: Intent) -> None:
        assert work.match is not None
        rnd = work.match.round
        kind = intent.kind
        if kind == IntentKind.PLAY:
            if intent.card is None:
                raise EngineError(903)
            card = parse_card(intent.card)
            suit = parse_suit(intent.suit) if intent.suit else None
            legal = rnd.legal_actions(position)
            exact = Action.play(position, card, suit)
            plain = Action.play(position, card)
            if suit is not None and exact not in legal and plain in legal:
                # The engine names a wild's suit in a second step: do both in this move.
                self._apply(work, plain)
                follow = Action.name_suit(position, suit)
                if work.match.round.to_act == position and follow in work.match.round.legal_actions(position):
                    self._apply(work, follow)
                return
            if suit is None and exact not in legal:
                with_suit = [
                    a for a in legal if a.kind == ActionKind.PLAY and a.card == card and a.suit is not None
                ]
                if with_suit:
                    raise ServiceError("need_suit", "Name a suit with that card (suit option).")
            self._apply(work, exact)
        elif kind == IntentKind.DRAW:
            self._apply(work, Action.draw(position))
        elif kind == IntentKind.PASS:
            self._apply(work, Action.pass_(position))
        elif kind == IntentKind.SUIT:
            if intent.suit is None:
                raise EngineError(906)
            self._apply(work, Action.name_suit(position, parse_suit(intent.suit)))
        elif kind == IntentKind.CALL_LAST:
            self._apply(work, Action.call_last(position))
        elif kind == IntentKind.CATCH:
            if intent.target is None:
                raise EngineError(923)
            self._apply(work, Action.catch(position, intent.target))
        else:  # pragma: no cover - IntentKind is closed
            raise EngineError(924)

    def _auto_draw(self, work: _Work) -> None:
        """Seed 000's referee convenience (table option, on by default): a person to move with no legal play
        has cards drawn for them as the rules require (and is passed when, after drawing, passing is all that
        is left)."""
        assert work.match is not None
        if not work.live.record.options.get("auto_draw", True):
            return
        drawn: dict[int, int] = {}
        for _ in range(MAX_STEPS_PER_MOVE):
            rnd = work.match.round
            seat = rnd.to_act
            if rnd.over or seat is None or self._is_cpu(work.seats[seat]):
                break
            # A drawing referee would close an uncalled last card's catch window at once: leave the draw to
            # the player, so the others get their chance to catch.
            if rnd.last_card_open is not None and rnd.last_card_open != seat:
                break
            legal = [a for a in rnd.legal_actions(seat) if a.kind in _ON_TURN]
            kinds = {a.kind for a in legal}
            if not legal or ActionKind.PLAY in kinds or ActionKind.SUIT in kinds:
                break
            if ActionKind.DRAW in kinds:
                before = rnd.hand_sizes[seat]
                self._apply(work, Action.draw(seat))
                drawn[seat] = drawn.get(seat, 0) + max(0, work.match.round.hand_sizes[seat] - before)
                if work.match.round.to_act != seat or work.match.round.over:
                    self._note_auto_draw(work, seat, drawn.pop(seat))
                continue
            if kinds == {ActionKind.PASS} and drawn.get(seat):
                self._note_auto_draw(work, seat, drawn.pop(seat))
                self._apply(work, Action.pass_(seat))
                work.say("auto_passed", seat)
                continue
            break
        for seat, count in drawn.items():
            self._note_auto_draw(work, seat, count)

    @staticmethod
    def _note_auto_draw(work: _Work, seat: int, count: int) -> None:
        work.say("auto_drew", seat, count=count)

    def _referee_turn(self, work: _Work, seat: int) -> int:
        """The referee acts for a person whose time ran out, as the rules force: name a suit if one is owed,
        pass when passing is allowed, take a pending draw, draw while nothing is playable, and otherwise play
        (a playable drawn card must be played). Returns the number of cards drawn."""
        assert work.match is not None
        drawn = 0
        for _ in range(MAX_STEPS_PER_MOVE):
            rnd = work.match.round
            if rnd.over or rnd.to_act != seat:
                break
            action = _referee_action(rnd, seat)
            if action is None:
                break
            before = rnd.hand_sizes[seat]
            self._apply(work, action)
            if action.kind == ActionKind.DRAW:
                drawn += max(0, work.match.round.hand_sizes[seat] - before)
        return drawn

    def _finish_round(self, work: _Work) -> None:
        assert work.match is not None
        match = work.match
        rnd = match.round
        number = match.round_number
        scores = list(rnd.scores or [0] * len(work.seats))
        winners = list(rnd.winners)
        work.doc["round_winners"].append(winners)
        work.round_result = RoundResult(round_number=number, scores=scores, winners=winners)
        work.say(
            "round_result",
            None,
            round_number=number,
            scores=scores,
            totals=list(match.totals),
            winners=winners,
        )
        if match.over:
            ranking = self._ranking_lines(match, work.seats)
            work.match_result = self._match_result(work, ranking)
            work.say("match_over", None, ranking=[dataclasses.asdict(line) for line in ranking])
            self._close(work, "finished", "finished")
            return
        work.doc["phase"] = "between_rounds"
        pause = float(work.live.record.options.get("next_round_pause", DEFAULT_NEXT_ROUND_PAUSE))
        work.doc["pause_until"] = work.now + pause
        work.say(
            "next_round_at", None, at=work.doc["pause_until"], round_token=self._token(work.live.id, match)
        )

    def _deal_next(self, work: _Work) -> None:
        assert work.match is not None
        events = work.match.start_next_round()
        work.steps.append({"kind": "start_next_round"})
        work.doc["phase"] = "playing"
        work.doc["pause_until"] = None
        work.say(
            "round_started",
            None,
            round_number=work.match.round_number,
            dealer=work.match.dealer,
            round_token=self._token(work.live.id, work.match),
        )
        for event in events:
            self._route(work, event)

    def _match_result(self, work: _Work, ranking: Sequence[RankingLine]) -> MatchResult:
        assert work.match is not None
        round_wins: dict[int, int] = {}
        for winners in work.doc["round_winners"]:
            for seat in winners:
                round_wins[seat] = round_wins.get(seat, 0) + 1
        round_points: dict[int, int] = {}
        for scores in work.match.round_scores:
            for seat, score in enumerate(scores):
                round_points[seat] = round_points.get(seat, 0) + score
        return MatchResult(
            preset=str(work.live.record.options.get("preset", work.live.ruleset.name)),
            rounds_played=work.match.round_number,
            ranking=[
                RankingEntry(
                    position=line.position,
                    user_id=line.user_id,
                    display_name=line.name,
                    place=line.place,
                    total=line.total,
                )
                for line in ranking
            ],
            round_wins=round_wins,
            round_points=round_points,
        )

    # ------------------------------------------------------------------------------------------------
    # Seats and the lobby
    # ------------------------------------------------------------------------------------------------

    @staticmethod
    def _position_of(seats: Iterable[SeatRecord], user_id: int) -> int | None:
        for seat in seats:
            if seat.user_id == user_id:
                return seat.position
        return None

    @staticmethod
    def _is_cpu(seat: SeatRecord) -> bool:
        return seat.user_id is None or seat.cpu_takeover

    def _check_host(self, work: _Work, actor: Actor) -> None:
        if actor.user_id != work.doc["host_id"] and not actor.can_manage:
            raise ServiceError(
                "not_host", "Only the host (or someone who can manage the channel) can do that."
            )

    @staticmethod
    def _remove_seat(work: _Work, position: int) -> None:
        del work.seats[position]
        del work.doc["timeouts"][position]
        work.seats = [dataclasses.replace(seat, position=i) for i, seat in enumerate(work.seats)]
        work.seats_changed = True

    def _after_lobby_departure(self, work: _Work, user_id: int) -> None:
        if not any(seat.user_id is not None for seat in work.seats):
            self._close(work, "abandoned", "empty")
            return
        self._pass_host(work, user_id)

    @staticmethod
    def _pass_host(work: _Work, leaving_id: int) -> None:
        """The host role goes to the first person still playing their own seat, when the host leaves."""
        if work.doc["host_id"] != leaving_id:
            return
        for seat in work.seats:
            if seat.user_id is not None and seat.user_id != leaving_id and not seat.cpu_takeover:
                work.doc["host_id"] = seat.user_id
                work.say("host_changed", seat.position, user_id=seat.user_id, name=seat.display_name)
                return

    @staticmethod
    def _take_over(work: _Work, position: int, reason: str) -> None:
        seat = work.seats[position]
        work.seats[position] = dataclasses.replace(
            seat, cpu_takeover=True, cpu_level=TAKEOVER_LEVEL, left_at=work.now
        )
        work.seats_changed = True
        work.say(
            "taken_over",
            position,
            user_id=seat.user_id,
            name=seat.display_name,
            reason=reason,
            level=TAKEOVER_LEVEL,
        )
        if seat.user_id is not None:
            work.tell(seat.user_id, "taken_over", position, reason=reason, level=TAKEOVER_LEVEL)

    def _close(self, work: _Work, status: Literal["finished", "abandoned"], reason: str) -> None:
        work.doc["phase"] = status
        work.doc["turn"] = None
        work.doc["pause_until"] = None
        work.doc["lobby_until"] = None
        work.status = status
        work.say("closed", None, reason=reason)

    # ------------------------------------------------------------------------------------------------
    # Timers
    # ------------------------------------------------------------------------------------------------

    def _schedule(self, live: _Live, *, restoring: bool = False) -> None:
        for timer in live.timers:
            timer.cancel()
        live.timers.clear()
        if self._closing:
            return
        now = self._clock.now()
        version = live.version
        doc = live.doc

        def at(when: float, handler: Callable[[int, int], Any]) -> None:
            live.timers.append(self._clock.call_later(when - now, self._guarded(handler, live.id, version)))

        at(doc["last_human_at"] + IDLE_TTL, self._on_idle)
        phase = live.phase
        if phase == "lobby" and doc.get("lobby_until") is not None:
            at(doc["lobby_until"], self._on_lobby_expired)
        elif phase == "between_rounds" and doc.get("pause_until") is not None:
            at(doc["pause_until"], self._on_pause_over)
        elif phase == "playing" and live.match is not None:
            turn = doc.get("turn")
            if turn:
                deadline = float(turn["deadline"])
                if restoring and deadline < now:
                    deadline = now + min(RESTORE_GRACE, live.record.turn_timeout)
                at(deadline, self._on_turn_timeout)
            if self._cpu_has_move(live):
                at(now + self._cpu_delay, self._on_cpu)

    def _guarded(self, handler: Callable[[int, int], Any], table_id: int, version: int) -> Callable[[], Any]:
        async def run() -> None:
            task = asyncio.current_task()
            if task is not None:
                self._running.add(task)
            try:
                if not self._closing:
                    await handler(table_id, version)
            except ServiceError:
                pass  # the table moved on meanwhile
            except Exception:
                log.exception(
                    "table %s: timer failed; its timers are set again in %ss", table_id, RETRY_DELAY
                )
                self._retry_later(table_id)
            finally:
                if task is not None:
                    self._running.discard(task)

        return run

    def _retry_later(self, table_id: int) -> None:
        """After a failed automatic move (e.g. the database was briefly unavailable) the table would wait
        forever: set its timers again a little later."""

        async def retry() -> None:
            live = self._tables.get(table_id)
            if live is not None and not self._closing:
                self._schedule(live, restoring=True)

        self._clock.call_later(RETRY_DELAY, retry)

    def _cpu_has_move(self, live: _Live) -> bool:
        assert live.match is not None
        rnd = live.match.round
        if rnd.over:
            return False
        if rnd.to_act is not None and self._is_cpu(live.seats[rnd.to_act]):
            return True
        return any(
            self._is_cpu(seat) and seat.position != rnd.to_act and rnd.legal_actions(seat.position)
            for seat in live.seats
        )

    async def _on_idle(self, table_id: int, version: int) -> None:
        def change(work: _Work) -> None:
            self._close(work, "abandoned", "idle")

        await self._automatic(table_id, version, {"kind": "idle"}, change)

    async def _on_lobby_expired(self, table_id: int, version: int) -> None:
        def change(work: _Work) -> None:
            if work.phase == "lobby":
                self._close(work, "abandoned", "lobby_expired")

        await self._automatic(table_id, version, {"kind": "lobby_expired"}, change)

    async def _on_pause_over(self, table_id: int, version: int) -> None:
        def change(work: _Work) -> None:
            if work.phase == "between_rounds":
                self._deal_next(work)

        await self._automatic(table_id, version, {"kind": "next_round"}, change)

    async def _on_turn_timeout(self, table_id: int, version: int) -> None:
        def change(work: _Work) -> None:
            assert work.match is not None
            seat = work.match.round.to_act
            if seat is None or self._is_cpu(work.seats[seat]):
                return
            record = work.seats[seat]
            drawn = self._referee_turn(work, seat)
            work.doc["timeouts"][seat] += 1
            in_a_row = work.doc["timeouts"][seat]
            work.say(
                "timed_out",
                seat,
                user_id=record.user_id,
                name=record.display_name,
                in_a_row=in_a_row,
                count=drawn,
            )
            if in_a_row >= TIMEOUTS_BEFORE_TAKEOVER:
                self._take_over(work, seat, "timeouts")
                if record.user_id is not None:
                    # An absent host would leave nobody but managers able to end the table.
                    self._pass_host(work, record.user_id)

        await self._automatic(table_id, version, {"kind": "timeout"}, change)

    async def _on_cpu(self, table_id: int, version: int) -> None:
        """A CPU seat's turn (or out-of-turn reaction). The decision is made on a copy outside the table's
        lock (the hard level runs in a thread); it is applied only if the table has not moved meanwhile."""
        live = self._tables.get(table_id)
        if live is None or live.version != version or live.match is None:
            return
        work = self._work(live)
        assert work.match is not None
        seed_base = (int(live.doc["seed"]) * 1_000_003 + version * 7919) % 2**62
        rnd = work.match.round
        reacted = False
        for seat in work.seats:
            if not self._is_cpu(seat) or seat.position == rnd.to_act or not rnd.legal_actions(seat.position):
                continue
            reaction = engine_cpu.react(rnd, seat.position, _level(seat), seed=seed_base + seat.position)
            if reaction is not None:
                self._apply_safely(work, reaction, seat.position)
                reacted = True
                break
        if not reacted:
            seat_no = rnd.to_act
            if seat_no is None or not self._is_cpu(work.seats[seat_no]):
                return
            level = _level(work.seats[seat_no])
            for step in range(MAX_STEPS_PER_MOVE):
                rnd = work.match.round
                if rnd.over or rnd.to_act != seat_no:
                    break
                seed = seed_base + 17 * step
                action = await self._cpu_choice(rnd, seat_no, level, seed)
                if action is None:
                    break
                self._apply_safely(work, action, seat_no)
                rnd = work.match.round
                # Call one's own last card at once, before anyone else can act.
                if not rnd.over and rnd.to_act != seat_no and rnd.legal_actions(seat_no):
                    own = engine_cpu.react(rnd, seat_no, level, seed=seed + 1)
                    if own is not None and own.kind == ActionKind.CALL_LAST:
                        self._apply_safely(work, own, seat_no)
        if not work.steps:
            return
        await self._automatic(table_id, version, {"kind": "cpu"}, lambda w: None, prepared=work)

    @staticmethod
    async def _cpu_choice(rnd: Round, seat: int, level: str, seed: int) -> Action | None:
        """The CPU's decision; the hard level searches in a thread so the bot keeps answering. A CPU that
        fails is replaced by the referee's choice, so a bug there cannot stall the table."""
        try:
            if level == "hard":
                action: Action = await asyncio.to_thread(
                    engine_cpu.choose_action, rnd.clone(), seat, level, seed=seed
                )
            else:
                action = engine_cpu.choose_action(rnd, seat, level, seed=seed)
            return action
        except Exception:
            log.exception("CPU seat %s (%s) failed to decide; the referee moves for it", seat, level)
            return _referee_action(rnd, seat)

    def _apply_safely(self, work: _Work, action: Action, seat: int) -> None:
        assert work.match is not None
        try:
            self._apply(work, action)
        except EngineError as exc:
            # A CPU choice the engine refuses is a bug in the CPU; the referee's choice keeps the game going.
            log.error("table %s: CPU seat %s chose an illegal action (%s)", work.live.id, seat, exc.code)
            fallback = _referee_action(work.match.round, seat)
            if fallback is not None:
                self._apply(work, fallback)

    async def _automatic(
        self,
        table_id: int,
        version: int,
        action: dict[str, Any],
        change: Callable[[_Work], None],
        *,
        prepared: _Work | None = None,
    ) -> None:
        live = self._tables.get(table_id)
        if live is None:
            return
        async with live.lock:
            if self._closing or self._tables.get(table_id) is not live or live.version != version:
                return
            work = prepared if prepared is not None else self._work(live)
            work.now = self._clock.now()
            change(work)
            if prepared is None and not work.public and not work.steps and work.status is None:
                return
            try:
                outcome = await self._commit(live, work, None, action)
            except ServiceError:
                return
        self._push(outcome)

    # ------------------------------------------------------------------------------------------------
    # The listener
    # ------------------------------------------------------------------------------------------------

    def _push(self, outcome: Outcome) -> None:
        if self._listener is None:
            return
        table_id = outcome.table_id
        pending = self._pending.get(table_id)
        if pending is None:
            self._pending[table_id] = outcome
            self._clock.call_later(self._batch_window, self._flusher(table_id))
            return
        private: dict[int, tuple[TableEvent, ...]] = dict(pending.private_events)
        for user, events in outcome.private_events.items():
            private[user] = private.get(user, ()) + events
        self._pending[table_id] = Outcome(
            outcome.snapshot, pending.public_events + outcome.public_events, private
        )

    def _flusher(self, table_id: int) -> Callable[[], Any]:
        async def flush() -> None:
            outcome = self._pending.pop(table_id, None)
            if outcome is None or self._listener is None:
                return
            live = self._tables.get(table_id)
            if live is not None:
                # The board shows the table as it is now, not as it was when the first move was gathered.
                outcome = Outcome(self._snapshot(live), outcome.public_events, outcome.private_events)
            try:
                await self._listener.on_outcome(outcome)
            except Exception:
                log.exception("table %s: listener failed", table_id)

        return flush

    # ------------------------------------------------------------------------------------------------
    # Loading
    # ------------------------------------------------------------------------------------------------

    async def _require(self, table_id: int, round_token: str | None) -> _Live:
        live = self._tables.get(table_id)
        if live is None:
            live = await self._load(table_id)
        if live is None:
            if round_token is not None:
                raise ServiceError("expired", EXPIRED)
            raise ServiceError("no_table", NO_TABLE)
        return live

    async def _load(self, table_id: int) -> _Live | None:
        live = self._tables.get(table_id)
        if live is not None:
            return live
        record = await self._store.get_table(table_id)
        if record is None or record.status not in ("lobby", "playing"):
            return None
        seats = await self._store.list_seats(table_id)
        state = await self._store.get_state(table_id)
        if state is None:
            return None
        live = self._tables.get(table_id)  # loaded by someone else meanwhile
        if live is not None:
            return live
        live = self._live_from(record, seats, state.state, state.version)
        self._add_live(live)
        self._schedule(live, restoring=True)
        return live

    async def _reload(self, table_id: int) -> None:
        live = self._tables.get(table_id)
        if live is not None:
            self._drop_live(live)
        await self._load(table_id)

    def _live_from(
        self, record: TableRecord, seats: list[SeatRecord], state: dict[str, Any], version: int
    ) -> _Live:
        doc = {key: value for key, value in state.items() if key != "match"}
        match = Match.from_json(state["match"]) if state.get("match") is not None else None
        return _Live(
            record=record,
            seats=sorted(seats, key=lambda s: s.position),
            doc=doc,
            match=match,
            ruleset=Ruleset.from_json(record.ruleset),
            version=version,
        )

    def _add_live(self, live: _Live) -> None:
        self._tables[live.id] = live
        self._by_channel[live.record.channel_id] = live.id

    def _drop_live(self, live: _Live) -> None:
        for timer in live.timers:
            timer.cancel()
        live.timers.clear()
        if self._tables.get(live.id) is live:
            del self._tables[live.id]
        if self._by_channel.get(live.record.channel_id) == live.id:
            del self._by_channel[live.record.channel_id]

    def _check_open(self) -> None:
        if self._closing:
            raise ServiceError("closing", "The bot is restarting; try again in a moment.")

    @staticmethod
    def _preset(name: str) -> Ruleset:
        try:
            return get_preset(name)
        except (RulesetError, KeyError):
            names = ", ".join(PRESETS)
            raise ServiceError("bad_option", f"Unknown preset. Choose one of: {names}.") from None

    # ------------------------------------------------------------------------------------------------
    # The board
    # ------------------------------------------------------------------------------------------------

    @staticmethod
    def _token(table_id: int, match: Match | None) -> str:
        """The round token buttons carry: the table and the round (0 in the lobby)."""
        return TableService._round_token(table_id, match.round_number if match is not None else 0)

    @staticmethod
    def _round_token(table_id: int, round_number: int) -> str:
        return f"{table_id}:{round_number}"

    def _hand_token(self, live: _Live, position: int) -> str:
        """The token a hand's controls carry: the round's, then the seat's situation."""
        return f"{self._token(live.id, live.match)}:{self._situation(live.doc, live.match, position)}"

    @staticmethod
    def _situation(doc: dict[str, Any], match: Match | None, position: int) -> str:
        if match is None:
            return ""
        live = _phase_of(doc) == "playing" and not match.round.over
        return situation_token(int(doc["seed"]), match, position, live=live)

    @staticmethod
    def _ranking_lines(match: Match, seats: Sequence[SeatRecord]) -> list[RankingLine]:
        return [
            RankingLine(
                place=place,
                position=seat,
                name=seats[seat].display_name,
                total=total,
                user_id=seats[seat].user_id,
            )
            for place, seat, total in match.ranking()
        ]

    def _snapshot(self, live: _Live) -> TableSnapshot:
        cached = live.snapshot_of
        if cached is not None and cached[0] == live.version and cached[1] is live.record:
            return cached[2]
        snapshot = self._build_snapshot(live)
        live.snapshot_of = (live.version, live.record, snapshot)
        return snapshot

    def _build_snapshot(self, live: _Live) -> TableSnapshot:
        doc = live.doc
        match = live.match
        rnd = match.round if match is not None else None
        phase = live.phase
        playing = phase == "playing" and rnd is not None and not rnd.over
        to_act = rnd.to_act if playing and rnd is not None else None
        counts = list(rnd.hand_sizes) if rnd is not None else None
        totals = tuple(match.totals) if match is not None else tuple(0 for _ in live.seats)
        round_scores = tuple(tuple(row) for row in match.round_scores) if match is not None else ()
        last_scores = round_scores[-1] if round_scores else None
        seats = tuple(
            SeatView(
                position=seat.position,
                user_id=seat.user_id,
                name=seat.display_name,
                is_host=seat.user_id is not None and seat.user_id == doc["host_id"],
                is_cpu=self._is_cpu(seat),
                cpu_level=seat.cpu_level,
                taken_over=seat.cpu_takeover,
                card_count=counts[seat.position] if counts is not None else None,
                total=totals[seat.position] if seat.position < len(totals) else 0,
                last_round_score=last_scores[seat.position] if last_scores is not None else None,
                to_act=to_act == seat.position,
                timeouts_in_a_row=doc["timeouts"][seat.position]
                if seat.position < len(doc["timeouts"])
                else 0,
            )
            for seat in live.seats
        )
        deadline: float | None = None
        deadline_kind: Literal["turn", "pause", "lobby"] | None = None
        if phase == "playing" and doc.get("turn"):
            deadline, deadline_kind = float(doc["turn"]["deadline"]), "turn"
        elif phase == "between_rounds" and doc.get("pause_until") is not None:
            deadline, deadline_kind = float(doc["pause_until"]), "pause"
        elif phase == "lobby" and doc.get("lobby_until") is not None:
            deadline, deadline_kind = float(doc["lobby_until"]), "lobby"
        declared = rnd.declared_suit if rnd is not None else None
        status: Literal["lobby", "playing", "finished", "abandoned"]
        if phase in ("finished", "abandoned"):
            status = "finished" if phase == "finished" else "abandoned"
        elif phase == "lobby":
            status = "lobby"
        else:
            status = "playing"
        options = live.record.options
        return TableSnapshot(
            table_id=live.id,
            guild_id=live.record.guild_id,
            channel_id=live.record.channel_id,
            host_id=int(doc["host_id"]),
            status=status,
            phase=phase,
            preset=str(options.get("preset", live.ruleset.name)),
            target_score=live.ruleset.target,
            max_seats=int(options.get("seats", live.ruleset.max_players)),
            turn_timeout=live.record.turn_timeout,
            auto_draw=bool(options.get("auto_draw", True)),
            next_round_pause=float(options.get("next_round_pause", DEFAULT_NEXT_ROUND_PAUSE)),
            seats=seats,
            round_number=match.round_number if match is not None else 0,
            round_token=self._token(live.id, match),
            target_card=card_code(rnd.target) if rnd is not None else None,
            declared_suit=suit_code(declared) if declared is not None else None,
            direction=rnd.direction if rnd is not None else 1,
            pending_draw=rnd.pending_draw if rnd is not None else 0,
            stock_size=rnd.stock_size if rnd is not None else 0,
            to_act=to_act,
            deadline=deadline,
            deadline_kind=deadline_kind,
            totals=totals,
            round_scores=round_scores,
            recent=tuple(
                TableEvent(e["kind"], e.get("seat"), e.get("data", {}), e.get("source", "service"))
                for e in doc.get("recent", ())
            ),
            ranking=tuple(self._ranking_lines(match, live.seats)) if match is not None else (),
            board_message_id=live.record.board_message_id,
            has_last_card=live.ruleset.has_last_card,
        )


def _copy_doc(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of a table's document that a move may change without touching the committed one. Moves change
    the document only at its top level: they set keys and append to or delete from its top-level lists and
    dicts ("timeouts", "kicked", "recent", "round_winners"), never inside their items (a "turn" or a recent
    event is replaced, not edited). So a copy one level deep is enough, and many times cheaper than a deepcopy
    on every move."""
    return {
        key: list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
        for key, value in doc.items()
    }


def _level(seat: SeatRecord) -> str:
    return seat.cpu_level or TAKEOVER_LEVEL


def _table_exists(table_id: int) -> ServiceError:
    return ServiceError(
        "table_exists",
        "There is already a table open in this channel: join it with /eights join.",
        table_id=table_id,
    )


def _best_suit(hand: Sequence[int]) -> int:
    counts = [0, 0, 0, 0]
    for card in hand:
        counts[suit_of(card)] += 1
    return max(range(4), key=lambda s: (counts[s], -s))


def _referee_action(rnd: Round, seat: int) -> Action | None:
    """The action the referee takes for a seat that did not act in time (see ``_referee_turn``)."""
    legal: list[Action] = [a for a in rnd.legal_actions(seat) if a.kind in _ON_TURN]
    if not legal:
        return None
    by_kind: dict[ActionKind, list[Action]] = {}
    for action in legal:
        by_kind.setdefault(action.kind, []).append(action)
    suit = _best_suit(rnd.hand(seat))
    if ActionKind.SUIT in by_kind:
        named = [a for a in by_kind[ActionKind.SUIT] if a.suit == suit]
        return (named or by_kind[ActionKind.SUIT])[0]
    if ActionKind.PASS in by_kind:
        return by_kind[ActionKind.PASS][0]
    if ActionKind.DRAW in by_kind and (rnd.pending_draw > 0 or ActionKind.PLAY not in by_kind):
        return by_kind[ActionKind.DRAW][0]
    plays = by_kind.get(ActionKind.PLAY, [])
    if plays:
        plain = [a for a in plays if a.suit is None] or plays
        named = [a for a in plain if a.suit is None or a.suit == suit]
        return sorted(named or plain, key=lambda a: sort_key(a.card) if a.card is not None else 0)[0]
    return by_kind[ActionKind.DRAW][0] if ActionKind.DRAW in by_kind else None


__all__ = ["TableService"]
