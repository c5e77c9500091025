"""End to end through the fake Discord with the real discord.py client: rate and latency of interactions.

    .venv/bin/python bench/e2e.py                          # every scenario
    .venv/bin/python bench/e2e.py --scenario noop --n 5000 --concurrency 1,8,32
    .venv/bin/python bench/e2e.py --scenario game --n 3000 --tables 50 [--think 200-500]
    .venv/bin/python bench/e2e.py --scenario memory --open-tables 1000 [--trace-memory]

Latency is from the interaction sent on the gateway to the bot's callback received by the fake (what Discord's
3-second rule measures). The fake and the bot share one process, one event loop and one core, so the rate
is a floor for the bot alone. CPU µs/op (process time, bot and fake together) is the figure to compare when
the machine is shared: wall-clock rate and latency then depend on the other load.

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
    memory  ``--open-tables`` started tables (two people each): the process's RSS before and after, and peak;
            ``--trace-memory`` splits the Python allocations still held between the fake and the bot.

To add one (e.g. the game half): write ``async def my_scenario(args) -> list[Figures]`` that starts a
``FakeDiscord``, runs the bot with ``running_bot`` and calls ``measure(label, send, n, concurrency)`` with a
``send(i)`` coroutine doing one operation end to end; register it in ``SCENARIOS``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import sys
import tempfile
import time
import tracemalloc
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
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUser,
    fast_bot_options,
    running_bot,
)


@dataclass(frozen=True)
class Figures:
    label: str
    concurrency: int
    count: int
    elapsed: float
    cpu: float  # process CPU seconds (bot and fake together): the machine may be shared
    latencies: list[float]

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
            f"CPU {self.cpu / self.count * 1e6:6.0f} µs/op"
        )


async def measure(
    label: str,
    send: Callable[[int], Awaitable[None]],
    n: int,
    concurrency: int,
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

    start, cpu_start = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return Figures(label, concurrency, n, elapsed, cpu, latencies)


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


def noop_bot() -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), **fast_bot_options())

    @bot.tree.command(name="noop", description="Answers at once")
    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    del noop
    return bot


async def noop_scenario(args: argparse.Namespace) -> list[Figures]:
    results = []
    async with FakeDiscord(wait_timeout=30.0) as fake:
        world = build_world(fake, players=64)
        bot = noop_bot()
        async with running_bot(fake, bot):
            await bot.tree.sync()

            async def send(i: int) -> None:
                user = world.users[i % len(world.users)]
                handle = await fake.invoke(user, world.channel, "noop")
                await handle.callback()

            for concurrency in args.concurrency:
                results.append(await measure("no-op slash command", send, args.n, concurrency))
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


def eights_bot(fake: FakeDiscord, database: Path) -> EightsBot:
    """The real bot on a fresh SQLite file, CPU delay 0, plus a no-op command measured beside the game."""
    config = Config(
        token=Secret(fake.token),
        database_url=f"sqlite:///{database}",
        api_base_url=fake.api_base_url,
        gateway_url=fake.gateway_url,
        cpu_delay=0.0,
    )
    bot = EightsBot(config, **fast_bot_options())

    @bot.tree.command(name="noop", description="Answers at once")
    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    del noop
    return bot


def production_spacing(bot: EightsBot) -> None:
    """CPU delay 0 (the issue's setting) also turns off the publisher's spacing of public flushes (tests want
    every line at once); a production bot spaces them by ``PUBLIC_INTERVAL`` for Discord's per-channel rate
    limit, so the bench measures that."""
    cog = bot.get_cog("Eights")
    publisher = getattr(cog, "publisher", None)
    assert isinstance(publisher, TablePublisher)
    publisher.min_interval = PUBLIC_INTERVAL
    print(
        f"publisher: public line + board edit at most every {PUBLIC_INTERVAL:.1f} s per table (production), "
        f"hands refreshed at once; CPU delay 0; Python's default GC thresholds"
    )


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
        async with FakeDiscord(wait_timeout=60.0) as fake:
            bot = eights_bot(fake, Path(folder) / "bench.sqlite3")
            wakeups = Wakeups()
            fake.add_message_observer(wakeups)
            async with running_bot(fake, bot, set_endpoints=False):
                production_spacing(bot)
                world = build_world(fake, players=64)
                guild = fake.guilds[world.channel.guild_id]

                async def send(i: int) -> None:
                    user = world.users[i % len(world.users)]
                    handle = await fake.invoke(user, world.channel, "noop")
                    await handle.callback()

                for tables in args.tables:
                    noop = await measure("no-op slash command", send, args.n, tables)
                    results.append(noop)
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
                        committed_before = await committed_moves(bot, opened)
                        latencies: list[float] = []
                        start, cpu_start = time.perf_counter(), time.process_time()
                        with GcPauses() as pauses:
                            others = await asyncio.gather(
                                *(
                                    play_moves(fake, wakeups, t, per_table, latencies, think, rng)
                                    for t in opened
                                )
                            )
                        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
                        committed = await committed_moves(bot, opened) - committed_before
                        people, next_rounds = len(latencies), sum(others)
                        figures = Figures(
                            f"people's clicks, {'paced' if think else 'closed'}",
                            tables,
                            people,
                            elapsed,
                            cpu,
                            latencies,
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
                            f"CPU µs per committed move {cpu / committed * 1e6:.0f}\n"
                            f"  {pauses.summary()}"
                        )
            fake.assert_clean()
    return results


class GcPauses:
    """The cyclic garbage collector's pauses while measuring (every generation), to tell them apart from
    queueing in the latency tail. The fake keeps every message it saw in this process, so full collections
    here walk far more objects than in the bot alone."""

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


async def committed_moves(bot: EightsBot, tables: list[BenchTable]) -> int:
    """Moves stored for these tables so far (people's, CPU seats', next rounds), from the database."""
    total = 0
    for table in tables:
        table_id = await bot.store.open_table_in_channel(table.channel.id)
        if table_id is not None:
            total += len(await bot.store.moves(table_id.id))
    return total


def peak_rss_kib() -> tuple[int, int]:
    """(current RSS, peak RSS) of this process in KiB, from /proc."""
    values: dict[str, int] = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


def print_memory_split(snapshot: tracemalloc.Snapshot, count: int) -> None:
    """Python memory still held after opening the tables, by who allocated it (any frame of the allocation's
    stack in the fake or the bench counts as the fake's: that memory is the test double's, not the bot's)."""
    shares: dict[str, int] = {}
    for trace in snapshot.traces:
        files = [frame.filename for frame in trace.traceback]
        if any("fakediscord" in name or "/bench/" in name for name in files):
            part = "fake Discord and bench"
        elif any("/bot/" in name for name in files):
            part = "bot code (bot/ and what it calls)"
        else:
            part = "discord.py, aiohttp, aiosqlite on their own"
        shares[part] = shares.get(part, 0) + trace.size
    for part, size in sorted(shares.items(), key=lambda item: -item[1]):
        print(f"  traced: {part:<44} {size / 1024 / count:8.1f} KiB per open table")


async def memory_scenario(args: argparse.Namespace) -> list[Figures]:
    """Open ``--open-tables`` started tables (two people each) and print the process's peak RSS."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeDiscord(wait_timeout=60.0) as fake:
            bot = eights_bot(fake, Path(folder) / "bench.sqlite3")
            async with running_bot(fake, bot, set_endpoints=False):
                guild = fake.create_guild("Bench")
                await open_table(fake, guild, 0, cpu=False)  # warm every code path before the baseline
                gc.collect()
                before, _ = peak_rss_kib()
                count = args.open_tables
                gate = asyncio.Semaphore(4 if args.trace_memory else 32)  # tracing slows everything down

                async def one(index: int) -> None:
                    async with gate:
                        await open_table(fake, guild, index, cpu=False)

                if args.trace_memory:
                    tracemalloc.start(30)
                start = time.perf_counter()
                await asyncio.gather(*(one(i) for i in range(1, count + 1)))
                elapsed = time.perf_counter() - start
                gc.collect()
                current, peak = peak_rss_kib()
                if args.trace_memory:
                    print_memory_split(tracemalloc.take_snapshot(), count)
                    tracemalloc.stop()
                cog = bot.get_cog("Eights")
                service = getattr(cog, "service", None)
                live = len(getattr(service, "_tables", {}))
                print(
                    f"{count} open tables ({live} live in the service, opened in {elapsed:.1f} s): "
                    f"RSS {before / 1024:.1f} MiB before, {current / 1024:.1f} MiB after, "
                    f"peak {peak / 1024:.1f} MiB; {(current - before) / count:.1f} KiB per open table "
                    "(bot and fake Discord together, the fake keeping every message)"
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
        type=lambda text: tuple(float(x) / 1000 for x in text.split("-")),
        default=(0.2, 0.5),
        help="game: also measure a paced load, players thinking LOW-HIGH ms per move (default 200-500)",
    )
    parser.add_argument("--open-tables", type=int, default=1000, help="memory: tables to open")
    parser.add_argument(
        "--trace-memory", action="store_true", help="memory: also split Python allocations (slower)"
    )
    parser.add_argument(
        "--concurrency",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[1, 8, 32],
        help="comma-separated numbers of operations in flight",
    )
    args = parser.parse_args()
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    print(
        f"discord.py {discord.__version__}, Python {sys.version.split()[0]}; fake and bot on one event loop"
    )
    for name in names:
        for figures in asyncio.run(SCENARIOS[name](args)):
            print(figures.line())


if __name__ == "__main__":
    main()
