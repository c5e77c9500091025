"""The command line: ``python -m bot [run|sync|migrate|check|backup|health|forget-user|copy-db]``.

Exit codes: 0 done; 1 the command failed (database — including a damaged database file or one from a newer
version of the bot —, Discord, unhealthy, check found a problem); 2 a missing or malformed setting or a wrong
command line. Errors are one line on stderr, never a traceback, and never
contain the token. discord.py is imported only by run and sync, so that health (Docker runs it every 30 s)
and the other commands start fast.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from bot import __version__
from bot.config import (
    VARIABLES,
    Config,
    ConfigError,
    art_cache_dir,
    decimal,
    inspect_config,
    load_config,
    postgres_option_problem,
    postgres_url_conflict,
    setting_in_effect,
    unknown_variables,
)
from bot.logging_setup import setup_logging
from bot.shards import ShardSet
from bot.store import (
    DamagedDatabaseError,
    DatabaseTarget,
    Heartbeat,
    MigrationError,
    MissingDatabaseError,
    ShardClaim,
    ShardsClaimedError,
    Store,
    StoreError,
    UnsupportedDatabaseError,
    claim_shards,
    open_store,
    parse_database_url,
)
from bot.store.base import RESTORE_HINT, first_problems, require_sound
from bot.store.claims import claims_enforced, lock_file
from bot.store.folders import folder_problem

if TYPE_CHECKING:
    from bot.client import EightsBot

PROG = "python -m bot"
HEALTH_PROBE_KEY = "health_probe_at"  # written by each `health`: the database must accept writes
HEALTH_MAX_AGE = 60.0  # seconds; the bot writes its heartbeat every 20 s
SHUTDOWN_DEADLINE = 9.0  # seconds from SIGTERM to exit, inside Docker's default 10 s grace period
# Its last second is for leaving when the orderly shutdown overran (a database that does not answer): the rest
# of the bot's close once its database connections are dropped, then the shard claim's release.
CLOSE_AFTER_ABANDON = 0.5
CLAIM_RELEASE_TIMEOUT = 0.5
ORDERLY_SHUTDOWN = SHUTDOWN_DEADLINE - CLOSE_AFTER_ABANDON - CLAIM_RELEASE_TIMEOUT

log = logging.getLogger("bot")


class CommandError(Exception):
    """A command failed in an expected way: the message is printed as one line, then exit ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = 1) -> NoReturn:
    raise CommandError(message, code)


def _config() -> Config:
    return load_config()  # ConfigError is turned into exit 2 by main()


def _database_file(config: Config) -> Path | None:
    """The SQLite file; None for an in-memory database or PostgreSQL."""
    target = parse_database_url(config.database_url.get())
    return None if target.path is None or target.is_memory else Path(target.path)


def _is_postgres(config: Config) -> bool:
    return parse_database_url(config.database_url.get()).backend == "postgresql"


def _shown(config: Config) -> str:
    """Where the database is, fit to print: the SQLite file, or the PostgreSQL URL without its password."""
    return str(_database_file(config) or parse_database_url(config.database_url.get()).shown)


async def _open(config: Config) -> Store:
    return await open_store(config.database_url.get(), pool_size=config.database_pool_size)


def _existing_database(config: Config) -> None:
    """The SQLite file must exist: commands that only read it should not create an empty one. (PostgreSQL's
    server answers for itself.)"""
    if _is_postgres(config):
        return
    path = _database_file(config)
    if path is None or not path.is_file():
        fail(f"no database at {path}: start the bot or run `{PROG} migrate` first")


def _targets(config: Config | None, *urls: str | None) -> list[DatabaseTarget]:
    found = []
    for url in (config.database_url.get() if config else None, *urls):
        if url:
            try:
                found.append(parse_database_url(url))
            except UnsupportedDatabaseError:
                continue
    return found


def _scrub(config: Config | None, text: str, *urls: str | None) -> str:
    """``text`` without any database password (the configured URL's, or the URLs given)."""
    for target in _targets(config, *urls):
        text = target.scrub(text)
    return text


# --- run and sync -----------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    config = _config()
    token = config.require_token()
    setup_logging(config.log_level, config.log_format, secrets=config.secrets())
    for note in unknown_variables(config.env_file):
        log.warning("%s", note)
    return asyncio.run(_run(config, token))


