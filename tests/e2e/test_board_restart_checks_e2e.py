"""A restored table's board is checked when the bot starts again, in the table's board lane
(``bot.delivery.board.BoardMessages.check``, ``TablePublisher.check_board``): one board per table after a
restart, whatever happened to it while the bot was away or as it stopped.

* A board the previous process posted and never recorded (it stopped between Discord's answer and the record)
  is found among the channel's latest messages and becomes the board; the table's other boards are deleted.
* A board deleted while the bot was away is posted again, once, showing the table as it is, even when a move
  comes while the check is reading the channel; nothing is deleted twice (no DELETE of the gone message).
* A board older than the channel's latest messages is fetched: kept and edited if it is there, posted again
  if it is not.

(The same with a real kill: ``test_board_kill_e2e.py``.)"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from bot.delivery.board import HISTORY_PAGE
from bot.store import open_store
from tests.e2e.board_checks import board_disagreements
from tests.e2e.conftest import World
from tests.e2e.race_steps import no_trace
from tests.e2e.test_hand_messages_e2e import two_people
from tests.fakediscord import FakeMessage
from tests.fakediscord.server import _json

HISTORY = "GET /api/v10/channels/{channel}/messages"
FETCH = "GET /api/v10/channels/{channel}/messages/{message}"
DELETE = "DELETE /api/v10/channels/{channel}/messages/{message}"


def boards(world: World) -> list[FakeMessage]:
    return [
        m
        for m in world.fake.channel_messages(world.channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


async def record_board(world: World, message_id: int | None) -> None:
    """Write ``message_id`` as the table's board in the store (the bot stopped): what a process that stopped
    at the wrong moment left recorded."""
    store = await open_store(world.database_url)
    try:
        tables = [
            open_table.table.id
            for open_table in await store.load_open_tables()
            if open_table.table.channel_id == world.channel.id
        ]
        assert len(tables) == 1, tables
        await store.set_board_message(tables[0], message_id, time.time())
    finally:
        await store.close()


def chatter(world: World, count: int) -> None:
    """``count`` messages of people in the table's channel (the bot away): the board scrolls up."""
    for index in range(count):
        world.fake._store_message(
            FakeMessage(
                id=world.fake.snowflake(),
                channel_id=world.channel.id,
                guild_id=world.guild.id,
                author=world.carol,
                content=f"message {index}",
            ),
            recipient=None,
        )


