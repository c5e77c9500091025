"""Opening a table, seats, CPU players, starting and ending: slash commands and board buttons, end to end."""

from __future__ import annotations

import discord

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage


def public_state(world: World) -> list[tuple[int, int]]:
    """Every public message with its number of versions: equal before and after means nothing public
    was posted or edited."""
    return [(m.id, len(m.versions)) for m in world.fake.channel_messages(world.channel, include_deleted=True)]


async def refused(world: World, message: FakeMessage, before: list[tuple[int, int]], words: str) -> None:
    assert message.ephemeral, message.content
    assert words in message.content, message.content
    await world.settle()
    assert public_state(world) == before


async def test_new_posts_the_board_and_a_second_new_points_at_it(world: World) -> None:
    board = await world.run(world.alice, "new", preset="switch", seats=4)
    assert not board.ephemeral
    assert [b["label"] for b in board.buttons] == ["Join", "Leave", "Add CPU", "Start", "House rules"]
    text = board.text()
    assert "switch" in text and "alice" in text and "(host)" in text and "2–4 seats" in text

    before = public_state(world)
    second = await world.run(world.bob, "new")
    await refused(world, second, before, "already a table open")
    assert f"/{world.channel.id}/{board.id}" in second.content  # a link to the open table's board


async def test_join_leave_and_cpu_seats(world: World) -> None:
    board = await world.run(world.alice, "new")
    assert (await (await world.fake.click(world.bob, board, label="Join")).callback()) == 6  # silent update
    await world.settle()
    assert "bob" in world.board().text()

    before = public_state(world)
    again = await world.run(world.bob, "join")
    await refused(world, again, before, "already seated")
    again = await (await world.fake.click(world.bob, board, label="Join")).reply()
    await refused(world, again, before, "already seated")

    seated = await world.run(world.carol, "join")
    assert seated.ephemeral and "seated" in seated.content
    cpu = await world.run(world.alice, "cpu", level="hard")
    assert cpu.ephemeral
    await world.settle()
    text = world.board().text()
    assert "carol" in text and "CPU 1** (CPU, hard)" in text

    # Only the host adds CPU players.
    before = public_state(world)
    not_host = await (await world.fake.click(world.carol, board, label="Add CPU")).reply()
    await refused(world, not_host, before, "host")

    left = await world.run(world.carol, "leave")
    assert left.ephemeral and "left" in left.content
    await (await world.fake.click(world.bob, board, label="Leave")).callback()
    await world.settle()
    seats = world.board().embeds[0]["fields"][-1]["value"]
    assert "carol" not in seats and "bob" not in seats and "CPU 1" in seats


async def test_only_the_host_or_a_manager_starts_and_ends(world: World) -> None:
    manager = world.fake.create_user("mod")
    world.fake.add_member(world.guild, manager, permissions=discord.Permissions(manage_channels=True).value)
    board = await world.run(world.alice, "new")

    before = public_state(world)
    alone = await world.run(world.alice, "start")
    await refused(world, alone, before, "At least 2 seats")

    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    before = public_state(world)
    by_bob = await (await world.fake.click(world.bob, board, label="Start")).reply()
    await refused(world, by_bob, before, "host")
    by_bob = await world.run(world.bob, "end")
    await refused(world, by_bob, before, "host")

    # A member with Manage Channels may start and end a table they do not sit at.
    started = await world.run(manager, "start")
    assert started.ephemeral and "started" in started.content
    await world.settle()
    assert (await world.snapshot()).phase == "playing"
    ended = await world.run(manager, "end")
    assert ended.ephemeral
    await world.settle()
    assert "This table was closed." in world.board().text()
    assert world.board().buttons == []
    assert any("The table was ended" in text for text in world.public_texts())
    status = await world.run(world.alice, "status")
    assert status.ephemeral and "no open table" in status.content and "/eights new" in status.content


async def test_the_bot_names_the_permissions_it_lacks(world: World) -> None:
    bot_member = world.guild.members[world.fake.bot_user.id]
    bot_member.permissions = discord.Permissions(view_channel=True, send_messages=True).value
    answer = await world.run(world.alice, "new")
    assert answer.ephemeral
    assert "Embed Links" in answer.content and "Read Message History" in answer.content
    assert "Send Messages" not in answer.content
    assert world.fake.channel_messages(world.channel) == []
    assert await world.service.table_in_channel(world.channel.id) is None


async def test_commands_outside_a_table_channel_get_a_private_answer(world: World) -> None:
    await world.run(world.alice, "new")
    before = public_state(world)
    for command in ("join", "hand", "draw", "start", "status", "scores"):
        answer = await world.run(world.bob, command, channel=world.other_channel)
        assert answer.ephemeral and "no open table" in answer.content, (command, answer.content)
    answer = await world.run(world.bob, "play", channel=world.other_channel, card="KH")
    assert answer.ephemeral and "no open table" in answer.content
    assert world.fake.channel_messages(world.other_channel) == []
    assert public_state(world) == before


async def test_a_seated_player_in_another_channel_is_told_where_their_table_is(world: World) -> None:
    """A player at an open table (in its lobby, or playing, here at their turn) who types a command in
    another channel is answered privately with their table's channel (a <#channel> mention), not sent to
    open a second table while their turn runs out; nothing changes. A member seated nowhere is still told to
    open one with /eights new."""
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    yours = f"There is no table in this channel. Yours is in <#{world.channel.id}>."
    in_lobby = await world.run(world.bob, "hand", channel=world.other_channel)
    assert in_lobby.ephemeral and in_lobby.content == yours, in_lobby.content
    await world.run(world.alice, "start")
    await world.settle()
    snapshot = await world.snapshot()
    to_act = world.user_of(snapshot, snapshot.to_act) if snapshot.to_act is not None else None
    assert to_act is not None
    before = public_state(world)
    answer = await world.run(to_act, "play", channel=world.other_channel, card="KH")
    assert answer.ephemeral and answer.content == yours, answer.content
    stranger = await world.run(world.carol, "play", channel=world.other_channel, card="KH")
    assert stranger.ephemeral and "no open table" in stranger.content and "/eights new" in stranger.content
    await world.settle()
    assert world.fake.channel_messages(world.other_channel) == []
    assert public_state(world) == before
    assert (await world.snapshot()).to_act == snapshot.to_act


async def test_kick_hands_the_seat_to_a_cpu_player(world: World) -> None:
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await (await world.fake.click(world.carol, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()

    bobs_hand = await world.hand_message(world.bob)
    assert "Your hand" in bobs_hand.content
    before = public_state(world)
    by_carol = await world.run(world.carol, "kick", member=world.bob)
    await refused(world, by_carol, before, "host")

    kicked = await world.run(world.alice, "kick", member=world.bob)
    assert kicked.ephemeral and "bob" in kicked.content
    await world.settle()
    assert "bob** (CPU plays" in world.board().text()
    assert any("bob was removed" in text for text in world.public_texts())
    # The CPU plays for bob now, with cards that are not his: his hand message says he was removed, with
    # no buttons; his hand, his moves and a way back are refused privately.
    assert "You were removed" in bobs_hand.content and "Your hand" not in bobs_hand.content, bobs_hand.content
    assert not bobs_hand.buttons
    before = public_state(world)
    answer = await world.run(world.bob, "draw")
    await refused(world, answer, before, "You were removed")
    for command in ("hand", "join"):
        answer = await world.run(world.bob, command)
        assert answer.ephemeral and "You were removed" in answer.content and "Your hand" not in answer.content
