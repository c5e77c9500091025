"""A committed move is always told, end to end (issue 26): ``python -m bot run`` against the fake Discord,
on SQLite, plays a CPU match and is SIGKILLed again and again between a move's commit and its line: the
fake kills it the instant it accepts one of its lines (the bot never hears back: a follow-up at first,
then channel messages with their nonces), and once more at a random moment. Each time it is restarted.
At the end the channel shows every play of the move log exactly once, in order."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import time
from pathlib import Path

from bot.engine import card_label, parse_card
from bot.store import open_store
from tests.e2e.test_shard_processes import ShardProcess, public_lines
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_cli import TOKEN, env_against

REPO = Path(__file__).resolve().parents[2]
# A play as a line tells it, its card emoji (once uploaded) before the label.
PLAYED = re.compile(r"^.+ played (?:<:\w+:\d+> )?((?:10|[2-9AJQK])[♣♦♥♠])$", re.MULTILINE)
KILLS_AFTER_ACCEPT = 3
STALLED = 30  # seconds without a move committed or a line told: the table is stuck


async def test_every_play_is_shown_once_and_in_order_though_the_bot_is_killed(tmp_path: Path) -> None:
    async with FakeDiscord(token=TOKEN) as fake:
        guild = fake.create_guild("Card Room")
        channel = fake.create_channel(guild, "eights")
        alice = fake.create_user("alice")
        fake.add_member(guild, alice)
        url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
        env = env_against(
            fake,
            DATABASE_URL=url,
            EIGHTS_CPU_DELAY="0.15",  # a match long enough for several lines, even when each folds many moves
            PYTHONPATH=str(REPO),
        )
        bot = ShardProcess(0, env, tmp_path)
        bot.env.pop("SHARD_IDS")  # one process, every shard
        seen: set[int] = set()
        armed: dict[str, int | None] = {"lines": 0, "kill_at": None, "kills": 0}

        def kill_on_accept(message: FakeMessage, recipient: FakeUser | None) -> None:
            """Accepted, never answered: the bot dies before it hears Discord took its line."""
            if recipient is not None or message.id in seen or message.channel_id != channel.id:
                return
            seen.add(message.id)
            if not message.content or message.embeds:
                return
            lines = armed["lines"] = (armed["lines"] or 0) + 1
            kill_at = armed["kill_at"]
            if kill_at is not None and lines >= kill_at:
                armed["kill_at"] = None
                armed["kills"] = (armed["kills"] or 0) + 1
                assert bot.process is not None
                os.kill(bot.process.pid, signal.SIGKILL)

        fake.add_message_observer(kill_on_accept)

        async def start() -> None:
            before = len(fake.identifies)
            await bot.start()
            await fake.wait_for(lambda: len(fake.identifies) > before, what="connected", timeout=60)

        async def died() -> None:
            assert bot.process is not None
            await asyncio.wait_for(bot.process.wait(), 30)

        async def finished() -> bool:
            return (await store.get_table(table.id)).status == "finished"  # type: ignore[union-attr]

        store = await open_store(url, create=True)
        try:
            await start()
            await fake.wait_for(fake.synced_commands, what="commands synced", timeout=60)
            await (await fake.invoke(alice, channel, "eights new", target=50)).reply(timeout=20)
            for _ in range(3):
                await (await fake.invoke(alice, channel, "eights cpu", level="easy")).reply(timeout=20)
            await (await fake.invoke(alice, channel, "eights start")).reply(timeout=20)
            await (await fake.invoke(alice, channel, "eights leave")).reply(timeout=20)
            table = await store.open_table_in_channel(channel.id)
            assert table is not None

            for _ in range(KILLS_AFTER_ACCEPT):
                armed["kill_at"] = (armed["lines"] or 0) + 1
                assert bot.process is not None
                while bot.process.returncode is None and not await finished():
                    await asyncio.sleep(0.05)
                if await finished():
                    break  # the match ended before its next lines: the kills so far must do
                await died()
                await start()
            armed["kill_at"] = None
            # At least one kill in the instant after Discord took a line (more when the match lasts: under
            # load each line folds more moves, and the match may end after the first); a random kill follows.
            assert (armed["kills"] or 0) >= 1, armed
            if not await finished():
                # And once at a random moment (a line on its way, or a move between commit and line).
                await asyncio.sleep(random.uniform(0.3, 1.0))
                bot.kill()
                await died()
                await start()

            # The match plays on to its end (how long varies with the deal and the machine's load); stuck is
            # no move committed and no line told for STALLED seconds.
            progress: tuple[object, ...] = ()
            deadline = time.monotonic() + STALLED
            give_up = time.monotonic() + 300  # however it moves, a match to 50 ends long before this
            while not await finished() or await store.untold():
                record = await store.get_table(table.id)
                assert record is not None
                now_at = (record.updated_at, len(await store.untold()))
                if now_at != progress:
                    progress, deadline = now_at, time.monotonic() + STALLED
                assert time.monotonic() < min(deadline, give_up), (
                    "the match did not end, or its last moves were not told"
                )
                await asyncio.sleep(0.2)
            await asyncio.sleep(0.5)  # the final line's messages (a ranking after the last play)

            committed = [
                card_label(parse_card(event["data"]["card"]))
                for move in await store.moves(table.id)
                for event in move.events
                if event["kind"] == "played" and event.get("to") is None and "to_seat" not in event
            ]
            shown = [
                play for message in public_lines(fake, channel) for play in PLAYED.findall(message.content)
            ]
            # A real match, not a trivially short one (its length is the deal's: 17 to 300 plays seen).
            assert len(committed) >= 10
            assert shown == committed
            print(f"{len(committed)} plays, {fake.nonce_repeats} lines sent again")
            assert fake.nonce_repeats >= 1  # a line Discord had taken was sent again: the first one returned
        finally:
            code = await bot.stop()
            await store.close()
        assert code == 0, bot.log()[-3000:]
        log = bot.log()
        assert "Traceback" not in log and TOKEN not in log, log[-3000:]
