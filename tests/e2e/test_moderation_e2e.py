"""What moderators and Discord do to a running table's channel: deleted while the bot is away (found at
start-up) or while players hold live interactions (nothing more goes to it, by any route), a thread locked and
archived under a table that plays on by itself (left alone, like a channel that refuses the bot), and a thread
unlocked or unarchived (Discord's THREAD_UPDATE: tried again). README, *Discord's rate limits*."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread, update_thread
from tests.e2e.test_channel_refusals_e2e import ChannelCalls, closed, cpu_table, next_rounds
from tests.e2e.test_hand_messages_e2e import two_people
from tests.fakediscord.server import _Reject

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


@SQLITE_ONLY
async def test_a_channel_deleted_while_the_bot_was_down_closes_its_table_at_start_up(world: World) -> None:
    """A moderator deletes a table's channel while the bot is down (no CHANNEL_DELETE ever reaches it). At
    start-up the board check meets 404 Unknown Channel (10003), not Unknown Message: the table is closed at
    once, as CHANNEL_DELETE would close it (README: "A table whose channel or thread is deleted [...] is
    closed [...] and nothing is sent to the channel again"), and no board is posted to the deleted channel
    after that one request."""
    fake = world.fake
    await two_people(world, target=1000, turn_timeout=86400)
    table_id = await world.table_id()
    await world.stop()
    channel = world.channel
    del fake.channels[channel.id]  # a moderator deleted it meanwhile
    world.guild.channels.pop(channel.id, None)
    calls = ChannelCalls(world)  # the deleted channel's routes, counted (the fake answers 404 10003)
    await world.start()
    await world.settle()
    await asyncio.sleep(0.3)
    await world.settle()
    fake.take_violations()  # the 404s the start-up met: what is checked is what the bot made of them
    assert world.bot is not None
    record = await world.bot.store.get_table(table_id)
    assert record is not None
    assert record.status == "abandoned", (
        f"the table of a deleted channel is still {record.status!r} after the restart",
        dict(calls.count),
    )
    assert calls.total() <= 1, dict(calls.count)  # one request was enough to know the channel is gone


@SQLITE_ONLY
async def test_a_deleted_channels_table_sends_nothing_more_to_it_through_live_interactions(
    world: World,
) -> None:
    """With players at the table (their interactions live), a moderator deletes the channel and Discord
    sends CHANNEL_DELETE: the table closes, its players' own (ephemeral) hand messages say so, and nothing
    else is sent: no line ("The table closed: its channel is gone") as a follow-up of the table's latest
    interaction and no board edit through its token, both of which would go to the deleted channel."""
    fake = world.fake
    await two_people(world, target=1000)
    await world.hand_message(world.bob)
    await world.settle()
    channel = world.channel
    sent_to_channel: list[str] = []
    original = fake._webhook_record

    def webhook_record(request: Any) -> Any:
        record = original(request)
        if record.channel.id == channel.id and channel.id not in fake.channels:
            public = request.method == "POST"  # a follow-up: a line or a board, in the channel
            if request.method in ("PATCH", "DELETE"):
                public = not fake._webhook_target(record, request.match_info["message"]).ephemeral
            if public:
                sent_to_channel.append(f"{request.method} {request.path}")
                raise _Reject(404, 10003, "Unknown Channel", violation=False)
        return record

    fake._webhook_record = webhook_record  # type: ignore[method-assign]
    del fake.channels[channel.id]
    world.guild.channels.pop(channel.id, None)
    fake._dispatch_guild(world.guild, "CHANNEL_DELETE", channel.payload())
    for _ in range(100):
        if await closed(world):
            break
    await world.settle()
    assert await closed(world)
    hands = [fake.ephemeral_messages(user)[-1].content for user in (world.alice, world.bob)]
    assert all("closed" in text for text in hands), hands
    assert sent_to_channel == [], sent_to_channel


@SQLITE_ONLY
async def test_a_locked_archived_thread_is_left_alone_until_it_is_reopened(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """A table in a thread plays on by itself (CPU seats; the players' tokens spent) and a moderator locks and
    archives the thread: Discord refuses every post and edit there with 400 50083 "Thread is archived". That
    refusal would only repeat, so it counts like Missing Access or Missing Permissions: the thread is left
    alone after the first one (one warning, no request at the moves that follow) while the table plays on,
    and it is tried again once Discord says the thread was reopened (THREAD_UPDATE)."""
    fake = world.fake
    thread = make_thread(fake, world.guild, world.channel, "cards", type=11, owner=world.alice)
    world.channel = thread
    await cpu_table(world)
    fake.token_lifetime = 0.0  # the players' tokens spent: the thread's own routes are what is left
    calls = ChannelCalls(world)
    locked = True
    counted = calls.count
    routes = fake._channel

    def channel(request: Any) -> Any:
        found = routes(request)
        if locked and found.id == thread.id and request.method in ("POST", "PATCH", "DELETE"):
            raise _Reject(400, 50083, "Thread is archived", violation=False)
        return found

    fake._channel = channel  # type: ignore[method-assign]
    update_thread(fake, world.guild, thread, archived=True, locked=True)
    await world.settle()
    with caplog.at_level(logging.WARNING):
        await next_rounds(world, 1)
        after_first = calls.total()
        assert after_first >= 1  # the lock was met ...
        await next_rounds(world, 3)
    fake.take_violations()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert (await world.snapshot()).open  # the table itself plays on
    # ... and not met again at every line and board edit of the rounds that followed.
    assert calls.total() == after_first, (dict(counted), warnings)
    assert len(warnings) <= 1, warnings

    # Reopened by a moderator: the table is shown there again at its next news.
    locked = False
    update_thread(fake, world.guild, thread, archived=False, locked=False)
    await world.settle()
    counted.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert counted["PATCH"] + counted["POST"] >= 1, "the reopened thread is still left alone"


@SQLITE_ONLY
async def test_a_thread_is_tried_again_when_a_moderator_unlocks_it(world: World) -> None:
    """A locked thread (not archived) denies the bot Send Messages: its posts and edits there get 403 50013
    Missing Permissions and the thread is left alone. A moderator unlocks it, which Discord says with
    THREAD_UPDATE only (no CHANNEL_UPDATE, no role or member change): the thread is tried again at once, its
    board and lines come back at the table's next news, not after the rest of the pause."""
    fake = world.fake
    thread = make_thread(fake, world.guild, world.channel, "cards", type=11, owner=world.alice)
    world.channel = thread
    await cpu_table(world)
    calls = ChannelCalls(world)  # the thread's routes
    fake.token_lifetime = 0.0
    update_thread(fake, world.guild, thread, locked=True)
    calls.refuse = 50013  # locked: Send Messages denied to the bot
    await next_rounds(world, 1)
    assert calls.total() >= 1  # the refusal was met
    calls.refuse = None
    update_thread(fake, world.guild, thread, locked=False)  # unlocked by a moderator
    await world.settle()
    calls.count.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert calls.count["PATCH"] + calls.count["POST"] >= 1, "the unlocked thread is still left alone"