async def _run(config: Config, token: str) -> int:
    """Claim the shards, migrate, serve; the claim is held until the bot has shut down (or dies with it)."""
    # SIGTERM or SIGINT while starting (waiting for a claim, migrating) stops at once: in a container the bot
    # is PID 1, which ignores a signal it has no handler for, so `docker stop` would wait for its SIGKILL. A
    # migration cut short is rolled back whole. The handler stays until _serve's takes over (discord.py's
    # first import and building the bot take half a second): a signal once migrated stops the bot before
    # it connects, through ``stop``, which _serve reads.
    starting = asyncio.current_task()
    signalled: list[int] = []
    stop = asyncio.Event()
    migrated = False

    def on_signal(signum: int) -> None:
        name = signal.Signals(signum).name
        if migrated and stop.is_set():  # as _serve's second signal (its handler is gone once it returns)
            log.warning("second %s: exiting now", name)
            os._exit(1)
        log.info("%s received while starting: stopping", name)
        signalled.append(signum)
        if migrated:
            stop.set()
        elif starting is not None:
            starting.cancel()

    restore = handle_signals(asyncio.get_running_loop(), (signal.SIGTERM, signal.SIGINT), on_signal)
    try:
        try:
            # The claim first: a second process on the same shards refuses to start and changes nothing.
            try:
                claim = await claim_shards(
                    config.database_url.get(), ShardSet(config.shard_count, config.shard_ids)
                )
            except ShardsClaimedError as error:
                fail(str(error))
            try:
                # The database next: a damaged one, or one from a newer bot, stops run before it connects
                # to Discord.
                await _migrate(config)
            except BaseException:
                await claim.release()
                raise
        except asyncio.CancelledError:
            if not signalled:
                raise
            return 0
        migrated = True
        if signalled:  # a cancellation the migration's last step did not heed
            stop.set()
        try:
            from bot.client import EightsBot

            bot = EightsBot(config, tune_gc=True, claim=claim)
            return await _serve(bot, token, stop)
        finally:
            await _release(claim)
    finally:
        restore()


async def _release(claim: ShardClaim) -> None:
    """Let the claim go, within CLAIM_RELEASE_TIMEOUT: a PostgreSQL server that does not answer would hold
    its connection's close for 5 s. Cut short, the connection is dropped, and the server ends the claim with
    it (as at a crash)."""
    try:
        await asyncio.wait_for(claim.release(), timeout=CLAIM_RELEASE_TIMEOUT)
    except TimeoutError:
        log.warning("the database did not answer the shard claim's release: its connection is dropped")


async def _migrate(config: Config) -> tuple[int, int]:
    """Open the database, apply the pending migrations; the schema version, and how many migrations this
    process applied (counted by the runner under its lock: not those another process starting at once
    applied while this one waited)."""
    store = await _open(config)
    try:
        version = await store.migrate()
        return version, store.migrations_applied
    finally:
        await store.close()


def handle_signals(
    loop: asyncio.AbstractEventLoop, signums: Sequence[signal.Signals], callback: Callable[[int], None]
) -> Callable[[], None]:
    """Call ``callback(signum)`` on the event loop when one of ``signums`` arrives; returns what puts the
    previous handlers back. Not ``loop.add_signal_handler``: asyncio learns of a signal only from a byte the
    signal writes to its wakeup socket, which every thread's ``call_soon_threadsafe`` also writes to; while
    a busy loop is late (seconds, at 1,000 busy tables on a short machine) the socket fills and the byte is
    lost ("Exception ignored when trying to write to the signal wakeup fd"), and with it a SIGTERM. A Python
    handler always runs in the main thread (the loop's) at its next step, and queues the call there."""
    previous = {signum: signal.getsignal(signum) for signum in signums}

    def on_signal(signum: int, _frame: object) -> None:
        if not loop.is_closed():  # a signal at the very end (the loop gone, the process exiting)
            loop.call_soon_threadsafe(callback, signum)

    for signum in signums:
        signal.signal(signum, on_signal)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore


