"""End to end through the fake Discord with the real discord.py client: rate and latency of interactions.

    .venv/bin/python bench/e2e.py                          # every scenario
    .venv/bin/python bench/e2e.py --scenario noop --n 5000 --concurrency 1,8,32
    .venv/bin/python bench/e2e.py --scenario game --n 3000 --tables 50 [--think 200-500|none]
    .venv/bin/python bench/e2e.py --scenario memory --open-tables 1000
    .venv/bin/python bench/e2e.py --scenario scale --active 100,300 --open-tables 1000 [--faults]
    .venv/bin/python bench/e2e.py --scenario scale --active 300 --open-tables 1000 --processes 2

Latency is from the interaction sent on the gateway to the bot's callback received by the fake (what Discord's
3-second rule measures). The bot runs in a process of its own (this file with ``--serve-bot``), as in a
deployment where Discord is another machine; the fake and the simulated people run in this process. CPU
µs/op is the bot process's CPU time per operation: the figure to compare when the machine is shared (the
wall-clock rate and latency then depend on the other load). ``--profile FILE`` writes a cProfile of the bot
process.

Scenarios:
    noop    a slash command answering an ephemeral "ok" at once: what discord.py and the fake cost alone.
    game    the real EightsBot (SQLite, CPU delay 0, the publisher's production spacing of public lines):
            ``--tables`` tables played at once by simulated players (two people and a CPU seat each, people
            clicking what their hand messages offer), beside the no-op command measured on the same bot in
            the same run with as many in flight. Two loads: a closed loop (each table's next move is sent as
            soon as its player sees it: throughput, latency at saturation) and a paced one (each player
            thinks ``--think`` ms first: latency below saturation). Latency: interaction sent → callback
            received, for every click of a person. Moves committed (people's, CPU seats', next rounds) are
            counted from the database. Each person's move costs the interaction and the next player's hand
            refresh; a table's public line and board edit go out at most once a second, gathering moves.
            Also measured beside them: ``/movefloor``, the same Discord requests as a person's move with no
            game behind them (what the game's own work is compared with).
    memory  ``--open-tables`` started tables (two people each): the bot process's RSS before and after, and
            its peak.
    scale   Discord's limits on (the fake's ``DiscordLimits()``: global 50/s, per-channel buckets, the ban):
            ``--open-tables`` open tables (turn timeout a day, so the idle ones stay quiet), ``--active`` of
            them (each a run of its own) played by two people and a CPU seat each, in channels of their
            own, people thinking ``--pace`` (2-5 s) per move, CPU delay 1 s, for ``--duration`` s. Printed:
            global requests offered → passed per second, 429s by scope, invalid requests (and the ban),
            clicks answered p50/p99, the next player's "Your turn" hand refresh after the move, how far
            boards are behind (a move's commit → the first board showing it or a later state), turn-start
            mentions delivered/folded/lost, plays shown on neither a board nor a line, the catch-up after
            the load stops (every board and hand showing the latest state, every person to move called by a
            line), the bot's CPU and RSS, and the bot's CPU per committed move: the bot process's CPU time
            (every thread, from /proc; its threads listed apart: the event loop, the board pictures'
            thread, the database's) divided by the moves committed in the run (people's, CPU seats', next
            rounds: counted in the database). The fake Discord and the simulated people run in this
            process, whose CPU is printed beside; the trace the bot writes for the bench is timed in the bot
            and left out of its figure. The bot writes each outcome it shows, and each line it sends, to a
            trace file (``trace_outcomes``); this process compares. Not
            part of "all" (minutes long). ``--faults``: a gateway drop every 30 s (close 4000, abrupt,
            half-open, op 7, op 9 in turn; heartbeats every 2 s, the bot's heartbeat timeout 5 s) and 2% of
            REST calls answered 500/502/503/504; a click unanswered in 3 s is clicked again, as a person
            would after "This interaction failed", and counted.
            ``--processes N`` (default 1): the bot as N shard processes, as README's "Shards as separate
            processes or containers" deploys a big bot: each with ``SHARD_COUNT=N`` and its own
            ``SHARD_IDS=i``, ``DISCORD_GLOBAL_RATE`` its share (50 / N, as compose.yaml's 25 for two), all on
            one PostgreSQL database made for the run (``--postgres-server``, trust authentication; dropped
            at the end, whatever happens), each process claiming its shard there as ``run`` does. The fake
            makes one guild per shard (Discord's shard of a guild: ``(guild_id >> 22) % N``) and the tables
            are spread over them in equal shares (table i in shard i mod N), so every process carries its
            share; the fake's global limit is the bot token's, shared by all of them, as Discord's is. The
            bot process's figures are printed for each process (its CPU per committed move: its CPU over
            the moves of its own tables; RSS; GC pauses, event loop lateness, threads' CPU; requests per
            committed move, as the process counted them) and for all of them (CPU share summed, CPU per
            move = all the processes' CPU / all the moves, RSS summed, the windows' figures merged, the
            requests as the fake counted them). ``--database postgresql`` with one process: the same bot on
            PostgreSQL (the fair comparison with N processes); SQLite is the default with one. ``--profile``
            takes one process only.

To add one: write ``async def my_scenario(args) -> list[Figures]`` that starts a ``FakeDiscord``, starts the
bot with ``BotProcess`` and calls ``measure(label, send, n, concurrency, bot)`` with a ``send(i)`` coroutine
doing one operation end to end; register it in ``SCENARIOS``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import json
import math
import os
import random
import re
import secrets
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import discord
from discord.ext import commands

from bot.cli import handle_signals
from bot.client import EightsBot, tune_garbage_collector
from bot.config import DEFAULT_GLOBAL_RATE, PUBLIC_INTERVAL, Config, Secret, load_config
from bot.delivery.endpoints import apply_endpoints
from bot.service.errors import NO_LONGER_POSSIBLE
from bot.shards import ShardSet, shard_of
from bot.store import ShardClaim, claim_shards, open_store
from bot.ui.appearance import Appearance
from bot.ui.controls import DRAW, PLAY, Control, TableButton
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUser,
    InvalidInteraction,
    fast_bot_options,
)
from tests.fakediscord.model import DISCORD_EPOCH_MS
from tests.fakediscord.ratelimits import DiscordLimits


@dataclass(frozen=True)
class Figures:
    label: str
    concurrency: int
    count: int
    elapsed: float
    cpu: float  # the bot process's CPU seconds: the machine may be shared
    latencies: list[float]
    fake_cpu: float = 0.0  # this process's (the fake's and the simulated people's)

    @property
    def rate(self) -> float:
        return self.count / self.elapsed

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def line(self) -> str:
        return (
            f"{self.label:<28} in flight {self.concurrency:>3}  n {self.count:>6}  "
            f"{self.rate:>8.0f}/s  p50 {self.percentile(0.50) * 1000:7.2f} ms  "
            f"p99 {self.percentile(0.99) * 1000:7.2f} ms  max {max(self.latencies) * 1000:7.2f} ms  "
            f"CPU bot {self.cpu / self.count * 1e6:5.0f} µs/op, fake {self.fake_cpu / self.count * 1e6:5.0f}"
        )


async def measure(
    label: str,
    send: Callable[[int], Awaitable[None]],
    n: int,
    concurrency: int,
    bot: BotProcess,
    *,
    warmup: int = 100,
) -> Figures:
    """Run ``send(i)`` for i in range(n) with ``concurrency`` in flight; time each and the whole.

    ``send`` does one operation end to end (send the interaction, await what the bot answers). A warm-up of
    ``warmup`` operations runs first and is not counted.
    """
    for i in range(warmup):
        await send(-1 - i)
    latencies: list[float] = []
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < n:
            index = next_index
            next_index += 1
            start = time.perf_counter()
            await send(index)
            latencies.append(time.perf_counter() - start)

    start, cpu_start, fake_cpu_start = time.perf_counter(), bot.cpu_seconds(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed, cpu = time.perf_counter() - start, bot.cpu_seconds() - cpu_start
    return Figures(label, concurrency, n, elapsed, cpu, latencies, time.process_time() - fake_cpu_start)


@dataclass
class World:
    fake: FakeDiscord
    channel: FakeChannel
    users: list[FakeUser]


def build_world(fake: FakeDiscord, players: int) -> World:
    guild = fake.create_guild("Bench")
    channel = fake.create_channel(guild, "table-1")
    users = [fake.create_user(f"player{i}") for i in range(players)]
    for user in users:
        fake.add_member(guild, user)
    return World(fake, channel, users)


# --- the bot under test, in a process of its own ---------------------------------------------------------


ART_VARIABLE = "BENCH_E2E_ART"  # --art, handed to the bot's process
PROFILE_CLOCK_VARIABLE = "BENCH_E2E_PROFILE_CLOCK"  # --profile-clock, likewise
# The bot's own settings a deployment of shard processes gives each process (README: "Shards as separate
# processes or containers"), read by the bot's process with the bot's own checks (see serve_bot). The
# bench's environment never passes its own values of these on: the child gets only what BotProcess says.
DEPLOYMENT_VARIABLES = (
    "DATABASE_URL",
    "DATABASE_POOL_SIZE",
    "SHARD_COUNT",
    "SHARD_IDS",
    "DISCORD_GLOBAL_RATE",
)
WINDOW_STATS = "window stats "  # the bot's second line at the end of a window: its figures, as JSON


class BotProcess:
    """The bot under test in a child process (this file with ``--serve-bot``) pointed at ``fake``: the no-op
    bot (``kind`` "noop") or the real EightsBot on a fresh SQLite file with a no-op command beside the game
    ("eights"). The fake and the simulated people stay in this process, so neither their CPU time nor their
    memory (the fake keeps every message) is counted as the bot's.

    ``database_url`` instead of ``database``: the EightsBot on that database (PostgreSQL), given as
    ``DATABASE_URL``; ``shard`` (id, count): the process runs that one shard (``SHARD_COUNT``, ``SHARD_IDS``);
    ``global_rate``: its ``DISCORD_GLOBAL_RATE``."""

    def __init__(
        self,
        fake: FakeDiscord,
        kind: str,
        database: Path | None = None,
        profile: str | None = None,
        *,
        cpu_delay: float = 0.0,
        trace: Path | None = None,
        heartbeat_timeout: float = 0.0,
        database_url: str | None = None,
        shard: tuple[int, int] | None = None,
        global_rate: int | None = None,
    ) -> None:
        self.fake = fake
        self.kind = kind
        self.database = database
        self.profile = profile
        self.cpu_delay = cpu_delay  # the game's CPU seats' delay (0: production spacing set back on)
        self.trace = trace  # where the bot writes every outcome it shows (see ``trace_outcomes``)
        self.heartbeat_timeout = heartbeat_timeout  # discord.py's, when the fake drops connections
        self.database_url = database_url
        self.shard = shard
        self.global_rate = global_rate
        self.process: asyncio.subprocess.Process | None = None
        # The figures the bot sent with its last window's line (see ``serve_bot``): GC pauses by generation,
        # its event loop's lateness, threads' CPU, REST requests by route as it counted them.
        self.window_stats: dict[str, Any] = {}

    @property
    def name(self) -> str:
        """What the reports call the process: "shard i of N", or "bot" when it runs every shard."""
        return f"shard {self.shard[0]} of {self.shard[1]}" if self.shard is not None else "bot"

    async def __aenter__(self) -> BotProcess:
        command = [sys.executable, __file__, "--serve-bot", self.kind, "--api", self.fake.api_base_url]
        command += ["--gateway", self.fake.gateway_url, "--cpu-delay", str(self.cpu_delay)]
        if self.trace is not None:
            command += ["--trace", str(self.trace)]
        if self.heartbeat_timeout:
            command += ["--heartbeat-timeout", str(self.heartbeat_timeout)]
        if self.database is not None:
            command += ["--database", str(self.database)]
        if self.profile is not None:
            command += ["--profile", self.profile]
        # The token goes by the environment, never on a command line that `ps` shows; so do the database's
        # URL (it may hold a password) and the shard settings, as a deployment gives them.
        environment = {k: v for k, v in os.environ.items() if k not in DEPLOYMENT_VARIABLES}
        environment["DISCORD_TOKEN"] = self.fake.token
        if self.database_url is not None:
            environment["DATABASE_URL"] = self.database_url
        if self.shard is not None:
            environment["SHARD_COUNT"], environment["SHARD_IDS"] = str(self.shard[1]), str(self.shard[0])
        if self.global_rate is not None:
            environment["DISCORD_GLOBAL_RATE"] = str(self.global_rate)
        self.process = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.PIPE, env=environment
        )
        line = await self._read_line(60.0)
        if line != "ready":
            raise RuntimeError(f"the bot process did not start: {line!r}")
        await self.fake.wait_for(
            lambda: any(c["name"] == "noop" for c in self.fake.synced_commands()), what="the commands synced"
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 30.0)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
                raise RuntimeError("the bot process did not stop within 30 s of SIGTERM") from None

    async def _read_line(self, timeout: float) -> str:
        assert self.process is not None and self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        return raw.decode().strip()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def cpu_seconds(self) -> float:
        """User and system CPU time of the bot process so far."""
        with open(f"/proc/{self.pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> tuple[int, int]:
        """(current RSS, peak RSS) of the bot process in KiB."""
        return rss_kib(self.pid)

    async def window(self) -> None:
        """Start a measuring window in the bot: its GC pauses are counted from now (and its profile taken)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGUSR1)
        await asyncio.sleep(0.05)  # the signal is handled on the bot's loop

    async def window_end(self) -> str:
        """End the window; the bot answers with a line about its GC pauses in the window (returned), and one
        with its window's figures (kept in ``window_stats``)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGUSR2)
        line = await self._read_line(10.0)
        stats = await self._read_line(10.0)
        if not stats.startswith(WINDOW_STATS):
            raise RuntimeError(f"the bot process did not send its window's figures: {stats!r}")
        self.window_stats = json.loads(stats[len(WINDOW_STATS) :])
        return line


class BotProcesses:
    """Several ``BotProcess`` started at once (as a deployment's containers start) and stopped together; when
    one fails to start, the others are stopped before the failure is raised."""

    def __init__(self, bots: list[BotProcess]) -> None:
        self.bots = bots

    async def __aenter__(self) -> list[BotProcess]:
        started = await asyncio.gather(*(bot.__aenter__() for bot in self.bots), return_exceptions=True)
        failures = [result for result in started if isinstance(result, BaseException)]
        if failures:
            with contextlib.suppress(Exception):
                await self._stop()
            raise failures[0]
        return self.bots

    async def __aexit__(self, *exc: object) -> None:
        await self._stop()

    async def _stop(self) -> None:
        stopped = await asyncio.gather(
            *(bot.__aexit__() for bot in self.bots if bot.process is not None), return_exceptions=True
        )
        for result in stopped:
            if isinstance(result, BaseException):
                raise result


def rss_kib(pid: int | str = "self") -> tuple[int, int]:
    """(current RSS, peak RSS) of a process in KiB, from /proc."""
    values: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


def add_noop_command(bot: commands.Bot) -> None:
    @bot.tree.command(name="noop", description="Answers at once")
    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    del noop


def add_move_floor_command(bot: commands.Bot) -> None:
    """``/movefloor``: the Discord requests of one person's move with no game behind them, to tell what the
    game's own work costs from what talking to Discord costs. The answer carries a hand-sized message with
    card buttons (a move's answer); the previous caller's message is edited with new buttons (the next
    player's hand refresh); every third call also posts a line and edits a message in the channel (a
    table's public line and board edit, which go out at most once a second per table)."""
    previous: list[discord.Interaction] = []
    posted: list[discord.Message] = []
    calls = [0]

    def hand(round_token: str) -> tuple[str, discord.ui.View]:
        view = discord.ui.View(timeout=None)
        for code in ("3C", "7C", "8H", "QC"):
            view.add_item(TableButton.make(Control(1, round_token, PLAY, code), code))
        view.add_item(TableButton.make(Control(1, round_token, DRAW), "Draw"))
        return "**Your hand** (7 cards): 3♣ 7♣ 8♥ 9♦ Q♣ K♠ A♦\nYour turn: play on **10♣**.", view

    @bot.tree.command(name="movefloor", description="The Discord requests of a move, without a game")
    async def movefloor(interaction: discord.Interaction) -> None:
        calls[0] += 1
        content, view = hand(f"1.{calls[0]}")
        await interaction.response.send_message(content, view=view, ephemeral=True)
        view.stop()  # as the bot releases its private views (bot.delivery.answers.release)
        if previous:
            content, view = hand(f"1.{calls[0]}")
            await previous[0].edit_original_response(content=content, view=view)
        previous[:] = [interaction]
        channel = interaction.channel
        if calls[0] % 3 == 0 and isinstance(channel, discord.abc.Messageable):
            line = await channel.send("**alice** played 10♣. <@1>, your turn.")
            if posted:
                await posted[0].edit(content=f"board after {calls[0]} calls")
            else:
                posted.append(line)

    del movefloor


async def serve_bot(args: argparse.Namespace) -> None:
    """The child process: run the bot until SIGTERM. SIGUSR1 opens a measuring window (GC pauses counted
    from then, the profiler on with ``--profile``); SIGUSR2 closes it and prints one line about the pauses."""
    token = os.environ["DISCORD_TOKEN"]
    bot: commands.Bot
    claim: ShardClaim | None = None
    if args.serve_bot == "eights":
        # The deployment's settings (see BotProcess), read and checked as the bot reads them (no .env).
        given = {name: os.environ[name] for name in DEPLOYMENT_VARIABLES if os.environ.get(name)}
        if not args.database and "DATABASE_URL" not in given:
            raise SystemExit("--serve-bot eights needs --database FILE or DATABASE_URL")
        deployed = load_config({**given, "DISCORD_TOKEN": token}, env_file=None)
        config = Config(
            token=Secret(token),
            database_url=f"sqlite:///{args.database}" if args.database else deployed.database_url.get(),
            database_pool_size=deployed.database_pool_size,
            api_base_url=args.api,
            gateway_url=args.gateway,
            shard_count=deployed.shard_count,
            shard_ids=deployed.shard_ids,
            cpu_delay=args.cpu_delay,
            global_rate=deployed.global_rate,
        )
        options: dict[str, Any] = fast_bot_options()
        if args.heartbeat_timeout:
            options["heartbeat_timeout"] = args.heartbeat_timeout
        if not args.database:
            # On PostgreSQL, as `run` does: claim the shards first (a second process on one of them is
            # refused), held until the bot has stopped.
            shards = ShardSet(config.shard_count, config.shard_ids)
            claim = await claim_shards(config.database_url.get(), shards)
        bot = EightsBot(config, tune_gc=True, claim=claim, **options)  # as `python -m bot run`
        if os.environ.get(ART_VARIABLE) == "off":
            bot.appearance = Appearance()  # text only: no emojis, no board picture
    else:
        apply_endpoints(args.api, args.gateway)
        bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), **fast_bot_options())
    add_noop_command(bot)
    if args.serve_bot == "eights":
        add_move_floor_command(bot)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    pauses = GcPauses()
    profiler = None
    if args.profile:
        # cpu: the profiled thread's CPU time, so that on a loaded machine the time spent waiting for a core
        # is not charged to whatever call (often a system call) was running when the bot was preempted.
        cpu = os.environ.get(PROFILE_CLOCK_VARIABLE) == "cpu"
        profiler = cProfile.Profile(time.thread_time) if cpu else cProfile.Profile()
    lateness = LoopLag()
    probe: list[asyncio.Task[None]] = []

    threads_at_open: dict[str, float] = {}
    requests_at_open: Counter[str] = Counter()

    def open_window() -> None:
        threads_at_open.clear()
        threads_at_open.update(thread_cpu())
        requests_at_open.clear()
        requests_at_open.update(request_counts(bot))
        TRACE_CPU[0] = 0.0
        pauses.pauses.clear()
        lateness.lags.clear()
        probe.append(asyncio.create_task(lateness.run()))
        if profiler is not None:
            profiler.enable()

    def close_window() -> None:
        if profiler is not None:
            profiler.disable()
        while probe:
            probe.pop().cancel()
        threads, tasks = thread_cpu(), len(asyncio.all_tasks())
        print(
            f"{pauses.summary()}; event loop late by {percentiles(lateness.lags, ms=True)}; "
            f"{tasks} asyncio tasks; tracing CPU {TRACE_CPU[0]:.3f} s; threads' CPU "
            + ", ".join(
                f"{name} {seconds - threads_at_open.get(name, 0.0):.2f} s"
                for name, seconds in sorted(threads.items(), key=lambda item: -item[1])
            ),
            flush=True,
        )
        # The same figures, to be merged with other processes' (--processes N), and the REST requests as
        # the bot counted them (its metrics: the fake counts every process's together).
        stats = {
            "gc": pauses.by_generation(),
            "late": Counter(round(lag * LATE_UNITS) for lag in lateness.lags),
            "tasks": tasks,
            "tracing": TRACE_CPU[0],
            "threads": {name: seconds - threads_at_open.get(name, 0.0) for name, seconds in threads.items()},
            "requests": request_counts(bot) - requests_at_open,
        }
        print(WINDOW_STATS + json.dumps(stats), flush=True)

    # Not loop.add_signal_handler: a busy bot's loop can lose those signals (see handle_signals).
    handle_signals(loop, (signal.SIGTERM,), lambda _signum: stop.set())
    handle_signals(loop, (signal.SIGUSR1,), lambda _signum: open_window())
    handle_signals(loop, (signal.SIGUSR2,), lambda _signum: close_window())
    task = asyncio.create_task(bot.start(token))
    ready = asyncio.create_task(bot.wait_until_ready())
    await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()  # why the bot stopped
    if isinstance(bot, EightsBot):
        # The publisher spaces public lines by PUBLIC_INTERVAL, as in production, whatever the CPU delay.
        if args.trace:
            trace_outcomes(bot, args.trace)
    else:
        await bot.tree.sync()
    print("ready", flush=True)
    with pauses:
        await stop.wait()
    await bot.close()
    await task
    if claim is not None:
        await claim.release()
    if profiler is not None:
        profiler.dump_stats(args.profile)


LATE_UNITS = 10_000  # the event loop's lateness is sent in tenths of a millisecond (merged in this process)


def request_counts(bot: commands.Bot) -> Counter[str]:
    """The REST requests the bot made so far by route class ("PATCH /channels/{id}/messages/{id}"), as its
    metrics count them (every attempt, retries included); none for the no-op bot, which has no metrics."""
    counts: Counter[str] = Counter()
    metrics = getattr(bot, "metrics", None)
    if metrics is None:
        return counts
    for family in metrics.requests.collect():
        for sample in family.samples:
            if sample.name.endswith("_total"):
                counts[sample.labels["route"]] += int(sample.value)
    return counts


def thread_cpu() -> dict[str, float]:
    """CPU seconds of each of this process's Python threads so far, by name (from /proc: Linux only)."""
    import threading

    found: dict[str, float] = {}
    for thread in threading.enumerate():
        try:
            with open(f"/proc/self/task/{thread.native_id}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # Threads of one kind (e.g. a pool's) are summed under their name without the number.
        name = re.sub(r"_\d+$", "", thread.name.split(" ")[0])
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def slash_command(world: World, name: str) -> Callable[[int], Awaitable[None]]:
    """``send(i)`` for ``measure``: user i (round robin) runs ``/name`` and the bot's callback is awaited."""

    async def send(i: int) -> None:
        user = world.users[i % len(world.users)]
        handle = await world.fake.invoke(user, world.channel, name)
        await handle.callback()

    return send


async def noop_scenario(args: argparse.Namespace) -> list[Figures]:
    results = []
    async with FakeDiscord(wait_timeout=30.0) as fake:
        world = build_world(fake, players=64)
        async with BotProcess(fake, "noop") as bot:
            send = slash_command(world, "noop")
            for concurrency in args.concurrency:
                results.append(await measure("no-op slash command", send, args.n, concurrency, bot))
        fake.assert_clean()
    return results


# --- the game: EightsBot with simulated players -----------------------------------------------------------


@dataclass
class BenchTable:
    channel: FakeChannel
    host: FakeUser
    guest: FakeUser
    board: FakeMessage
    hands: dict[int, FakeMessage]  # user id -> the hand message that user plays from
    started: set[str] = field(default_factory=set)  # Next round buttons already pressed (the board may lag)


async def open_table(
    fake: FakeDiscord, guild: FakeGuild, index: int, *, cpu: bool, turn_timeout: int | None = None
) -> BenchTable:
    """/eights new (the highest target: the match outlasts the run), Join, (Add CPU,) Start, My hand: a
    started table whose two people hold hand messages."""
    channel = fake.create_channel(guild, f"table-{index}")
    host, guest = fake.create_user(f"host{index}"), fake.create_user(f"guest{index}")
    fake.add_member(guild, host)
    fake.add_member(guild, guest)
    options = {"turn_timeout": turn_timeout} if turn_timeout is not None else {}
    board = await (await fake.invoke(host, channel, "eights new", target=10_000, **options)).reply()
    await (await fake.click(guest, board, label="Join")).callback()
    if cpu:
        await (await fake.click(host, board, label="Add CPU")).callback()
    host_hand = await (await fake.click(host, board, label="Start")).reply()
    await fake.wait_for(lambda: any(b.get("label") == "My hand" for b in board.buttons), what="the board")
    guest_hand = await (await fake.click(guest, board, label="My hand")).reply()
    return BenchTable(channel, host, guest, board, {host.id: host_hand, guest.id: guest_hand})


def next_decision(table: BenchTable) -> tuple[FakeUser, FakeMessage, dict[str, Any]] | None:
    """What a player at the table can do now, read from what they see: a control on their hand message (a
    suit, the first playable card, Draw, Pass), or the board's Next round. Cheap: the fake calls it on every
    change of its state."""
    for user in (table.host, table.guest):
        hand = table.hands[user.id]
        if not hand.components:
            continue
        controls = [item for row in hand.components for item in row.get("components", ())]
        for wanted in (":suit:", ":play:", ":draw", ":pass"):
            for control in controls:
                if wanted in control.get("custom_id", ""):
                    return user, hand, control
    if table.board.components:
        for row in table.board.components:
            for button in row.get("components", ()):
                if button.get("label") == "Next round" and button.get("custom_id") not in table.started:
                    return table.host, table.board, button
    return None


class Wakeups:
    """Wakes the driver of a table when one of its messages changes (a fake message observer), so that 50
    drivers do not each re-check their table on every change of the fake's state."""

    def __init__(self) -> None:
        self.events: dict[int, asyncio.Event] = {}  # message id -> its table's event

    def watch(self, table: BenchTable, event: asyncio.Event) -> None:
        for message in (table.board, *table.hands.values()):
            self.events[message.id] = event

    def __call__(self, message: FakeMessage, recipient: FakeUser | None) -> None:
        event = self.events.get(message.id)
        if event is not None:
            event.set()


async def play_moves(
    fake: FakeDiscord,
    wakeups: Wakeups,
    table: BenchTable,
    moves: int,
    latencies: list[float],
    think: tuple[float, float] | None = None,
    rng: random.Random | None = None,
) -> int:
    """Play ``moves`` game moves at the table as its two people; returns the other clicks (Next round).
    ``think`` (seconds, low and high): each person waits a random time in that range after seeing their
    move before sending it (a paced load); None sends it at once (a closed loop)."""
    changed = asyncio.Event()
    wakeups.watch(table, changed)
    others = 0
    done = 0
    while done < moves:
        decision = next_decision(table)
        if decision is None:
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), 30.0)
            except TimeoutError:
                raise AssertionError(f"nothing to do at {table.channel.name} for 30 s") from None
            continue
        user, message, control = decision
        if think is not None and message is not table.board:
            await asyncio.sleep((rng or random).uniform(*think))
            if next_decision(table) != decision:
                continue  # what they saw changed while they thought: look again
        custom_id = str(control["custom_id"])
        if control.get("type") == 3:
            handle = await fake.select(user, message, custom_id, [control["options"][0]["value"]])
        else:
            handle = await fake.click(user, message, custom_id)
        await handle.callback(timeout=30.0)
        record = handle.record
        if message is table.board:
            others += 1

            table.started.add(custom_id)
            # Whoever starts the next round gets their hand as a new message.
            table.hands[user.id] = await handle.reply(timeout=30.0)
            wakeups.watch(table, changed)
            continue
        assert record.callback_at is not None
        latencies.append(record.callback_at - record.created_at)
        done += 1
    return others


