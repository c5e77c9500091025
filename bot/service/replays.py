"""Replays of finished matches (/eights replay, the Replay select under /eights history): the match rebuilt
step by step from its stored move log, one step per committed move from the first deal on.

A step shows what was public at that moment (the move's public lines and the board as it then was) and the
viewer's own hand if they played in the match, never another seat's. Nothing new is stored for it: the
table's seed deals the rounds again, and each move's engine actions (``action["steps"]``) are applied in
order, so matches played before replays existed replay too. The rebuilt end must equal the stored final
state, else the match is refused rather than shown wrong. A match whose move log was pruned by retention
(``bot.service.retention``) is refused with that reason.

How a match is rebuilt depends on its game: ``GAMES`` maps the match document's ``"game"`` (absent for
Crazy Eights) to its ``Replayer``: Crazy Eights (``bot.engine.Match``) and Crazier Eights with its abilities
(``bot.engine.crazier.CrazierMatch``), each made from the seed and ruleset as the lobby deals it. What only
the viewer learned in a move (cards drawn, the card an Elven Princess looked at) is in the step's
``private``, for the seat that learned it only.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Generic, Protocol, TypeVar

from bot.engine import Action, Match, Ruleset, card_code, sort_key
from bot.engine.crazier import DECK, PRESET_NAME, CrazierMatch, CrazierRules, Move
from bot.i18n import N_, _
from bot.service.errors import ServiceError
from bot.service.faults import store_faults
from bot.service.live import LiveTable
from bot.service.models import TableEvent, TableSnapshot
from bot.service.settlement import keep_recent
from bot.service.snapshots import snapshot
from bot.store.base import MoveRecord, SeatRecord, Store, TableRecord
from bot.store.rows import ANONYMOUS_NAME

log = logging.getLogger(__name__)

GameMatch = TypeVar("GameMatch", Match, CrazierMatch)

RECENT_CHOICES: Final = 25  # Discord's limit on autocomplete choices
SEARCHED_PER_SHOWN: Final = 4  # matches looked at per one offered, when some channels are not the viewer's
# Replays kept rebuilt (all their steps, for one viewer): paging through a match must not rebuild it at every
# click (a Crazier Eights match of a few hundred moves takes tens of milliseconds to replay).
CACHED_REPLAYS: Final = 8
NO_MATCH = N_("There is no finished match with that number in this server.")
# Table ids are stored as signed 64-bit integers: a larger number (from a tampered control) names no match,
# and must not reach the store, whose drivers refuse it.
LARGEST_TABLE_ID = 2**63 - 1


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One step of a replay, as the viewer may see it."""

    table_id: int
    index: int  # 0-based
    count: int  # steps in the whole replay
    round_number: int
    next_round_index: int | None  # the first step of the next round; None in the last round
    lines: tuple[TableEvent, ...]  # the move's public events
    snapshot: TableSnapshot  # the board right after the move
    hand: tuple[str, ...] | None  # the viewer's own cards then (codes, sorted); None: not seated
    private: tuple[TableEvent, ...]  # what only the viewer's seat learned in the move; () when not seated
    version: int  # the state version the move produced

    @property
    def first(self) -> bool:
        return self.index == 0

    @property
    def last(self) -> bool:
        return self.index == self.count - 1


@dataclass(frozen=True, slots=True)
class RecentMatch:
    """A finished match offered by /eights replay's autocomplete."""

    table_id: int
    preset: str
    finished_at: float
    names: tuple[str, ...]


class Replayer(Protocol):
    """A game's match replayed move by move."""

    stored_final: dict[str, Any]  # the match as stored at its end, as this engine writes it

    def start(self) -> None: ...

    def apply(self, step: dict[str, Any]) -> None: ...

    def heard(self, events: Sequence[TableEvent]) -> None: ...

    def named(self, events: Sequence[TableEvent]) -> None: ...

    def told(self, events: Sequence[TableEvent]) -> None: ...

    def final_state(self) -> dict[str, Any] | None: ...

    def round_number(self) -> int: ...

    def board(self, index: int, *, last: bool) -> TableSnapshot: ...

    def hand(self, position: int) -> tuple[str, ...]: ...


