"""``TableService``: the one object the Discord layer calls for tables (``bot.service``'s docstring lists
its surface). It composes the parts and holds no rules of its own:

- ``bot.service.registry``: the live tables in memory and the one mutation path (load, lock, copy, commit,
  swap), start-up restore and shutdown;
- ``bot.service.lobby`` and ``bot.service.play``: the use cases, each one move along that path;
- ``bot.service.settlement``: what follows every move (automatic draws, round and match ends, deadlines);
- ``bot.service.scheduler``: turn timeouts, AFK takeover, the pause between rounds, lobby expiry, idle
  tables, CPU turns, timers resumed after a restart;
- ``bot.service.snapshots``: the board, a hand, the autocomplete choices (reads, in memory);
- ``bot.service.outcomes``: what happens on its own, batched for the listener.

Tests use the public hooks at the end: ``seed_deals``, ``observe`` and ``busy``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping
from typing import Any

from bot.engine import Ruleset, get_preset, rule_wording, rules_help
from bot.engine.crazier import CrazierRules
from bot.engine.crazier import rules_help as crazier_rules_help
from bot.i18n import _, ngettext
from bot.service.catalog import preset_names
from bot.service.clock import Clock
from bot.service.errors import EXPIRED, NO_TABLE, ServiceError
from bot.service.faults import store_faults
from bot.service.live import was_kicked
from bot.service.lobby import LobbyUseCases, TableOptions, preset_ruleset
from bot.service.models import (
    Actor,
    CardChoice,
    HandView,
    HouseOption,
    Intent,
    Outcome,
    TableListener,
    TableSnapshot,
)
from bot.service.outage import StoreOutage
from bot.service.play import PlayUseCases
from bot.service.registry import TableObserver, TableRegistry
from bot.service.retention import MoveLogRetention
from bot.service.rule_changes import HouseRuleUseCases
from bot.service.scheduler import TableScheduler
from bot.service.server import in_table_channels
from bot.service.snapshots import card_choices, crazier_choices, hand_view, snapshot
from bot.shards import ShardSet
from bot.store.base import Store


@store_faults
class TableService:
    """The use cases of a Crazy Eights table, without Discord.

    ``listener.on_outcome`` receives what happens on its own (CPU moves, timeouts, the next round starting, a
    lobby expiring, an idle table abandoned); quick automatic moves within ``batch_window`` seconds are
    gathered into one outcome. ``cpu_delay``: seconds a CPU seat waits before it moves. ``rng`` seeds the
    deals (tests pass a seeded one, or call ``seed_deals``). ``shards``: the shards this process runs; it
    serves only their guilds' tables (all guilds by default)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        cpu_delay: float = 1.5,
        listener: TableListener | None = None,
        batch_window: float = 0.3,
        rng: random.Random | None = None,
        shards: ShardSet | None = None,
        move_log_retention: float | None = None,
        on_failed_commit: Callable[[], None] | None = None,
    ) -> None:
        self._registry = TableRegistry(
            store,
            clock,
            listener=listener,
            batch_window=batch_window,
            shards=shards,
            on_failed_commit=on_failed_commit,
        )
        # Started with the tables (restore_all): seconds to keep closed matches' move logs, None for ever.
        self._retention = (
            MoveLogRetention(store, clock, move_log_retention, self._registry.outage)
            if move_log_retention is not None
            else None
        )
        self._scheduler = TableScheduler(self._registry, cpu_delay=cpu_delay)
        self._lobby = LobbyUseCases(self._registry, rng or random.Random())
        self._play = PlayUseCases(self._registry)
        self._house = HouseRuleUseCases(self._registry)

    # --- the lobby and play (``bot.service.lobby`` and ``bot.service.play`` say what each refuses) ----------

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
        teams: bool = False,
        parent_id: int | None = None,
    ) -> Outcome:
        """/eights new: open a table in the channel; the actor is host in seat 0. ``teams``: the
        crazier-abilities team game. ``parent_id``: the channel of a thread (or forum post)."""
        options = TableOptions(preset, target, seats, turn_timeout, auto_draw, next_round_pause, teams)
        return await self._lobby.open_table(guild_id, channel_id, actor, options, parent_id=parent_id)

    async def join(self, table_id: int, actor: Actor) -> Outcome:
        """/eights join: a free lobby seat, or one's own seat back from the CPU."""
        return await self._lobby.join(table_id, actor)

    async def leave(self, table_id: int, actor: Actor) -> Outcome:
        """/eights leave: free the lobby seat, or let a CPU take it over during a match."""
        return await self._lobby.leave(table_id, actor)

    async def add_cpu(
        self, table_id: int, actor: Actor, level: str = "normal", *, cpus_seen: int | None = None
    ) -> Outcome:
        """/eights cpu [level]: a CPU seat in the lobby (host or manager). ``cpus_seen``: the CPU
        seats beside the "Add CPU" button pressed (a second press of a double tap is refused)."""
        return await self._lobby.add_cpu(table_id, actor, level, cpus_seen=cpus_seen)

    async def kick(self, table_id: int, actor: Actor, member_id: int) -> Outcome:
        """/eights kick member (host or manager)."""
        return await self._lobby.kick(table_id, actor, member_id)

    async def start(self, table_id: int, actor: Actor) -> Outcome:
        """/eights start (host or manager): deal round 1."""
        return await self._lobby.start(table_id, actor)

    async def set_house_rule(self, table_id: int, actor: Actor, option: str, value: str) -> Outcome:
        """/eights house and the House rules panel (host or manager, before the first deal): change one
        option of the table's rules; an impossible combination is refused with the reason."""
        return await self._house.set_house_rule(table_id, actor, option, value)

    async def house_options(self, table_id: int, actor: Actor | None = None) -> list[HouseOption]:
        """Every house rule with its current value and the values to offer (with ``actor``: refused to one
        who may not change them now)."""
        return await self._house.house_options(table_id, actor)

    async def house_option(self, table_id: int, option: str) -> HouseOption:
        """One house rule of the table."""
        return await self._house.house_option(table_id, option)

    async def house_values(self, table_id: int | None, option: str, typed: str = "") -> list[tuple[str, str]]:
        """Autocomplete for a house rule's value. In memory, never raises."""
        return self._house.house_values(table_id, option, typed)

    async def end(self, table_id: int, actor: Actor) -> Outcome:
        """/eights end (host or manager): abandon the table; no result is recorded."""
        return await self._lobby.end(table_id, actor)

    async def channel_gone(self, table_id: int) -> Outcome:
        """The table's channel was deleted (or the bot removed from its server): abandoned, no result."""
        return await self._lobby.channel_gone(table_id)

    def tables_in_guild(self, guild_id: int) -> list[int]:
        """The open tables of a server that this process serves."""
        return self._registry.in_guild(guild_id)

    def guilds_with_tables(self) -> set[int]:
        """The servers of the open tables this process serves."""
        return self._registry.guild_ids()

    def tables_in_threads_of(self, channel_id: int) -> list[int]:
        """The channels (threads, forum posts) of the open tables this process serves whose parent is the
        channel, as noted when they were opened. In memory."""
        return self._registry.in_threads_of(channel_id)

    def tables_of_unknown_parent(self, guild_id: int | None = None) -> list[tuple[int, int]]:
        """(guild id, channel id) of the open tables (of the server; None: of every server) opened before
        their parent was noted: whether they are in a thread, and whose, is not known. In memory."""
        return self._registry.parent_unknown(guild_id)

    def note_parent(self, channel_id: int, parent_id: int | None) -> None:
        """What Discord says of the channel of a table in ``tables_of_unknown_parent``: the thread's parent,
        or None for a channel that is no thread. Kept with the table (stored with its next move)."""
        self._registry.note_parent(channel_id, parent_id)

    async def act(
        self, table_id: int, actor: Actor, intent: Intent, round_token: str | None = None
    ) -> Outcome:
        """A seated player's game action; ``round_token`` comes from a button (typed commands pass None)."""
        return await self._play.act(table_id, actor, intent, round_token)

    async def next_round(self, table_id: int, actor: Actor, round_token: str | None = None) -> Outcome:
        """The "Next round" button: deal the next round now."""
        return await self._play.next_round(table_id, actor, round_token)

    # --- start-up and shutdown ------------------------------------------------------------------------------

    async def restore_all(self) -> int:
        """Load every open table from the store and resume its timers with the time they had left (a CPU whose
        turn it is moves after the CPU delay). Call once at start-up before answering anything. Returns the
        number of tables restored."""
        restored = await self._registry.restore_all()
        if self._retention is not None:
            self._retention.start()
        return restored

    def store_outage(self) -> StoreOutage:
        """Whether the database is failing now, and the failed commits so far: its ``on_failed_commit``
        takes the metrics counter (``BotMetrics.commit_failed``)."""
        return self._registry.outage

    def open_table_count(self) -> int:
        """Tables open in this process (for the admins' metrics)."""
        return self._registry.open_count()

    def open_table_ids(self) -> list[int]:
        """The ids of the open tables this process holds (after ``restore_all``: every open table of its
        shards), for the Discord layer to bring their boards up to date with ``snapshot``."""
        return self._registry.open_ids()

    async def close(self) -> None:
        """Stop every timer and wait for the moves in flight (used at shutdown). Nothing moves afterwards."""
        if self._retention is not None:
            await self._retention.close()
        await self._registry.close()

    def pause(self, reason: str) -> None:
        """No move is committed until ``resume``: each is refused as during a database outage (the person
        is told nothing changed; timed moves are retried). For a process that lost its shard claim."""
        self._registry.paused = reason

    def resume(self) -> None:
        """Commit moves again; every table's due timers run at once."""
        self._registry.resume()

    def guild_unavailable(self, guild_id: int) -> None:
        """Discord says the server is unavailable (an outage: nobody there can reach the bot): its tables'
        timers wait (turns, CPU turns, the lobby, the pause between rounds, idleness) until it is back, a day
        at most (``TableScheduler.pause_guild``)."""
        self._scheduler.pause_guild(guild_id)

    def guild_available(self, guild_id: int) -> None:
        """The server is available again: its tables' timers go on with what they had left, the player to
        move with at least the restart's grace (``TableScheduler.resume_guild``). Nothing for a server whose
        tables were not waiting."""
        self._scheduler.resume_guild(guild_id)

    def guilds_waiting(self) -> set[int]:
        """The servers whose tables' timers wait for the end of their outage."""
        return self._scheduler.paused_guilds()

    def move_log_retention(self) -> MoveLogRetention | None:
        """The pruning task of closed matches' move logs, when MOVE_LOG_RETENTION_DAYS is set."""
        return self._retention

    async def moves_pruned_at(self, table_id: int) -> float | None:
        """When a closed match's moves were deleted by retention (a replay says they are gone); None while
        they are kept."""
        return await self._registry.store.moves_pruned_at(table_id)

    # --- look-ups -------------------------------------------------------------------------------------------

    async def manager_role_id(self, guild_id: int) -> int | None:
        """The guild's manager role: a member with it counts as ``Actor.can_manage`` (as Manage Channels)."""
        settings = await self._registry.store.get_guild_settings(guild_id)
        return settings.manager_role_id

    async def table_in_channel(self, channel_id: int) -> int | None:
        """The id of the channel's open table, or None."""
        return await self._registry.table_in_channel(channel_id)

    async def table_for_control(
        self, table_id: int, guild_id: int | None, channel_id: int | None, round_token: str | None = None
    ) -> int:
        """The table a control (button, select, form) names, if it is the open table of the channel and the
        server the control was used in; otherwise the control has expired (it carries a round token: a hand's
        or a board's of a round) or its table is over (ServiceError "expired" or "no_table"), as for a
        closed table. The named id itself is never looked up: a control may come from a tampered client, with
        any table's id or one no table has."""
        here = await self.table_in_channel(channel_id) if channel_id is not None else None
        live = self._registry.get(here) if here is not None else None
        if live is None or here != table_id or live.record.guild_id != guild_id:
            if round_token is not None:
                raise ServiceError("expired", EXPIRED)
            raise ServiceError("no_table", NO_TABLE)
        return here

    async def require_table(
        self,
        channel_id: int,
        *,
        guild_id: int | None = None,
        user_id: int | None = None,
        parent_id: int | None = None,
    ) -> int:
        """The id of the channel's open table; otherwise ServiceError("no_table") saying where to play
        (``no_table``: the server, the person and a thread's ``parent_id`` are what it goes by)."""
        table_id = await self.table_in_channel(channel_id)
        if table_id is None:
            raise await self.no_table(guild_id, channel_id, user_id, parent_id=parent_id)
        return table_id

    async def no_table(
        self, guild_id: int | None, channel_id: int, user_id: int | None, *, parent_id: int | None = None
    ) -> ServiceError:
        """The refusal of a person's command in a channel with no open table (ServiceError "no_table"), saying
        where to go: the one place every command finding no table decides what it says.

        - The person is seated at (or in the lobby of) open tables of this server in other channels: it names
          those channels (the tables this process holds, read in memory; another shard's are not looked up).
        - Else the server keeps tables to its listed channels and neither this one nor the channel of its
          thread (``parent_id``) is listed: it names the listed ones, as /eights new refuses there.
        - Else ``NO_TABLE``: open one here with /eights new (also without a server: a DM has no table)."""
        if guild_id is None:
            return ServiceError("no_table", NO_TABLE)
        if user_id is not None:
            yours = [
                f"<#{live.record.channel_id}>"
                for table_id in self._registry.in_guild(guild_id)
                if (live := self._registry.get(table_id)) is not None
                and live.record.channel_id != channel_id
                and any(seat.user_id == user_id for seat in live.seats)
                and not was_kicked(live.doc, user_id)
            ]
            if yours:
                return ServiceError(
                    "no_table",
                    ngettext(
                        "There is no table in this channel. Yours is in {channels}.",
                        "There is no table in this channel. Yours are in {channels}.",
                        len(yours),
                        channels=", ".join(yours),
                    ),
                )
        settings = await self._registry.store.get_guild_settings(guild_id)
        if not in_table_channels(settings.allowed_channel_ids, channel_id, parent_id):
            where = ", ".join(f"<#{c}>" for c in settings.allowed_channel_ids)
            return ServiceError(
                "no_table", _("There is no table here: tables are played in {where}.", where=where)
            )
        return ServiceError("no_table", NO_TABLE)

    async def snapshot(self, table_id: int) -> TableSnapshot:
        """The board of an open table (ServiceError "no_table" when it is closed or unknown)."""
        return snapshot(await self._registry.require(table_id, None))

    async def scores(self, table_id: int) -> TableSnapshot:
        """The standings: the snapshot's ``totals``, ``round_scores`` and ``ranking`` (for a private
        reply)."""
        return await self.snapshot(table_id)

    async def hand(self, table_id: int, user_id: int) -> HandView:
        """The player's private hand view, with every control that is legal now. In memory."""
        return hand_view(await self._registry.require(table_id, None), user_id)

    async def legal_card_choices(self, channel_id: int, user_id: int, current: str = "") -> list[CardChoice]:
        """Autocomplete for /eights play (see ``snapshots.card_choices``). In memory, never raises."""
        return card_choices(self._registry.in_channel(channel_id), user_id, current)

    async def crazier_choices(
        self, channel_id: int, user_id: int, current: str = "", *, effect: bool
    ) -> list[CardChoice]:
        """Autocomplete of a crazier-abilities table: the cards the user may play for their effect now
        (``effect``), or discard. In memory, never raises."""
        return crazier_choices(self._registry.in_channel(channel_id), user_id, current, effect=effect)

    async def rules_text(self, preset: str | None = None, table_id: int | None = None) -> str:
        """The rules help: of ``preset`` when given, else of the table's ruleset, else of classic."""
        if preset is not None:
            return _rules_help(preset_ruleset(preset))
        if table_id is not None:
            live = self._registry.get(table_id)
            if live is not None and not isinstance(live.ruleset, Ruleset):
                return _rules_help(live.ruleset)
            if live is not None and isinstance(live.ruleset, Ruleset):
                text = rules_help(live.ruleset)
                changes = rule_wording.differences(live.ruleset)
                if changes:
                    text += "\n" + _(
                        "**House rules** (changed from the preset): {rules}.", rules="; ".join(changes)
                    )
                return text
        return rules_help(get_preset("classic"))

    @staticmethod
    def preset_names() -> list[str]:
        """The presets, in the order the choices list shows them."""
        return preset_names()

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        """Remember the public board's message id (not a move)."""
        await self._registry.store.set_board_message(table_id, message_id, self._registry.clock.now())
        live = self._registry.get(table_id)
        if live is not None:
            live.record = dataclasses.replace(live.record, board_message_id=message_id)

    async def note_telling(self, table_id: int, first: int, last: int, attempt: dict[str, Any]) -> None:
        """A line telling the table's moves ``first``..``last`` is about to go out (``attempt``: the
        delivery's note of it, handed back in ``Outcome.resumed`` after a restart); the moves before it are
        told."""
        await self._registry.store.note_telling(table_id, first, last, attempt)

    async def mark_told(self, told: Mapping[int, int]) -> None:
        """Table id -> version: the channel has been told the table's moves up to that version."""
        await self._registry.store.mark_told(told)

    async def board_picture(self, table_id: int) -> tuple[int, str] | None:
        """What the table's board message shows as its picture, as last recorded (``set_board_picture``):
        (message id, digest; "" for no picture), or None if nothing was recorded."""
        raw = await self._registry.store.get_meta(_board_picture_key(table_id))
        message, _, digest = (raw or "").partition(":")
        return (int(message), digest) if message.isdigit() else None

    async def set_board_picture(self, table_id: int, message_id: int, digest: str) -> None:
        """Record what picture the board message ``message_id`` shows (a digest of what it was drawn from),
        so that a restarted process does not upload the same picture again (not a move)."""
        await self._registry.store.set_meta(_board_picture_key(table_id), f"{message_id}:{digest}")

    async def forget_board_picture(self, table_id: int) -> None:
        """The table is over: its board's picture needs no record any more."""
        await self._registry.store.delete_meta(_board_picture_key(table_id))

    # --- hooks for tests and replays ------------------------------------------------------------------------

    def seed_deals(self, seed: int) -> None:
        """Draw the seeds of tables opened from now on from ``random.Random(seed)``: the same seed, the same
        deals."""
        self._lobby.rng = random.Random(seed)

    def observe(self, observer: TableObserver) -> None:
        """Call ``observer(table_id, user_ids, match)`` for every table held now and whenever a table's
        committed state changes (``match`` is None in the lobby and once the table is closed)."""
        self._registry.observe(observer)

    def busy(self) -> bool:
        """Whether work is in flight: a timer's move running or due at once, or an automatic outcome not yet
        handed to the listener. Tests wait for ``not busy()`` to know that a table has settled."""
        in_flight = getattr(self._registry.clock, "in_flight", None)
        running = bool(in_flight()) if callable(in_flight) else False
        return running or self._registry.feed.waiting or bool(self._registry.running)


__all__ = ["TableService"]


def _rules_help(ruleset: Ruleset | CrazierRules) -> str:
    if isinstance(ruleset, CrazierRules):
        return crazier_rules_help(ruleset)
    return rules_help(ruleset)


def _board_picture_key(table_id: int) -> str:
    return f"board_picture:{table_id}"
