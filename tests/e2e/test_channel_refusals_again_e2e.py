"""Review of the channels that refuse the bot (b7c463b)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_channel_refusals_e2e import ChannelCalls, closed, cpu_table, next_rounds

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


@SQLITE_ONLY
async def test_a_server_that_adds_the_bot_again_gets_its_tables_lines_and_boards(world: World) -> None:
    """The bot removed from a server and added again: a new table in the same (still existing) channel must
    be shown there. ``guild_left`` closed the old table and its closing marked the channel "gone" for good,
    so every line and board edit of the new table through the channel is dropped."""
    fake = world.fake
    await cpu_table(world)
    fake._dispatch_guild(world.guild, "GUILD_DELETE", {"id": str(world.guild.id)})
    for _ in range(100):
        if await closed(world):
            break
    assert await closed(world)
    # Added back to the server: Discord sends GUILD_CREATE again.
    session = fake._session_for(world.guild.id)
    assert session is not None
    session.dispatch("GUILD_CREATE", fake._guild_create(session, world.guild))
    await world.settle()

    await cpu_table(world)  # a new table, same channel, plays on by itself
    calls = ChannelCalls(world)
    fake.token_lifetime = 0.0  # the players' tokens spent: the channel's routes are what is left
    await next_rounds(world, 2)
    fake.take_violations()
    assert (await world.snapshot()).open
    assert calls.total() >= 1, "nothing was sent to the channel: it is still taken for a deleted one"


@SQLITE_ONLY
async def test_a_thread_is_tried_again_when_its_parent_channels_permissions_change(world: World) -> None:
    """A table in a thread: a moderator removes the bot's access on the parent channel (a thread has no
    overwrites of its own: its permissions are the parent's), then gives it back. Discord says so with a
    CHANNEL_UPDATE of the parent channel only; the thread must be tried again at its next news, as a
    channel's table is. ``forgive(channel_id=parent)`` forgives only the parent's id, so the thread stays
    left alone (up to 15 minutes)."""
    from tests.e2e.contexts import make_thread

    fake = world.fake
    parent = world.channel
    world.channel = make_thread(fake, world.guild, parent, "cards", type=11, owner=world.alice)
    await cpu_table(world)
    calls = ChannelCalls(world)  # the thread's routes
    fake.token_lifetime = 0.0
    calls.refuse = 50001
    await next_rounds(world, 1)
    assert calls.total() >= 1  # the refusal was met
    calls.refuse = None  # access given back on the parent channel
    fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", parent.payload())
    await world.settle()
    calls.count.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert calls.count["PATCH"] + calls.count["POST"] >= 1, "the thread is still left alone"


@SQLITE_ONLY
async def test_a_channel_is_tried_again_when_the_bot_gets_its_role_back(world: World) -> None:
    """The bot's access to a channel comes from a role (the usual setup: a "Bots" role allowed in
    #eights). A moderator takes the role off the bot, then gives it back: Discord tells the bot with a
    GUILD_MEMBER_UPDATE of its own member (sent without the members intent), not a CHANNEL_UPDATE nor a
    GUILD_ROLE_UPDATE (the role itself did not change). The channel must be tried again at its next news;
    ``ChannelsCog`` listens to neither ``on_member_update`` nor the raw event, so it stays left alone for
    the whole pause (a minute, then 2, 4 … 15 minutes at each new refusal)."""
    fake = world.fake
    bots = fake.create_role(world.guild, "Bots")
    await cpu_table(world)
    calls = ChannelCalls(world)
    fake.token_lifetime = 0.0
    calls.refuse = 50001  # the role taken off the bot
    await next_rounds(world, 1)
    assert calls.total() >= 1
    calls.refuse = None  # ... and given back
    member = world.guild.members[fake.bot_user.id]
    member.roles.append(bots)
    fake._dispatch_guild(
        world.guild, "GUILD_MEMBER_UPDATE", {**member.payload(), "guild_id": str(world.guild.id)}
    )
    await world.settle()
    calls.count.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert calls.count["PATCH"] + calls.count["POST"] >= 1, "the channel is still left alone"
