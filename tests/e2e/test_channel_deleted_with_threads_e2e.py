"""A table in a thread or forum post whose parent channel (or forum) a moderator deletes.

README, *Discord's rate limits*: "**A table whose channel or thread is deleted** [...] is closed (no result
recorded; its players' hand messages say so), and nothing is sent to the channel again".

Deleting a text channel or a forum deletes its threads and posts with it, but Discord sends only the
parent's CHANNEL_DELETE: no THREAD_DELETE for the threads that went with it (discordjs/discord.js#10883:
"THREAD_DELETE is not sent when you delete parent channels"). discord.py makes up ``raw_thread_delete`` only
for the threads it has cached (``ConnectionState.parse_channel_delete``), and it drops a thread from its
cache as soon as it is archived and never caches a private thread the bot was not added to. So each table
keeps its thread's parent in its stored document (``bot.service.lobby``: "parent_id"), and a deleted
channel closes the tables whose parent it is (``TablePublisher.channel_deleted``). A table opened before the
parent was kept is asked about: its channel, if discord.py does not know it, with one request per deletion.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.contexts import ThreadChannel, make_thread, refuse_channel_routes, update_thread
from tests.e2e.test_bad_input import start_two
from tests.fakediscord import FakeChannel, FakeUser

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


def delete_parent(world: World, parent: FakeChannel, *threads: FakeChannel) -> None:
    """A moderator deletes ``parent``: its threads go with it; Discord says CHANNEL_DELETE for the parent
    only."""
    fake = world.fake
    for channel in (parent, *threads):
        fake.channels.pop(channel.id, None)
        world.guild.channels.pop(channel.id, None)
    fake._dispatch_guild(world.guild, "CHANNEL_DELETE", parent.payload())


class ChannelGets:
    """The bot's GET /channels/{id} requests, counted by channel id."""

    def __init__(self, world: World) -> None:
        self.count: collections.Counter[int] = collections.Counter()
        original = world.fake._channel

        def channel(request: Any) -> Any:
            resource = request.match_info.route.resource
            if request.method == "GET" and resource is not None and resource.canonical.endswith("/{channel}"):
                self.count[int(request.match_info["channel"])] += 1
            return original(request)

        world.fake._channel = channel  # type: ignore[method-assign]


async def lobby_in(world: World, where: FakeChannel, host: FakeUser | None = None) -> int:
    """A lobby opened in ``where`` (joined by bob when alice hosts it); its table id."""
    world.channel = where
    board = await world.run(host or world.alice, "new")
    assert not board.ephemeral, board.content
    if host is None:
        await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    return await world.table_id()


async def status_after(world: World, table_id: int) -> str:
    """The table's stored status once the bot has done what the deletion asks of it."""
    await asyncio.sleep(0.3)
    await world.settle()
    world.fake.take_violations()  # requests the bot sent to the deleted channels are not what is checked
    assert world.bot is not None
    record = await world.bot.store.get_table(table_id)
    assert record is not None
    return record.status


def opened_before_parents_were_kept(world: World, table_id: int) -> None:
    """The table as one opened by an earlier version: its document does not say whether it is in a thread."""
    live = world.service._registry.get(table_id)
    assert live is not None
    live.doc.pop("parent_id", None)


def parent_noted(world: World, table_id: int) -> object:
    live = world.service._registry.get(table_id)
    assert live is not None
    return live.doc.get("parent_id", "unknown")


@SQLITE_ONLY
@pytest.mark.parametrize("parent_type", [0, 15], ids=["text-channel-thread", "forum-post"])
async def test_a_lobby_in_an_archived_thread_closes_when_its_parent_is_deleted(
    world: World, parent_type: int
) -> None:
    """A lobby in a thread (or forum post) Discord auto-archived after a quiet hour; a moderator then deletes
    the parent channel (or the forum). The table is closed as for a deleted thread, and bob's ``/eights join``
    in another channel no longer sends him to the thread that is gone ("Yours is in <#thread>")."""
    fake = world.fake
    parent = world.channel if parent_type == 0 else fake.create_channel(world.guild, "forum", type=15)
    thread = make_thread(fake, world.guild, parent, "cards", type=11, owner=world.alice)
    table_id = await lobby_in(world, thread)
    update_thread(fake, world.guild, thread, archived=True)  # auto-archived: discord.py forgets it
    await world.settle()
    delete_parent(world, parent, thread)
    status = await status_after(world, table_id)
    answer = await world.run(world.bob, "join", channel=world.other_channel)
    assert status == "abandoned", (status, answer.content)
    assert f"<#{thread.id}>" not in answer.content, answer.content


