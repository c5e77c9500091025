"""What a table is while this process holds it: the committed state in memory (``LiveTable``), the copy one
move works on (``Work``), and the small facts about seats that every part of the service asks.

The document stored as a table's state::

    {"format": 1, "phase": "lobby" | "playing" | "between_rounds" | ..., "host_id": int, "seed": int,
     "match": Match.to_json() | None, "timeouts": [int per seat], "kicked": [user ids], "recent": [events],
     "round_winners": [[seats] per round], "opened_at": t, "last_human_at": t, "lobby_until": t | None,
     "pause_until": t | None, "turn": {"key": [round, turn, seat], "deadline": t} | None}

Deadlines are absolute Unix seconds, so after a restart each timer resumes with the time it had left. While
the bot runs, each is timed on the monotonic clock (``LiveTable.due_at``); the wall clock set on or back
meanwhile (NTP, a resumed VM) is caught up with before the next move is stored or the board shown again
(``restate_times``), so the document always says, on the wall clock as it is, when each time runs out.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.engine import PRESETS, Match, Ruleset
from bot.engine.crazier import PRESET_NAME as CRAZIER
from bot.engine.crazier import CrazierMatch, CrazierRules
from bot.service.clock import Timer
from bot.service.errors import NOT_SEATED, REMOVED, ServiceError
from bot.service.models import Phase, TableEvent, TableSnapshot
from bot.store.base import MatchResult, RoundResult, SeatRecord, TableRecord, TableStatus

STATE_FORMAT = 1
DEFAULT_NEXT_ROUND_PAUSE = 10.0
IDLE_TTL = 24 * 3600.0  # a table where no person acted for a day is abandoned
# A time whose wall value and monotonic due time disagree by more than this was set before the wall clock was
# set on or back: it is re-stated (``restate_times``). Below it, the two clocks' drift is not worth a redraw.
CLOCK_SET_TOLERANCE = 1.0
TAKEOVER_LEVEL = "normal"  # the CPU level that plays a seat its person left or lost to timeouts


def phase_of(doc: dict[str, Any]) -> Phase:
    phase: Phase = doc["phase"]
    return phase


@dataclass
class LiveTable:
    """A table kept in memory: the last committed state and what belongs to this process only."""

    record: TableRecord
    seats: list[SeatRecord]
    doc: dict[str, Any]  # the committed document, without "match"
    match: Match | None
    ruleset: Ruleset | CrazierRules
    version: int
    # A crazier-abilities table holds its match here (``match`` stays None): see ``bot.service.crazier``.
    crazier: CrazierMatch | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timers: list[Timer] = field(default_factory=list)
    # Each deadline (Unix seconds) timed by this process, and when it falls due on the monotonic clock: a
    # deadline already timed keeps its time left however the wall clock is set meanwhile (NTP, a VM resumed).
    # The idle time (``idle_at``) is among them, timer or not: the idle rule is decided on the monotonic
    # clock.
    due_at: dict[float, float] = field(default_factory=dict)
    notes: dict[int, deque[TableEvent]] = field(default_factory=dict)  # user id -> latest private events
    # The snapshot of (version, record) last built: a move's answer, its hand refreshes and its board all
    # show the same committed state.
    snapshot_of: tuple[int, TableRecord, TableSnapshot] | None = None
    # The last commit's connection broke and the database could not say whether it stored the move.
    unconfirmed: bool = False

    @property
    def id(self) -> int:
        return self.record.id

    def idle_since(self) -> float:
        """Since when nobody has acted, counting only time the bot was up: the last person's action, or later
        when the bot was down meanwhile (``doc["idle_since"]``, set at a restore and saved with the next move,
        so a later restore does not count the same outage again)."""
        return idle_since(self.doc)

    def idle_at(self) -> float:
        """When the table has gone IDLE_TTL without a person acting (``idle_since``)."""
        return self.idle_since() + IDLE_TTL

    @property
    def phase(self) -> Phase:
        return phase_of(self.doc)

    @property
    def game(self) -> Match | CrazierMatch | None:
        """The match being played, of either game."""
        return self.match if self.match is not None else self.crazier

    def cancel_timers(self) -> None:
        for timer in self.timers:
            timer.cancel()
        self.timers.clear()


@dataclass
class Work:
    """A copy of a table's state being changed by one move; committed as a whole or thrown away."""

    live: LiveTable
    now: float
    doc: dict[str, Any]
    seats: list[SeatRecord]
    match: Match | None
    crazier: CrazierMatch | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    public: list[TableEvent] = field(default_factory=list)
    private: dict[int, list[TableEvent]] = field(default_factory=dict)
    log_events: list[dict[str, Any]] = field(default_factory=list)
    seats_changed: bool = False
    status: TableStatus | None = None
    round_result: RoundResult | None = None
    match_result: MatchResult | None = None
    ruleset: Ruleset | CrazierRules | None = (
        None  # house rules changed by this move (the live table takes it on commit)
    )

    @classmethod
    def of(cls, live: LiveTable, now: float, monotonic: float | None = None) -> Work:
        """A copy of ``live``'s committed state for a move at ``now``. Given the monotonic clock's reading at
        the same instant, the copy's times are re-stated on the wall clock as it is now (``restate_times``),
        so the move stores, and compares with ``now``, the time each really has left."""
        doc = copy_doc(live.doc)
        if monotonic is not None:
            restate_times(doc, live.due_at, now, monotonic)
        return cls(
            live=live,
            now=now,
            doc=doc,
            seats=list(live.seats),
            match=live.match.clone() if live.match is not None else None,
            crazier=CrazierMatch.from_json(live.crazier.to_json()) if live.crazier is not None else None,
        )

    @property
    def phase(self) -> Phase:
        return phase_of(self.doc)

    @property
    def game(self) -> Match | CrazierMatch | None:
        """The match being played, of either game."""
        return self.match if self.match is not None else self.crazier

    def say(self, kind: str, seat: int | None = None, **data: Any) -> None:
        event = TableEvent(kind, seat, data, "service")
        self.public.append(event)
        self.log_events.append({"kind": kind, "seat": seat, "data": data, "to": None})

    def tell(self, user_id: int, kind: str, seat: int | None = None, **data: Any) -> None:
        event = TableEvent(kind, seat, data, "service")
        self.private.setdefault(user_id, []).append(event)
        self.log_events.append({"kind": kind, "seat": seat, "data": data, "to": user_id})

    def say_seat(self, kind: str, seat: SeatRecord, **data: Any) -> None:
        """An event about a seat, naming its person as events do: user id, then name."""
        self.say(kind, seat.position, user_id=seat.user_id, name=seat.display_name, **data)

    def close(self, status: Literal["finished", "abandoned"], reason: str) -> None:
        """End the table: no timer of it is left, and the store marks it ``status``."""
        self.doc["phase"] = status
        self.doc["turn"] = None
        self.doc["pause_until"] = None
        self.doc["lobby_until"] = None
        self.status = status
        self.say("closed", None, reason=reason)


