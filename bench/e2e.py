"""End to end through the fake Discord with the real discord.py client: rate and latency of interactions.

    .venv/bin/python bench/e2e.py                          # every scenario
    .venv/bin/python bench/e2e.py --scenario noop --n 5000 --concurrency 1,8,32
    .venv/bin/python bench/e2e.py --scenario game --n 3000 --tables 50 [--think 200-500|none]
    .venv/bin/python bench/e2e.py --scenario memory --open-tables 1000

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

To add one: write ``async def my_scenario(args) -> list[Figures]`` that starts a ``FakeDiscord``, starts the
bot with ``BotProcess`` and calls ``measure(label, send, n, concurrency, bot)`` with a ``send(i)`` coroutine
doing one operation end to end; register it in ``SCENARIOS``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import discord
from discord.ext import commands

from bot.client import EightsBot
from bot.cogs.publisher import PUBLIC_INTERVAL, TablePublisher
from bot.config import Config, Secret
from bot.endpoints import apply_endpoints
from bot.store import open_store
from bot.ui.controls import DRAW, PLAY, Control, TableButton
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUser,
    fast_bot_options,
)


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


class BotProcess:
    """The bot under test in a child process (this file with ``--serve-bot``) pointed at ``fake``: the no-op
    bot (``kind`` "noop") or the real EightsBot on a fresh SQLite file with a no-op command beside the game
    ("eights"). The fake and the simulated people stay in this process, so neither their CPU time nor their
    memory (the fake keeps every message) is counted as the bot's."""

    def __init__(
        self, fake: FakeDiscord, kind: str, database: Path | None = None, profile: str | None = None
    ) -> None:
        self.fake = fake
        self.kind = kind
        self.database = database
        self.profile = profile
        self.process: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> BotProcess:
        command = [sys.executable, __file__, "--serve-bot", self.kind, "--api", self.fake.api_base_url]
        command += ["--gateway", self.fake.gateway_url]
        if self.database is not None:
            command += ["--database", str(self.database)]
        if self.profile is not None:
            command += ["--profile", self.profile]
        # The token goes by the environment, never on a command line that `ps` shows.
        environment = {**os.environ, "DISCORD_TOKEN": self.fake.token}
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
        """End the window; the bot answers with a line about its GC pauses in the window."""
        assert self.process is not None
        self.process.send_signal(signal.SIGUSR2)
        return await self._read_line(10.0)


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
        view.stop()  # as the bot releases its private views (bot.cogs.answers.release)
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


def production_spacing(bot: EightsBot) -> None:
    """CPU delay 0 (the issue's setting) also turns off the publisher's spacing of public flushes (tests want
    every line at once); a production bot spaces them by ``PUBLIC_INTERVAL`` for Discord's per-channel rate
    limit, so the bench measures that."""
    cog = bot.get_cog("Eights")
    publisher = getattr(cog, "publisher", None)
    assert isinstance(publisher, TablePublisher)
    publisher.min_interval = PUBLIC_INTERVAL


async def serve_bot(args: argparse.Namespace) -> None:
    """The child process: run the bot until SIGTERM. SIGUSR1 opens a measuring window (GC pauses counted
    from then, the profiler on with ``--profile``); SIGUSR2 closes it and prints one line about the pauses."""
    token = os.environ["DISCORD_TOKEN"]
    bot: commands.Bot
    if args.serve_bot == "eights":
        config = Config(
            token=Secret(token),
            database_url=f"sqlite:///{args.database}",
            api_base_url=args.api,
            gateway_url=args.gateway,
            cpu_delay=0.0,
        )
        bot = EightsBot(config, tune_gc=True, **fast_bot_options())  # as `python -m bot run`
    else:
        apply_endpoints(args.api, args.gateway)
        bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), **fast_bot_options())
    add_noop_command(bot)
    if args.serve_bot == "eights":
        add_move_floor_command(bot)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    pauses = GcPauses()
    profiler = cProfile.Profile() if args.profile else None

    def open_window() -> None:
        pauses.pauses.clear()
        if profiler is not None:
            profiler.enable()

    def close_window() -> None:
        if profiler is not None:
            profiler.disable()
        print(pauses.summary(), flush=True)

    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, open_window)
    loop.add_signal_handler(signal.SIGUSR2, close_window)
    task = asyncio.create_task(bot.start(token))
    ready = asyncio.create_task(bot.wait_until_ready())
    await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()  # why the bot stopped
    if isinstance(bot, EightsBot):
        production_spacing(bot)  # EightsBot synced its commands before it was ready
    else:
        await bot.tree.sync()
    print("ready", flush=True)
    with pauses:
        await stop.wait()
    await bot.close()
    await task
    if profiler is not None:
        profiler.dump_stats(args.profile)


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


async def open_table(fake: FakeDiscord, guild: FakeGuild, index: int, *, cpu: bool) -> BenchTable:
    """/eights new, Join, (Add CPU,) Start, My hand: a started table whose two people hold hand messages."""
    channel = fake.create_channel(guild, f"table-{index}")
    host, guest = fake.create_user(f"host{index}"), fake.create_user(f"guest{index}")
    fake.add_member(guild, host)
    fake.add_member(guild, guest)
    board = await (await fake.invoke(host, channel, "eights new", target=100_000)).reply()
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
                    "(production), hands refreshed at once; CPU delay 0"
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
        "PATCH /api/v10/webhooks/{app}/{token}/messages/{message}": "hand refreshes",
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


SCENARIOS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, list[Figures]]]] = {
    "noop": noop_scenario,
    "game": game_scenario,
    "memory": memory_scenario,
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
    parser.add_argument("--open-tables", type=int, default=1000, help="memory: tables to open")
    parser.add_argument(
        "--concurrency",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[1, 8, 32],
        help="comma-separated numbers of operations in flight",
    )
    parser.add_argument("--profile", help="game: write a cProfile of the bot process's measured windows here")
    # The child process (see BotProcess): not for people.
    parser.add_argument("--serve-bot", choices=["noop", "eights"], help=argparse.SUPPRESS)
    parser.add_argument("--api", help=argparse.SUPPRESS)
    parser.add_argument("--gateway", help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(serve_bot(args))
        return
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    print(
        f"discord.py {discord.__version__}, Python {sys.version.split()[0]}; the bot in its own process, "
        f"the fake Discord and the simulated people in this one; {os.cpu_count()} cores"
    )
    for name in names:
        for figures in asyncio.run(SCENARIOS[name](args)):
            print(figures.line())


if __name__ == "__main__":
    main()