async def _serve(bot: EightsBot, token: str, stop: asyncio.Event | None = None) -> int:
    """Run until the bot stops or SIGTERM/SIGINT arrives; then shut down in order, within the deadline.
    ``stop``: set by a signal that came before this function took the signals over (``_run``'s handler):
    then the bot is not started (nothing of it is open yet), exit 0."""
    loop = asyncio.get_running_loop()
    if stop is None:
        stop = asyncio.Event()

    def on_signal(signum: int) -> None:
        if stop.is_set():
            log.warning("second %s: exiting now", signal.Signals(signum).name)
            os._exit(1)
        log.info("%s received: finishing the work in flight and shutting down", signal.Signals(signum).name)
        stop.set()

    restore = handle_signals(loop, (signal.SIGTERM, signal.SIGINT), on_signal)

    try:
        # A signal the previous handler queued just before this one took over is heard now, before the bot
        # starts: its call runs at the loop's next step.
        await asyncio.sleep(0)
        if stop.is_set():
            log.info("stopped before connecting")
            return 0
        runner = asyncio.create_task(bot.start(token), name="eights-bot")
        stopper = asyncio.create_task(stop.wait(), name="eights-stop")
        await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stopper.done():
            try:
                await asyncio.wait_for(bot.close(), timeout=ORDERLY_SHUTDOWN)
            except TimeoutError:
                # What still runs waits for the database (a server that drops every packet), and asyncio.run
                # would wait for it at exit: each cancelled statement for its cancel request, up to the pool's
                # 60 s command timeout. Dropped, the rest of the close gets what time is left.
                log.warning(
                    "shutdown took longer than %.0f s: dropping the database connections and exiting",
                    ORDERLY_SHUTDOWN,
                )
                bot.abandon()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(bot.close(), timeout=CLOSE_AFTER_ABANDON)
            if not runner.done():
                runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            return 0
        stopper.cancel()
        try:
            runner.result()
        finally:
            # Whatever ended the bot (an error at start-up, a gateway failure): close the store and session.
            await bot.close()
        if bot.fatal is not None:
            log.error("stopped: %s", bot.fatal)
            return 1
        return 0
    finally:
        restore()


def cmd_sync(args: argparse.Namespace) -> int:
    config = _config()
    token = config.require_token()
    setup_logging(config.log_level, config.log_format, secrets=config.secrets())
    from bot.client import EightsBot

    # No gateway, and no live tables: a running bot keeps driving those.
    bot = EightsBot(config, force_sync=True, restore_tables=False)

    async def sync() -> None:
        try:
            await bot.login(token)  # setup_hook opens the store, loads the commands and syncs them
        finally:
            await bot.close()

    asyncio.run(sync())
    target = f"to server {config.dev_guild_id}" if config.dev_guild_id else "globally"
    print(f"application commands synced {target}")
    return 0


# --- database commands ------------------------------------------------------------------------------------


def cmd_migrate(args: argparse.Namespace) -> int:
    config = _config()
    version, applied = asyncio.run(_migrate(config))
    done = f"applied {applied} migration(s)" if applied else "already up to date"
    print(f"schema version {version} ({done}) in {_shown(config)}")
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    config = _config()
    target_url = parse_database_url(config.database_url.get())
    if target_url.backend == "postgresql":
        from bot.store.postgres import backup_advice

        fail(backup_advice(target_url, args.path))
    _existing_database(config)
    source = _database_file(config)
    assert source is not None
    from bot.store.sqlite import backup_path_problem

    target = Path(args.path)
    # The database and the files beside it that belong to it (its WAL, the claim's lock file…) first: --force
    # would not make them a backup's place.
    if (problem := backup_path_problem(str(source), args.path)) is not None:
        fail(problem)
    try:
        if target.is_dir():
            fail(f"{target} is a folder: give the backup a file name, e.g. {target / source.name}")
        exists = target.exists()
    except OSError as error:
        fail(f"the backup path {target} cannot be used ({error.strerror or error}): choose another path")
    if exists and not args.force:
        fail(f"{target} already exists: choose another path or pass --force to replace it")

    async def backup() -> int:
        store = await _open(config)
        try:
            version = await store.schema_version()
            await store.backup(str(target))
            return version
        finally:
            await store.close()

    version = asyncio.run(backup())
    try:
        size = f"{target.stat().st_size} bytes, "
    except OSError:  # written and renamed into place, then moved away by someone else
        size = ""
    print(f"backup of {source} written to {target} ({size}schema version {version})")
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    config = _config()
    path = _database_file(config)
    if not _is_postgres(config) and (path is None or not path.is_file()):
        print(f"unhealthy: no database at {path}")
        return 1

    # Each process has its own heartbeat, named by its shards: this checks the process these settings run.
    shards = ShardSet(config.shard_count, config.shard_ids)

    async def read() -> tuple[Heartbeat | None, StoreError | None]:
        store = await _open(config)
        try:
            beat = await store.heartbeat(shards.key)
            # A database that can be read but not written (a full disk, a file locked by another process,
            # a read-only failover) stops every move: the bot is not healthy then, whatever its last beat.
            try:
                await store.set_meta(HEALTH_PROBE_KEY, f"{time.time():.0f}")
            except StoreError as error:
                return beat, error
            return beat, None
        finally:
            await store.close()

    try:
        beat, unwritable = asyncio.run(read())
    except DamagedDatabaseError as error:
        print(f"unhealthy: {error}")
        return 1
    except Exception as error:  # a locked or unmigrated file: unhealthy, not a crash
        print(f"unhealthy: cannot read the heartbeat ({_scrub(config, f'{type(error).__name__}: {error}')})")
        return 1
    if unwritable is not None:
        print(f"unhealthy: the database does not accept writes ({_scrub(config, str(unwritable))})")
        return 1
    who = "" if shards.everything else f" ({shards.describe()})"
    if beat is None:
        print(f"unhealthy: the bot{who} has not written a heartbeat yet")
        return 1
    if beat.stopped_at is not None:
        print(f"unhealthy{who}: the bot stopped cleanly {max(time.time() - beat.stopped_at, 0):.0f} s ago")
        return 1
    age = time.time() - beat.beat_at
    if age > args.max_age:
        print(f"unhealthy{who}: last heartbeat {age:.0f} s ago (more than {args.max_age:g} s)")
        return 1
    print(f"healthy{who}: last heartbeat {max(age, 0):.0f} s ago")
    return 0


