"""What the bot needs to hold a table in a thread (or forum post).

README, Inviting the bot: the invite grants Send Messages in Threads beside Send Messages, which does not
cover threads; Troubleshooting: "In threads and forum posts it needs Send Messages in Threads instead of
Send Messages (a bot invited with an older link may lack it: `/eights new` there says so)".
"""

from __future__ import annotations

import discord

from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread

# README "Inviting the bot": permissions=274878024704.
INVITE = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)
# The invite before Send Messages in Threads was part of it (117760).
OLDER_INVITE = discord.Permissions(INVITE.value & ~discord.Permissions(send_messages_in_threads=True).value)


def _grant_the_bot(world: World, permissions: discord.Permissions) -> None:
    world.guild.members[world.fake.bot_user.id].permissions = permissions.value


async def test_a_thread_without_send_messages_in_threads_is_refused_at_new(world: World) -> None:
    """Without Send Messages in Threads, /eights new in a thread says privately which permission is
    missing (as for Embed Links or Read Message History) and opens no table."""
    assert OLDER_INVITE.value == 117760
    _grant_the_bot(world, OLDER_INVITE)
    thread = make_thread(world.fake, world.guild, world.channel, "cards", type=11, owner=world.alice)
    answer = await world.run(world.alice, "new", channel=thread)
    assert answer.ephemeral, answer.content
    assert "Send Messages in Threads" in answer.content, answer.content
    assert await world.service.table_in_channel(thread.id) is None
    assert world.fake.channel_messages(thread) == []
    # Outside threads Send Messages is what counts: the channel itself takes a table.
    board = await world.run(world.alice, "new")
    assert not board.ephemeral, board.content
    assert await world.service.table_in_channel(world.channel.id) is not None


async def test_the_invite_s_permissions_hold_a_table_in_a_thread_or_a_forum_post(world: World) -> None:
    """With exactly the invite's permissions, a thread and a forum post each take a table; in a thread
    Send Messages is not needed (Discord asks for Send Messages in Threads there instead)."""
    _grant_the_bot(world, INVITE)
    thread = make_thread(world.fake, world.guild, world.channel, "cards", type=11, owner=world.alice)
    board = await world.run(world.alice, "new", channel=thread)
    assert not board.ephemeral, board.content
    forum = world.fake.create_channel(world.guild, "forum", type=15)
    post = make_thread(world.fake, world.guild, forum, "a post", type=11, owner=world.bob)
    posted = await world.run(world.bob, "new", channel=post)
    assert not posted.ephemeral, posted.content
    _grant_the_bot(world, discord.Permissions(INVITE.value & ~discord.Permissions(send_messages=True).value))
    other = make_thread(world.fake, world.guild, world.channel, "more", type=12, owner=world.bob)
    again = await world.run(world.bob, "new", channel=other)
    assert not again.ephemeral, again.content
    await world.settle()
    for where in (thread, post, other):
        assert await world.service.table_in_channel(where.id) is not None