@SQLITE_ONLY
async def test_a_game_in_a_private_thread_the_bot_was_not_added_to_closes_when_its_parent_is_deleted(
    world: World,
) -> None:
    """A game in a private thread the bot was never added to (it plays through interactions: README and
    tests/e2e/test_contexts_unseen_e2e.py), turn timeout one day; the parent channel is deleted. The table
    is closed at once (not at the next request that meets 404 Unknown Channel, a day later), and alice's hand
    message says so."""
    fake = world.fake
    parent = world.channel
    thread = ThreadChannel(
        fake.snowflake(), world.guild.id, "secret", 0, 12, parent_id=parent.id, owner_id=world.alice.id
    )  # no THREAD_CREATE: the bot is not a member of the private thread
    fake.channels[thread.id] = thread
    fake._channel_messages[thread.id] = []
    world.channel = thread
    world.service.seed_deals(1)
    board = await world.run(world.alice, "new", target=1000, turn_timeout=86400)
    await (await fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    table_id = await world.table_id()
    delete_parent(world, parent, thread)
    status = await status_after(world, table_id)
    hand = fake.ephemeral_messages(world.alice)[-1].content
    assert status == "abandoned", (status, hand[:200])
    assert "closed" in hand, hand[:200]


@SQLITE_ONLY
async def test_a_game_in_an_active_thread_closes_when_its_parent_is_deleted(world: World) -> None:
    """A thread discord.py has cached (active, the bot can see it): ``parse_channel_delete`` makes up the
    ``raw_thread_delete`` Discord never sends, and the table is closed (from that, and from its parent).
    Held since before the parent was kept: a guard that the two ways of closing it do not get in each
    other's way."""
    fake = world.fake
    parent = world.channel
    thread = make_thread(fake, world.guild, parent, "cards", type=11, owner=world.alice)
    world.channel = thread
    world.service.seed_deals(1)
    await start_two(world)
    table_id = await world.table_id()
    delete_parent(world, parent, thread)
    assert await status_after(world, table_id) == "abandoned"


async def test_a_thread_tables_parent_is_kept_with_it_across_a_restart(world: World) -> None:
    """The parent is stored with the table, not only held in memory: after a restart (discord.py has cached
    no thread yet: Discord's GUILD_CREATE lists none here) the deleted parent still closes the table in its
    thread at once, and the bot asks Discord nothing about the thread to know it."""
    fake = world.fake
    parent = world.channel
    thread = make_thread(fake, world.guild, parent, "cards", type=11, owner=world.alice)
    world.channel = thread
    world.service.seed_deals(1)
    await start_two(world)
    table_id = await world.table_id()
    await world.restart()
    await world.settle()
    gets = ChannelGets(world)
    delete_parent(world, parent, thread)
    assert await status_after(world, table_id) == "abandoned"
    assert gets.count[thread.id] == 0, dict(gets.count)


@SQLITE_ONLY
async def test_a_table_opened_before_parents_were_kept_is_asked_about_once(world: World) -> None:
    """Three tables opened by an earlier version (their parent unknown): a lobby in a thread of the deleted
    channel, archived (discord.py does not know it); one in an active thread of another channel; one in a
    channel of its own. When the first's parent is deleted, its thread is asked about with one request (404
    Unknown Channel: closed as a deleted thread's table); the others, which discord.py knows, are not asked
    about, stay open, and have their parent noted (another deletion asks nothing more of anyone)."""
    fake = world.fake
    parent = fake.create_channel(world.guild, "gone")
    archived = make_thread(fake, world.guild, parent, "cards", type=11, owner=world.alice)
    active = make_thread(fake, world.guild, world.other_channel, "more cards", type=11, owner=world.bob)
    own = fake.create_channel(world.guild, "tables")
    first = await lobby_in(world, archived, world.alice)
    second = await lobby_in(world, active, world.bob)
    third = await lobby_in(world, own, world.carol)
    for table_id in (first, second, third):
        opened_before_parents_were_kept(world, table_id)
    update_thread(fake, world.guild, archived, archived=True)
    await world.settle()
    gets = ChannelGets(world)
    delete_parent(world, parent, archived)
    assert await status_after(world, first) == "abandoned"
    assert gets.count == {archived.id: 1}, dict(gets.count)
    assert await status_after(world, second) == "lobby"
    assert await status_after(world, third) == "lobby"
    assert (parent_noted(world, second), parent_noted(world, third)) == (world.other_channel.id, None)
    spare = fake.create_channel(world.guild, "spare")
    delete_parent(world, spare)
    await status_after(world, second)
    assert gets.count == {archived.id: 1}, dict(gets.count)


@SQLITE_ONLY
async def test_a_private_thread_table_of_unknown_parent_is_asked_about_at_each_deletion_only(
    world: World,
) -> None:
    """A game opened by an earlier version in a private thread the bot was not added to (Discord answers its
    requests for it 403 Missing Access while it stands). Another channel of the server is deleted: the thread
    is asked about once, the table stays open; when its own parent is deleted, once more: 404, closed."""
    fake = world.fake
    parent = world.channel
    thread = ThreadChannel(
        fake.snowflake(), world.guild.id, "secret", 0, 12, parent_id=parent.id, owner_id=world.alice.id
    )
    fake.channels[thread.id] = thread
    fake._channel_messages[thread.id] = []
    refused = {thread.id: (403, 50001, "Missing Access")}
    refuse_channel_routes(fake, refused)
    world.channel = thread
    world.service.seed_deals(1)
    await start_two(world)
    table_id = await world.table_id()
    opened_before_parents_were_kept(world, table_id)
    gets = ChannelGets(world)
    spare = fake.create_channel(world.guild, "spare")
    delete_parent(world, spare)
    assert await status_after(world, table_id) == "playing"
    assert gets.count == {thread.id: 1}, dict(gets.count)
    del refused[thread.id]  # deleted: 404 Unknown Channel
    delete_parent(world, parent, thread)
    assert await status_after(world, table_id) == "abandoned"
    assert gets.count == {thread.id: 2}, dict(gets.count)