async def test_a_move_while_the_restored_board_is_checked_leaves_one_current_board(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The board was deleted while the bot was down (a moderator), and alice's card click arrives while the
    start-up check is still reading the channel for the board (Discord slow, or the check waiting its turn of
    the global budget behind other tables). The check is the board lane's turn, so the move's board edit
    waits for it: the channel ends with one board, showing the table as it is (not a second, stale board
    with live buttons), and the gone board is not deleted again."""
    hand = await two_people(world)
    await world.stop()
    world.fake._delete_message(world.board())  # a moderator deleted the board while the bot was away
    fake = world.fake
    handle = fake._handle

    async def slow_reads(request: Any, handler: Any) -> Any:
        if request.method == "GET" and f"/channels/{world.channel.id}/messages" in request.path:
            await asyncio.sleep(0.5)
        return await handle(request, handler)

    monkeypatch.setattr(fake, "_handle", slow_reads)
    await world.start()
    await asyncio.sleep(0.1)  # the check has begun: it is reading the channel
    button = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    reply = await (await world.fake.click(world.alice, hand, button["custom_id"])).reply()
    assert "Your hand" in reply.content
    await asyncio.sleep(1.0)
    await world.settle()
    live = boards(world)
    assert len(live) == 1, [(m.id, m.embeds[0].get("fields")) for m in live]
    assert not await board_disagreements(world)
    assert not world.fake.violations  # (no DELETE of the board deleted while the bot was away: a 404)
    no_trace(caplog, world)


async def test_a_board_posted_and_not_recorded_is_made_the_board(world: World) -> None:
    """The table's board is in the channel but the store has no board for it (the process stopped between
    Discord's answer to ``/eights new`` and the record): the restarted bot makes that message the board,
    records it and brings it up to date; no second board is posted."""
    first = await world.run(world.alice, "new")
    await world.settle()
    await world.stop()
    await record_board(world, None)
    await world.start()
    await world.settle()
    assert [m.id for m in boards(world)] == [first.id]
    assert (await world.snapshot()).board_message_id == first.id
    await world.run(world.bob, "join")
    await world.settle()
    assert [m.id for m in boards(world)] == [first.id]
    assert "bob" in world.board().text()
    assert not await board_disagreements(world)


async def test_a_newer_board_not_recorded_replaces_the_recorded_one(world: World) -> None:
    """Two boards of the table in the channel, the store naming the older (the process stopped after
    ``/eights status``'s board was posted, before it was recorded and the old one deleted): the restarted
    bot keeps the newer one, records it, and deletes the older."""
    old = await world.run(world.alice, "new")
    await world.run(world.bob, "join")
    await world.settle()
    new = await world.run(world.carol, "status")
    await world.settle()
    assert old.deleted and not new.deleted
    await world.stop()
    old.deleted = False  # as if the status had not got as far as deleting it
    await record_board(world, old.id)
    await world.start()
    await world.settle()
    assert [m.id for m in boards(world)] == [new.id]
    assert old.deleted
    assert (await world.snapshot()).board_message_id == new.id
    assert not await board_disagreements(world)


async def test_a_board_older_than_the_latest_messages_is_fetched_and_kept(world: World) -> None:
    """The board scrolled up past the messages the check reads: it is fetched, found there, and kept (edited
    in place), not posted again."""
    first = await world.run(world.alice, "new")
    await world.run(world.bob, "join")
    await world.settle()
    await world.stop()
    chatter(world, HISTORY_PAGE + 5)
    reads = world.fake.requests_by_route[HISTORY], world.fake.requests_by_route[FETCH]
    await world.start()
    await world.settle()
    assert [m.id for m in boards(world)] == [first.id]
    assert world.fake.requests_by_route[HISTORY] - reads[0] == 1
    assert world.fake.requests_by_route[FETCH] - reads[1] == 1
    assert not await board_disagreements(world)


async def test_a_gone_board_older_than_the_latest_messages_is_posted_again(world: World) -> None:
    """The board scrolled up past the messages the check reads, and a moderator deleted it: it is fetched,
    found gone, and posted again, once; the gone message is not deleted again."""
    first = await world.run(world.alice, "new")
    await world.run(world.bob, "join")
    await world.settle()
    await world.stop()
    chatter(world, HISTORY_PAGE + 5)
    world.fake._delete_message(first)
    deletes = world.fake.requests_by_route[DELETE]
    await world.start()
    await world.settle()
    await world.run(world.carol, "status")  # replaces the board: the gone one is not deleted again
    await world.settle()
    live = boards(world)
    assert len(live) == 1 and live[0].id != first.id
    assert world.fake.requests_by_route[DELETE] - deletes == 1  # the board the status replaced
    assert not world.fake.violations
    assert not await board_disagreements(world)


async def test_a_status_while_the_check_posts_the_board_again_leaves_one_board(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board was deleted while the bot was down; the start-up check is posting it again (Discord slow to
    answer) when a member asks /eights status, whose answer is the board from then on. The status waits for
    the check to settle the board, then replaces it: one board in the channel, not the check's orphaned
    beside the status's."""
    first = await world.run(world.alice, "new")
    await world.run(world.bob, "join")
    await world.settle()
    await world.stop()
    world.fake._delete_message(first)
    fake = world.fake
    handle = fake._handle

    async def slow_posts(request: Any, handler: Any) -> Any:
        if request.method == "POST" and request.path.endswith(f"/channels/{world.channel.id}/messages"):
            await asyncio.sleep(0.6)
        return await handle(request, handler)

    monkeypatch.setattr(fake, "_handle", slow_posts)
    await world.start()
    await world.until(
        lambda: asyncio.sleep(0, result=world.fake.requests_by_route[HISTORY] > 0), "the check reading"
    )
    await asyncio.sleep(0.2)  # the check has read the channel and is posting the board again
    await world.run(world.carol, "status")
    await world.settle()
    live = boards(world)
    assert len(live) == 1, [m.id for m in live]
    assert (await world.snapshot()).board_message_id == live[0].id
    assert not await board_disagreements(world)


async def test_a_channel_without_read_message_history_costs_one_refused_request_per_table(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The channel refuses the bot its history (403 Missing Access on every GET of its messages): the
    start-up check of its table asks once, not a second refused time for the board (a 403 counts towards
    Discord's ban)."""
    await world.run(world.alice, "new")
    await world.settle()
    await world.stop()
    fake = world.fake
    handle = fake._handle
    refused: list[str] = []

    async def no_history(request: Any, handler: Any) -> Any:
        if request.method == "GET" and f"/channels/{world.channel.id}/messages" in request.path:
            refused.append(request.path)
            return _json({"code": 50001, "message": "Missing Access"}, 403)
        return await handle(request, handler)

    monkeypatch.setattr(fake, "_handle", no_history)
    await world.start()
    await world.settle()
    assert len(refused) == 1, refused
