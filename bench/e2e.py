"""End to end through the fake Discord with the real discord.py client: rate and latency of interactions.

    .venv/bin/python bench/e2e.py                          # every scenario
    .venv/bin/python bench/e2e.py --scenario noop --n 5000 --concurrency 1,8,32

Latency is from the interaction sent on the gateway to the bot's callback received by the fake (what Discord's
3-second rule measures). The fake and the bot share one process, one event loop and one core, so the rate
is a floor for the bot alone. CPU µs/op (process time, bot and fake together) is the figure to compare when
the machine is shared: wall-clock rate and latency then depend on the other load.

Scenarios:
    noop  a slash command whose callback answers an ephemeral "ok" at once: the cost of discord.py + the fake.

To add one (e.g. the game half): write ``async def my_scenario(args) -> list[Figures]`` that starts a
``FakeDiscord``, runs the bot with ``running_bot`` and calls ``measure(label, send, n, concurrency)`` with a
``send(i)`` coroutine doing one operation end to end; register it in ``SCENARIOS``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import discord
from discord.ext import commands

from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, fast_bot_options, running_bot


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


SCENARIOS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, list[Figures]]]] = {
    "noop": noop_scenario,
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--n", type=int, default=3000, help="operations per measurement")
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