def cmd_forget_user(args: argparse.Namespace) -> int:
    config = _config()
    _existing_database(config)

    async def forget() -> tuple[int, list[int]]:
        store = await _open(config)
        try:
            await require_sound(store, parse_database_url(config.database_url.get()).shown)
            await store.migrate()
            changed = await store.forget_user(args.user_id, args.guild)
            return changed, await store.open_tables_of_user(args.user_id)
        finally:
            await store.close()

    changed, open_tables = asyncio.run(forget())
    where = f"in server {args.guild}" if args.guild else "in every server"
    print(f"forgot user {args.user_id} {where}: {changed} row(s) deleted or anonymised")
    if open_tables:
        ids = ", ".join(str(table) for table in open_tables)
        # A seat, or a lobby they left or were removed from: the table's state and moves still name them.
        print(
            f"note: open table(s) {ids} still hold the user (a seat, or a lobby they left); "
            "run this again after they finish"
        )
    return 0


def cmd_copy_db(args: argparse.Namespace) -> int:
    from bot.store.copy import copy_database

    source, target = _option_url("--from", args.source), _option_url("--to", args.target)
    # The refusal is the claim every running bot holds (copy_database takes it); promised only where it works.
    if claims_enforced(source):
        caution = "stop the bot first: a database in use is refused"
    else:
        caution = "stop the bot first: whether one uses it cannot be checked here"
    print(f"copying {source.shown} to {target.shown} ({caution})")

    def progress(table: str, rows: int) -> None:
        print(f"  {table}: {rows} row(s)")

    try:
        with _removed_if_failed(target):
            report = asyncio.run(copy_database(args.source, args.target, progress=progress))
    except MissingDatabaseError as error:
        fail(f"--from: no database at {error.path}: check the path (copy-db creates only the --to database)")
    except ShardsClaimedError as error:
        fail(f"--from: {error}")
    tables = report.counts["game_tables"]
    print(
        f"copied and verified by counts: {tables} table(s) ({report.open_tables} open), "
        f"{report.counts['moves']} move(s), {report.counts['match_results']} match result(s), "
        f"{report.counts['player_stats']} player statistic(s); schema version {report.schema_version}"
    )
    print("now set DATABASE_URL to the new database and start the bot")
    return 0


@contextlib.contextmanager
def _removed_if_failed(target: DatabaseTarget) -> Iterator[None]:
    """copy-db's --to: an SQLite file the copy creates is removed again when it fails (a source from a newer
    bot, one that changed meanwhile, Ctrl+C…), with the files beside it and the folders made for it, so
    that a failed copy leaves nothing it created. A file that was there before is left as it is (the copy
    rolled back what it wrote)."""
    if target.backend != "sqlite" or target.path is None or target.is_memory or os.path.lexists(target.path):
        yield
        return
    from bot.store.sqlite import database_files

    files = [path for path in database_files(target.path) if not os.path.lexists(path)]
    folders = []
    folder = Path(os.path.abspath(target.path)).parent
    while not os.path.lexists(folder):
        folders.append(folder)  # the deepest first
        folder = folder.parent
    try:
        yield
    except BaseException:
        for path in files:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        for folder in folders:
            with contextlib.suppress(OSError):  # not empty: someone else's files are in it now
                folder.rmdir()
        raise


def _option_url(option: str, url: str) -> DatabaseTarget:
    try:
        target = parse_database_url(url)
    except UnsupportedDatabaseError as error:
        fail(f"{option}: {error}", 2)
    if (twice := postgres_url_conflict(url)) is not None:
        fail(f"{option}: {twice}", 2)
    if (malformed := postgres_option_problem(url)) is not None:
        fail(f"{option}: {malformed}", 2)
    return target


