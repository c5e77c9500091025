"""The bot test_outbox_crash.py kills: the table service and the real publisher, over an SQLite file, with a
stand-in for Discord whose channel is a file. CPU players play match after match as fast as they can.

``python -m tests.service.outbox_child DB CHANNEL_FILE`` starts a zygote that imports everything once and
reads commands on stdin: ``spawn SEED MODE`` forks a bot and answers ``pid N`` (MODE ``play``: open a new
match whenever a channel has none; ``drain``: only finish the matches there are, then say ``drained N``);
``reap N`` waits for that bot to end and answers ``dead N STATUS``. A bot says ``ready N`` once its tables
are restored.

The channel file is Discord as far as a line is concerned: a message is accepted once its JSON line is
written (``os.write``: in the kernel, so it survives SIGKILL), and Create Message's ``enforce_nonce`` is
honoured across processes (a nonce already in the file returns that message). Now and then the bot is
killed right after its message was accepted and before it heard so: the instant the outbox's note and
nonces exist for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import time
import traceback
from types import SimpleNamespace
from typing import Any

from bot.delivery.publisher import TablePublisher
from bot.delivery.relay import OutcomeRelay
from bot.service import Actor, ServiceError, SystemClock, TableService
from bot.store.sqlite import SqliteStore

GUILD = 77
CHANNELS = (1, 2)
KILL_AFTER_ACCEPT = 0.04  # the share of accepted lines after which the bot dies before hearing so


class FileChannel:
    """One channel of the file (see the module docstring)."""

    def __init__(
        self, path: str, channel_id: int, nonces: dict[str, int], rng: random.Random, kill_rate: float
    ) -> None:
        self.path, self.channel_id, self.nonces, self.rng = path, channel_id, nonces, rng
        self.kill_rate = kill_rate

    async def send(self, content: str | None = None, **kwargs: Any) -> SimpleNamespace:
        nonce = kwargs.get("nonce")
        if nonce is not None and nonce in self.nonces:
            os.write(2, b"nonce repeated: the earlier message is returned\n")
            return SimpleNamespace(id=self.nonces[nonce])
        message_id = time.time_ns()
        entry = {"id": message_id, "channel": self.channel_id, "content": content, "nonce": nonce}
        entry["board"] = "embed" in kwargs
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, (json.dumps(entry) + "\n").encode())
        finally:
            os.close(fd)
        if nonce is not None:
            self.nonces[nonce] = message_id
        if content is not None and not entry["board"] and self.rng.random() < self.kill_rate:
            os.kill(os.getpid(), signal.SIGKILL)  # Discord has the line; the bot never hears back
        return SimpleNamespace(id=message_id)

    def get_partial_message(self, message_id: int) -> SimpleNamespace:
        async def edit(**fields: Any) -> None:
            return None

        return SimpleNamespace(id=message_id, edit=edit, delete=edit)

    async def fetch_message(self, message_id: int) -> SimpleNamespace:
        return SimpleNamespace(id=message_id)


class FileDiscord:
    def __init__(self, path: str, rng: random.Random, kill_rate: float) -> None:
        self.path, self.rng, self.kill_rate = path, rng, kill_rate
        self.user = SimpleNamespace(id=1)
        self.nonces: dict[str, int] = {}
        if os.path.exists(path):
            with open(path) as lines:
                for line in lines:
                    if line.endswith("\n"):
                        entry = json.loads(line)
                        if entry["nonce"] is not None:
                            self.nonces[entry["nonce"]] = entry["id"]

    def get_partial_messageable(self, channel_id: int, *, guild_id: int | None = None) -> FileChannel:
        return FileChannel(self.path, channel_id, self.nonces, self.rng, self.kill_rate)


def host(channel_id: int) -> Actor:
    return Actor(100 + channel_id, f"Host {channel_id}")


async def keep_going(
    service: TableService, publisher: TablePublisher, channel_id: int, open_new: bool
) -> None:
    """The host's part, as the cogs do it (each outcome published): open a match, add two CPUs, start, and
    leave once it is dealt, so that CPUs play it to the end."""
    table_id = await service.table_in_channel(channel_id)
    if table_id is None:
        if open_new:
            outcome = await service.open_table(GUILD, channel_id, host(channel_id), "classic", target=1)
            publisher.publish(outcome)
        return
    snapshot = await service.snapshot(table_id)
    if snapshot.phase == "lobby":
        if len(snapshot.seats) < 3:
            publisher.publish(await service.add_cpu(table_id, host(channel_id), "easy"))
        else:
            publisher.publish(await service.start(table_id, host(channel_id)))
    elif any(seat.user_id == host(channel_id).user_id and not seat.taken_over for seat in snapshot.seats):
        publisher.publish(await service.leave(table_id, host(channel_id)))


async def run(db: str, channel_file: str, seed: int, mode: str) -> None:
    store = await SqliteStore.open(db)
    await store.migrate()
    clock = SystemClock()
    relay = OutcomeRelay()
    service = TableService(
        store, clock=clock, cpu_delay=0.0, listener=relay, batch_window=0.0, rng=random.Random(seed)
    )
    # The bot that finishes the matches is not killed: it must get to the end.
    discord = FileDiscord(channel_file, random.Random(seed), KILL_AFTER_ACCEPT if mode == "play" else 0.0)
    publisher = TablePublisher(
        discord,  # type: ignore[arg-type]
        service,
        relay=relay,
        gather_window=0.0,
        min_interval=0.0,
        clock=clock,
    )
    await service.restore_all()
    os.write(1, f"ready {os.getpid()}\n".encode())
    while True:
        for channel_id in CHANNELS:
            # A refusal: a CPU moved first (e.g. the match ended meanwhile); the next round sees.
            with contextlib.suppress(ServiceError):
                await keep_going(service, publisher, channel_id, open_new=mode == "play")
        done = mode == "drain" and service.open_table_count() == 0 and not publisher.busy()
        if done and not await store.untold():
            os.write(1, f"drained {os.getpid()}\n".encode())
            await asyncio.sleep(3600)
        await asyncio.sleep(0.01)


def bot(db: str, channel_file: str, seed: int, mode: str) -> None:
    """The forked child: run until killed. Never returns into the zygote's loop."""
    try:
        asyncio.run(run(db, channel_file, seed, mode))
    except BaseException:
        traceback.print_exc()
        os.write(1, f"failed {os.getpid()}\n".encode())
    finally:
        os._exit(1)


def zygote(db: str, channel_file: str) -> None:
    for line in sys.stdin:
        command, *arguments = line.split()
        if command == "spawn":
            pid = os.fork()
            if pid == 0:
                bot(db, channel_file, int(arguments[0]), arguments[1])
            os.write(1, f"pid {pid}\n".encode())
        elif command == "reap":
            _, status = os.waitpid(int(arguments[0]), 0)
            os.write(1, f"dead {arguments[0]} {status}\n".encode())


if __name__ == "__main__":
    zygote(sys.argv[1], sys.argv[2])
