"""The server's list of table channels (`/eights settings allow_channel:`).

README, Inviting the bot: to keep the bot out of some channels, "list the allowed channels with `/eights
settings allow_channel:` (text, forum or voice channels; a listed channel's threads and forum posts count as
the channel): tables then open there only, and `/eights leaderboard`, `stats` and `history` asked anywhere
else answer privately."
"""

from __future__ import annotations

import discord

from bot.service import NO_TABLE
from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread, make_voice
from tests.e2e.test_standings_e2e import seed, two_matches


def _admin(world: World) -> object:
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=discord.Permissions(manage_guild=True).value)
    return admin


async def test_a_thread_of_a_listed_channel_may_hold_a_table(world: World) -> None:
    """With #eights on the list, `/eights new` in a thread of #eights opens a table there; a thread of a
    channel left off the list is refused, naming the listed channel."""
    admin = _admin(world)
    saved = await world.run(admin, "settings", allow_channel=world.channel)
    assert f"<#{world.channel.id}>" in saved.text()
    thread = make_thread(world.fake, world.guild, world.channel, "cards", type=11, owner=world.alice)
    answer = await world.run(world.alice, "new", channel=thread)
    await world.settle()
    assert await world.service.table_in_channel(thread.id) is not None, (
        f"a thread of the listed channel was refused: {answer.content!r}"
    )
    elsewhere = make_thread(world.fake, world.guild, world.other_channel, "off", type=11, owner=world.bob)
    refused = await world.run(world.bob, "new", channel=elsewhere)
    assert refused.ephemeral and f"<#{world.channel.id}>" in refused.content, refused.content
    assert await world.service.table_in_channel(elsewhere.id) is None


async def test_a_command_off_the_list_with_no_table_says_where_tables_are(world: World) -> None:
    """With #eights listed, `/eights play` (or any command needing a table) in #general, where no table may
    open, answers privately where tables are played, naming #eights as the refusal of `/eights new` there
    does, instead of "Open one with /eights new"; in the player's language. Nothing is posted or opened. In
    a thread of #eights, which may hold a table, the answer still says to open one with /eights new."""
    admin = _admin(world)
    await world.run(admin, "settings", allow_channel=world.channel)
    for command, options in (("play", {"card": "KH"}), ("status", {})):
        answer = await world.run(world.carol, command, channel=world.other_channel, **options)
        assert answer.ephemeral, answer.content
        assert answer.content == f"There is no table here: tables are played in <#{world.channel.id}>.", (
            command,
            answer.content,
        )
    world.carol.locale = "de"
    answer = await world.run(world.carol, "hand", channel=world.other_channel)
    assert (
        answer.ephemeral and answer.content == f"Hier ist kein Tisch: Gespielt wird in <#{world.channel.id}>."
    )
    await world.settle()
    assert world.fake.channel_messages(world.other_channel) == []
    assert await world.service.table_in_channel(world.other_channel.id) is None
    world.carol.locale = "en-US"
    thread = make_thread(world.fake, world.guild, world.channel, "cards", type=11, owner=world.carol)
    in_thread = await world.run(world.carol, "play", channel=thread, card="KH")
    assert in_thread.ephemeral and in_thread.content == NO_TABLE, in_thread.content


async def test_a_forum_or_a_voice_channel_may_be_listed(world: World) -> None:
    """A forum (whose posts hold tables) and a voice channel (whose text chat does) may be listed: a post of
    the forum and the voice channel's chat then hold tables, and #eights, left off, does not."""
    admin = _admin(world)
    forum = world.fake.create_channel(world.guild, "forum", type=15)
    voice = make_voice(world.fake, world.guild, "Lounge")
    await world.run(admin, "settings", allow_channel=forum)
    saved = await world.run(admin, "settings", allow_channel=voice)
    assert f"<#{forum.id}>" in saved.text() and f"<#{voice.id}>" in saved.text(), saved.text()
    post = make_thread(world.fake, world.guild, forum, "a post", type=11, owner=world.alice)
    await world.run(world.alice, "new", channel=post)
    await world.run(world.bob, "new", channel=voice)
    await world.settle()
    assert await world.service.table_in_channel(post.id) is not None
    assert await world.service.table_in_channel(voice.id) is not None
    refused = await world.run(world.alice, "new")
    assert refused.ephemeral and "Tables can only be opened in" in refused.content, refused.content
    assert await world.service.table_in_channel(world.channel.id) is None


async def test_the_list_keeps_public_answers_out_of_the_other_channels(world: World) -> None:
    """With only #eights listed, the leaderboard, stats and history asked in #general are answered
    privately and nothing is posted there; in #eights (and its threads) they stay public."""
    await seed(world, *two_matches(world))  # the server has standings to show
    admin = _admin(world)
    await world.run(admin, "settings", allow_channel=world.channel)
    for command in ("leaderboard", "stats", "history"):
        answer = await world.run(world.alice, command, channel=world.other_channel)
        assert answer.ephemeral, (command, answer.text()[:200])
        assert "alice" in answer.text() or f"<@{world.alice.id}>" in answer.text(), (command, answer.text())
    assert world.fake.channel_messages(world.other_channel) == []
    public = await world.run(world.alice, "leaderboard")
    assert not public.ephemeral
    assert len(world.fake.channel_messages(world.channel)) == 1
    thread = make_thread(world.fake, world.guild, world.channel, "chat", type=11, owner=world.alice)
    in_thread = await world.run(world.alice, "stats", channel=thread)
    assert not in_thread.ephemeral
    # Without a list, every channel has them in public again.
    await world.run(admin, "settings", clear_channels=True)
    again = await world.run(world.alice, "leaderboard", channel=world.other_channel)
    assert not again.ephemeral and len(world.fake.channel_messages(world.other_channel)) == 1