# --- check ------------------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    """Validate the configuration and the database, say what run would do; exit 1 when run would fail."""
    config, errors = inspect_config()
    problems = [str(error) for error in errors]
    lines: list[str] = []
    add = lines.append
    add(f"crazy-eights {__version__}, working directory {Path.cwd()}")
    env_file = Path(".env")
    if env_file.is_file():
        add(f"settings file: {env_file.resolve()}")
        if os.name == "posix" and env_file.stat().st_mode & 0o077:
            add("  note: other users can read .env, which holds the token: chmod 600 .env")
        for note in unknown_variables(env_file):
            add(f"  note: {note}")
    else:
        add("settings file: none (.env not found)")
    if config is None:  # the .env file itself could not be read
        return _report(lines, problems)

    if config.token:
        add(f"DISCORD_TOKEN: set ({config.token}, {len(config.token)} characters)")
    elif not any(error.variable == "DISCORD_TOKEN" for error in errors):
        problems.append("DISCORD_TOKEN: not set; run would exit 2 (put the bot token in .env)")
    add(f"API: {config.api_base_url or 'Discord (https://discord.com/api/v10)'}")
    add(f"gateway: {config.gateway_url or 'Discord (wss://gateway.discord.gg)'}")
    if config.shard_count is None:
        add("shards: as many as Discord recommends")
    elif config.shard_ids is None:
        add(f"shards: all {config.shard_count}")
    else:
        add(f"shards: {', '.join(map(str, config.shard_ids))} of {config.shard_count}")
    target = f"to server {config.dev_guild_id} only" if config.dev_guild_id else "globally"
    add(f"commands: synced {target} when they changed since the last sync")
    add(f"logging: {config.log_level}, {config.log_format}")
    add(f"CPU players wait {config.cpu_delay:g} s before moving")
    if config.global_rate is None:
        add("global rate limit: paced by the shared REST proxy at the API URL")
    else:
        add(f"global rate limit: at most {config.global_rate} requests per second to Discord")
    if config.metrics_port is None:
        add("metrics: off (set METRICS_PORT to serve them)")
    else:
        add(f"metrics: http://{config.metrics_address}:{config.metrics_port}/metrics")
        from bot.metrics import address_problem  # prometheus_client and aiohttp's server: only when asked

        if (refused := address_problem(config.metrics_address)) is not None:
            problems.append(f"{refused}; run would exit 2")
    if config.move_log_retention is None:
        add("move logs: kept for ever (MOVE_LOG_RETENTION_DAYS not set)")
    else:
        add(f"move logs: kept {config.move_log_retention / 86_400:g} days after their table closes")
    add(f"card colours: {config.card_colours}")
    art = art_cache_dir(config)
    if (reason := folder_problem(art)) is not None:
        # Not a problem: run starts, it only draws the card art again at every start.
        add(f"note: the card art cannot be cached in {art} ({reason}); run draws it again at every start")
    else:
        add(f"card art: kept in {art}")
    if any(error.variable == "DATABASE_URL" for error in errors):
        # The database run would use is the one DATABASE_URL names: no other is checked in its place.
        value, source = setting_in_effect("DATABASE_URL")
        try:
            reason = f"is {parse_database_url(value or '').shown!r}"
        except UnsupportedDatabaseError as error:  # says what is wrong, the value's password masked
            reason = str(error)
        add(f"database: not checked: DATABASE_URL from {source}: {reason}")
    else:
        problems.extend(_check_database(config, add))
    return _report(lines, problems)


def _check_database(config: Config, add: Callable[[str], None]) -> list[str]:
    """Check the database without changing it; return the problems."""
    path = _database_file(config)
    try:
        # The migration files apply cleanly to an empty database (in memory): that is the version run wants.
        latest = asyncio.run(_migrate_in_memory())
    except (MigrationError, StoreError) as error:
        return [f"migrations: {error}"]
    if _is_postgres(config):
        return _check_postgres(config, latest, add)
    if path is None:
        add(f"database: in memory (lost at exit), migrations up to version {latest}")
        return []
    if not path.exists():
        if (reason := folder_problem(path.parent)) is not None:
            return [f"DATABASE_URL: cannot create {path}: {reason}"]
        add(f"database: {path} does not exist yet; run will create it at schema version {latest}")
        return []
    try:
        version, integrity = asyncio.run(_inspect_database(config))
    except DamagedDatabaseError as error:
        return [str(error)]
    except Exception as error:
        return [f"database {path}: cannot be read ({type(error).__name__}: {error})"]
    if version > latest:
        return [
            f"database {path}: schema version {version} is newer than this bot's ({latest}); upgrade the bot"
        ]
    pending = f"run will apply {latest - version} migration(s)" if version < latest else "up to date"
    add(f"database: {path}, schema version {version} of {latest} ({pending})")
    if integrity != ["ok"]:
        return [f"database {path}: integrity check failed ({first_problems(integrity)}): {RESTORE_HINT}"]
    if (reason := _unwritable(path)) is not None:
        return [f"database {path}: {reason}; run could not save a move (give the bot's user write access)"]
    if refused := _write_refused(config):
        return refused
    # The claim's lock is the file's own, whatever name it was given; none: no process holds it (and none is
    # made here).
    if lock_file(path.resolve()).exists():
        return _check_claim(config, add)
    return []


