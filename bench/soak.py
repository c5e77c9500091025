"""Days of play, compressed: many tables of CPU players (and a few tables of scripted people) playing without
pause through the fake Discord, with the real bot in a process of its own (bench/e2e.py's ``BotProcess``).

    .venv/bin/python bench/soak.py                                  # 30 minutes, 12 CPU tables, 2 of people
    .venv/bin/python bench/soak.py --duration 300 --cpu-tables 6 --people-tables 1 --interval 60

Every ``--interval`` seconds (a minute) it prints the bot's RSS, open file descriptors, asyncio tasks, how
late its event loop woke (p99 of a 10 ms sleep, over that minute), the open tables, the database's size (file
and WAL) and the matches finished. At the end every table is closed (``/eights end`` by a member with Manage
Channels) and it prints the database bytes per finished match (and per thousand matches) and a PASS/FAIL
line for each target; the exit status is 1 when one fails.

A CPU table: a person opens it, adds three CPU players, starts it and leaves (a CPU takes the seat over), so
four CPUs play the match to its end; then a new one opens in the same channel. A people table: two people
and a CPU seat, the people clicking what their hand messages offer after thinking 1-3 s, for the whole run.
The targets (issue 26): after a 5-minute warm-up (``--warmup``) RSS grows by less than 5%; the asyncio tasks
and file descriptors are back to their baseline (the bot's, before the first table opened) once the tables
are closed; nothing but the database grows with the finished matches.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.e2e import BotProcess, Wakeups, open_table, play_moves
from bot.store import open_store
from bot.store.sqlite import SqliteStore
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser

CPU_DELAY = 0.5  # seconds a CPU seat waits: all-CPU tables play at a human-like pace, not in a busy loop
THINK = (1.0, 3.0)  # seconds a scripted person thinks before a click
WATCH_EVERY = 2.0  # seconds between checks whether a CPU table's match has ended
RSS_GROWTH_MAX = 0.05  # after the warm-up
# Seconds allowed after the last table closed for the tasks and descriptors to be back: idle keep-alive
# connections to Discord's API are closed by aiohttp within about a minute.
QUIET_WITHIN = 120.0
MANAGE_CHANNELS = 1 << 4  # discord.Permissions.manage_channels: may end any table


async def cpu_table(fake: FakeDiscord, guild: FakeGuild, channel: FakeChannel, host: FakeUser) -> None:
    """/eights new, Add CPU ×3, Start, /eights leave: four CPUs play the match."""
    board = await (await fake.invoke(host, channel, "eights new")).reply()
    for _ in range(3):
        await (await fake.click(host, board, label="Add CPU")).callback()
    await (await fake.click(host, board, label="Start")).callback()
    await (await fake.invoke(host, channel, "eights leave")).callback()


async def keep_cpu_tables(
    fake: FakeDiscord, guild: FakeGuild, store: SqliteStore, index: int, stop: asyncio.Event
) -> None:
    """One channel: a CPU table, and a new one each time the last has finished, until ``stop``."""
    channel = fake.create_channel(guild, f"cpu-{index}")
    host = fake.create_user(f"cpu-host{index}")
    fake.add_member(guild, host)
    while not stop.is_set():
        await cpu_table(fake, guild, channel, host)
        while not stop.is_set() and await store.open_table_in_channel(channel.id) is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), WATCH_EVERY)


async def keep_people_playing(
    fake: FakeDiscord, guild: FakeGuild, wakeups: Wakeups, index: int, stop: asyncio.Event
) -> None:
    table = await open_table(fake, guild, index, cpu=True)
    rng = random.Random(index)
    while not stop.is_set():
        await play_moves(fake, wakeups, table, 5, [], THINK, rng)


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def fd_kinds(pid: int) -> str:
    """What the open descriptors are: sockets, pipes, files (by name), for a target that fails."""
    kinds: Counter[str] = Counter()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            kinds[target.split(":")[0] if ":[" in target else Path(target).name] += 1
    return ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))


async def close_every_table(fake: FakeDiscord, guild: FakeGuild, store: SqliteStore) -> None:
    """``/eights end`` by a member with Manage Channels in every channel whose table is still open."""
    admin = fake.create_user("soak-admin")
    fake.add_member(guild, admin, permissions=MANAGE_CHANNELS)
    for channel in list(guild.channels.values()):
        if await store.open_table_in_channel(channel.id) is not None:
            await (await fake.invoke(admin, channel, "eights end")).reply(timeout=60.0)


async def counts(store: SqliteStore) -> tuple[int, int, int]:
    """(open tables, finished matches, the database's bytes in use) as the database has them. The bytes are
    its pages (WAL included): the file's size once checkpointed, whatever the WAL file's length."""

    def read(conn: sqlite3.Connection) -> tuple[int, int, int]:
        open_ = conn.execute("SELECT COUNT(*) FROM game_tables WHERE status IN ('lobby', 'playing')")
        finished = conn.execute("SELECT COUNT(*) FROM match_results").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        pages -= conn.execute("PRAGMA freelist_count").fetchone()[0]
        size = pages * conn.execute("PRAGMA page_size").fetchone()[0]
        return int(open_.fetchone()[0]), int(finished), int(size)

    return await store.run_in_connection(read)


async def bot_tasks(bot: BotProcess) -> int:
    """The bot's asyncio tasks now (a measuring window opened and closed at once)."""
    await bot.window()
    found = TASKS.search(await bot.window_end())
    return int(found.group(1)) if found else -1


async def back_to(
    bot: BotProcess, store: SqliteStore, baseline: tuple[int, int], timeout: float
) -> tuple[int, int, float]:
    """(tasks, fds, seconds waited) once no table is open and both counts are at most ``baseline`` (timers
    cancelled, hand sessions let go, idle HTTP keep-alive connections to Discord closed), or at ``timeout``
    with the counts then."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while True:
        open_, _, _ = await counts(store)
        tasks, fds = await bot_tasks(bot), open_fds(bot.pid)
        waited = loop.time() - start
        if (open_ == 0 and tasks <= baseline[0] and fds <= baseline[1]) or waited > timeout:
            return tasks, fds, waited
        await asyncio.sleep(2.0)


def verdict(ok: bool | None) -> str:
    return "not measured" if ok is None else ("PASS" if ok else "FAIL")


LATE = re.compile(r"event loop late by p50 \S+ ms, p99 (\S+) ms")
TASKS = re.compile(r"(\d+) asyncio tasks")


async def soak(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "soak.sqlite3"
        async with FakeDiscord(wait_timeout=60.0) as fake:
            wakeups = Wakeups()
            fake.add_message_observer(wakeups)
            guild = fake.create_guild("Soak")
            async with BotProcess(fake, "eights", database, cpu_delay=CPU_DELAY) as bot:
                store = await open_store(f"sqlite:///{database}", create=False)
                assert isinstance(store, SqliteStore)
                await asyncio.sleep(2.0)  # the start-up's background work done
                base_tasks, base_fds = await bot_tasks(bot), open_fds(bot.pid)
                base_kinds = fd_kinds(bot.pid)
                stop = asyncio.Event()
                players = [
                    asyncio.create_task(keep_cpu_tables(fake, guild, store, i, stop))
                    for i in range(args.cpu_tables)
                ]
                players += [
                    asyncio.create_task(keep_people_playing(fake, guild, wakeups, 1000 + i, stop))
                    for i in range(args.people_tables)
                ]
                print(
                    f"soak: {args.cpu_tables} CPU tables (4 CPUs each, CPU delay {CPU_DELAY:g} s), "
                    f"{args.people_tables} tables of two scripted people and a CPU, for {args.duration:g} s",
                    flush=True,
                )
                print(f"baseline (no table open): {base_tasks} asyncio tasks, {base_fds} fds", flush=True)
                print("minute  rss MiB  fds  tasks  loop p99 ms  open tables  db MiB  finished", flush=True)
                start = time.monotonic()
                rows = 0
                warm_rss: float | None = None  # the first row at or after the warm-up
                last_rss = 0.0
                try:
                    while (elapsed := time.monotonic() - start) < args.duration:
                        await bot.window()
                        wait = min(args.interval, args.duration - elapsed)
                        done, _ = await asyncio.wait(
                            players, timeout=wait, return_when=asyncio.FIRST_EXCEPTION
                        )
                        for task in done:
                            task.result()  # a driver that failed stops the soak with its error
                        line = await bot.window_end()
                        late, tasks = LATE.search(line), TASKS.search(line)
                        open_, finished, size = await counts(store)
                        rows += 1
                        last_rss = bot.rss_kib()[0] / 1024
                        if warm_rss is None and time.monotonic() - start >= args.warmup:
                            warm_rss = last_rss
                        print(
                            f"{(time.monotonic() - start) / 60:6.1f}  {last_rss:7.1f}  "
                            f"{open_fds(bot.pid):3d}  {tasks.group(1) if tasks else '?':>5}  "
                            f"{late.group(1) if late else '?':>11}  {open_:11d}  "
                            f"{size / 2**20:6.1f}  {finished:8d}",
                            flush=True,
                        )
                finally:
                    stop.set()
                    await asyncio.gather(*players, return_exceptions=True)
                await close_every_table(fake, guild, store)
                end_tasks, end_fds, waited = await back_to(bot, store, (base_tasks, base_fds), args.settle)
                end_kinds = fd_kinds(bot.pid)
                open_, finished, size = await counts(store)
                await store.close()
        per = f"{size / finished:,.0f} bytes per finished match" if finished else "no match finished"
        print(f"end: {finished} matches finished; database {size:,} bytes: {per}", flush=True)
        if finished:
            print(
                f"database growth: {size / finished * 1000 / 2**20:.1f} MiB per thousand matches", flush=True
            )
        growth = None if warm_rss is None else (last_rss - warm_rss) / warm_rss
        checks = [
            (
                f"RSS growth after the {args.warmup:g} s warm-up < {RSS_GROWTH_MAX:.0%}: "
                + (
                    "run shorter than the warm-up"
                    if growth is None or warm_rss is None
                    else f"{warm_rss:.1f} -> {last_rss:.1f} MiB ({growth:+.1%})"
                ),
                None if growth is None else growth < RSS_GROWTH_MAX,
            ),
            (
                f"asyncio tasks back to baseline once the tables closed: {base_tasks} -> {end_tasks} "
                f"(after {waited:.0f} s)",
                end_tasks <= base_tasks,
            ),
            (
                f"file descriptors back to baseline once the tables closed: {base_fds} -> {end_fds} "
                f"(after {waited:.0f} s)",
                end_fds <= base_fds,
            ),
            (f"every table closed: {open_} still open", open_ == 0),
        ]
        for text, ok in checks:
            print(f"target: {text}: {verdict(ok)}", flush=True)
        print(f"fds at the start: {base_kinds}; at the end: {end_kinds}", flush=True)
        return 0 if rows and all(ok is not False for _, ok in checks) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=1800.0, help="seconds (default: 30 minutes)")
    parser.add_argument("--warmup", type=float, default=300.0, help="seconds before RSS growth is measured")
    parser.add_argument(
        "--settle",
        type=float,
        default=QUIET_WITHIN,
        help="seconds allowed after the tables closed for tasks and fds to be back to baseline",
    )
    parser.add_argument("--interval", type=float, default=60.0, help="seconds between printed rows")
    parser.add_argument("--cpu-tables", type=int, default=12, help="channels of all-CPU tables")
    parser.add_argument("--people-tables", type=int, default=2, help="tables of two scripted people")
    return asyncio.run(soak(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
