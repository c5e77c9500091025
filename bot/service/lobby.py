"""The lobby's use cases: open a table, join (or take one's seat back from the CPU), leave, add a CPU seat,
kick, start the match and end the table. Each is one move along the registry's mutation path."""

from __future__ import annotations

import dataclasses
import logging
import random
from dataclasses import dataclass
from typing import Any

from bot.engine import Match, Ruleset, RulesetError, get_preset, rule_options
from bot.engine.crazier import CrazierMatch, CrazierRules
from bot.i18n import _
from bot.service import crazier
from bot.service.catalog import preset_names
from bot.service.errors import NOT_SEATED, REMOVED, ServiceError
from bot.service.live import (
    DEFAULT_NEXT_ROUND_PAUSE,
    STATE_FORMAT,
    LiveTable,
    Work,
    capacity,
    position_of,
    round_token,
    was_kicked,
)
from bot.service.models import CPU_LEVELS, Actor, Outcome, TableEvent
from bot.service.moves import route
from bot.service.registry import TableRegistry
from bot.service.seats import after_lobby_departure, check_host, pass_host, remove_seat, take_over
from bot.service.server import in_table_channels
from bot.service.snapshots import seats_to_start, snapshot
from bot.service.views import with_server_rules
from bot.store.base import SeatRecord, TableExistsError, TableRecord

log = logging.getLogger(__name__)

MIN_TURN_TIMEOUT = 15.0
MAX_TURN_TIMEOUT = 24 * 3600.0
MAX_NEXT_ROUND_PAUSE = 60.0
LOBBY_TTL = 30 * 60.0  # a lobby nobody starts closes itself
# The target a table may be opened with: the bounds of the target house rule (``rule_options``), which
# /eights new declares too.
_TARGET = rule_options.option("target")
MIN_TARGET, MAX_TARGET = _TARGET.low, _TARGET.high


@dataclass(frozen=True)
class TableOptions:
    """What /eights new may choose; None takes the guild's or the ruleset's default."""

    preset: str | None = None
    target: int | None = None
    seats: int | None = None
    turn_timeout: float | None = None
    auto_draw: bool = True
    next_round_pause: float | None = None
    teams: bool = False  # crazier-abilities: two teams seated alternately


def _whole(value: object) -> bool:
    """An int, not a bool (a number of seats, a target)."""
    return type(value) is int


def _number(value: object) -> bool:
    """An int or a float, not a bool (seconds)."""
    return type(value) in (int, float)