# check's line when the shards are held by the bot that runs here with these settings (`docker exec … check`
# in its container): that is no problem of the settings, and check's verdict says so.
RUNNING_HERE = "shards: held by the bot running here with these settings"


def _check_claim(config: Config, add: Callable[[str], None]) -> list[str]:
    """run claims its shards first and refuses to start when another process holds any of them (or runs
    another SHARD_COUNT): tried here and let go at once. Held by the bot running here with these settings
    (check beside it), it is said in a line, not a problem."""
    shards = ShardSet(config.shard_count, config.shard_ids)

    async def attempt() -> None:
        claim = await claim_shards(config.database_url.get(), shards, retry_for=0.0)
        await claim.release()

    try:
        asyncio.run(attempt())
    except ShardsClaimedError as error:
        if (running := _running_here(config, shards)) is not None:
            add(f"{RUNNING_HERE} ({running}); a second run is refused while it runs")
            return []
        return [f"{error}; run would exit 1"]
    except StoreError as error:
        return [f"shards: cannot be claimed: {_scrub(config, str(error))}"]
    return []


def _running_here(config: Config, shards: ShardSet) -> str | None:
    """The bot that holds ``shards`` when it is the one running on this machine with these settings (its
    heartbeat, named by the same shards, fresh and not stopped, written from this host by a process alive
    here), said for check's line; None when the holder is another process, or cannot be told."""

    async def read() -> Heartbeat | None:
        store = await _open(config)
        try:
            return await store.heartbeat(shards.key)
        finally:
            await store.close()

    try:
        beat = asyncio.run(read())
    except Exception:  # not told apart: the claim's refusal stands
        return None
    if beat is None or beat.stopped_at is not None or beat.pid is None or beat.host != socket.gethostname():
        return None
    age = time.time() - beat.beat_at
    if age > HEALTH_MAX_AGE or beat.pid == os.getpid() or not _alive(beat.pid):
        return None
    return f"process {beat.pid}, last heartbeat {max(age, 0):.0f} s ago"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's process: alive
        return True
    except OSError:
        return False
    return True


def _write_refused(config: Config) -> list[str]:
    """run's first step, migrating, writes (SQLite: it takes the write lock even with nothing to apply): an
    SQLite file another process is writing to (an sqlite3 shell left in a transaction), or a read-only
    PostgreSQL server or session, stops it. Tried here without writing anything."""

    async def attempt() -> None:
        store = await _open(config)
        try:
            await store.check_writable()
        finally:
            await store.close()

    try:
        asyncio.run(attempt())
    except StoreError as error:
        return [f"{_scrub(config, str(error))}; run would exit 1"]
    except Exception as error:
        return [f"database: cannot be written ({_scrub(config, f'{type(error).__name__}: {error}')})"]
    return []


def _unwritable(path: Path) -> str | None:
    """Why the bot could not write the database file (or the journal files beside it), or None. Opened for
    writing without writing anything: what the file's mode, owner or an immutable flag says, as run meets
    it."""
    try:
        with path.open("r+b"):
            pass
    except OSError as error:
        return f"the file cannot be written ({error.strerror or error})"
    return folder_problem(path.parent)


def _check_postgres(config: Config, latest: int, add: Callable[[str], None]) -> list[str]:
    shown = parse_database_url(config.database_url.get()).shown
    try:
        version, integrity = asyncio.run(_inspect_database(config))
    except Exception as error:  # StoreError's message masks the password; scrub the others too
        return [f"database {shown}: cannot be used ({_scrub(config, f'{type(error).__name__}: {error}')})"]
    if version > latest:
        return [
            f"database {shown}: schema version {version} is newer than this bot's ({latest}); upgrade the bot"
        ]
    pending = f"run will apply {latest - version} migration(s)" if version < latest else "up to date"
    add(
        f"database: PostgreSQL {shown}, schema version {version} of {latest} ({pending}), "
        f"pool of {config.database_pool_size} connections"
    )
    if integrity != ["ok"]:
        return [f"database {shown}: {first_problems(integrity)}"]
    return _write_refused(config) or _check_claim(config, add)


async def _migrate_in_memory() -> int:
    store = await open_store("sqlite:///:memory:")
    try:
        return await store.migrate()
    finally:
        await store.close()


async def _inspect_database(config: Config) -> tuple[int, list[str]]:
    store = await _open(config)
    try:
        return await store.schema_version(), await store.integrity_check()
    finally:
        await store.close()