class _Replayer(ABC, Generic[GameMatch]):
    """What replaying any game's match shares: the seats as at the deal (their names, takeovers and seats
    taken back followed through the public lines), the host and the board's last plays as they were
    (followed through the public lines from the table's opening on), the match dealt again from the table's
    seed, each stored step applied ("start_next_round" between rounds, else one of the game's moves), and
    the board built as the table's own would be. A game says how its match is read, dealt, moved, and put
    on a table."""

    def __init__(
        self, record: TableRecord, seats: Sequence[SeatRecord], doc: dict[str, Any], final: dict[str, Any]
    ) -> None:
        self._record = record
        self._table_doc = doc
        # A person's seat as dealt: a CPU's takeover (its flag and level) comes with its public line. A
        # taken-over seat's level is the takeover's, which a seat forget-user anonymised (no user id) would
        # otherwise show as a CPU seat's from the deal on (``bot.service.live.is_cpu``).
        self._seats = [
            replace(seat, cpu_takeover=False, cpu_level=None if seat.cpu_takeover else seat.cpu_level)
            for seat in seats
        ]
        # The host as the table was opened (game_tables.host_id, never changed after), then as the public
        # lines pass it on; the board's last plays as the table's own document kept them (settlement).
        self._host_id: int = record.host_id
        self._recent: list[dict[str, Any]] = []
        self.match: GameMatch | None = None
        # The stored end as this engine writes it (read and written again): a match an earlier release
        # stored lacks what this one writes at its defaults, and must compare equal all the same.
        self.stored_final: dict[str, Any] = final

    # --- what each game says ---------------------------------------------------------------------------

    @abstractmethod
    def _deal(self) -> GameMatch: ...

    @abstractmethod
    def _move(self, match: GameMatch, step: dict[str, Any]) -> None: ...

    @abstractmethod
    def _round_over(self, match: GameMatch) -> bool: ...

    @abstractmethod
    def _number(self, match: GameMatch) -> int: ...

    @abstractmethod
    def _live(self, match: GameMatch, doc: dict[str, Any], index: int) -> LiveTable: ...

    @abstractmethod
    def hand(self, position: int) -> tuple[str, ...]: ...

    # --- the replay ------------------------------------------------------------------------------------

    def start(self) -> None:
        self.match = self._deal()

    def apply(self, step: dict[str, Any]) -> None:
        assert self.match is not None
        if step.get("kind") == "start_next_round":
            self.match.start_next_round()
        else:
            self._move(self.match, step)

    def heard(self, events: Sequence[TableEvent]) -> None:
        """A move's public lines, before the deal or after it: the host they name, the plays they add to the
        board's last plays (as ``bot.service.settlement.settle`` adds them to the table's document)."""
        for event in events:
            if event.kind == "host_changed":
                self._host_id = event.data.get("user_id") or 0  # a forgotten host: no one, as stored
            elif event.kind == "kicked" and event.data.get("user_id") == self._host_id:
                # A removed host is host no more: the role passes on (a "host_changed" that follows), or the
                # table has none (``bot.service.seats.pass_host``).
                self._host_id = 0
        keep_recent(self._recent, events)

    def named(self, events: Sequence[TableEvent]) -> None:
        """The seats' names as at the deal, from all the match's public lines (before the first is applied).
        A seat is stored with the name its person took it back under last ("rejoined": their server name
        may have changed meanwhile), so each seat is named by the first of the match's lines about its
        person (taken over, removed, timed out, made host: each carries the seat's name then), unless that
        is its taking back, which a taking over always comes before. A seat no line names kept its name. A
        forgotten person's seat keeps the forgotten name (forget-user blanks their names in the lines too:
        ``bot.store.forget``), whatever a line says."""
        named: set[int] = set()
        for event in events:
            seat, name = event.seat, _person_named(event)
            if seat is None or not 0 <= seat < len(self._seats) or seat in named or name is None:
                continue
            named.add(seat)
            if event.kind != "rejoined" and not _forgotten(self._seats[seat]):
                self._seats[seat] = replace(self._seats[seat], display_name=name)

    def told(self, events: Sequence[TableEvent]) -> None:
        """A move of the match's public lines: the seats taken over and taken back (under the name the
        person came back with), then what ``heard`` follows."""
        self.heard(events)
        for event in events:
            seat = event.seat
            if seat is None or not 0 <= seat < len(self._seats):
                continue
            if event.kind == "taken_over":
                level = event.data.get("level") or self._seats[seat].cpu_level
                self._seats[seat] = replace(self._seats[seat], cpu_takeover=True, cpu_level=level)
            elif event.kind == "rejoined":
                name = _person_named(event)
                if name is None or _forgotten(self._seats[seat]):
                    name = self._seats[seat].display_name
                self._seats[seat] = replace(self._seats[seat], cpu_takeover=False, display_name=name)

    def final_state(self) -> dict[str, Any] | None:
        return self.match.to_json() if self.match is not None else None

    def round_number(self) -> int:
        return self._number(self.match) if self.match is not None else 0

    def board(self, index: int, *, last: bool) -> TableSnapshot:
        assert self.match is not None
        phase = "finished" if last else "between_rounds" if self._round_over(self.match) else "playing"
        # The table document a board of the replay is built from: no timer; the host and last plays then.
        doc = {
            "phase": phase,
            "host_id": self._host_id,
            "seed": self._table_doc["seed"],
            "timeouts": [0] * len(self._seats),
            "recent": list(self._recent),
            "turn": None,
        }
        return snapshot(self._live(self.match, doc, index))