class LobbyUseCases:
    """``rng`` draws each new table's seed, from which all its deals follow."""

    def __init__(self, registry: TableRegistry, rng: random.Random) -> None:
        self._registry = registry
        self.rng = rng

    async def open_table(
        self,
        guild_id: int,
        channel_id: int,
        actor: Actor,
        options: TableOptions,
        *,
        parent_id: int | None = None,
    ) -> Outcome:
        """/eights new: open a table in the channel; the actor is host in seat 0. ``parent_id``: the channel
        a thread (or forum post) belongs to, which the server's list of table channels may name; it is kept in
        the table's document ("parent_id", None for a channel that is no thread), so that the table is
        closed when its parent is deleted (Discord deletes the threads with it and says nothing of them:
        ``TablePublisher.channel_deleted``).

        Errors: "wrong_channel" (the guild allows tables elsewhere; the message names the channels as <#id>),
        "table_exists" (``table_id`` is the open one; the message says to join its lobby, or to wait for its
        game; one this process did not hold is loaded and its board shown), "bad_option" (unknown preset, a
        target outside ``MIN_TARGET``–``MAX_TARGET`` or that the rules refuse, seats outside the rules'
        fewest to start (at least 2) to their maximum or a number of seats the rules never start with — a
        team game of 5 —, turn timeout outside 15 s – 24 h, pause outside 0–60 s; a value that is not a
        number is outside too). The database failing raises as a move's commit does
        (``TableRegistry.open``): a table stored although the answer was lost is opened all the same."""
        self._registry.check_open()
        self._registry.check_not_paused()
        settings = await self._registry.store.get_guild_settings(guild_id)
        if not in_table_channels(settings.allowed_channel_ids, channel_id, parent_id):
            where = ", ".join(f"<#{c}>" for c in settings.allowed_channel_ids)
            raise ServiceError("wrong_channel", _("Tables can only be opened in {where}.", where=where))
        here = self._registry.in_channel(channel_id)
        if here is not None:
            raise _table_exists(here, here.id)
        record = await self._registry.store.open_table_in_channel(channel_id)
        if record is not None:
            raise await self._already_open(record.id)
        preset, target, seats = options.preset, options.target, options.seats
        turn_timeout, next_round_pause = options.turn_timeout, options.next_round_pause
        preset_name = preset or settings.default_preset
        ruleset = preset_ruleset(preset_name, teams=options.teams)
        if settings.default_house_rules and isinstance(ruleset, Ruleset):
            ruleset = _with_server_rules(ruleset, settings.default_house_rules)
        if target is not None:
            if not (_whole(target) and MIN_TARGET <= target <= MAX_TARGET):
                raise ServiceError(
                    "bad_option",
                    _(
                        "{label}: the number must be from {low} to {high}",
                        label=_(_TARGET.label),
                        low=MIN_TARGET,
                        high=MAX_TARGET,
                    ),
                )
            try:  # as the target house rule: a match of rounds becomes a match to this target
                if isinstance(ruleset, Ruleset):
                    ruleset = rule_options.change(ruleset, "target", target)
                else:
                    ruleset = ruleset.replace(target=target)
            except (RulesetError, TypeError, ValueError) as exc:
                raise ServiceError("bad_option", _("That target can't be used: {exc}", exc=exc)) from None
        max_seats = ruleset.max_seats
        low = seats_to_start(ruleset)
        seat_count = seats
        if seat_count is None:  # the most seats the rules start with (a team game: 4 or 6, never 5)
            allowed = [n for n in range(low, max_seats + 1) if ruleset.allows_seats(n)]
            seat_count = allowed[-1] if allowed else max_seats
        if not (_whole(seat_count) and low <= seat_count <= max_seats):
            raise ServiceError(
                "bad_option", _("Seats must be between {low} and {max_seats}.", low=low, max_seats=max_seats)
            )
        if not ruleset.allows_seats(seat_count):  # a full table that Start refuses: it would be stuck
            raise ServiceError("bad_option", _("A team game seats 4 or 6 players."))
        timeout = settings.default_turn_timeout if turn_timeout is None else turn_timeout
        if not (_number(timeout) and MIN_TURN_TIMEOUT <= timeout <= MAX_TURN_TIMEOUT):
            raise ServiceError("bad_option", _("The turn timeout must be between 15 seconds and 24 hours."))
        timeout = float(timeout)
        pause = DEFAULT_NEXT_ROUND_PAUSE if next_round_pause is None else next_round_pause
        if not (_number(pause) and 0 <= pause <= MAX_NEXT_ROUND_PAUSE):
            raise ServiceError("bad_option", _("The pause between rounds must be between 0 and 60 seconds."))
        pause = float(pause)
        now = self._registry.clock.now()
        host = SeatRecord(position=0, user_id=actor.user_id, display_name=actor.display_name, joined_at=now)
        doc: dict[str, Any] = {
            "format": STATE_FORMAT,
            "phase": "lobby",
            "host_id": actor.user_id,
            "seed": self.rng.randrange(1, 2**62),
            "timeouts": [0],
            "kicked": [],
            "recent": [],
            "round_winners": [],
            "opened_at": now,
            "last_human_at": now,
            "lobby_until": now + LOBBY_TTL,
            "pause_until": None,
            "turn": None,
            "house_rules": rule_options.house_rules(ruleset) if isinstance(ruleset, Ruleset) else {},
            "parent_id": parent_id,
        }
        stored_options = {
            "preset": ruleset.name,
            "target": ruleset.target,
            "seats": seat_count,
            # Not chosen: as many as the rules allow, even once changed; fewer than their most (a team game
            # of at most 5 players seats 4) is kept as if chosen.
            "seats_chosen": seats is not None or seat_count != max_seats,
            "auto_draw": bool(options.auto_draw),
            "next_round_pause": pause,
        }
        store = self._registry.store

        async def create() -> TableRecord:
            return await store.create_table(
                guild_id=guild_id,
                channel_id=channel_id,
                host=host,
                ruleset=ruleset.to_json(),
                options=stored_options,
                turn_timeout=timeout,
                state={**doc, "match": None},
                deadline=doc["lobby_until"],
                now=now,
            )

        def held(record: TableRecord) -> LiveTable:
            return LiveTable(record=record, seats=[host], doc=doc, match=None, ruleset=ruleset, version=0)

        try:
            # Its commit's safety net is a move's: a create whose answer was lost is asked about, and a table
            # stored all the same is opened (``TableRegistry.open``).
            live = await self._registry.open(
                create, held, channel_id=channel_id, host_id=actor.user_id, opened_at=now
            )
        except TableExistsError as exc:
            raise await self._already_open(exc.table_id) from None
        event = TableEvent(
            "opened", 0, {"user_id": actor.user_id, "name": actor.display_name, "preset": ruleset.name}
        )
        log.info("table %s opened in channel %s (%s)", live.id, channel_id, ruleset.name)
        return Outcome(snapshot(live), (event,), {})

    async def _already_open(self, table_id: int) -> ServiceError:
        """The refusal of a second table in a channel whose open table is ``table_id``. A table this process
        did not hold (stored while the answer to its /eights new was lost) is loaded, held (its lobby timer
        set) and its board shown: the channel shows the table the person is refused for."""
        live = self._registry.get(table_id)
        if live is None:
            live = await self._registry.load(table_id)
            if live is not None:
                self._registry.show(live)
        return _table_exists(live, table_id)

    async def join(self, table_id: int, actor: Actor) -> Outcome:
        """/eights join: take a free seat in the lobby, or take back one's own seat from the CPU during a
        match.

        Errors: "already_seated", "full", "kicked", "started" (a match runs and the actor has no seat)."""

        def change(work: Work) -> None:
            position = position_of(work.seats, actor.user_id)
            if actor.user_id in work.doc["kicked"]:
                raise ServiceError("kicked", REMOVED)
            if work.phase == "lobby":
                if position is not None:
                    raise ServiceError("already_seated", _("You are already seated at this table."))
                if len(work.seats) >= capacity(work.live):
                    raise ServiceError("full", _("This table is full."))
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
                raise ServiceError("started", _("The game has already started; wait for the next table."))
            seat = work.seats[position]
            if not seat.cpu_takeover:
                raise ServiceError("already_seated", _("You are already seated at this table."))
            work.seats[position] = dataclasses.replace(
                seat, cpu_takeover=False, cpu_level=None, display_name=actor.display_name, left_at=None
            )
            work.doc["timeouts"][position] = 0
            work.seats_changed = True
            work.say("rejoined", position, user_id=actor.user_id, name=actor.display_name)
            host_id = work.doc["host_id"]
            if not any(s.user_id == host_id and not s.cpu_takeover for s in work.seats):
                # Everyone had left (the host role found nobody to go to), or the host was removed with
                # nobody to take it (``NO_HOST``): the person back takes it, or nobody but managers could
                # end the table.
                work.doc["host_id"] = actor.user_id
                work.say_seat("host_changed", work.seats[position])

        return await self._registry.mutate(table_id, None, actor, {"kind": "join"}, change)

    async def leave(self, table_id: int, actor: Actor) -> Outcome:
        """/eights leave. In the lobby the seat is freed (the host's role passes to the next person; a lobby
        left with no person closes). During a match a CPU player (normal) takes the seat over; the player can
        take it back with join while the match lasts. Errors: "not_seated", "taken_over"."""

        def change(work: Work) -> None:
            position = position_of(work.seats, actor.user_id)
            if position is None:
                raise ServiceError("not_seated", NOT_SEATED)
            if work.phase == "lobby":
                remove_seat(work, position)
                work.say("left", None, user_id=actor.user_id, name=actor.display_name)
                after_lobby_departure(work, actor.user_id)
                return
            if work.seats[position].cpu_takeover:
                raise ServiceError("taken_over", _("A CPU player already has your seat."))
            take_over(work, position, "left")
            pass_host(work, actor.user_id)

        return await self._registry.mutate(table_id, None, actor, {"kind": "leave"}, change)

    async def add_cpu(
        self, table_id: int, actor: Actor, level: str = "normal", *, cpus_seen: int | None = None
    ) -> Outcome:
        """/eights cpu [level]: the host (or a manager) adds a CPU seat in the lobby. ``cpus_seen``: the CPU
        seats beside the board's "Add CPU" button pressed, if it was.
        Errors: "not_host", "not_lobby", "full", "bad_option" (unknown level), "stale" (a CPU seat was added
        since the button was shown: the second press of a double tap)."""

        def change(work: Work) -> None:
            check_host(work, actor)
            if work.phase != "lobby":
                raise ServiceError("not_lobby", _("CPU players can only be added before the game starts."))
            if cpus_seen is not None and cpus_seen != sum(1 for s in work.seats if s.user_id is None):
                raise ServiceError(
                    "stale",
                    _("The seats changed meanwhile: press Add CPU again to add another CPU player."),
                )
            if level not in CPU_LEVELS:
                raise ServiceError("bad_option", _("The CPU level must be easy, normal or hard."))
            if len(work.seats) >= capacity(work.live):
                raise ServiceError("full", _("This table is full."))
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

        return await self._registry.mutate(table_id, None, actor, {"kind": "add_cpu", "level": level}, change)

    async def kick(self, table_id: int, actor: Actor, member_id: int) -> Outcome:
        """/eights kick member (host or manager): in the lobby the seat is freed; during a match a CPU player
        takes the seat over. A kicked member can't join this table again, and is never its host: a kicked
        host's role passes to the next person playing their own seat, else the table has none until a
        person takes their seat back (managers keep their say meanwhile).
        Errors: "not_host", "not_seated" (the member has no seat, or was kicked already), "kick_self"."""

        def change(work: Work) -> None:
            check_host(work, actor)
            if member_id == actor.user_id:
                raise ServiceError("kick_self", _("You can't kick yourself; use /eights leave."))
            position = position_of(work.seats, member_id)
            if position is None or was_kicked(work.doc, member_id):
                # A kicked member's seat keeps their id for the results, but it is no longer theirs: a second
                # kick (a double tap, another moderator) is refused and changes nothing.
                raise ServiceError("not_seated", _("That member is not seated at this table."))
            name = work.seats[position].display_name
            work.doc["kicked"].append(member_id)
            if work.phase == "lobby":
                remove_seat(work, position)
                work.say("kicked", None, user_id=member_id, name=name)
                after_lobby_departure(work, member_id)
                return
            work.say("kicked", position, user_id=member_id, name=name)
            if not work.seats[position].cpu_takeover:
                take_over(work, position, "kicked")
            pass_host(work, member_id)

        return await self._registry.mutate(
            table_id, None, actor, {"kind": "kick", "member": member_id}, change
        )

    async def start(self, table_id: int, actor: Actor) -> Outcome:
        """/eights start (host or manager, at least two seats): deals round 1 of the match.
        Errors: "not_host", "not_lobby", "too_few"."""

        def change(work: Work) -> None:
            check_host(work, actor)
            if work.phase != "lobby":
                raise ServiceError("not_lobby", _("The game has already started."))
            ruleset = work.live.ruleset
            needed = seats_to_start(ruleset)
            if isinstance(ruleset, CrazierRules):
                if not ruleset.allows_seats(len(work.seats)):
                    raise ServiceError(
                        "too_few",
                        _("A team game needs four or six players (two teams seated alternately).")
                        if ruleset.teams
                        else _("At least {needed} seats are needed to start.", needed=needed),
                    )
                _start_crazier(work, ruleset)
                return
            if ruleset.partnership and len(work.seats) != 4:
                raise ServiceError(
                    "too_few", _("A partnership game needs exactly four players (two sides of two).")
                )
            if len(work.seats) < needed:
                raise ServiceError(
                    "too_few", _("At least {needed} seats are needed to start.", needed=needed)
                )
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
                round_token=round_token(work.live.id, work.match),
            )

        return await self._registry.mutate(table_id, None, actor, {"kind": "start"}, change)

    async def end(self, table_id: int, actor: Actor) -> Outcome:
        """/eights end (host or manager): abandon the table; no result is recorded. Errors: "not_host"."""

        def change(work: Work) -> None:
            check_host(work, actor)
            work.close("abandoned", "ended")

        return await self._registry.mutate(table_id, None, actor, {"kind": "end"}, change)

    async def channel_gone(self, table_id: int) -> Outcome:
        """The table's channel was deleted, or the bot can no longer reach its server: the table is
        abandoned (no result recorded), as nothing of it could be shown again."""

        def change(work: Work) -> None:
            work.close("abandoned", "channel_gone")

        return await self._registry.mutate(table_id, None, None, {"kind": "channel_gone"}, change)


