"""The bot SIGKILLed at the instant Discord takes a board (``/eights new``'s answer, ``/eights status``'s),
before it records the board's message id: one board per table all the same. At start-up the restored board's
check reads the channel's latest messages, adopts the table's newest board there (the one never recorded) and
deletes its other boards (``bot.delivery.board.BoardMessages.check``), so no second board is posted and none
is left with live buttons that are never updated again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.store import open_store
from tests.e2e.killed_bot import KilledBot, boards, card_room, is_board
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_cli import TOKEN


async def test_a_kill_as_the_new_tables_board_is_posted_leaves_one_board_not_two(tmp_path: Path) -> None:
    """Killed the instant Discord took the answer to ``/eights new`` (the board; no board id recorded yet),
    the restarted bot adopts that board: a join through its button at once (it may come before the start-up
    check: the board lane checks first) shows on one board, none posted beside it."""
    async with FakeDiscord(token=TOKEN) as fake:
        channel, (alice, bob) = card_room(fake, "alice", "bob")
        bot = KilledBot(fake, tmp_path)

        def first_board(message: FakeMessage, recipient: FakeUser | None) -> bool:
            return recipient is None and message.channel_id == channel.id and is_board(message)

        try:
            await bot.start()
            bot.trigger = first_board
            await fake.invoke(alice, channel, "eights new")
            await bot.died()
            assert bot.kills == 1
            assert len(boards(fake, channel)) == 1
            await bot.start()
            # A join through the first board's button, at once (the bot answers while it uploads its emojis).
            old = boards(fake, channel)[0]
            await (await fake.click(bob, old, label="Join")).callback(timeout=30)
            await fake.wait_for(
                lambda: any("bob" in str(b.embeds[0]) for b in boards(fake, channel)),
                what="bob seated",
                timeout=60,
            )
            await asyncio.sleep(2)  # the start-up check of the restored board is done by now
            shown = boards(fake, channel)
            assert len(shown) == 1, [m.id for m in shown]
            assert "bob" in str(shown[0].embeds[0])
        finally:
            code = await bot.stop()
        assert code == 0, bot.proc.log()[-3000:]
        assert "Traceback" not in bot.proc.log()


async def test_a_kill_as_status_reposts_the_board_leaves_one_board_not_two(tmp_path: Path) -> None:
    """Killed the instant Discord took ``/eights status``'s board (the old board still recorded, and not
    deleted yet), the restarted bot makes the newer board the board and deletes the old one: one board in the
    channel, showing the table as it is (README, "Boards ride the interactions": "its answer is the board, and
    the old board is deleted")."""
    async with FakeDiscord(token=TOKEN) as fake:
        channel, (alice, bob) = card_room(fake, "alice", "bob")
        bot = KilledBot(fake, tmp_path)
        try:
            await bot.start()
            await (await fake.invoke(alice, channel, "eights new")).reply(timeout=20)
            first = boards(fake, channel)[0]
            store = await open_store(bot.url)
            try:
                for _ in range(200):  # the first board is recorded as the table's board
                    record = await store.get_table(1)
                    if record is not None and record.board_message_id == first.id:
                        break
                    await asyncio.sleep(0.05)
                else:
                    raise AssertionError("the first board was never recorded")
            finally:
                await store.close()

            def another_board(message: FakeMessage, recipient: FakeUser | None) -> bool:
                return (
                    recipient is None
                    and message.channel_id == channel.id
                    and is_board(message)
                    and message.id != first.id
                )

            bot.trigger = another_board
            await fake.invoke(alice, channel, "eights status")
            await bot.died()
            assert bot.kills == 1
            await bot.start()
            await (await fake.invoke(bob, channel, "eights join")).reply(timeout=30)
            await fake.wait_for(
                lambda: any("bob" in str(b.embeds[0]) for b in boards(fake, channel)),
                what="bob seated",
                timeout=60,
            )
            await asyncio.sleep(2)  # the start-up check of the restored board is done by now
            shown = boards(fake, channel)
            every = [m for m in fake.channel_messages(channel, include_deleted=True) if is_board(m)]
            assert len(shown) == 1, (
                f"first={first.id}",
                [
                    (m.id, m.deleted, m.interaction_metadata is not None, "bob" in str(m.embeds[0]))
                    for m in every
                ],
            )
        finally:
            code = await bot.stop()
        assert code == 0, bot.proc.log()[-3000:]
        assert "Traceback" not in bot.proc.log()