def copy_doc(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of a table's document that a move may change without touching the committed one. Moves change
    the document only at its top level: they set keys and append to or delete from its top-level lists and
    dicts ("timeouts", "kicked", "recent", "round_winners"), never inside their items (a "turn" or a recent
    event is replaced, not edited). So a copy one level deep is enough, and many times cheaper than a deepcopy
    on every move."""
    return {
        key: list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
        for key, value in doc.items()
    }


def idle_since(doc: dict[str, Any]) -> float:
    """A table document's ``LiveTable.idle_since``."""
    return max(float(doc["last_human_at"]), float(doc.get("idle_since") or 0.0))


def restate_times(
    doc: dict[str, Any], due_at: dict[float, float], now: float, monotonic: float
) -> dict[float, float]:
    """The wall clock was set on or back (NTP, a resumed VM) since ``due_at`` timed ``doc``'s times: re-state
    each of them on the wall clock as it is ``now`` (``monotonic`` read at the same instant), from the time it
    really has left: the turn's deadline, the pause's and the lobby's ends, and the idle time (its anchors,
    the last person's action and ``idle_since``, moved with it). The board then shows when a turn really ends,
    the idle rule counts only the time that passed, and a restart resumes each with the time it had left
    (what is stored is the document). A time not timed by this process, or off by no more than
    CLOCK_SET_TOLERANCE, is left as it is. Changes ``doc`` at its top level only (as moves do, see
    ``copy_doc``); returns each re-stated time with its monotonic due time (empty when none was)."""
    restated: dict[float, float] = {}

    def actual(when: float) -> float | None:
        due = due_at.get(when)
        if due is None:
            return None
        really = now + (due - monotonic)
        if abs(really - when) <= CLOCK_SET_TOLERANCE:
            return None
        restated[really] = due
        return really

    turn = doc.get("turn")
    if turn:
        deadline = actual(float(turn["deadline"]))
        if deadline is not None:
            doc["turn"] = {**turn, "deadline": deadline}
    for key in ("pause_until", "lobby_until"):
        if doc.get(key) is not None:
            until = actual(float(doc[key]))
            if until is not None:
                doc[key] = until
    idle_at = idle_since(doc) + IDLE_TTL
    due = due_at.get(idle_at)
    really = actual(idle_at)
    if really is not None and due is not None:
        shift = really - idle_at
        doc["last_human_at"] = float(doc["last_human_at"]) + shift
        if doc.get("idle_since"):
            doc["idle_since"] = float(doc["idle_since"]) + shift
        restated[idle_since(doc) + IDLE_TTL] = due
    return restated


def table_ruleset(record: TableRecord, doc: dict[str, Any]) -> Ruleset | CrazierRules:
    """The table's rules: its preset as opened, with the house rules its state holds ("house_rules")."""
    if record.ruleset.get("name") == CRAZIER:
        return CrazierRules.from_json(record.ruleset)  # no house rules for this game
    ruleset = Ruleset.from_json(record.ruleset)
    rules = doc.get("house_rules")
    if isinstance(rules, dict) and ruleset.name in PRESETS:
        # What differs from the preset (rule_options.house_rules; the opening's options and the server's
        # rules included), so applied to the preset, not to the rules as opened: a rule the host set back to
        # the preset's value is left out of it, and must not come back from the opening at a restart.
        return PRESETS[ruleset.name].replace(**rules)
    return ruleset.replace(**rules) if rules else ruleset


def capacity(live: LiveTable, rules: Ruleset | CrazierRules | None = None) -> int:
    """Seats the table offers (under ``rules``, default its own): what it was opened with, or what the host
    set "most players" to in the lobby since (the state's "seats", which replaces the opening's: see
    ``bot.service.rule_changes``), within what its rules allow; opened without a number of seats, what its
    rules allow (a host raising "most players" seats that many). A partnership: four, whatever it was
    opened with."""
    rules = live.ruleset if rules is None else rules
    if isinstance(rules, Ruleset) and rules.partnership:
        return rules.max_seats
    if live.record.options.get("seats_chosen") is False:
        return rules.max_seats
    seats = live.doc.get("seats", live.record.options.get("seats", rules.max_seats))
    return min(int(seats), rules.max_seats)


def position_of(seats: Iterable[SeatRecord], user_id: int) -> int | None:
    for seat in seats:
        if seat.user_id == user_id:
            return seat.position
    return None


def was_kicked(doc: dict[str, Any], user_id: int | None) -> bool:
    """The host removed ``user_id`` from this table. Their seat keeps their id (the match's results are the
    seat's), but the CPU playing it holds cards that are no longer theirs: they see none, get none of its
    private news and act for it no more."""
    return user_id is not None and user_id in doc.get("kicked", ())


def player_position(seats: Iterable[SeatRecord], doc: dict[str, Any], user_id: int) -> int:
    """The seat ``user_id`` plays (a CPU may be playing it for them). ServiceError "not_seated" when they
    have none, "kicked" when the host removed them (the seat is no longer theirs)."""
    position = position_of(seats, user_id)
    if position is None:
        raise ServiceError("not_seated", NOT_SEATED)
    if was_kicked(doc, user_id):
        raise ServiceError("kicked", REMOVED)
    return position


def is_cpu(seat: SeatRecord) -> bool:
    """A CPU seat, or a person's seat the CPU has taken over.

    A CPU seat has no user id and always a level (``add_cpu``). A seat without either is a person's whom
    forget-user anonymised at a closed table (``bot.store.forget``: the id goes, the level stays as it
    was), shown in a replay as the person the channel saw, not as a CPU."""
    return seat.cpu_takeover or (seat.user_id is None and seat.cpu_level is not None)


def cpu_level(seat: SeatRecord) -> str:
    return seat.cpu_level or TAKEOVER_LEVEL


def game_number(match: Match | CrazierMatch | None) -> int:
    """The number of the round (of a crazier-abilities match: the game) being played; 0 in the lobby."""
    if isinstance(match, CrazierMatch):
        return match.number
    return match.round_number if match is not None else 0


def round_token(table_id: int, match: Match | CrazierMatch | None) -> str:
    """The round token buttons carry: the table and the round (0 in the lobby)."""
    return round_token_at(table_id, game_number(match))


def round_token_at(table_id: int, round_number: int) -> str:
    return f"{table_id}:{round_number}"
