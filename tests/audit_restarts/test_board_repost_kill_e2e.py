"""``python -m bot run`` (SQLite, the fake Discord) SIGKILLed in the instant Discord accepted a board posted
again by ``/eights status``: after the restart the channel keeps two boards of one table for good.

README, *Discord's rate limits*: "``/eights status`` does the same at once: its answer is the board, and the
old board is deleted"; and "Nothing is lost when a process dies at any moment" / games resume where they
were. Here the new board message exists in the channel, but the process died before it recorded its id
(``TablePublisher.replace_board`` -> ``remember_board`` -> ``set_board_message``): the restarted bot keeps
editing the old board (the one in the database), and the one ``/eights status`` posted stays in the channel
for ever with the state of that moment and live buttons, even after the table's board moves on."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from bot.config import VARIABLES
from bot.store import open_store
from tests.e2e.test_shard_processes import ShardProcess
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.test_cli import TOKEN

REPO = Path(__file__).resolve().parents[2]


def boards(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    """The board messages still in the channel."""
    return [
        m
        for m in fake.channel_messages(channel)
        if not m.ephemeral and m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


async def test_a_kill_while_status_reposts_the_board_leaves_one_board(tmp_path: Path) -> None:
    async with FakeDiscord(token=TOKEN) as fake:
        guild = fake.create_guild("Card Room")
        channel = fake.create_channel(guild, "eights")
        alice, bob = fake.create_user("alice"), fake.create_user("bob")
        fake.add_member(guild, alice)
        fake.add_member(guild, bob)
        url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
        env = {name: value for name, value in os.environ.items() if name not in VARIABLES}
        env.update(
            DISCORD_TOKEN=TOKEN,
            DISCORD_API_BASE_URL=fake.api_base_url,
            DISCORD_GATEWAY_URL=fake.gateway_url,
            DATABASE_URL=url,
            EIGHTS_CPU_DELAY="0",
            PYTHONPATH=str(REPO),
        )
        bot = ShardProcess(0, env, tmp_path)
        bot.env.pop("SHARD_IDS")
        armed = {"on": False, "killed": 0}

        def kill_on_new_board(message: FakeMessage, recipient: FakeUser | None) -> None:
            if not armed["on"] or recipient is not None or message.channel_id != channel.id:
                return
            if message.embeds and str(message.embeds[0].get("title", "")).startswith("Crazy Eights"):
                armed["on"] = False
                armed["killed"] += 1
                assert bot.process is not None
                os.kill(bot.process.pid, signal.SIGKILL)

        fake.add_message_observer(kill_on_new_board)

        async def start() -> None:
            before = len(fake.identifies)
            await bot.start()
            await fake.wait_for(lambda: len(fake.identifies) > before, what="connected", timeout=60)

        store = await open_store(url, create=True)
        try:
            await start()
            await fake.wait_for(fake.synced_commands, what="commands synced", timeout=60)
            await (await fake.invoke(alice, channel, "eights new")).reply(timeout=20)
            await (await fake.invoke(bob, channel, "eights join")).reply(timeout=20)
            await (await fake.invoke(alice, channel, "eights start")).reply(timeout=20)
            await asyncio.sleep(1.0)
            assert len(boards(fake, channel)) == 1

            armed["on"] = True
            await fake.invoke(alice, channel, "eights status")  # its answer is the new board: killed then
            assert bot.process is not None
            await asyncio.wait_for(bot.process.wait(), 30)
            assert armed["killed"] == 1

            await start()
            await asyncio.sleep(2.0)  # the restored table's board is checked and brought up to date
            # The table goes on: each person types a move (the one whose turn it is draws; the other is
            # told it is not their turn), which moves the board to the bottom as such a move's follow-up.
            for _ in range(2):
                for user in (alice, bob):
                    await (await fake.invoke(user, channel, "eights draw")).reply(timeout=20)
                await asyncio.sleep(1.0)
            table = await store.open_table_in_channel(channel.id)
            assert table is not None and table.status == "playing"
            await asyncio.sleep(2.0)
            left = boards(fake, channel)
            assert len(left) == 1, (
                f"{len(left)} boards of one table stay in the channel after the restart: "
                f"{[(m.id, m.edited_at) for m in left]} (the database names {table.board_message_id})"
            )
        finally:
            await bot.stop()
            await store.close()