async def game_scenario(args: argparse.Namespace) -> list[Figures]:
    """Many tables at once (two people and a CPU player each) beside the no-op command: same bot, same run."""
    results: list[Figures] = []
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "bench.sqlite3"
        async with FakeDiscord(wait_timeout=60.0) as fake:
            wakeups = Wakeups()
            fake.add_message_observer(wakeups)
            world = build_world(fake, players=64)
            guild = fake.guilds[world.channel.guild_id]
            async with BotProcess(fake, "eights", database, args.profile) as bot:
                print(
                    f"publisher: public line + board edit at most every {PUBLIC_INTERVAL:.1f} s per table "
                    "(production), hands refreshed at once; CPU delay 0; card emojis and board picture "
                    + args.art
                )
                store = await open_store(f"sqlite:///{database}")

                send, send_floor = slash_command(world, "noop"), slash_command(world, "movefloor")
                for tables in args.tables:
                    noop = await measure("no-op slash command", send, args.n, tables, bot)
                    results.append(noop)
                    floor = await measure("a move's requests, no game", send_floor, args.n, tables, bot)
                    results.append(floor)
                    print(
                        f"a move's Discord requests without the game: {floor.rate:.0f}/s = "
                        f"{floor.rate / noop.rate:.0%} of the no-op's {noop.rate:.0f}/s; bot CPU "
                        f"{floor.cpu / floor.count * 1e6:.0f} µs each "
                        f"(no-op {noop.cpu / noop.count * 1e6:.0f})"
                    )
                    opened = [
                        await open_table(fake, guild, len(fake.channels) + i, cpu=True) for i in range(tables)
                    ]
                    per_table = max(1, args.n // tables)
                    await asyncio.gather(*(play_moves(fake, wakeups, t, 10, []) for t in opened))  # warm-up
                    loads: list[tuple[str, tuple[float, float] | None]] = [
                        ("closed loop: each move sent as soon as its player sees it", None)
                    ]
                    if args.think is not None:
                        low, high = args.think
                        loads.append(
                            (f"paced: each player thinks {low * 1000:.0f}-{high * 1000:.0f} ms", (low, high))
                        )
                    for load, think in loads:
                        rng = random.Random(1)
                        committed_before = await committed_moves(store, opened)
                        latencies: list[float] = []
                        await bot.window()
                        start, cpu_start = time.perf_counter(), bot.cpu_seconds()
                        fake_cpu_start = time.process_time()
                        requests_before = fake.requests_by_route.copy()
                        others = await asyncio.gather(
                            *(play_moves(fake, wakeups, t, per_table, latencies, think, rng) for t in opened)
                        )
                        elapsed, cpu = time.perf_counter() - start, bot.cpu_seconds() - cpu_start
                        fake_cpu = time.process_time() - fake_cpu_start
                        requests = fake.requests_by_route - requests_before
                        pauses = await bot.window_end()
                        committed = await committed_moves(store, opened) - committed_before
                        people, next_rounds = len(latencies), sum(others)
                        figures = Figures(
                            f"people's clicks, {'paced' if think else 'closed'}",
                            tables,
                            people,
                            elapsed,
                            cpu,
                            latencies,
                            fake_cpu,
                        )
                        results.append(figures)
                        print(
                            f"{tables} tables, {load}:\n"
                            f"  {committed} moves committed in {elapsed:.1f} s = {committed / elapsed:.0f}/s "
                            f"({people} people's moves = {people / elapsed:.0f}/s, "
                            f"{committed - people - next_rounds} CPU seats' moves, "
                            f"{next_rounds} next rounds); "
                            f"the no-op command: {noop.rate:.0f}/s\n"
                            f"  committed moves / no-op = {committed / elapsed / noop.rate:.0%}, "
                            f"people's moves / no-op = {people / elapsed / noop.rate:.0%}; "
                            f"people's clicks p50 {figures.percentile(0.5) * 1000:.0f} ms, "
                            f"p99 {figures.percentile(0.99) * 1000:.0f} ms; "
                            f"bot CPU µs per committed move {cpu / committed * 1e6:.0f} "
                            f"(no-op {noop.cpu / noop.count * 1e6:.0f}); the fake and the people's CPU: "
                            f"{fake_cpu / elapsed:.0%} of a core\n"
                            f"  bot process {pauses}\n"
                            f"  the bot's requests per committed move: {request_mix(requests, committed)}"
                        )
                await store.close()
            fake.assert_clean()
    return results


def request_mix(requests: Counter[str], per: int) -> str:
    """Requests the fake received, by kind, per operation."""
    kinds = {
        "POST /api/v10/interactions/{interaction}/{token}/callback": "interaction answers",
        "PATCH /api/v10/webhooks/{app}/{token}/messages/{message}": "edits via tokens (hands, boards)",
        "POST /api/v10/webhooks/{app}/{token}": "follow-ups (lines, moved boards)",
        "DELETE /api/v10/webhooks/{app}/{token}/messages/{message}": "interaction message deletes",
        "POST /api/v10/channels/{channel}/messages": "public lines",
        "PATCH /api/v10/channels/{channel}/messages/{message}": "board edits",
    }
    shares = Counter({kinds.get(route, route): count for route, count in requests.items()})
    total = sum(shares.values())
    parts = [f"{name} {count / per:.2f}" for name, count in shares.most_common()]
    return f"{total / per:.2f} (" + ", ".join(parts) + ")"


class GcPauses:
    """The cyclic garbage collector's pauses in the bot process (every generation), to tell them apart from
    queueing in the latency tail."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float]] = []  # (generation, seconds)
        self._start = 0.0

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses.append((int(info["generation"]), time.perf_counter() - self._start))

    def by_generation(self) -> dict[int, tuple[int, float, float]]:
        """Generation -> (pauses, their total, the longest), in seconds."""
        found: dict[int, tuple[int, float, float]] = {}
        for generation in (0, 1, 2):
            times = [t for g, t in self.pauses if g == generation]
            if times:
                found[generation] = (len(times), sum(times), max(times))
        return found

    def summary(self) -> str:
        parts = []
        for generation in (0, 1, 2):
            times = [t for g, t in self.pauses if g == generation]
            if times:
                total, longest = sum(times) * 1000, max(times) * 1000
                parts.append(f"gen{generation} {len(times)}× total {total:.0f} ms max {longest:.0f} ms")
        return "GC pauses: " + ("; ".join(parts) or "none")


async def committed_moves(store: Any, tables: list[BenchTable]) -> int:
    """Moves stored for these tables so far (people's, CPU seats', next rounds), read from the bot's database
    (WAL: this reader does not block the bot's writes)."""
    total = 0
    for table in tables:
        record = await store.open_table_in_channel(table.channel.id)
        if record is not None:
            total += len(await store.moves(record.id))
    return total


async def memory_scenario(args: argparse.Namespace) -> list[Figures]:
    """Open ``--open-tables`` started tables (two people each) and print the bot process's peak RSS."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeDiscord(wait_timeout=60.0) as fake:
            guild = fake.create_guild("Bench")
            async with BotProcess(fake, "eights", Path(folder) / "bench.sqlite3") as bot:
                await open_table(fake, guild, 0, cpu=False)  # warm every code path before the baseline
                before, _ = bot.rss_kib()
                count = args.open_tables
                gate = asyncio.Semaphore(32)

                async def one(index: int) -> None:
                    async with gate:
                        await open_table(fake, guild, index, cpu=False)

                start = time.perf_counter()
                await asyncio.gather(*(one(i) for i in range(1, count + 1)))
                elapsed = time.perf_counter() - start
                await asyncio.sleep(0.5)  # let the bot finish what the last clicks started
                current, peak = bot.rss_kib()
                fake_current, _ = rss_kib()
                print(
                    f"{count} open tables (opened in {elapsed:.1f} s): bot process RSS "
                    f"{before / 1024:.1f} MiB before, {current / 1024:.1f} MiB after, "
                    f"peak {peak / 1024:.1f} MiB; {(current - before) / count:.1f} KiB per open table, "
                    f"{peak / count:.1f} KiB of peak RSS per open table (the fake and the people, in "
                    f"another process: {fake_current / 1024:.1f} MiB)"
                )
            fake.assert_clean()
    return []


# --- at scale, within Discord's limits: many tables, people pacing, the fake enforcing the limits -----------
#
# The bot writes every outcome it is given to show (a move committed: the players' own, the CPU seats', the
# referee's) to a trace file, one JSON line each: when (the monotonic clock, which this process shares), the
# table's channel, the board's state as the bot renders it, who is to act, and the plays in words. This
# process keeps every board, line and hand version the fake saw, with its time, and compares: how long until
# a board shows a move, which plays no board or line ever showed, which turn-start mentions never came.

TRACE_FIELDS = ("Target", "Direction", "Stock", "Pending draw", "Seats")


def board_state(embed: dict[str, Any]) -> str:
    """What a board embed says about the table's state (title, who moves, the state fields), without its
    "Last plays" (a board may tell those as it likes): equal for the bot's rendering and the fake's copy."""
    fields = {f.get("name"): f.get("value") for f in embed.get("fields") or []}
    parts = [str(embed.get("title")), str(embed.get("description"))]
    parts += [f"{name}={fields.get(name)}" for name in TRACE_FIELDS]
    return "|".join(parts)


TRACE_CPU = [0.0]  # the bot process's CPU seconds spent writing the trace (the bench's work, not the bot's)


def trace_outcomes(bot: EightsBot, path: str) -> None:
    """In the bot process: append every outcome the publisher is given to ``path`` (see above)."""
    from bot.ui import render

    publisher = bot.publisher
    original = getattr(publisher, "publish", None)
    if publisher is None or original is None:
        raise RuntimeError("the bench cannot find the publisher's publish() to trace outcomes")
    out = open(path, "a", encoding="utf-8")  # noqa: SIM115  (open while the bot runs)

    def publish(outcome: Any, *args: Any, **kwargs: Any) -> Any:
        began = time.thread_time()
        snapshot = outcome.snapshot
        seat = next((s for s in snapshot.seats if s.position == snapshot.to_act), None)
        to_act = (
            seat.user_id if seat is not None and not seat.is_cpu and snapshot.phase == "playing" else None
        )
        # Rendered as the bot renders them for this server (card emojis on or off): as the fake saw them.
        faces = publisher.appearance.cached_faces(snapshot.guild_id)
        plays = [
            render.describe_event(event, snapshot, faces)
            for event in outcome.public_events
            if event.kind == "played"
        ]
        record = {
            "t": time.monotonic(),
            "channel": snapshot.channel_id,
            "board": board_state(render.board_embed(snapshot, faces).to_dict()),  # type: ignore[arg-type]
            "to_act": to_act,
            "plays": plays,
        }
        out.write(json.dumps(record) + "\n")
        out.flush()
        # The bench's own work in the bot's process: counted apart so that it is not billed to the bot.
        TRACE_CPU[0] += time.thread_time() - began
        return original(outcome, *args, **kwargs)

    publisher.publish = publish
    send = publisher._send  # when the bot sends each public line, to tell a line in flight from a late one

    async def traced_send(
        snapshot: Any, via: Any, content: str, mentions: Any, nonce: Any = None
    ) -> int | None:
        began = time.thread_time()
        record = {"t": time.monotonic(), "channel": snapshot.channel_id, "sent": content}
        out.write(json.dumps(record) + "\n")
        out.flush()
        TRACE_CPU[0] += time.thread_time() - began
        return await send(snapshot, via, content, mentions, nonce)

    publisher._send = traced_send  # type: ignore[method-assign]


@dataclass
class Shown:
    """What one table showed, as the fake saw it (times on the loop's monotonic clock)."""

    boards: list[tuple[float, str, str]] = field(default_factory=list)  # (t, state, last plays)
    lines: list[tuple[float, str]] = field(default_factory=list)  # public messages but the board
    hands: dict[int, list[tuple[float, bool]]] = field(default_factory=dict)  # user -> (t, says "your turn")


@dataclass
class Traced:
    t: float
    board: str
    to_act: int | None
    plays: list[str]


def says_your_turn(content: str) -> bool:
    return "**Your turn.**" in content or "Name the suit" in content


class ScaleWatch:
    """The fake's message observer for the scale scenario: every board, line and hand version, timed."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.tables: dict[int, BenchTable] = {}  # channel id -> table
        self.shown: dict[int, Shown] = {}
        self.hand_owner: dict[int, tuple[int, int]] = {}  # hand message id -> (channel id, user id)

    def watch(self, table: BenchTable) -> None:
        self.tables[table.channel.id] = table
        self.shown.setdefault(table.channel.id, Shown())
        for user_id, hand in table.hands.items():
            self.hand_owner[hand.id] = (table.channel.id, user_id)

    def __call__(self, message: FakeMessage, recipient: FakeUser | None) -> None:
        now = asyncio.get_running_loop().time()
        if recipient is not None:
            owner = self.hand_owner.get(message.id)
            if owner is not None:
                shown = self.shown[owner[0]]
                shown.hands.setdefault(owner[1], []).append((now, says_your_turn(message.content)))
            return
        table = self.tables.get(message.channel_id)
        if table is None:
            return
        shown = self.shown[message.channel_id]
        if message.id == table.board.id:
            embed = message.embeds[0] if message.embeds else {}
            plays = next((f["value"] for f in embed.get("fields", []) if f.get("name") == "Last plays"), "")
            shown.boards.append((now, board_state(embed), str(plays)))
        elif message.versions and len(message.versions) == 1:  # a new line (edits of lines are not lines)
            shown.lines.append((now, message.content))


SENDS: dict[int, list[tuple[float, str]]] = {}  # channel -> (when the bot sent a line, the line)


def read_trace(path: Path, offset: int = 0) -> tuple[dict[int, list[Traced]], int]:
    """Outcomes by channel from the trace, from byte ``offset`` on; and the offset after them. The lines the
    bot sent go to ``SENDS``."""
    by_channel: dict[int, list[Traced]] = {}
    with open(path, encoding="utf-8") as trace:
        trace.seek(offset)
        while True:
            line = trace.readline()
            if not line.endswith("\n"):
                break  # the bot is writing it
            offset += len(line.encode())
            data = json.loads(line)
            if "sent" in data:
                SENDS.setdefault(int(data["channel"]), []).append((data["t"], data["sent"]))
                continue
            entry = Traced(data["t"], data["board"], data["to_act"], data["plays"])
            by_channel.setdefault(int(data["channel"]), []).append(entry)
    return by_channel, offset


def percentiles(values: list[float], *, ms: bool = False) -> str:
    if not values:
        return "none"
    ordered = sorted(values)

    def at(q: float) -> str:
        value = ordered[min(len(ordered) - 1, int(q * len(ordered)))]
        return f"{value * 1000:.0f} ms" if ms else f"{value:.2f} s"

    return f"p50 {at(0.5)}, p99 {at(0.99)}, max {at(1.0)} (n {len(ordered)})"


@dataclass
class Verdict:
    board_lag: list[float] = field(default_factory=list)
    boards_not_shown: int = 0  # outcomes no board ever showed (nor a later state)
    hand_lag: list[float] = field(default_factory=list)
    hands_not_refreshed: int = 0
    mentions: int = 0
    mentions_delivered: int = 0
    mentions_folded: int = 0
    mentions_lost: int = 0
    mentions_in_flight: int = 0  # folded, though a line posted during the turn: the bot had sent it before
    plays: int = 0
    plays_lost: int = 0
    losses: list[str] = field(default_factory=list)  # the first few lost mentions and plays, in context


def judge(outcomes: dict[int, list[Traced]], watch: ScaleWatch, start: float, end: float) -> Verdict:
    """Compare what the bot meant to show (outcomes committed in [start, end)) with what the fake shows."""
    verdict = Verdict()
    for channel_id, traced in outcomes.items():
        shown = watch.shown.get(channel_id)
        if shown is None:
            continue
        judge_boards(traced, shown, start, end, verdict)
        judge_turns(traced, shown, start, end, verdict, SENDS.get(channel_id, []))
        judge_plays(traced, shown, start, end, verdict)
    return verdict


def judge_boards(traced: list[Traced], shown: Shown, start: float, end: float, verdict: Verdict) -> None:
    """Each board version shows the latest outcome of its state committed before it; every outcome up to that
    one is then shown. An outcome's lag: from its commit to the first board showing it or a later one."""
    shown_up_to = -1
    lag: dict[int, float] = {}
    for t, state, _ in shown.boards:
        for index in range(len(traced) - 1, shown_up_to, -1):
            if traced[index].t <= t + 0.001 and traced[index].board == state:
                for k in range(shown_up_to + 1, index + 1):
                    lag[k] = max(0.0, t - traced[k].t)
                shown_up_to = index
                break
    for k, entry in enumerate(traced):
        if start <= entry.t < end:
            if k in lag:
                verdict.board_lag.append(lag[k])
            else:
                verdict.boards_not_shown += 1


IN_FLIGHT = 0.25  # seconds: a line posted this soon after a turn began may have been sent before it


def judge_turns(
    traced: list[Traced],
    shown: Shown,
    start: float,
    end: float,
    verdict: Verdict,
    sends: list[tuple[float, str]] | None = None,
) -> None:
    """A person's turn starts when an outcome makes them the one to act (after someone else was).

    Their hand must say so: the refresh's lag is from the outcome to the first version of their hand saying
    "your turn"; "never refreshed" when no such version came while the turn lasted. The public mention is
    "delivered" when a line mentioning them is posted from the turn's start until their next turn starts;
    "folded" when no line went out while the turn lasted (lines the bot sent before it began aside, as the
    trace tells, or, without it, lines posted within ``IN_FLIGHT`` of its start) and a line came after it
    (telling their move); "lost" otherwise: lines went out during their turn and none named them, or none
    came at all."""
    sends = sends or []
    starts = []
    previous: int | None = None
    for k, entry in enumerate(traced):
        if entry.to_act is not None and entry.to_act != previous:
            starts.append(k)
        previous = entry.to_act
    for n, k in enumerate(starts):
        entry = traced[k]
        person = entry.to_act
        assert person is not None
        if not start <= entry.t < end:
            continue
        turn_end = next((o.t for o in traced[k + 1 :] if o.to_act != person), math.inf)
        next_start = next((traced[j].t for j in starts[n + 1 :] if traced[j].to_act == person), math.inf)
        refreshed = next(
            (
                t
                for t, yours in shown.hands.get(person, [])
                if yours and entry.t - 0.001 <= t <= turn_end + 0.001
            ),
            None,
        )
        if refreshed is not None:
            verdict.hand_lag.append(refreshed - entry.t)
        else:
            verdict.hands_not_refreshed += 1
        verdict.mentions += 1
        mention = f"<@{person}>"
        if any(entry.t - 0.001 <= t < next_start and mention in text for t, text in shown.lines):
            verdict.mentions_delivered += 1
        elif not any(
            entry.t + IN_FLIGHT <= t < turn_end and sent_since(sends, text, t, entry.t)
            for t, text in shown.lines
        ) and any(t >= turn_end for t, _ in shown.lines):
            verdict.mentions_folded += 1
            if any(entry.t + IN_FLIGHT <= t < turn_end for t, _ in shown.lines):
                verdict.mentions_in_flight += 1
        else:
            verdict.mentions_lost += 1
            if len(verdict.losses) < 4:
                verdict.losses.append(
                    f"mention of {person} (turn from {entry.t - start:.2f} s to {turn_end - start:.2f} s): "
                    + context(shown, entry.t, start)
                )


def sent_since(sends: list[tuple[float, str]], text: str, shown: float, since: float) -> bool:
    """Whether the line ``text`` shown at ``shown`` was sent by the bot at ``since`` or later (not a line in
    flight when a turn began); True when the trace does not tell."""
    sent = [t for t, content in sends if content == text and t <= shown + 0.001]
    return not sent or sent[-1] >= since - 0.001


# A card's custom emoji before its name: a play traced before the emojis were uploaded is worded without it,
# and its line, worded when sent, with it (seen as plays "lost" ~16 s into a 100-table run).
CARD_EMOJI = re.compile(r"<a?:\w+:\d+> ?")


def judge_plays(traced: list[Traced], shown: Shown, start: float, end: float, verdict: Verdict) -> None:
    """Every play must be told by a line posted after it, or be on a board shown after it (card emojis
    aside)."""
    used: set[tuple[int, int]] = set()
    lines = [(t, i, CARD_EMOJI.sub("", text).splitlines()) for i, (t, text) in enumerate(shown.lines)]
    boards = [(t, CARD_EMOJI.sub("", plays)) for t, _, plays in shown.boards]
    for entry in traced:
        if not start <= entry.t < end:
            continue
        for play in map(lambda text: CARD_EMOJI.sub("", text), entry.plays):
            verdict.plays += 1
            found = False
            for t, i, rows in lines:
                if t < entry.t - 0.001:
                    continue
                for r, row in enumerate(rows):
                    if (i, r) not in used and play in row:
                        used.add((i, r))
                        found = True
                        break
                if found:
                    break
            if not found and not any(t >= entry.t - 0.001 and play in plays for t, plays in boards):
                verdict.plays_lost += 1
                if len(verdict.losses) < 8:
                    verdict.losses.append(
                        f"play {play!r} at {entry.t - start:.2f} s: " + context(shown, entry.t, start)
                    )


def context(shown: Shown, moment: float, start: float) -> str:
    """The table's lines and boards around ``moment`` (times from the run's start), to trace a loss."""
    near = [(t, text) for t, text in shown.lines if moment - 3 <= t <= moment + 10]
    lines = [f"{t - start:.2f} {text[:90]!r}" for t, text in near]
    boards = [f"{t - start:.2f} {p[:90]!r}" for t, _, p in shown.boards if moment - 1 <= t <= moment + 10]
    return f"lines {lines[:6]}; boards' last plays {boards[:4]}"


def caught_up(outcomes: dict[int, list[Traced]], watch: ScaleWatch) -> tuple[int, int, int]:
    """(tables whose board does not show their latest outcome, hands that do not say whose turn it is, people
    to move not mentioned by a line since their turn began)."""
    behind = not_caught_up(outcomes, watch)
    return (
        sum(1 for what in behind if what.startswith("board")),
        sum(1 for what in behind if what.startswith("hand")),
        sum(1 for what in behind if what.startswith("mention")),
    )


def not_caught_up(outcomes: dict[int, list[Traced]], watch: ScaleWatch) -> list[str]:
    """What does not show the latest state: "board of table-N", "hand of host-N (…)", or "mention of
    host-N" (the person to move has had no line calling them since their turn began: it is on its way)."""
    behind = []
    for channel_id, traced in outcomes.items():
        shown = watch.shown.get(channel_id)
        table = watch.tables.get(channel_id)
        if shown is None or table is None or not traced:
            continue
        latest = traced[-1]
        if not shown.boards or shown.boards[-1][1] != latest.board:
            behind.append(f"board of {table.channel.name}")
        for user in (table.host, table.guest):
            yours = says_your_turn(table.hands[user.id].content)
            if yours != (latest.to_act == user.id):
                behind.append(f"hand of {user.name} (says {'your' if yours else 'not your'} turn)")
        if latest.to_act is not None:
            began = len(traced) - 1
            while began > 0 and traced[began - 1].to_act == latest.to_act:
                began -= 1
            mention = f"<@{latest.to_act}>"
            if not any(t >= traced[began].t - 0.001 and mention in text for t, text in shown.lines):
                behind.append(f"mention of {latest.to_act} at {table.channel.name}")
    return behind


@dataclass
class Clicks:
    latencies: list[float] = field(default_factory=list)
    unanswered: int = 0  # no callback within the 3 s Discord allows
    unanswered_in_outage: int = 0  # ... sent while the gateway was down (the bot never got it)
    refused: int = 0  # the control went away meanwhile, or the bot answered "no longer possible"
    unanswered_outside: list[str] = field(default_factory=list)  # unanswered while the gateway was up: when


def outage_context(fake: FakeDiscord, moment: float) -> str:
    """Where ``moment`` falls among the gateway outages: the nearest one's kind and times relative to it."""
    nearest = min(fake.faults.outages, key=lambda o: abs(moment - o.start), default=None)
    if nearest is None:
        return "no outage"
    end = f"{nearest.end - nearest.start:.1f} s later" if nearest.end is not None else "never"
    return f"{moment - nearest.start:+.1f} s from a {nearest.kind} outage (served again {end})"


async def pace_table(
    fake: FakeDiscord,
    wakeups: Wakeups,
    table: BenchTable,
    think: tuple[float, float],
    rng: random.Random,
    clicks: Clicks,
    stop: asyncio.Event,
    watch: ScaleWatch,
) -> None:
    """The table's two people play until ``stop``: each looks at their hand, thinks ``think`` seconds, and
    clicks; a click left unanswered for 3 s is what Discord shows as "This interaction failed": they look
    again and click again."""
    changed = asyncio.Event()
    wakeups.watch(table, changed)
    while not stop.is_set():
        decision = next_decision(table)
        if decision is None:
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), 1.0)
            continue
        user, message, control = decision
        if message is not table.board:
            await asyncio.sleep(rng.uniform(*think))
            if stop.is_set():
                return
            if next_decision(table) != decision:
                continue
        custom_id = str(control["custom_id"])
        try:
            if control.get("type") == 3:
                handle = await fake.select(user, message, custom_id, [control["options"][0]["value"]])
            else:
                handle = await fake.click(user, message, custom_id)
        except InvalidInteraction:
            clicks.refused += 1
            await asyncio.sleep(0.2)
            continue
        record = handle.record
        try:
            await handle.callback(timeout=fake.callback_deadline + 0.5)
        except AssertionError:
            clicks.unanswered += 1
            if fake.faults.during_outage(record.created_at, margin=0.2):
                clicks.unanswered_in_outage += 1
            else:
                clicks.unanswered_outside.append(outage_context(fake, record.created_at))
            continue
        assert record.callback_at is not None
        clicks.latencies.append(record.callback_at - record.created_at)
        if message is table.board:
            table.started.add(custom_id)
            with contextlib.suppress(AssertionError):
                reply = await handle.reply(timeout=10.0)
                if reply.content == NO_LONGER_POSSIBLE:
                    # The round had started on its own while the board still offered Next round (the
                    # board lags under load): "That move is no longer possible." The hand message the
                    # person held is still the one the bot refreshes.
                    clicks.refused += 1
                    continue
                table.hands[user.id] = reply
                wakeups.watch(table, changed)
                watch.watch(table)


async def open_tables(
    fake: FakeDiscord, guilds: list[FakeGuild], count: int, *, cpu: bool, first: int, gate: asyncio.Semaphore
) -> list[BenchTable]:
    """``count`` tables, table ``index`` in ``guilds[index % len(guilds)]`` (one guild per shard: each gets
    its equal share)."""

    async def one(index: int) -> BenchTable:
        async with gate:
            guild = guilds[index % len(guilds)]
            return await open_table(fake, guild, index, cpu=cpu, turn_timeout=86_400)

    return list(await asyncio.gather(*(one(first + i) for i in range(count))))


def shard_guilds(fake: FakeDiscord, shard_count: int) -> list[FakeGuild]:
    """One guild per shard, ``guilds[shard]`` (Discord's shard of a guild: ``(guild_id >> 22) %
    shard_count``); the one guild "Bench" for one shard. The fake's ids are snowflakes of the current
    millisecond (the part above bit 22), so each guild is made in a millisecond that falls in the shard still
    without one; a guild whose millisecond turned meanwhile is kept for its own shard, or stays empty when
    that one has a guild."""
    if shard_count == 1:
        return [fake.create_guild("Bench")]
    found: dict[int, FakeGuild] = {}
    for _ in range(100 * shard_count):
        missing = min(set(range(shard_count)) - set(found))
        while (int(time.time() * 1000) - DISCORD_EPOCH_MS) % shard_count != missing:
            time.sleep(0.0001)
        guild = fake.create_guild(f"Bench shard {missing}")
        shard = shard_of(guild.id, shard_count)
        if shard in found:
            guild.name = "Bench (spare)"
            continue
        guild.name = f"Bench shard {shard}"
        found[shard] = guild
        if len(found) == shard_count:
            return [found[shard] for shard in range(shard_count)]
    raise RuntimeError(f"could not make a guild for each of {shard_count} shards")


@contextlib.asynccontextmanager
async def scale_database(args: argparse.Namespace, sqlite_file: Path) -> AsyncIterator[str]:
    """The run's database URL: ``sqlite_file``, or a PostgreSQL database made for the run on
    ``--postgres-server`` (a unique name) and dropped when the run ends, however it ends."""
    if args.database != "postgresql":
        yield f"sqlite:///{sqlite_file}"
        return
    from urllib.parse import urlsplit, urlunsplit

    import asyncpg  # the driver the bot's PostgreSQL store uses; here only to make and drop the database

    name = f"bench_e2e_{os.getpid()}_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(args.postgres_server, timeout=10)
    try:
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    try:
        yield urlunsplit(urlsplit(args.postgres_server)._replace(path=f"/{name}", query=""))
    finally:
        admin = await asyncpg.connect(args.postgres_server, timeout=10)
        try:
            # FORCE: a bot process that did not stop in time loses its connections.
            await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await admin.close()


def global_rates(counters: Any, start: float, end: float) -> str:
    seconds = [v for k, v in counters.per_second.items() if start <= k < end]
    span = max(1.0, end - start)
    offered = sum(v[0] for v in seconds) / span
    passed = sum(v[1] for v in seconds) / span
    peak = max((v[0] for v in seconds), default=0)
    return f"{offered:.1f} → {passed:.1f} per s (busiest second offered {peak})"


async def scale_scenario(args: argparse.Namespace) -> list[Figures]:
    """``--open-tables`` tables open, ``--active`` of them played by two people and a CPU seat each (people
    thinking ``--pace`` seconds, CPU delay ``--scale-cpu-delay``), against the fake with Discord's limits on,
    for ``--duration`` seconds; then the load stops and the boards and hands must catch up. ``--faults``:
    a gateway drop every 30 s (each kind in turn) and 2% of REST calls answered 5xx. ``--processes N``: the
    bot as N shard processes on one PostgreSQL database."""
    active_counts = args.active
    for active in active_counts:
        await scale_run(args, active)
    return []


def scale_bots(
    args: argparse.Namespace, fake: FakeDiscord, database: Path, database_url: str, trace: Path
) -> list[BotProcess]:
    """The bot's processes for a scale run: one (on SQLite, or on ``database_url``'s PostgreSQL), or one per
    shard of ``--processes`` with its share of the global rate (README: "When to put a REST proxy in
    front")."""
    processes = args.processes
    sqlite = args.database != "postgresql"
    return [
        BotProcess(
            fake,
            "eights",
            database if sqlite else None,
            args.profile,
            cpu_delay=args.scale_cpu_delay,
            trace=trace,
            heartbeat_timeout=5.0 if args.faults else 0.0,
            database_url=None if sqlite else database_url,
            shard=(shard, processes) if processes > 1 else None,
            global_rate=max(1, DEFAULT_GLOBAL_RATE // processes) if processes > 1 else None,
        )
        for shard in range(processes)
    ]


async def scale_run(args: argparse.Namespace, active: int) -> None:
    faults = args.faults
    limits = DiscordLimits()
    with tempfile.TemporaryDirectory() as folder:
        database, trace = Path(folder) / "bench.sqlite3", Path(folder) / "outcomes.jsonl"
        trace.touch()
        fake = FakeDiscord(
            wait_timeout=120.0,
            limits=limits,
            heartbeat_interval=2.0 if faults else 41.25,
            fault_seed=7,
        )
        async with scale_database(args, database) as database_url, fake:
            watch = ScaleWatch(fake)
            wakeups = Wakeups()
            fake.add_message_observer(wakeups)
            fake.add_message_observer(watch)
            guilds = shard_guilds(fake, args.processes)
            async with BotProcesses(scale_bots(args, fake, database, database_url, trace)) as bots:
                # To count the moves committed (through the bot's own store, whichever the database).
                store = await open_store(database_url, pool_size=2)
                loop = asyncio.get_running_loop()
                opened_at = loop.time()
                gate = asyncio.Semaphore(args.open_concurrency)
                idle = max(0, args.open_tables - active)
                tables = await open_tables(fake, guilds, active, cpu=True, first=0, gate=gate)
                await open_tables(fake, guilds, idle, cpu=False, first=active, gate=gate)
                for table in tables:
                    watch.watch(table)
                # Each process's tables: the guild of shard i is process i's.
                shares = [
                    [t for t in tables if shard_of(t.channel.guild_id, len(bots)) == shard]
                    for shard in range(len(bots))
                ]
                # The fake keeps every message version it was sent: a full GC pass over that heap stalled
                # this process for half a second, and requests the bot had spaced out were then counted
                # together when it woke (Discord's edge does not stop). This heap is treated as the bot
                # treats its own (bot.client.tune_garbage_collector).
                tune_garbage_collector()
                assert fake.limits is not None
                setup = fake.limits.summary()
                print(
                    f"\n{active} active tables of {active + idle} open"
                    f"{' — FAULTS: a gateway drop every 30 s, 2% 5xx' if faults else ''}: opened in "
                    f"{loop.time() - opened_at:.0f} s ({setup})"
                )
                if args.processes > 1 or args.database == "postgresql":
                    print(deployment_line(bots, shares, active + idle, database_url))
                counters = fake.limits.counters
                before = (
                    counters.global_429,
                    counters.route_429,
                    counters.shared_429,
                    counters.invalid_total,
                )
                clicks = Clicks()
                stop = asyncio.Event()
                rng = random.Random(1)
                committed_before = [await committed_moves(store, share) for share in shares]
                requests_before = fake.requests_by_route.copy()
                start, cpu_start = loop.time(), [bot.cpu_seconds() for bot in bots]
                own_cpu_start = time.process_time()
                await asyncio.gather(*(bot.window() for bot in bots))
                lag_probe = LoopLag()
                probe = asyncio.create_task(lag_probe.run())
                drivers = [
                    asyncio.create_task(pace_table(fake, wakeups, t, args.pace, rng, clicks, stop, watch))
                    for t in tables
                ]
                if faults:
                    fake.server_errors.rate = 0.02  # from now on: not while the bot logs in and tables open
                chaos = asyncio.create_task(fake.faults.run(30.0, stop=stop)) if faults else None
                rss_peak = 0  # of all the processes' RSS together
                rss_peaks = [0] * len(bots)
                while loop.time() - start < args.duration:
                    await asyncio.sleep(5.0)
                    sampled = [bot.rss_kib()[0] for bot in bots]
                    rss_peak = max(rss_peak, sum(sampled))
                    rss_peaks = [max(peak, now) for peak, now in zip(rss_peaks, sampled, strict=True)]
                stop.set()
                end = loop.time()
                cpus = [bot.cpu_seconds() - at for bot, at in zip(bots, cpu_start, strict=True)]
                own_cpu = time.process_time() - own_cpu_start
                bot_windows = await asyncio.gather(*(bot.window_end() for bot in bots))
                # Read at once: the CPU seats go on moving until the people's last clicks are answered.
                committed_each = [
                    await committed_moves(store, share) - at
                    for share, at in zip(shares, committed_before, strict=True)
                ]
                committed = sum(committed_each)
                requests = fake.requests_by_route - requests_before
                probe.cancel()
                at_end = (
                    counters.global_429,
                    counters.route_429,
                    counters.shared_429,
                    counters.invalid_total,
                )
                await asyncio.gather(*drivers, *([chaos] if chaos else []), return_exceptions=True)
                # The load has stopped: how long until every board and hand shows the latest state?
                caught = math.inf
                outcomes, offset = read_trace(trace)
                while loop.time() - end < args.catch_up:
                    more, offset = read_trace(trace, offset)
                    for channel, entries in more.items():
                        outcomes.setdefault(channel, []).extend(entries)
                    if not any(caught_up(outcomes, watch)):
                        caught = loop.time() - end
                        break
                    await asyncio.sleep(0.25)
                else:
                    print("  still behind after the wait: " + ", ".join(not_caught_up(outcomes, watch)[:6]))
                rss_now = [bot.rss_kib() for bot in bots]
                current_rss, peak_rss = sum(now for now, _ in rss_now), sum(peak for _, peak in rss_now)
                limits_now = fake.limits
                after = (counters.global_429, counters.route_429, counters.shared_429, counters.invalid_total)
                banned = (
                    f"BANNED {limits_now.banned_at - start:.0f} s into the run"
                    if limits_now.banned_at is not None
                    else "never banned"
                )
                each = [
                    ProcessFigures(
                        name=bot.name,
                        pid=bot.pid,
                        tables=len(share),
                        global_rate=bot.global_rate or DEFAULT_GLOBAL_RATE,
                        cpu=cpu,
                        trace_cpu=trace_cpu(window),
                        committed=moves,
                        rss=(now, max(sampled_peak, now), hwm),
                    )
                    for bot, share, cpu, window, moves, (now, hwm), sampled_peak in zip(
                        bots, shares, cpus, bot_windows, committed_each, rss_now, rss_peaks, strict=True
                    )
                ]
                report = ScaleReport(
                    elapsed=end - start,
                    clicks=clicks,
                    verdict=judge(outcomes, watch, start, end),
                    rates=global_rates(counters, math.floor(start), math.floor(end)),
                    run_429s=[b - a for a, b in zip(before, at_end, strict=True)],
                    catch_up_429s=[b - a for a, b in zip(at_end, after, strict=True)],
                    invalid_now=limits_now.invalid_recent(),
                    invalid_peak=counters.invalid_peak,
                    banned=banned,
                    caught=caught,
                    behind=caught_up(outcomes, watch),
                    cpu=sum(cpus),
                    trace_cpu=sum(one.trace_cpu for one in each),
                    committed=committed,
                    bench_cpu=own_cpu,
                    bench_lag=lag_probe.lags,
                    rss=(current_rss, max(rss_peak, current_rss), peak_rss),
                    processes=each,
                )
                print(report.text())
                if len(bots) == 1:
                    print(f"  bot process in the run: {bot_windows[0]}")
                    mix = request_mix(requests, max(1, committed))
                    print(f"  the bot's requests per committed move: {mix}")
                else:
                    print(
                        "  bot processes in the run, merged: "
                        + merged_window([bot.window_stats for bot in bots])
                    )
                    for bot, window in zip(bots, bot_windows, strict=True):
                        print(f"    {bot.name}: {window}")
                    print(
                        "  the bots' requests per committed move, all processes (as the fake counted them): "
                        + request_mix(requests, max(1, committed))
                    )
                    for bot, moves in zip(bots, committed_each, strict=True):
                        own: Counter[str] = Counter()
                        for route, count in bot.window_stats["requests"].items():
                            own[fake_route(route)] += count
                        print(
                            f"    {bot.name} (as the process counted them): {request_mix(own, max(1, moves))}"
                        )
                if faults:
                    injected = ", ".join(f"{k} {n}" for k, n in fake.faults.injected.items() if n)
                    print(
                        f"  faults: gateway {injected}; {fake.server_errors.count} REST calls answered 5xx; "
                        f"resumes {len(fake.resumes)}, identifies {len(fake.identifies)}"
                    )
                await store.close()
            print(violations_summary(fake))


def deployment_line(
    bots: list[BotProcess], shares: list[list[BenchTable]], open_count: int, database_url: str
) -> str:
    """How the bot runs in a run on PostgreSQL (one process, or one per shard), and each process's share."""
    database = f"PostgreSQL database {database_url.rsplit('/', 1)[-1]} (made for the run, dropped after it)"
    if len(bots) == 1:
        return f"  the bot: one process on the {database}"
    rate = bots[0].global_rate
    return (
        f"  the bot: {len(bots)} shard processes (SHARD_COUNT={len(bots)}, SHARD_IDS=0..{len(bots) - 1}, "
        f"DISCORD_GLOBAL_RATE={rate} each) on one {database}; active tables per shard: "
        f"{', '.join(str(len(share)) for share in shares)} (of {open_count} open, spread alike)"
    )


def trace_cpu(window_line: str) -> float:
    """The bot process's CPU seconds spent writing the bench's trace, from its window line."""
    found = re.search(r"tracing CPU ([\d.]+) s", window_line)
    return float(found.group(1)) if found else 0.0


def merged_window(stats: list[dict[str, Any]]) -> str:
    """Several bot processes' window figures (``BotProcess.window_stats``) merged into one line worded as each
    process's own: GC pauses by generation (counts and totals summed, the longest of all), the event loop's
    lateness over every process's samples, asyncio tasks and the trace's CPU summed, threads' CPU summed by
    name."""
    gc_parts = []
    for generation in ("0", "1", "2"):
        found = [one["gc"][generation] for one in stats if generation in one["gc"]]
        if found:
            count, total, longest = (
                sum(f[0] for f in found),
                sum(f[1] for f in found),
                max(f[2] for f in found),
            )
            gc_parts.append(
                f"gen{generation} {count}× total {total * 1000:.0f} ms max {longest * 1000:.0f} ms"
            )
    late: Counter[int] = Counter()
    threads: Counter[str] = Counter()
    for one in stats:
        late.update({int(units): count for units, count in one["late"].items()})
        threads.update(one["threads"])
    lags = [units / LATE_UNITS for units, count in sorted(late.items()) for _ in range(count)]
    return (
        f"GC pauses: {'; '.join(gc_parts) or 'none'}; event loop late by {percentiles(lags, ms=True)}; "
        f"{sum(one['tasks'] for one in stats)} asyncio tasks; tracing CPU "
        f"{sum(one['tracing'] for one in stats):.3f} s; threads' CPU "
        + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in threads.most_common())
    )


# The fake's name of the placeholder after each kind of path segment (its routes:
# tests/fakediscord/server.py), for the segments the bot names {id} (bot.delivery.budget.route_template).
FAKE_PLACEHOLDERS = {
    "interactions": "{interaction}",
    "webhooks": "{app}",
    "applications": "{app}",
    "channels": "{channel}",
    "messages": "{message}",
    "guilds": "{guild}",
    "members": "{user}",
    "emojis": "{emoji}",
}


def fake_route(route: str) -> str:
    """A route as the bot's metrics name it ("PATCH /webhooks/{id}/{token}/messages/@original") as the fake
    names it ("PATCH /api/v10/webhooks/{app}/{token}/messages/{message}"), for ``request_mix``."""
    method, _, path = route.partition(" ")
    parts = path.split("/")
    for index in range(1, len(parts)):
        before = parts[index - 1]
        original = (before, parts[index]) == ("messages", "@original")
        if before in FAKE_PLACEHOLDERS and (parts[index] == "{id}" or original):
            parts[index] = FAKE_PLACEHOLDERS[before]
    return f"{method} /api/v10{'/'.join(parts)}"


LATE_CALLBACK = re.compile(r"/interactions/(\d+)/.*first callback")


def violations_summary(fake: FakeDiscord) -> str:
    """The rules the bot broke, by kind; late interaction callbacks split by whether the interaction was
    sent while the gateway was down (it reached the bot only with the RESUME's replay)."""
    problems = fake.take_violations()
    unknown = fake.take_unknown_requests()
    kinds: Counter[str] = Counter()
    late: set[int] = set()
    late_in_outage: set[int] = set()
    for problem in problems:
        found = LATE_CALLBACK.search(problem)
        if found is not None:
            interaction = int(found.group(1))
            late.add(interaction)
            record = fake.interactions.get(interaction)
            if record is not None and fake.faults.during_outage(record.created_at, margin=0.2):
                late_in_outage.add(interaction)
            continue
        kinds[re.sub(r"\d{6,}|itk\.[\w.-]+", "…", problem)[:150]] += 1
    lines = [f"  the fake's violations: {len(problems)}; unknown endpoints: {len(unknown)}"]
    if late:
        lines.append(
            f"    interactions answered after Discord's 3 s: {len(late)} (sent while the gateway was down: "
            f"{len(late_in_outage)})"
        )
    lines += [f"    {count}× {kind}" for kind, count in kinds.most_common(8)]
    return "\n".join(lines)


class LoopLag:
    """How late this process's event loop wakes from a 10 ms sleep: when the fake is late, so are the times
    it takes for the bot's answers."""

    def __init__(self) -> None:
        self.lags: list[float] = []

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(0.01)
            self.lags.append(max(0.0, loop.time() - before - 0.01))


@dataclass
class ProcessFigures:
    """One bot process's part of a scale run (``--processes N``)."""

    name: str  # "shard i of N"
    pid: int
    tables: int  # the active tables in its shard's guild
    global_rate: int  # its DISCORD_GLOBAL_RATE
    cpu: float  # its CPU seconds in the run (/proc: every thread), its share of the trace included
    trace_cpu: float  # ... of which the bench's trace took
    committed: int  # moves committed at its tables in the run, from the database
    rss: tuple[int, int, int]  # KiB: at the end, peak sampled, high-water mark

    def text(self, elapsed: float) -> str:
        bot_cpu = self.cpu - self.trace_cpu
        rss, sampled, hwm = (value / 1024 for value in self.rss)
        trace = self.trace_cpu / max(1, self.committed) * 1000
        return (
            f"    {self.name} (pid {self.pid}, {self.tables} active tables, DISCORD_GLOBAL_RATE "
            f"{self.global_rate}): CPU {bot_cpu / elapsed:.0%} of a core, "
            f"{bot_cpu / max(1, self.committed) * 1000:.2f} ms per committed move ({self.committed} moves, "
            f"{self.committed / elapsed:.0f}/s; trace {trace:.2f} ms per move, left out), RSS {rss:.0f} MiB "
            f"(peak sampled {sampled:.0f} MiB, high-water {hwm:.0f} MiB)"
        )


@dataclass
class ScaleReport:
    elapsed: float
    clicks: Clicks
    verdict: Verdict
    rates: str
    run_429s: list[int]  # global, route, shared, invalid: in the measured run
    catch_up_429s: list[int]  # the same after the load stopped, while the boards caught up
    invalid_now: int
    invalid_peak: int
    banned: str
    caught: float  # seconds after the load stopped; inf when not within the wait
    behind: tuple[int, int, int]  # boards, hands, mentions not showing the latest state at the end
    cpu: float  # the bot process's CPU seconds in the run (/proc: every thread), the trace's included
    trace_cpu: float  # ... of which the bench's trace took (written in the bot's process)
    committed: int  # moves committed in the run (people's, CPU seats', next rounds), from the database
    bench_cpu: float  # this process's CPU seconds: the fake Discord and the simulated people
    bench_lag: list[float]  # this process's event loop: how late a 10 ms sleep woke up
    rss: tuple[int, int, int]  # KiB: at the end, peak sampled, the process's high-water mark
    # With several bot processes (--processes N), each one's part: cpu, trace_cpu, committed and rss above
    # are then the sums over them (the peak sampled: of their sum).
    processes: list[ProcessFigures] = field(default_factory=list)

    def bots_text(self, bot_cpu: float, per_move: float) -> str:
        """The bot's CPU and RSS: its process's, or all its processes' and each one's."""
        rss, sampled, hwm = (value / 1024 for value in self.rss)
        trace = self.trace_cpu / max(1, self.committed) * 1000
        rate = self.committed / self.elapsed
        if len(self.processes) <= 1:
            return (
                f"  bot process: CPU {bot_cpu / self.elapsed:.0%} of a core, {per_move:.2f} ms per committed "
                f"move ({self.committed} moves, {rate:.0f}/s; the bench's trace written in the bot's "
                f"process, {trace:.2f} ms per move, left out), RSS {rss:.0f} MiB (peak sampled "
                f"{sampled:.0f} MiB, high-water {hwm:.0f} MiB)\n"
            )
        return (
            f"  bot processes ({len(self.processes)}, all together): CPU {bot_cpu / self.elapsed:.0%} of a "
            f"core (summed), {per_move:.2f} ms per committed move (all their CPU / all the moves: "
            f"{self.committed} moves, {rate:.0f}/s; the bench's trace written in the bots' processes, "
            f"{trace:.2f} ms per move, left out), RSS {rss:.0f} MiB summed (peak sampled of the sum "
            f"{sampled:.0f} MiB, high-waters summed {hwm:.0f} MiB)\n"
            + "".join(one.text(self.elapsed) + "\n" for one in self.processes)
        )

    def text(self) -> str:
        global_429, route_429, shared_429, invalid = self.run_429s
        lat = sorted(self.clicks.latencies)
        verdict, clicks = self.verdict, self.clicks

        def ms(q: float) -> str:
            return f"{lat[min(len(lat) - 1, int(q * len(lat)))] * 1000:.0f} ms" if lat else "—"

        if math.isfinite(self.caught):
            catch = f"{self.caught:.1f} s"
        else:
            catch = (
                f"NOT within the wait ({self.behind[0]} boards, {self.behind[1]} hands, {self.behind[2]} "
                "mentions behind)"
            )
        bot_cpu = self.cpu - self.trace_cpu
        per_move = bot_cpu / max(1, self.committed) * 1000
        return (
            f"  measured {self.elapsed:.0f} s. Global requests offered → passed: {self.rates}\n"
            f"  429s in the run: global {global_429} ({global_429 / self.elapsed:.1f}/s), route (user) "
            f"{route_429} ({route_429 / self.elapsed:.1f}/s), shared {shared_429}; "
            f"invalid requests in the run {invalid}, in the last 10 min now {self.invalid_now} "
            f"(peak {self.invalid_peak}); {self.banned}; during the catch-up: global "
            f"{self.catch_up_429s[0]}, route {self.catch_up_429s[1]}\n"
            f"  clicks answered: {len(lat)}, p50 {ms(0.5)}, p99 {ms(0.99)}, max {ms(1.0)}; unanswered "
            f"{clicks.unanswered} (sent while the gateway was down: {clicks.unanswered_in_outage}); "
            f"refused as stale {clicks.refused}"
            + "".join(
                f"\n    unanswered while the gateway was up: {count}× {what}"
                for what, count in Counter(clicks.unanswered_outside).most_common(4)
            )
            + "\n"
            f"  'Your turn' hand refresh after the move: {percentiles(verdict.hand_lag, ms=True)}; "
            f"never refreshed "
            f"{verdict.hands_not_refreshed}\n"
            f"  board behind (move → a board showing it): {percentiles(verdict.board_lag)}; moves never "
            f"shown on a board {verdict.boards_not_shown}\n"
            f"  turn-start mentions {verdict.mentions}: delivered {verdict.mentions_delivered}, folded "
            f"{verdict.mentions_folded} (of which a line the bot sent before the turn began was posted "
            f"during it: {verdict.mentions_in_flight}), LOST {verdict.mentions_lost}; plays {verdict.plays}: "
            f"on neither a board nor a line {verdict.plays_lost}\n"
            + "".join(f"    LOST {loss}\n" for loss in verdict.losses)
            + ""
            f"  catch-up after the load stopped: {catch}\n"
            + self.bots_text(bot_cpu, per_move)
            + f"  this process (the fake Discord and the people): CPU {self.bench_cpu / self.elapsed:.0%} of "
            f"a core, {self.bench_cpu / max(1, self.committed) * 1000:.2f} ms per committed move; "
            f"its event loop late by {percentiles(self.bench_lag, ms=True)} (clicks are timed here: its own "
            "lateness is in their figures)"
        )


SCENARIOS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, list[Figures]]]] = {
    "noop": noop_scenario,
    "game": game_scenario,
    "memory": memory_scenario,
    "scale": scale_scenario,
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--n", type=int, default=3000, help="operations per measurement")
    parser.add_argument(
        "--tables",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[50],
        help="game: comma-separated numbers of tables played at once",
    )
    parser.add_argument(
        "--think",
        type=lambda text: None if text == "none" else tuple(float(x) / 1000 for x in text.split("-")),
        default=(0.2, 0.5),
        help="game: also measure a paced load, players thinking LOW-HIGH ms per move (default 200-500; "
        "none: the closed loop only)",
    )
    parser.add_argument("--open-tables", type=int, default=1000, help="memory, scale: tables open")
    parser.add_argument(
        "--concurrency",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[1, 8, 32],
        help="comma-separated numbers of operations in flight",
    )
    parser.add_argument(
        "--active",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[100],
        help="scale: comma-separated numbers of tables played at once (each a run of its own)",
    )
    parser.add_argument("--duration", type=float, default=180.0, help="scale: seconds of load")
    parser.add_argument(
        "--pace",
        type=lambda text: tuple(float(x) / 1000 for x in text.split("-")),
        default=(2.0, 5.0),
        help="scale: LOW-HIGH ms a person thinks before each move (default 2000-5000)",
    )
    parser.add_argument("--scale-cpu-delay", type=float, default=1.0, help="scale: the CPU seats' delay (s)")
    parser.add_argument(
        "--faults", action="store_true", help="scale: a gateway drop every 30 s and 2%% of REST calls 5xx"
    )
    parser.add_argument("--catch-up", type=float, default=120.0, help="scale: seconds to wait for catch-up")
    parser.add_argument("--open-concurrency", type=int, default=8, help="scale: tables opened at once")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="scale: run the bot as N shard processes (SHARD_COUNT=N, SHARD_IDS=i each, DISCORD_GLOBAL_RATE "
        "50/N each) on one PostgreSQL database made for the run (default 1: one process)",
    )
    parser.add_argument(
        "--postgres-server",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="scale with PostgreSQL: the server where the run's database is made and dropped (a URL whose "
        "user may create databases; default %(default)s)",
    )
    parser.add_argument(
        "--profile", help="game, scale: write a cProfile of the bot process's measured windows here"
    )
    parser.add_argument(
        "--profile-clock",
        choices=["wall", "cpu"],
        default="wall",
        help="--profile's clock: wall time (the default) or the event loop thread's CPU time (slower to "
        "profile, but waiting for a core on a loaded machine is not charged to the calls it interrupted)",
    )
    parser.add_argument(
        "--art",
        choices=["on", "off"],
        default="on",
        help="game: card emojis and the board picture on (the default, as a server has them) or off",
    )
    # The child process (see BotProcess): not for people.
    parser.add_argument("--serve-bot", choices=["noop", "eights"], help=argparse.SUPPRESS)
    parser.add_argument("--api", help=argparse.SUPPRESS)
    parser.add_argument("--gateway", help=argparse.SUPPRESS)
    # The bench's --database names the backend; the child's (see BotProcess), the SQLite file.
    parser.add_argument(
        "--database",
        help="scale: sqlite (the default with one process) or postgresql (a database made for the run on "
        "--postgres-server; the only choice with --processes above 1)",
    )
    parser.add_argument("--cpu-delay", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--trace", help=argparse.SUPPRESS)
    parser.add_argument("--heartbeat-timeout", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(serve_bot(args))  # --art and --profile-clock come from the bench's environment
        return
    if args.processes < 1:
        parser.error("--processes takes a number of processes, 1 or more")
    if args.database not in (None, "sqlite", "postgresql"):
        parser.error("--database takes sqlite or postgresql")
    if (args.processes > 1 or args.database is not None) and args.scenario != "scale":
        parser.error("--processes and --database go with --scenario scale")
    if args.processes > 1:
        if args.database == "sqlite":
            parser.error("--processes above 1 runs the shard processes on PostgreSQL: --database postgresql")
        if args.profile:
            parser.error("--profile takes one bot process: leave out --processes, or give 1")
        args.database = "postgresql"
    os.environ[ART_VARIABLE] = args.art  # read by the bot's process (see serve_bot)
    os.environ[PROFILE_CLOCK_VARIABLE] = args.profile_clock
    # "all" leaves out the long scale scenario.
    names = [n for n in SCENARIOS if n != "scale"] if args.scenario == "all" else [args.scenario]
    print(
        f"discord.py {discord.__version__}, Python {sys.version.split()[0]}; the bot in its own process, "
        f"the fake Discord and the simulated people in this one; {os.cpu_count()} cores"
    )
    for name in names:
        for figures in asyncio.run(SCENARIOS[name](args)):
            print(figures.line())


if __name__ == "__main__":
    main()