class _EightsReplayer(_Replayer[Match]):
    """Crazy Eights (every preset, house rules, partnership): ``bot.engine.Match``."""

    def __init__(
        self, record: TableRecord, seats: Sequence[SeatRecord], doc: dict[str, Any], final: dict[str, Any]
    ) -> None:
        super().__init__(record, seats, doc, final)
        final_match = Match.from_json(final)
        self.stored_final = final_match.to_json()
        self._ruleset: Ruleset = final_match.ruleset
        self._seat_count = final_match.num_seats

    def _deal(self) -> Match:
        # As the lobby deals it: the last seat deals, so seat 0 leads the first round.
        count = self._seat_count
        return Match.new(self._ruleset, count, seed=int(self._table_doc["seed"]), dealer=count - 1)

    def _move(self, match: Match, step: dict[str, Any]) -> None:
        match.apply(Action.from_json(step))

    def _round_over(self, match: Match) -> bool:
        return match.round_over

    def _number(self, match: Match) -> int:
        return match.round_number

    def _live(self, match: Match, doc: dict[str, Any], index: int) -> LiveTable:
        return LiveTable(
            record=self._record,
            seats=list(self._seats),
            doc=doc,
            match=match,
            ruleset=self._ruleset,
            version=index,
        )

    def hand(self, position: int) -> tuple[str, ...]:
        assert self.match is not None
        return tuple(card_code(card) for card in sorted(self.match.round.hand(position), key=sort_key))


class _CrazierReplayer(_Replayer[CrazierMatch]):
    """Crazier Eights with its ability cards (teams too): ``bot.engine.crazier.CrazierMatch``."""

    def __init__(
        self, record: TableRecord, seats: Sequence[SeatRecord], doc: dict[str, Any], final: dict[str, Any]
    ) -> None:
        super().__init__(record, seats, doc, final)
        final_match = CrazierMatch.from_json(final)
        self.stored_final = final_match.to_json()
        self._rules: CrazierRules = final_match.rules
        self._seat_count = final_match.num_seats

    def _deal(self) -> CrazierMatch:
        # As the lobby deals it (bot.service.lobby): who goes first comes from the table's seed.
        return CrazierMatch.new(self._rules, self._seat_count, seed=int(self._table_doc["seed"]))

    def _move(self, match: CrazierMatch, step: dict[str, Any]) -> None:
        match.apply(Move.from_json(step))

    def _round_over(self, match: CrazierMatch) -> bool:
        return match.round.over

    def _number(self, match: CrazierMatch) -> int:
        return match.number

    def _live(self, match: CrazierMatch, doc: dict[str, Any], index: int) -> LiveTable:
        return LiveTable(
            record=self._record,
            seats=list(self._seats),
            doc=doc,
            match=None,
            ruleset=self._rules,
            version=index,
            crazier=match,
        )

    def hand(self, position: int) -> tuple[str, ...]:
        assert self.match is not None
        return tuple(sorted(self.match.round.hands[position], key=DECK.index))


