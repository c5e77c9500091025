"""What a bot running for weeks accumulates: every per-table, per-channel, per-server and per-interaction
structure the running bot holds (``tests/e2e/leak_sizes.py`` walks the bot, its service, its publisher, its
cogs and the ``bot.*`` modules' globals) is back to its size once the tables are closed, the channels
deleted, the servers gone; caches with a fixed bound (``BOUNDED`` below) may fill up to it.

The promises: the README (*Database size and retention*): "no structure of the bot or of discord.py grows with
the matches played (...) the bot's per-table maps are emptied when a table closes", "its tasks (...) were back
to their baseline once the tables closed"; the project's target: "memory ≤ 100 KB per open table; a closed
table must leave nothing behind"; and for a server or a channel that is gone, the README: "A table whose
channel or thread is deleted, or whose server removed the bot, is closed (...) and nothing is sent to the
channel again."

Memory held by the bot's process does not depend on the store's backend: SQLite only, which keeps these
churn tests fast. Each test opens and closes enough things to show a structure that grows with them (by
half their number or more), and no more.
"""

from __future__ import annotations

import asyncio
import re
import tracemalloc
from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.leak_sizes import grown, sizes
from tests.e2e.test_hand_messages_e2e import two_people
from tests.fakediscord import FakeChannel
from tests.fakediscord.server import _Reject

pytestmark = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)

# Caches with a fixed bound (answers.REMEMBER_DONE = 10,000, png_bands.CACHE_BANDS, Kept(...) sizes,
# render._MEMO_MAX, the 113 card emojis, the budget's one-second window and its invalid requests' ten-minute
# window (one entry per second), discord.py's route buckets pruned past 256): they may grow up to their bound.
BOUNDED = (
    "bot.delivery.answers:_done",
    "bot.delivery.answers:_originals",
    "bot.ui.render:_described_lines",
    "bot.ui.art.png_bands:_bands._items",
    "bot.ui.art.board:_mapped_sprites._items",
    "bot.ui.art.board:_mapped_backgrounds._items",
    "bot.board_pictures._cache._items",
    "bot.card_emojis.art._pngs",
    "bot.budget._sent",
    "bot.budget._given",
    "bot.budget.invalid._seconds",
    "bot.http._buckets",
    "bot.metrics._request_counters",
    "bot.delivery.webhook_calls:_spent",  # tokens Discord refused for good: 10,000 at most, 15 minutes each
)


