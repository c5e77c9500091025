"""The Discord client: wires the parts together in one place, and shuts down cleanly.

``setup_hook`` (run by discord.py during ``login``): open and migrate the store, start the heartbeat, build
the table service, the standings and server services and the delivery part (``bot.delivery``), hand them to
the features (``bot.exts``: commands under ``/eights``, persistent buttons), restore the live tables, then
sync the application commands when the tree differs from the one last synced. ``close``: turn new interactions
away, let the registered closers finish the work in flight, close the store, then the gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import discord
from discord.ext import commands

import bot.exts.replays
import bot.exts.server
import bot.exts.standings
import bot.exts.tables
from bot import i18n
from bot.config import Config, art_cache_dir
from bot.delivery.budget import GlobalBudget
from bot.delivery.emojis import PASSING_ERRORS, UPLOAD_PACE, CardEmojis, failure_kind, passing_failure
from bot.delivery.endpoints import apply_endpoints
from bot.delivery.interactions_once import LateInteractions, SessionGuilds, act_once
from bot.delivery.publisher import DEFAULT_DEBOUNCE, TablePublisher, gather_window_for
from bot.delivery.relay import OutcomeRelay
from bot.exts._group import EightsGroup, unwatch_on_completion
from bot.exts.translator import CatalogueTranslator
from bot.exts.tree import EightsTree
from bot.i18n import N_, in_locale
from bot.metrics import BotMetrics
from bot.service import ServiceError, SystemClock, TableService
from bot.service.replays import ReplayService
from bot.service.server import ServerService
from bot.service.standings import StandingsService
from bot.shards import ShardSet
from bot.store import ShardClaim, open_store
from bot.store.base import Store, StoreError, terminate_store
from bot.ui.appearance import Appearance
from bot.ui.art.board import BoardRenderer
from bot.ui.art.cards import PALETTES
from bot.ui.art.emoji_set import EmojiSet
from bot.ui.locales import use_player_locale

if TYPE_CHECKING:
    from discord.state import ConnectionState

log = logging.getLogger(__name__)

CLAIM_LOST = "this process lost its shard claim (the database connection holding it); claiming it again"
RESTARTING_MESSAGE = N_("The bot is restarting, try again in a moment.")
HEARTBEAT_INTERVAL = 20.0  # seconds; `python -m bot health` allows 60
HEARTBEAT_RETRY = 2.0  # seconds between beats while the database fails
CLOSERS_TIMEOUT = 6.0  # seconds for the work in flight, so that the whole shutdown stays under 10 s
# Seconds the shutdown waits for the database's answer to its own write (the stopped mark), and for the store
# to close, before it goes on without: a server that drops every packet (its host gone, a partition) would
# hold each for asyncpg's 60 s command timeout.
STOPPED_MARK_TIMEOUT = 2.0
STORE_CLOSE_TIMEOUT = 2.0
REPLIES_TIMEOUT = 1.0  # seconds to deliver the "restarting" replies before the HTTP session closes
COMMAND_TREE_HASH_KEY = "command_tree_hash"
# A sync that met a passing failure (a 5xx, the network) is tried again in the background, this many seconds
# later, then twice as long each time up to SYNC_RETRY_STEP_LIMIT, until it goes through or is refused.
SYNC_RETRY_FIRST = 1.0
SYNC_RETRY_STEP_LIMIT = 300.0
BOARD_CHECKS_IN_PARALLEL = 4


def _sync_error(error: BaseException) -> str:
    """A failed sync's error, in one line (an HTTP answer says its status and Discord's text; never a
    header, so never the token)."""
    if isinstance(error, discord.HTTPException):
        return str(error)
    return f"{error.__class__.__name__}: {error}"


def _log_sync_refused(target: str, error: BaseException) -> None:
    status = error.status if isinstance(error, discord.HTTPException) else None
    hint = " (invited without the applications.commands scope?)" if status == 403 else ""
    log.error("syncing application commands %s failed: %s%s", target, _sync_error(error), hint)


def command_tree_hash_key(guild_id: int | None) -> str:
    """The meta key holding the hash of the tree last synced to one target: global, or one guild."""
    target = "global" if guild_id is None else f"guild:{guild_id}"
    return f"{COMMAND_TREE_HASH_KEY}:{target}"


def hash_command_payload(application_id: int | None, payload: list[dict[str, Any]]) -> str:
    """A stable digest of what a sync would send: canonical JSON, commands in name order."""
    ordered = sorted(payload, key=lambda command: (command.get("type", 1), command.get("name", "")))
    canonical = json.dumps(
        {"application_id": application_id, "commands": ordered},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# A young collection comes when 20,000 more container objects were made than freed (CPython's 700; freeing an
# old object counts too, so a pass finds several times that many young ones), a middle one after 5 young ones
# (CPython's 10), and a full pass after at least 100 middle ones (CPython's 10): a full pass walks every live
# object, about 300 ms with 1,000 open tables, a stall in the answers to clicks. The young threshold sets how
# many of the objects in flight (requests, snapshots, interactions) live long enough to be walked: at 1,000
# busy tables, 5,000 gave 9 young passes a second and 12 s of pauses a minute; 20,000 gives under one a
# second and 4.3 s (bench/e2e.py, README). Garbage that is not in a cycle (most of it) is freed at once
# whatever these are.
GC_THRESHOLDS = (20_000, 5, 100)


def tune_garbage_collector() -> None:
    """Called once start-up is done. Everything built so far (modules, commands, restored tables) lives as
    long as the process; frozen, it is no longer walked by the collector's full passes, which otherwise took
    about 100 ms each under load (the bot's latency tail)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class EightsBot(commands.AutoShardedBot):
    """The bot. Built from a ``Config``; the store is opened in ``setup_hook``.

    ``closers`` are awaited, last registered first, when the bot shuts down and before the store closes: the
    service registers one that finishes the move in flight and stops its timers.
    ``restore_tables`` is False for one-shot commands (``python -m bot sync``) that must not drive live
    tables, serve metrics or write the heartbeat alongside a running bot.
    """

    def __init__(
        self,
        config: Config,
        *,
        force_sync: bool = False,
        restore_tables: bool = True,
        tune_gc: bool = False,
        emoji_pace: float = UPLOAD_PACE,
        claim: ShardClaim | None = None,
        **options: Any,
    ) -> None:
        """``options`` go to discord.py's client as they are (tests pass ``guild_ready_timeout``).
        ``tune_gc``: the bot owns its process (``python -m bot run``); see ``tune_garbage_collector``.
        ``claim``: this process's shard claim (``run`` takes it first): play pauses while it is lost, and
        the bot stops when another process took the shards meanwhile."""
        # Every REST request passes through the global budget (bot.delivery.budget), which reports to the
        # metrics; both exist before the client, whose HTTP session takes the budget's trace hooks.
        self.metrics = BotMetrics()
        self.budget = GlobalBudget(
            config.global_rate, application_id=lambda: self.application_id, observer=self.metrics
        )
        self.metrics.watch_budget(self.budget)
        # The bot never joins voice: discord.py's warnings about missing voice libraries are noise here.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        # Slash commands and components only: no privileged intent, no message content; member names come
        # with each interaction.
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            # Each command answers in its player's language; the commands' names and descriptions are
            # translated by the catalogue translator set in setup_hook.
            tree_cls=EightsTree,
            intents=discord.Intents(guilds=True),
            shard_count=config.shard_count,
            # None (the default: all shards) is accepted though discord.py's option type says list[int].
            shard_ids=list(config.shard_ids) if config.shard_ids is not None else None,  # type: ignore[arg-type]
            # Only @mentions of users who are playing; never @everyone or roles from a display name.
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            http_trace=self.budget.trace_config(),
            **options,
        )
        self.config = config
        # The guilds this process serves (and the name of its heartbeat): its shards' own.
        self.owned_shards = ShardSet(config.shard_count, config.shard_ids)
        self.force_sync = force_sync
        self.tune_gc = tune_gc
        self.restore_tables = restore_tables
        self.closers: list[Callable[[], Awaitable[None]]] = []
        self.claim = claim
        self.fatal: str | None = None  # why the bot stopped by itself (`run` then exits 1)
        self._fatal_task: asyncio.Task[None] | None = None
        # The card art: the emojis are made sure of after start-up (text until then), the board picture is
        # drawn on demand; both in the palette the configuration names.
        palette = PALETTES[config.card_colours]
        # One process uploads the emojis (the one running shard 0); the others wait for them.
        uploader = config.shard_ids is None or 0 in config.shard_ids
        self.card_emojis = CardEmojis(
            EmojiSet(art_cache_dir(config), palette), pace=emoji_pace, uploader=uploader
        )
        self.board_pictures = BoardRenderer(palette)
        self.appearance = Appearance(
            self.card_emojis, self.board_pictures, guild_locale_of=self._guild_locale
        )
        self.draining = False
        self.commands_synced: bool | None = None  # True: synced, False: unchanged, None: not tried or failed
        self._store: Store | None = None
        self._parts: tuple[TableService, TablePublisher] | None = None
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._heartbeat_failing = False
        self._sync_task: asyncio.Task[None] | None = None
        self._shutdown_task: asyncio.Task[None] | None = None
        self._pending_replies: set[asyncio.Task[None]] = set()
        # Every interaction (command, autocomplete, button, modal) passes through this one parser, so the
        # shutdown guard here turns all of them away, not only slash commands.
        parsers = self._connection.parsers
        self._parse_interaction = parsers["INTERACTION_CREATE"]
        parsers["INTERACTION_CREATE"] = self._guarded_interaction_create
        # Outermost: an interaction Discord delivers twice is counted, turned away or acted on once.
        act_once(self._connection)
        # An interaction that reaches the bot after Discord's 3 s (replayed at a resume) is not acted on.
        self.late_interactions = LateInteractions()
        # The servers each shard's session lists: at a shard's ready, the tables of a server it left out are
        # closed (``bot.exts.tables._channels``; discord.py's cache keeps them across an invalid session).
        self.session_guilds = SessionGuilds()
        self.session_guilds.watch(self._connection)

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the store is opened in setup_hook; it is not open yet")
        return self._store

    def _built(self) -> tuple[TableService, TablePublisher]:
        if self._parts is None:
            raise RuntimeError("the service and the delivery part are built in setup_hook; not yet")
        return self._parts

    @property
    def service(self) -> TableService:
        """The table service (built in ``setup_hook``)."""
        return self._built()[0]

    @property
    def publisher(self) -> TablePublisher:
        """The delivery part's publisher (built in ``setup_hook``)."""
        return self._built()[1]

    # --- start-up ------------------------------------------------------------------------------------------

    async def login(self, token: str) -> None:
        # Before the first request: REST and gateway endpoints come from the configuration.
        apply_endpoints(self.config.api_base_url, self.config.gateway_url)
        await super().login(token)

    async def setup_hook(self) -> None:
        # Metrics are the playing bot's; `sync` runs beside it, whose port is taken.
        if self.config.metrics_port is not None and self.restore_tables:
            await self.metrics.start_server(self.config.metrics_address, self.config.metrics_port)
        self._store = await open_store(
            self.config.database_url.get(), pool_size=self.config.database_pool_size
        )
        version = await self._store.migrate()
        log.info("database ready at schema version %d", version)
        # The heartbeat is the playing bot's: a one-shot command beside it would write the same row (the key
        # is the shards') and mark it stopped at its exit, for a bot still running.
        if self.restore_tables:
            await self._write_heartbeat()
            self._heartbeat_task = asyncio.create_task(self._heartbeat_loop(), name="eights-heartbeat")

        await asyncio.to_thread(i18n.preload)  # the catalogues, read off the loop (see bot.i18n.preload)
        await self.tree.set_translator(CatalogueTranslator())
        await self._build_features(self._store)
        await self.sync_commands(force=self.force_sync)
        if self.restore_tables:  # a bot that plays (not a one-shot command such as `sync`)
            self.card_emojis.start(self)
            self.board_pictures.warm()  # in the renderer's thread: start-up does not wait for it
        if self.tune_gc:
            tune_garbage_collector()

    async def _build_features(self, store: Store) -> None:
        """Build the table service, its publisher and the standings service, add the features under one
        ``/eights`` group, register the closers, restore the open tables (before the bot answers anything) and
        check their boards. ``restore_tables`` False (one-shot commands such as ``sync``) leaves the tables
        alone."""
        cpu_delay = float(self.config.cpu_delay)
        # A CPU's moves are batched for at most its delay: with none, each is shown as it comes. The spacing
        # of a table's public lines and board edits is the channel's rate limit, the configuration's own
        # matter; hands are refreshed at once.
        window = min(DEFAULT_DEBOUNCE, cpu_delay)
        clock = SystemClock()  # the service's timers and the publisher's lanes run on one clock
        relay = OutcomeRelay()  # the service's listener: what it tells goes on to the publisher
        service = TableService(
            store,
            clock=clock,
            cpu_delay=cpu_delay,
            listener=relay,
            batch_window=window,
            shards=self.owned_shards,
            move_log_retention=self.config.move_log_retention,
            on_failed_commit=self.metrics.commit_failed,
        )
        publisher = TablePublisher(
            self,
            service,
            relay=relay,
            gather_window=gather_window_for(cpu_delay, window),
            min_interval=self.config.public_interval,
            budget=self.budget,
            on_board_shown=self.metrics.board_delay.observe,
            appearance=self.appearance,
            clock=clock,
        )
        standings = StandingsService(store)
        server = ServerService(store)
        self._parts = (service, publisher)
        if self.claim is not None:
            self.claim.watch(
                on_lost=lambda: service.pause(CLAIM_LOST), on_back=service.resume, on_taken=self._shards_taken
            )
        # Each server's card emojis / board picture switches, read from its settings when first needed.
        self.appearance.load_switches = server.card_display
        self.metrics.watch_publisher(publisher.backlog, publisher.behind)
        self.metrics.watch_open_tables(service.open_table_count)

        group = EightsGroup()
        # EightsBot is an AutoShardedBot: the same commands.Bot API, a sibling class for the type checker.
        as_bot = cast(commands.Bot, self)
        await bot.exts.tables.setup(as_bot, group, service, publisher)
        await bot.exts.standings.setup(as_bot, group, standings, self.appearance)
        await bot.exts.replays.setup(as_bot, group, ReplayService(store), self.appearance)
        await bot.exts.server.setup(as_bot, group, server, self.appearance)
        self.tree.add_command(group)
        self.add_listener(unwatch_on_completion, "on_app_command_completion")
        # Closers run last registered first: the service finishes its moves, then the publisher shows them.
        self.closers.append(publisher.close)
        self.closers.append(service.close)
        if self.restore_tables:
            restored = await service.restore_all()
            if restored:
                # Each board is checked before it is first shown: gone, or one posted and not recorded?
                publisher.restored(service.open_table_ids())
                # In the background: the bot answers at once, and the boards catch up within moments.
                task = asyncio.create_task(
                    _check_boards(service, publisher, self.wait_until_ready), name="eights-check-boards"
                )

                async def stop_checking() -> None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task

                self.closers.append(stop_checking)

    def _guild_locale(self, guild_id: int) -> object:
        """The server's language as Discord lists it (GUILD_CREATE's preferred locale), if it is listed."""
        guild = self.get_guild(guild_id)
        return guild.preferred_locale if guild is not None else None

    def _shards_taken(self, reason: str) -> None:
        """Another process holds this one's shards now (taken while the claim was lost): it plays them, so
        this one stops (play stays paused until it has)."""
        self.fatal = reason
        self._fatal_task = asyncio.create_task(self.close(), name="eights-shards-taken")

    def _sync_target(self) -> discord.Object | None:
        return discord.Object(id=self.config.dev_guild_id) if self.config.dev_guild_id else None

    async def command_payload(self, guild: discord.abc.Snowflake | None) -> list[dict[str, Any]]:
        """What ``tree.sync(guild=guild)`` would send, translations included (a changed translation is a
        changed tree: it is synced)."""
        translator = self.tree.translator
        commands_here = self.tree.get_commands(guild=guild)
        if translator is None:
            return [command.to_dict(self.tree) for command in commands_here]
        return [await command.get_translated_payload(self.tree, translator) for command in commands_here]

    async def sync_commands(self, *, force: bool = False) -> bool:
        """Sync the application commands (to DEV_GUILD_ID, or globally) when the tree differs from the
        tree last synced there, or always with ``force``. Returns whether it synced. A failed sync is logged
        and the bot runs on with the commands Discord already has; the hash is not recorded, so the next
        start retries. A passing failure (a 5xx, the network) is also tried again in the background, with a
        backoff, until it goes through or is refused (see ``_sync_again``). With ``force_sync``
        (``python -m bot sync``) a failure is raised instead."""
        guild = self._sync_target()
        if guild is not None:
            # A development server gets every global command as a guild command: those update instantly.
            self.tree.copy_global_to(guild=guild)
        target = "globally" if guild is None else f"to server {guild.id}"
        key = command_tree_hash_key(None if guild is None else guild.id)
        digest = hash_command_payload(self.application_id, await self.command_payload(guild))
        if not force and await self.store.get_meta(key) == digest:
            log.info("application commands unchanged since the last sync %s; not syncing", target)
            self.commands_synced = False
            return False
        try:
            synced = await self.tree.sync(guild=guild)
        except PASSING_ERRORS as error:
            self.commands_synced = None
            if self.force_sync or not passing_failure(error):
                _log_sync_refused(target, error)
                if self.force_sync:
                    raise
                return False
            log.warning(
                "syncing application commands %s failed: %s; trying again in the background",
                target,
                _sync_error(error),
            )
            if self._sync_task is None or self._sync_task.done():
                self._sync_task = asyncio.create_task(
                    self._sync_again(guild, target, key, digest, failure_kind(error)),
                    name="eights-sync-again",
                )
                self.closers.append(self._stop_syncing)
            return False
        await self.store.set_meta(key, digest)
        self.commands_synced = True
        log.info("synced %d application commands %s", len(synced), target)
        return True

    async def _sync_again(
        self, guild: discord.Object | None, target: str, key: str, digest: str, first_kind: str
    ) -> None:
        """Sync again after a passing failure: SYNC_RETRY_FIRST seconds later, then twice as long each time up
        to SYNC_RETRY_STEP_LIMIT, until it goes through (then the hash is recorded) or is refused. Each kind
        of failure is logged once."""
        said = {first_kind}
        delay, tries = SYNC_RETRY_FIRST, 1
        while True:
            await asyncio.sleep(delay)
            delay = min(delay * 2, SYNC_RETRY_STEP_LIMIT)
            tries += 1
            try:
                synced = await self.tree.sync(guild=guild)
            except PASSING_ERRORS as error:
                if not passing_failure(error):
                    _log_sync_refused(target, error)
                    return
                kind = failure_kind(error)
                if kind not in said:
                    said.add(kind)
                    log.warning(
                        "syncing application commands %s failed again: %s; still trying in the background",
                        target,
                        _sync_error(error),
                    )
                continue
            self.commands_synced = True
            log.info("synced %d application commands %s (at try %d)", len(synced), target, tries)
            try:
                await self.store.set_meta(key, digest)
            except StoreError as error:
                # Synced all the same; the next start only syncs once more.
                log.warning("could not record the synced command tree: %s", error)
            return

    async def _stop_syncing(self) -> None:
        task = self._sync_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- heartbeat ---------------------------------------------------------------------------------------

    async def _write_heartbeat(self) -> None:
        outage = self._parts[0].store_outage() if self._parts is not None else None
        try:
            await self.store.write_heartbeat(
                time.time(), self.owned_shards.key, pid=os.getpid(), host=socket.gethostname()
            )
        except StoreError as error:
            # The database is away: the service's outage says so in one line (whichever write fails first)
            # and one when it is back, not a line per beat; `health` reports it meanwhile.
            if outage is not None:
                outage.noticed(error)
            elif not self._heartbeat_failing:
                log.warning("could not write the heartbeat: %s", error)
            self._heartbeat_failing = True
        except Exception:
            log.exception("could not write the heartbeat")
            self._heartbeat_failing = True
        else:
            if outage is not None:
                outage.succeeded()  # a write went through: the database is back, moves or not
            elif self._heartbeat_failing:
                log.info("the heartbeat is written again")
            self._heartbeat_failing = False

    async def _heartbeat_loop(self) -> None:
        while True:
            # Failing: beat again soon, so that the beat (and `health`) is fresh within moments of the return.
            await asyncio.sleep(HEARTBEAT_RETRY if self._heartbeat_failing else HEARTBEAT_INTERVAL)
            await self._write_heartbeat()

    # --- shutdown ----------------------------------------------------------------------------------------

    def _guarded_interaction_create(self, data: Any) -> None:
        kind = int(data.get("type") or 0)
        if self.late_interactions.drop(data):
            # Past Discord's 3 s (replayed after a resume of a silent session, read late by a busy loop):
            # its player was shown "This interaction failed" and nobody can answer it; acted on, it would be
            # a move nobody was told of, which the player's retry would make again.
            self.metrics.interaction_late(kind)
            return
        self.metrics.interaction_received(int(data["id"]), kind)
        if not self.draining:
            self._parse_interaction(data)
            return
        state = cast("ConnectionState[EightsBot]", self._connection)
        interaction: discord.Interaction[EightsBot] = discord.Interaction(data=data, state=state)
        task = asyncio.create_task(self._turn_away(interaction))
        self._pending_replies.add(task)
        task.add_done_callback(self._pending_replies.discard)

    async def _turn_away(self, interaction: discord.Interaction[EightsBot]) -> None:
        try:
            if interaction.type is discord.InteractionType.autocomplete:
                await interaction.response.autocomplete([])
            else:
                # As every other answer: the player's language, else the server's (its settings' choice).
                text = in_locale(use_player_locale(interaction), RESTARTING_MESSAGE)
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException as error:
            log.debug("could not turn interaction %s away: %s", interaction.id, error)

    async def close(self) -> None:
        # Several paths call close (the signal handler, `async with`, discord.py itself); one shutdown runs.
        if self._shutdown_task is None:
            self._shutdown_task = asyncio.create_task(self._shutdown(), name="eights-shutdown")
        await asyncio.shield(self._shutdown_task)

    async def _shutdown(self) -> None:
        self.draining = True
        if self._heartbeat_task is not None and self._store is not None:
            await self._mark_stopped(self._heartbeat_task, self._store)
        self.card_emojis.stop()
        await self._run_closers()
        if self._pending_replies:
            await asyncio.wait(set(self._pending_replies), timeout=REPLIES_TIMEOUT)
        if self._store is not None:
            await self._close_store(self._store)
        await super().close()
        await self.metrics.stop_server()
        log.info("shut down")

    async def _mark_stopped(self, heartbeat: asyncio.Task[None], store: Store) -> None:
        """Stop the heartbeat, then mark this process stopped: `health` fails from now on, not only once the
        beat is 60 s old. Waited for STOPPED_MARK_TIMEOUT at most (asyncio.wait, not wait_for: a cancelled
        asyncpg statement waits for its cancel request, which a silent server never answers); the mark is all
        it writes, so skipping it loses nothing but that early `health` answer."""

        async def mark() -> None:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
            # After the last beat (and only then: a beat written after it would undo it).
            await store.mark_stopped(self.owned_shards.key, time.time())

        marking = asyncio.create_task(mark(), name="eights-mark-stopped")
        await asyncio.wait({marking}, timeout=STOPPED_MARK_TIMEOUT)
        if not marking.done():
            # It ends when the store closes (or its connections are dropped); its error is no news then.
            marking.add_done_callback(lambda task: task.cancelled() or task.exception())
            log.warning(
                "the database did not answer within %.0f s: this process is not marked stopped (health "
                "fails once its last heartbeat is 60 s old); nothing else is lost",
                STOPPED_MARK_TIMEOUT,
            )
            return
        error = marking.exception()
        if isinstance(error, StoreError):  # the database is away or refuses writes: said, no traceback
            log.warning("could not mark the process stopped in the database: %s", error)
        elif error is not None:
            log.error("could not mark the process stopped in the database", exc_info=error)

    async def _close_store(self, store: Store) -> None:
        """Close the store, waiting STORE_CLOSE_TIMEOUT at most for the statements still running (a server
        that does not answer): then PostgreSQL's connections are dropped. What the server committed is kept;
        a statement cut short did not commit, and was not answered as done."""
        closing = asyncio.create_task(store.close(), name="eights-close-store")
        await asyncio.wait({closing}, timeout=STORE_CLOSE_TIMEOUT)
        if not closing.done() and terminate_store(store):
            log.warning(
                "the database did not answer within %.0f s: its connections are dropped (what it committed "
                "is kept)",
                STORE_CLOSE_TIMEOUT,
            )
        try:
            await closing
        except Exception:
            log.exception("closing the database failed")

    def abandon(self) -> None:
        """The shutdown is out of time (``python -m bot run``'s deadline after SIGTERM): drop the database
        connections now, so that nothing waits for a server that does not answer (asyncpg's cancel requests
        included). What it committed is kept; the rest of the shutdown goes on without it."""
        if self._store is not None:
            terminate_store(self._store)

    async def _run_closers(self) -> None:
        async def run_all() -> None:
            for closer in reversed(self.closers):
                try:
                    await closer()
                except Exception:
                    log.exception("a shutdown step failed")

        try:
            await asyncio.wait_for(run_all(), timeout=CLOSERS_TIMEOUT)
        except TimeoutError:
            log.warning("the work in flight did not finish within %.0f s; closing anyway", CLOSERS_TIMEOUT)


async def _check_boards(
    service: TableService, publisher: TablePublisher, ready: Callable[[], Awaitable[None]]
) -> None:
    """Check every restored table's board (``TablePublisher.check_board``, in the table's board lane): adopt a
    board the previous process posted and did not record, repost the ones whose message was deleted, bring
    them up to date. Once Discord has listed the bot's servers (``ready``): each board is in its server's
    language. A table whose news comes first is checked by its lane then (``TablePublisher.restored``)."""
    await ready()
    gate = asyncio.Semaphore(BOARD_CHECKS_IN_PARALLEL)

    async def check(table_id: int) -> None:
        async with gate:
            try:
                snapshot = await service.snapshot(table_id)
                await publisher.check_board(snapshot)
            except ServiceError:
                return
            except Exception:
                log.exception("table %s: checking the board failed", table_id)

    await asyncio.gather(*(check(table_id) for table_id in service.open_table_ids()))