def _report(lines: list[str], problems: list[str]) -> int:
    for line in lines:
        print(line)
    if problems:
        for problem in problems:
            print(f"PROBLEM {problem}")
        print(f"not ready: {len(problems)} problem(s)")
        return 1
    if any(line.startswith(RUNNING_HERE) for line in lines):
        print("ready: the bot runs here with these settings; run would start it with them again")
    else:
        print("ready: run would start the bot with these settings")
    return 0


# --- parsing ----------------------------------------------------------------------------------------------


# Discord ids are 64-bit snowflakes; the databases store them as signed 64-bit integers, which every real
# id fits (the top bit would be a timestamp some 290 years after 2015).
MAX_ID = 2**63 - 1


def _positive_id(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_ID:
        raise argparse.ArgumentTypeError(f"expected a Discord id (a number from 1 to {MAX_ID}), got {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    # Not float(): it takes "nan" (every age passes: a dead bot called healthy), "-5" (none ever does) and
    # "1_0" (10), as the settings' numbers do not.
    seconds = decimal(text.strip())
    if seconds is None or not 0 < seconds < math.inf:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return seconds


class _Parser(argparse.ArgumentParser):
    """argparse, with a wrong command line answered in one line (its usage is a --help away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    settings = "\n".join(f"  {name:<22} {meaning}" for name, meaning in VARIABLES.items())
    parser = _Parser(
        prog=PROG,
        description="Crazy Eights for Discord. Without a command: run.",
        epilog=f"Settings come from the environment and from .env in the working directory:\n{settings}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"crazy-eights {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, handler: Callable[[argparse.Namespace], int], help: str, description: str) -> Any:
        sub = commands.add_parser(name, help=help, description=description)
        sub.set_defaults(handler=handler)
        return sub

    command(
        "run",
        cmd_run,
        "start the bot (the default)",
        "Start the bot: apply pending migrations, connect to Discord, sync the application commands if they "
        "changed. SIGTERM or SIGINT (Ctrl+C) stops it cleanly: new interactions are turned away, the move in "
        "flight finishes, the database and the gateway close, exit 0 within 10 seconds. Needs DISCORD_TOKEN.",
    )
    command(
        "sync",
        cmd_sync,
        "sync the application commands now, even if unchanged",
        "Send the slash commands to Discord (to DEV_GUILD_ID when set, else globally) without starting the "
        "bot, even if they did not change since the last sync. Needs DISCORD_TOKEN.",
    )
    command(
        "migrate",
        cmd_migrate,
        "apply pending database migrations",
        "Apply the pending migrations (creating the database if needed) and print the schema version. run "
        "does this too, on every start.",
    )
    command(
        "check",
        cmd_check,
        "validate the settings and the database",
        "Validate the settings and the database without changing anything, and print what run would do. "
        "Exit 0 when run would start, 1 otherwise; beside the bot running here with these settings (docker "
        "exec), 0, its shards held by it. The token is never shown.",
    )
    backup = command(
        "backup",
        cmd_backup,
        "copy the database to PATH, even while the bot runs",
        "Write a consistent copy of the SQLite database to PATH with SQLite's online backup, safe while the "
        "bot runs. To restore: stop the bot, copy the backup over the database file, start the bot.",
    )
    backup.add_argument("path", metavar="PATH", help="where to write the copy (a new file)")
    backup.add_argument("--force", action="store_true", help="replace PATH if it exists")
    health = command(
        "health",
        cmd_health,
        "exit 0 if the running bot is alive",
        "Exit 0 when the running bot wrote its heartbeat in the last 60 seconds and the database accepts a "
        "write, else 1 (for Docker's HEALTHCHECK); 1 at once after a clean stop. With SHARD_COUNT and "
        "SHARD_IDS, the heartbeat of the process running those shards.",
    )
    health.add_argument(
        "--max-age", type=_seconds, default=HEALTH_MAX_AGE, metavar="SECONDS", help="default: %(default)g"
    )
    forget = command(
        "forget-user",
        cmd_forget_user,
        "delete a user's statistics",
        "Delete a user's statistics and anonymise their seats in finished games (a privacy request). "
        "Seats at games still being played are left until those games end.",
    )
    forget.add_argument("user_id", metavar="USER_ID", type=_positive_id, help="the user's Discord id")
    forget.add_argument("--guild", type=_positive_id, metavar="GUILD_ID", help="only in this server")
    copy = command(
        "copy-db",
        cmd_copy_db,
        "copy the whole database to another one (e.g. SQLite to PostgreSQL)",
        "Copy every table, open game, result and statistic from one database to another, empty one, and "
        "verify the copy by counting the rows of both. Stop the bot first. Example: copy-db --from "
        "sqlite:///data/eights.sqlite3 --to postgresql://eights:PASSWORD@db:5432/eights",
    )
    copy.add_argument("--from", dest="source", required=True, metavar="URL", help="the database to copy")
    copy.add_argument("--to", dest="target", required=True, metavar="URL", help="an empty database")
    return parser


def _run_handler(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return handler(args)
    except ConfigError as error:
        print(f"{PROG}: configuration error: {error}", file=sys.stderr)
        return 2
    except UnsupportedDatabaseError as error:
        print(f"{PROG}: configuration error: DATABASE_URL: {error}", file=sys.stderr)
        return 2
    except CommandError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return error.code
    except DamagedDatabaseError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    except MigrationError as error:
        print(f"{PROG}: database migration failed: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        return _unexpected(error, getattr(args, "source", None), getattr(args, "target", None))


TOKEN_REJECTED = "DISCORD_TOKEN: Discord rejected the token"
# Gateway close codes that end `run` (discord.py raises ConnectionClosed instead of reconnecting) because of a
# setting, with the line naming it. Not here: 4014 (disallowed intents), raised as PrivilegedIntentsRequired,
# which no setting causes (the bot asks for the guilds intent only: ``INTENTS_REFUSED``), nor 4012 and 4013
# (the API version and the intents: the code's own); any other close is a Discord failure, exit 1.
GATEWAY_CLOSED_BY_A_SETTING = {
    4004: TOKEN_REJECTED,
    4010: (
        "SHARD_COUNT: Discord refused a shard as invalid (gateway close code 4010): check SHARD_COUNT and "
        "SHARD_IDS"
    ),
    4011: (
        "SHARD_COUNT: too few shards for the bot's servers (Discord's gateway close code 4011, sharding "
        "required: at most 2,500 servers a shard): raise SHARD_COUNT, the same in every process of the bot, "
        "or, without SHARD_IDS, leave it empty for the number Discord recommends"
    ),
}
# Close code 4014, at the first IDENTIFY or mid-run (an intent withdrawn from the application in the portal):
# Discord's doing, exit 1, in one line.
INTENTS_REFUSED = (
    "Discord refused the gateway intents (close code 4014, disallowed intents) of shard {shard}: the bot "
    "asks only for the guilds intent, which is not privileged; check the application in Discord's developer "
    "portal (https://discord.com/developers/applications)"
)


def _unexpected(error: Exception, *urls: str | None) -> int:
    """``urls``: database URLs on the command line (copy-db): their passwords are masked too."""
    import discord

    from bot.service.errors import DatabaseFault  # the service's word for the store's failure (start-up)

    if isinstance(error, discord.LoginFailure):
        print(f"{PROG}: configuration error: {TOKEN_REJECTED}", file=sys.stderr)
        return 2
    # The gateway closed for good (discord.py does not reconnect after these codes) because of a setting.
    if isinstance(error, discord.ConnectionClosed) and error.code in GATEWAY_CLOSED_BY_A_SETTING:
        print(f"{PROG}: configuration error: {GATEWAY_CLOSED_BY_A_SETTING[error.code]}", file=sys.stderr)
        return 2
    # discord.py raises 4014 as PrivilegedIntentsRequired (a ClientException, not ConnectionClosed).
    if isinstance(error, discord.PrivilegedIntentsRequired):
        shard = "?" if error.shard_id is None else error.shard_id
        print(f"{PROG}: {INTENTS_REFUSED.format(shard=shard)}", file=sys.stderr)
        return 1
    # A database error (asyncpg's included: not a bug of ours) may quote a URL: the text is scrubbed.
    database_error = isinstance(error, OSError | StoreError | DatabaseFault) or type(
        error
    ).__module__.startswith("asyncpg")
    discord_error = discord.HTTPException | discord.GatewayNotFound | discord.ConnectionClosed
    if database_error or isinstance(error, discord_error):
        config, _ = inspect_config()
        # The store's own errors are written for the admin; a driver's is named by its type.
        text = (
            str(error)
            if isinstance(error, StoreError | DatabaseFault)
            else f"{type(error).__name__}: {error}"
        )
        print(f"{PROG}: failed: {_scrub(config, text, *urls)}", file=sys.stderr)
        return 1
    # A bug: the traceback goes through logging, where the token filter removes the token.
    log.critical("unexpected error", exc_info=error)
    print(f"{PROG}: unexpected error: {type(error).__name__} (details logged above)", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run", *(argv if argv is not None else sys.argv[1:])])
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    handler: Callable[[argparse.Namespace], int] = args.handler
    return _run_handler(handler, args)