def left_behind(before: dict[str, int], after: dict[str, int], count: int) -> dict[str, tuple[int, int]]:
    """The structures that grew with the ``count`` things opened and closed (by half of them or more), not
    counting the bounded caches."""
    grew = grown(before, after, max(1, count // 2))
    return {path: counts for path, counts in grew.items() if path not in BOUNDED}


async def quiet(world: World) -> None:
    """Everything shown, and the outbox marks (gathered for ``MARK_GATHER``, 0.5 s) written."""
    await world.settle()
    await asyncio.sleep(0.7)
    await world.settle()


async def closed(world: World, channel: FakeChannel) -> bool:
    return await world.service.table_in_channel(channel.id) is None


async def cpu_table_in(world: World, channel: FakeChannel, target: int) -> None:
    """alice opens a table in ``channel`` with two CPU seats, deals and leaves: the CPUs play on by
    themselves (``target`` 1: one round is the match, played to its end)."""
    fake = world.fake
    board = await world.run(world.alice, "new", channel=channel, target=target)
    for _ in range(2):
        await (await fake.click(world.alice, board, label="Add CPU")).callback()
    await world.settle()
    await (await fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    await world.run(world.alice, "leave", channel=channel)
    await world.settle()


async def fire_in(world: World, channel: FakeChannel, handler_name: str) -> None:
    """Run a scheduler's timer handler for the table of ``channel``, guarded as its timer runs it."""
    table_id = await world.service.table_in_channel(channel.id)
    assert table_id is not None
    registry: Any = world.service._registry
    live = registry.get(table_id)
    assert live is not None
    scheduler = registry.scheduler
    await scheduler._guarded(getattr(scheduler, handler_name), table_id, live.version)()


def table_tasks(table_ids: set[int]) -> list[str]:
    """The bot's pending tasks named for one of ``table_ids``."""
    return [
        task.get_name()
        for task in asyncio.all_tasks()
        if not task.done()
        and task.get_name().startswith("eights-")
        and any(re.search(rf"-{table_id}(-|$)", task.get_name()) for table_id in table_ids)
    ]


def delete_channel(world: World, channel: FakeChannel) -> None:
    """A moderator deletes the channel: gone from the fake, and Discord says so (CHANNEL_DELETE)."""
    del world.fake.channels[channel.id]
    world.guild.channels.pop(channel.id, None)
    world.fake._dispatch_guild(world.guild, "CHANNEL_DELETE", channel.payload())


async def test_tables_opened_and_ended_one_after_another_in_one_channel_leave_nothing(world: World) -> None:
    """/eights new then /eights end, 60 times in the same channel: no structure grows, no task is left."""
    for _ in range(3):  # warm-up: the first lobby loads the server's settings, art, routes
        await world.run(world.alice, "new")
        await world.run(world.alice, "end")
    await quiet(world)
    before = sizes(world.bot)
    ids: set[int] = set()
    for _ in range(60):
        await world.run(world.alice, "new")
        ids.add(await world.table_id())
        await world.run(world.alice, "end")
    await quiet(world)
    assert left_behind(before, sizes(world.bot), 60) == {}
    assert table_tasks(ids) == []


async def test_expired_lobbies_and_finished_matches_leave_nothing_and_no_task(world: World) -> None:
    """8 matches played to their end by CPU seats, in 8 channels, and 8 lobbies that expire (the scheduler's
    lobby timer, fired): no structure grows, no task is left."""
    fake = world.fake
    warm = fake.create_channel(world.guild, "warm")
    await cpu_table_in(world, warm, target=1)
    await world.until(lambda: closed(world, warm), "the warm-up match to end", 60)
    await quiet(world)
    before = sizes(world.bot)
    channels = [fake.create_channel(world.guild, f"m{i}") for i in range(8)]
    ids: set[int] = set()
    for channel in channels:
        await cpu_table_in(world, channel, target=1)
        table_id = await world.service.table_in_channel(channel.id)
        if table_id is not None:
            ids.add(table_id)
    for channel in channels:
        await world.until(lambda channel=channel: closed(world, channel), "the match to end", 60)
    lobbies = [fake.create_channel(world.guild, f"l{i}") for i in range(8)]
    for channel in lobbies:
        await world.run(world.alice, "new", channel=channel)
        table_id = await world.service.table_in_channel(channel.id)
        assert table_id is not None
        ids.add(table_id)
        await fire_in(world, channel, "_on_lobby_expired")
        assert await closed(world, channel)
    await quiet(world)
    assert left_behind(before, sizes(world.bot), 8) == {}
    assert table_tasks(ids) == []


async def test_my_hand_status_and_autocomplete_spam_are_bounded(world: World) -> None:
    """One table: 'My hand' clicked 300 times, /eights status 60 times, 200 autocompletes: nothing is held
    per click beyond the bounded caches."""
    fake = world.fake
    await two_people(world, target=1000)
    for _ in range(5):
        await (await fake.click(world.bob, world.board(), label="My hand")).reply()
        await world.run(world.bob, "status")
        await fake.autocomplete(world.alice, world.channel, "eights play", "card", partial="")
    await quiet(world)
    before = sizes(world.bot)
    for _ in range(300):
        await (await fake.click(world.bob, world.board(), label="My hand")).reply()
    for _ in range(60):
        await world.run(world.bob, "status")
    for index in range(100):
        await fake.autocomplete(world.alice, world.channel, "eights play", "card", partial=str(index))
        await fake.autocomplete(world.carol, world.channel, "eights catch", "player", partial=str(index))
    await quiet(world)
    assert left_behind(before, sizes(world.bot), 60) == {}


async def test_an_open_lobby_costs_less_than_100_kb_of_python_heap(world: World) -> None:
    """The Python heap the bot holds for 40 open lobbies, each in a channel of its own, measured with
    tracemalloc after a warm-up table (settings, art and routes loaded once): under 100 KB each (README:
    95.5 KiB of RSS per open table with 300 open)."""
    fake = world.fake
    warm = fake.create_channel(world.guild, "warm")
    await world.run(world.alice, "new", channel=warm)
    await quiet(world)
    channels = [fake.create_channel(world.guild, f"o{i}") for i in range(40)]
    await quiet(world)
    tracemalloc.start()
    try:
        start = tracemalloc.take_snapshot()
        for channel in channels:
            await world.run(world.alice, "new", channel=channel)
        await quiet(world)
        # What the fake Discord stored meanwhile (the messages it keeps) is not the bot's.
        end = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(
        stat.size_diff
        for stat in end.compare_to(start, "filename")
        if "/bot/" in stat.traceback[0].filename or "/discord/" in stat.traceback[0].filename
    )
    assert held / len(channels) <= 100 * 1024, f"{held / len(channels) / 1024:.1f} KiB per open lobby"


async def test_tables_closed_by_a_deleted_channel_leave_nothing_behind(world: World) -> None:
    """10 channels, each with a match under way, deleted (CHANNEL_DELETE): their tables close, and the
    channels are remembered as deleted (nothing sent to them again) only until their tables are closed and
    shown: Discord never gives a deleted channel's id to another one."""
    fake = world.fake
    channels = [fake.create_channel(world.guild, f"d{i}") for i in range(10)]
    await quiet(world)
    before = sizes(world.bot)
    for channel in channels:
        await cpu_table_in(world, channel, target=1000)
    for channel in channels:
        delete_channel(world, channel)
    for channel in channels:
        await world.until(lambda channel=channel: closed(world, channel), "the table to close", 30)
    await quiet(world)
    fake.take_violations()
    assert left_behind(before, sizes(world.bot), 10) == {}


async def test_deleting_channels_and_threads_that_never_had_a_table_holds_nothing(world: World) -> None:
    """Busy servers delete threads and channels all day, and Discord tells the bot of each: 40 channels and
    40 threads that never had a table, deleted (GUILD_CHANNEL_DELETE, THREAD_DELETE), leave nothing held."""
    fake = world.fake
    await quiet(world)
    before = sizes(world.bot)
    channels = [fake.create_channel(world.guild, f"x{i}") for i in range(40)]
    await asyncio.sleep(0.1)
    for channel in channels:
        delete_channel(world, channel)
    for _ in range(40):
        thread_id = fake.snowflake()
        payload = {
            "id": str(thread_id),
            "guild_id": str(world.guild.id),
            "parent_id": str(world.channel.id),
            "type": 11,
        }
        fake._dispatch_guild(world.guild, "THREAD_DELETE", payload)
    await asyncio.sleep(0.2)
    await quiet(world)
    assert left_behind(before, sizes(world.bot), 80) == {}


async def test_servers_that_removed_the_bot_leave_nothing_behind(world: World) -> None:
    """10 servers, each with a lobby open, remove the bot (GUILD_DELETE, not an outage): the tables close
    (README: "whose server removed the bot, is closed"), and nothing of the servers is kept: their channels'
    pauses (``ChannelRefusals``), their display settings and Discord language (``Appearance``), their place
    in the gateway session's list of servers (``SessionGuilds``)."""
    fake = world.fake
    await quiet(world)
    bot = world.bot
    assert bot is not None
    listed_before = sum(len(ids) for ids in bot.session_guilds._listed.values())
    before = sizes(bot)
    servers = []
    for index in range(10):
        guild = fake.create_guild(f"g{index}")
        fake.add_member(guild, world.alice)
        servers.append((guild, fake.create_channel(guild, "eights")))
    await asyncio.sleep(0.2)
    for _, channel in servers:
        await world.run(world.alice, "new", channel=channel)
    await world.settle()
    assert sum(len(ids) for ids in bot.session_guilds._listed.values()) == listed_before + 10
    for guild, _ in servers:
        fake.guilds.pop(guild.id)
        fake._dispatch_guild(guild, "GUILD_DELETE", {"id": str(guild.id)})
    for _, channel in servers:
        await world.until(lambda channel=channel: closed(world, channel), "the table to close", 30)
    await quiet(world)
    fake.take_violations()
    after = sizes(bot)
    listed_after = sum(len(ids) for ids in bot.session_guilds._listed.values())
    assert (left_behind(before, after, 10), listed_after - listed_before) == ({}, 0)


async def test_channels_without_attach_files_are_forgotten_with_their_tables(world: World) -> None:
    """6 channels where the bot may not attach files, each with a table whose board goes through the channel
    (its players' tokens spent): the boards go on as text, each channel noted as refusing files, and forgotten
    once its table is closed (it is asked again by the channel's next table)."""
    fake = world.fake
    channels = [fake.create_channel(world.guild, f"f{i}") for i in range(6)]
    refusing = {channel.id for channel in channels}
    original = fake._channel

    def channel_route(request: Any) -> Any:
        if int(request.match_info["channel"]) in refusing and "multipart" in (request.content_type or ""):
            raise _Reject(403, 50013, "Missing Permissions", violation=False)
        return original(request)

    fake._channel = channel_route  # type: ignore[method-assign]
    await quiet(world)
    before = sizes(world.bot)
    for channel in channels:
        await cpu_table_in(world, channel, target=1000)  # the CPUs play round 1 to its end
    fake.token_lifetime = 0.0  # the boards go through the channel from now on
    for channel in channels:
        await fire_in(world, channel, "_on_pause_over")  # round 2: a new picture, refused
    await world.settle()
    assert world.publisher._board._no_files >= refusing, "the pictures were not refused"
    for channel in channels:
        await fire_in(world, channel, "_on_idle")  # the idle table closes
        assert await closed(world, channel)
    await quiet(world)
    fake.take_violations()
    assert left_behind(before, sizes(world.bot), 6) == {}