ReplayerFactory = Callable[[TableRecord, Sequence[SeatRecord], dict[str, Any], dict[str, Any]], Replayer]
GAMES: Final[dict[str, ReplayerFactory]] = {"eights": _EightsReplayer, PRESET_NAME: _CrazierReplayer}
# A stored match as each release that may have played it (``Match.stored_readings``), by game.
READINGS: Final[dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]]] = {
    "eights": Match.stored_readings,
    PRESET_NAME: CrazierMatch.stored_readings,
}


def _forgotten(seat: SeatRecord) -> bool:
    """A person's seat that forget-user anonymised: no user id, the forgotten name."""
    return seat.user_id is None and seat.display_name == ANONYMOUS_NAME


def _person_named(event: TableEvent) -> str | None:
    """The name of the person a line is about (``Work.say_seat``: their user id, then name; a forgotten
    person's id is None there), or None: a line about no person (a Crazier Eights card's "name")."""
    name = event.data.get("name")
    return name if "user_id" in event.data and isinstance(name, str) else None


def _public(move: MoveRecord) -> tuple[TableEvent, ...]:
    """The move's events the channel was told: those with no recipient. One told to a person (``Work.tell``:
    its "to" their id) or a seat (its "to_seat") is not, even once forget-user has blanked its recipient
    (``bot.store.forget``: "to" becomes 0, not None). A known limit: forget-user before that rule wrote
    None there, and such an event cannot be told from a public one (``Work.say`` logs "to": None too)."""
    return tuple(
        TableEvent(str(e["kind"]), e.get("seat"), dict(e.get("data") or {}))
        for e in move.events
        if e.get("to") is None and "to_seat" not in e
    )


def _private(move: MoveRecord, position: int | None) -> tuple[TableEvent, ...]:
    """The move's events only ``position``'s seat was told (whoever played it then: the person or a CPU
    in their place)."""
    if position is None:
        return ()
    return tuple(
        TableEvent(str(e["kind"]), e.get("seat"), dict(e.get("data") or {}))
        for e in move.events
        if e.get("to_seat") == position
    )


def _steps(move: MoveRecord) -> list[dict[str, Any]]:
    steps = move.action.get("steps") or []
    return [step for step in steps if isinstance(step, dict)]