def _with_server_rules(ruleset: Ruleset, changes: dict[str, Any]) -> Ruleset:
    """The preset with the server's house rules for new tables (``views.with_server_rules``)."""
    ruleset, left_out = with_server_rules(ruleset, changes)
    if left_out:
        keys = [key for key, _exc in left_out]
        log.info("server house rules %s do not fit preset %s; not applied", keys, ruleset.name)
    return ruleset


def preset_ruleset(name: str, *, teams: bool = False) -> Ruleset | CrazierRules:
    if crazier.is_crazier_preset(name):
        return crazier.rules_for(name, teams=teams)
    if teams:
        raise ServiceError("bad_option", _("Teams are an option of crazier-abilities only."))
    try:
        return get_preset(name)
    except (RulesetError, KeyError):
        names = ", ".join(preset_names())
        raise ServiceError("bad_option", _("Unknown preset. Choose one of: {names}.", names=names)) from None


def _start_crazier(work: Work, rules: CrazierRules) -> None:
    """Deal the first game of a crazier-abilities match (who goes first is random, from the table's seed)."""
    count = len(work.seats)
    work.crazier = CrazierMatch.new(rules, count, seed=work.doc["seed"])
    work.doc["phase"] = "playing"
    work.doc["lobby_until"] = None
    work.status = "playing"
    work.say("started", None, round_number=1, seats=count)
    work.say(
        "round_started",
        None,
        round_number=1,
        first=work.crazier.round.lead,
        round_token=round_token(work.live.id, work.crazier),
    )
    for event in work.crazier.round.start_events:
        route(work, event)


def _table_exists(live: LiveTable | None, table_id: int) -> ServiceError:
    """The channel's table (``live``, if loaded) refuses another: its lobby is joined; a game being played
    takes nobody new (/eights join refuses a stranger), so it is waited for or watched."""
    if live is not None and live.doc.get("phase") != "lobby":
        message = _(
            "There is already a table in this channel, and its game is being played: wait for it to end, or"
            " watch it."
        )
    else:
        message = _("There is already a table open in this channel: join it with /eights join.")
    return ServiceError("table_exists", message, table_id=table_id)
