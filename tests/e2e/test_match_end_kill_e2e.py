"""The bot SIGKILLed at the instant Discord takes the line that ends a match: the restarted bot tells the
round's end and the final ranking once, and records the match once (README, shards: "Every committed play is
told once, in order"; nothing shown twice when a process dies at any moment)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.store import open_store
from tests.e2e.killed_bot import KilledBot, boards, card_room
from tests.e2e.test_shard_processes import public_lines
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_cli import TOKEN


async def test_a_kill_as_the_match_ending_line_is_taken_shows_the_end_once_and_records_it_once(
    tmp_path: Path,
) -> None:
    """Killed the instant Discord takes the line with "Round over" of a match's last round (the outbox still
    holds the moves it tells, noted as on their way), the restarted bot shows the round's end and the final
    ranking once (the line's nonce answers for the one Discord took), the board ends as the match over, one
    board, and the match is recorded once."""
    async with FakeDiscord(token=TOKEN) as fake:
        channel, (alice,) = card_room(fake, "alice")
        bot = KilledBot(fake, tmp_path)

        def round_over(message: FakeMessage, recipient: FakeUser | None) -> bool:
            return recipient is None and message.channel_id == channel.id and "Round over" in message.content

        store = await open_store(bot.url, create=True)
        try:
            await bot.start()
            await (await fake.invoke(alice, channel, "eights new", target=1)).reply(timeout=20)
            for _ in range(2):
                await (await fake.invoke(alice, channel, "eights cpu", level="easy")).reply(timeout=20)
            bot.trigger = round_over
            await (await fake.invoke(alice, channel, "eights start")).reply(timeout=20)
            await (await fake.invoke(alice, channel, "eights leave")).reply(timeout=20)
            await bot.died()
            assert bot.kills == 1
            table = await store.get_table(1)
            assert table is not None
            await bot.start()

            async def told() -> bool:
                return not await store.untold()

            loop = asyncio.get_running_loop()
            end = loop.time() + 60
            while not await told():
                assert loop.time() < end, "the untold moves were not told"
                await asyncio.sleep(0.2)
            await asyncio.sleep(2)
            record = await store.get_table(1)
            assert record is not None and record.status == "finished", record
            texts = [m.content for m in public_lines(fake, channel)]
            joined = "\n".join(texts)
            assert joined.count("Round over") == 1, texts
            assert joined.count("Final ranking") == 1, texts
            board = boards(fake, channel)[-1]
            assert "over" in str(board.embeds[0]).lower(), board.embeds[0]
            board_ids = {m.id for m in boards(fake, channel)}
            assert len(board_ids) == 1, board_ids
        finally:
            code = await bot.stop()
            await store.close()
        assert code == 0, bot.proc.log()[-3000:]
        assert "Traceback" not in bot.proc.log()