@store_faults
class ReplayService:
    """The replay use cases over one store. A match is rebuilt from its log once per viewer, in a worker
    thread (not on the event loop), and its steps kept for the next clicks (the last ``CACHED_REPLAYS``)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        # Keyed by the match, the viewer's seat and the seats as stored: forgetting a player rewrites the
        # seats, so a replay built before it is not shown again.
        self._built: OrderedDict[tuple[int, int | None, tuple[SeatRecord, ...]], _Built] = OrderedDict()

    async def recent(
        self,
        guild_id: int,
        typed: str = "",
        *,
        viewer_id: int | None = None,
        readable: Callable[[int], Awaitable[bool]] | None = None,
    ) -> list[RecentMatch]:
        """The server's last finished matches, newest first, for autocomplete (filtered by what is typed:
        the match number, the preset or a player's name). With ``readable`` (a channel id: may the viewer
        read it), only the matches ``viewer_id`` played or whose channel they can read."""
        matches = await self._store.recent_matches(
            guild_id, limit=RECENT_CHOICES if readable is None else RECENT_CHOICES * SEARCHED_PER_SHOWN
        )
        if readable is not None:
            shown = []
            for m in matches:
                played = any(e.user_id == viewer_id for e in m.ranking if e.user_id)
                if played or await readable(m.channel_id):
                    shown.append(m)
            matches = shown[:RECENT_CHOICES]
        found = [
            RecentMatch(
                table_id=m.table_id,
                preset=m.preset,
                finished_at=m.finished_at,
                names=tuple(e.display_name for e in sorted(m.ranking, key=lambda e: (e.place, e.position))),
            )
            for m in matches
        ]
        text = typed.strip().lower().lstrip("#")
        if not text:
            return found
        return [
            m
            for m in found
            if str(m.table_id).startswith(text)
            or text in m.preset.lower()
            or any(text in name.lower() for name in m.names)
        ]

    async def step(
        self,
        guild_id: int,
        table_id: int,
        viewer_id: int,
        index: int,
        *,
        readable: Callable[[int], Awaitable[bool]] | None = None,
    ) -> ReplayStep:
        """Step ``index`` (0-based; past the end: the last) of the match's replay as ``viewer_id`` may see
        it. With ``readable`` (a channel id: may the viewer read it), a match played in a channel the
        viewer cannot read is theirs only if they played it. Errors: "no-match" (not a finished match of
        this server, or not the viewer's to see: the same answer, so that it tells nothing), "pruned" (its
        moves were deleted), "no-replay" (the log does not rebuild the match, or its game cannot be
        replayed yet)."""
        if not 1 <= table_id <= LARGEST_TABLE_ID:
            raise ServiceError("no-match", NO_MATCH)
        record = await self._store.get_table(table_id)
        if record is None or record.guild_id != guild_id or record.status != "finished":
            raise ServiceError("no-match", NO_MATCH)
        ranking = await self._store.match_ranking(table_id)
        if not ranking:
            raise ServiceError("no-match", NO_MATCH)
        if (
            readable is not None
            and not any(entry.user_id == viewer_id for entry in ranking)
            and not await readable(record.channel_id)
        ):
            raise ServiceError("no-match", NO_MATCH)
        pruned_at = await self._store.moves_pruned_at(table_id)
        if pruned_at is not None:
            day = f"<t:{int(pruned_at)}:D>"  # each reader's own date, in their client's format
            raise ServiceError(
                "pruned",
                _(
                    "The moves of match #{id} were deleted on {day} (this bot keeps move logs "
                    "for a limited time), so it can't be replayed. Its result is still in /eights "
                    "history.",
                    id=table_id,
                    day=day,
                ),
            )
        seats = await self._store.list_seats(table_id)
        position = next((s.position for s in seats if s.user_id is not None and s.user_id == viewer_id), None)
        key = (table_id, position, tuple(seats))
        built = self._built.get(key)
        if built is None:
            built = await self._build(record, seats, position)
            self._built[key] = built
            while len(self._built) > CACHED_REPLAYS:
                self._built.popitem(last=False)
        else:
            self._built.move_to_end(key)
        return built.step(index)

    async def _build(self, record: TableRecord, seats: Sequence[SeatRecord], position: int | None) -> _Built:
        table_id = record.id
        state = await self._store.get_state(table_id)
        moves = await self._store.moves(table_id)
        final = state.state.get("match") if state is not None else None
        if state is None or not isinstance(final, dict) or "seed" not in state.state:
            raise ServiceError(
                "no-replay",
                _("Match #{id} can't be replayed: its moves are not kept.", id=table_id),
            )
        game = str(final.get("game", "eights"))
        factory = GAMES.get(game)
        if factory is None:
            raise ServiceError("no-replay", _("Replays of {game} matches are not available yet.", game=game))
        # A match stored by a release that played a change of rules before the ruleset named it reads as
        # played before it: each later reading says it was played after one more change (``stored_readings``),
        # tried in turn until one rebuilds the stored end.
        readings = READINGS[game](final)
        for n, reading in enumerate(readings, start=1):
            last = n == len(readings)
            try:
                replayer = factory(record, seats, state.state, reading)
            except Exception as error:  # a stored match its game cannot read (as _rebuild: never a traceback)
                log.warning("match %s: its stored state cannot be read for a replay: %r", record.id, error)
                raise ServiceError(
                    "no-replay", _("Match #{id} can't be replayed from its moves.", id=table_id)
                ) from None
            try:
                # The whole match is replayed in a worker thread (the context goes along: the language).
                return await asyncio.to_thread(_rebuild, replayer, record, moves, position, say=last)
            except ServiceError as error:
                if error.code != "no-replay" or last:
                    raise
        raise AssertionError("unreachable: stored_readings gives at least one reading")


@dataclass(frozen=True, slots=True)
class _Built:
    """A match replayed for one viewer: each step's move, board, hand and round."""

    table_id: int
    position: int | None  # the viewer's seat; None: not seated
    played: tuple[MoveRecord, ...]
    boards: tuple[TableSnapshot, ...]
    hands: tuple[tuple[str, ...] | None, ...]
    rounds: tuple[int, ...]
    removed_at: int | None = (
        None  # the step the host removed the viewer at: from it on, the seat's not theirs
    )

    def step(self, index: int) -> ReplayStep:
        count = len(self.played)
        index = max(0, min(index, count - 1))
        now = self.rounds[index]
        next_round = next((i for i in range(index + 1, count) if self.rounds[i] > now), None)
        return ReplayStep(
            table_id=self.table_id,
            index=index,
            count=count,
            round_number=now,
            next_round_index=next_round,
            lines=_public(self.played[index]),
            snapshot=self.boards[index],
            hand=self.hands[index],
            private=_private(self.played[index], self.position)
            if self.removed_at is None or index < self.removed_at
            else (),
            version=self.played[index].version,
        )


