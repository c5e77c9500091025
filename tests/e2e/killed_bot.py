"""``python -m bot run`` in a subprocess against the fake Discord, SIGKILLed by a message observer at the
instant the fake accepts a chosen message: the bot never hears Discord's answer, as when a process dies
between Discord taking a request and the bot recording what it did (``tests/e2e/test_*_kill_e2e.py``)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path

from tests.e2e.test_shard_processes import ShardProcess
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.test_cli import env_against

REPO = Path(__file__).resolve().parents[2]


def card_room(fake: FakeDiscord, *names: str) -> tuple[FakeChannel, list[FakeUser]]:
    """A server "Card Room" with a channel #eights and a member for each of ``names``."""
    guild = fake.create_guild("Card Room")
    channel = fake.create_channel(guild, "eights")
    users = [fake.create_user(name) for name in names]
    for user in users:
        fake.add_member(guild, user)
    return channel, users


def is_board(message: FakeMessage) -> bool:
    return bool(message.embeds) and str(message.embeds[0].get("title", "")).startswith("Crazy Eights")


def boards(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    """The boards in ``channel`` (public, not deleted), oldest first."""
    return [m for m in fake.channel_messages(channel) if not m.ephemeral and is_board(m)]


class KilledBot:
    """One bot process (every shard) on an SQLite file of ``tmp_path``, CPU delay 0. Set ``trigger`` to a
    test of (message, recipient): the process is SIGKILLed as the fake stores the first message it passes
    (once; ``kills`` counts). ``start`` waits for the gateway connection and the command sync."""

    def __init__(self, fake: FakeDiscord, tmp_path: Path, **env: str) -> None:
        self.fake = fake
        self.url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
        environment = env_against(
            fake, DATABASE_URL=self.url, EIGHTS_CPU_DELAY="0", PYTHONPATH=str(REPO), **env
        )
        self.proc = ShardProcess(0, environment, tmp_path)
        self.proc.env.pop("SHARD_IDS")
        self.trigger: Callable[[FakeMessage, FakeUser | None], bool] | None = None
        self.kills = 0
        fake.add_message_observer(self._observe)

    def _observe(self, message: FakeMessage, recipient: FakeUser | None) -> None:
        trigger = self.trigger
        if trigger is None or self.proc.process is None or self.proc.process.returncode is not None:
            return
        if trigger(message, recipient):
            self.trigger = None
            self.kills += 1
            os.kill(self.proc.process.pid, signal.SIGKILL)

    async def start(self) -> None:
        before = len(self.fake.identifies)
        await self.proc.start()
        await self.fake.wait_for(lambda: len(self.fake.identifies) > before, what="connected", timeout=60)
        await self.fake.wait_for(self.fake.synced_commands, what="commands synced", timeout=60)

    async def died(self) -> None:
        """Wait for the killed process to end."""
        assert self.proc.process is not None
        await asyncio.wait_for(self.proc.process.wait(), 30)

    async def stop(self) -> int:
        """SIGTERM; the exit status."""
        return await self.proc.stop()