def _rebuild(
    game: Replayer,
    record: TableRecord,
    moves: Sequence[MoveRecord],
    position: int | None,
    *,
    say: bool = True,
) -> _Built:
    """Every step of the match, replayed from its log (the end checked against the stored final state).
    ``say``: a log that does not rebuild it is logged (not when another reading of it is tried next)."""
    first = next((i for i, m in enumerate(moves) if m.action.get("kind") == "start"), None)
    if first is None:
        raise ServiceError(
            "no-replay", _("Match #{id} can't be replayed: its moves are not kept.", id=record.id)
        )
    played = tuple(moves[first:])
    count = len(played)
    for move in moves[:first]:  # the lobby: who hosted the table at the deal, the last plays it showed
        game.heard(_public(move))
    game.named([event for move in played for event in _public(move)])  # the seats' names at the deal
    boards: list[TableSnapshot] = []
    hands: list[tuple[str, ...] | None] = []
    rounds: list[int] = []
    removed_at: int | None = None  # the step the host removed the viewer at: the seat is not theirs after
    try:
        for i, move in enumerate(played):
            if i == 0:
                game.start()
            for step in _steps(move):
                game.apply(step)
            public = _public(move)
            game.told(public)
            kicked = position is not None and any(e.kind == "kicked" and e.seat == position for e in public)
            if kicked and removed_at is None:
                removed_at = i  # as at the table: the CPU's cards in their old seat are not theirs
            rounds.append(game.round_number())
            hands.append(game.hand(position) if position is not None and removed_at is None else None)
            boards.append(game.board(i, last=i == count - 1))
    except Exception as error:  # an engine error: the log does not match the engine any more
        if say:
            log.warning("match %s: replaying its move log failed: %r", record.id, error)
        raise ServiceError(
            "no-replay", _("Match #{id} can't be replayed from its moves.", id=record.id)
        ) from None
    if game.final_state() != game.stored_final:
        if say:
            log.warning("match %s: its move log does not rebuild its final state", record.id)
        raise ServiceError("no-replay", _("Match #{id} can't be replayed from its moves.", id=record.id))
    return _Built(record.id, position, played, tuple(boards), tuple(hands), tuple(rounds), removed_at)
