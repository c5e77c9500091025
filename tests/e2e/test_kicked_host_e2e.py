"""A host a manager removed from the table is host no more.

README, Commands: `/eights kick member` — a CPU takes over the seat, "and what it does there is the CPU's, not
theirs"; a removed host's role passes to the next person playing their own seat, else the table has no host
(managers can still end it) until a person takes their seat back with `/eights join`.
"""

from __future__ import annotations

import discord

from tests.e2e.conftest import World


async def _kicked_host(world: World) -> object:
    """alice hosts a match with bob and a CPU; bob steps away (a CPU plays his seat), then a member with
    Manage Channels removes alice: nobody is left playing a seat of their own. The CPUs then wait a minute
    a move, so the table is still being played when the tests act (with no wait, three CPUs could finish
    the match, and close the table, before alice's next command)."""
    mod = world.fake.create_user("mod")
    world.fake.add_member(world.guild, mod, permissions=discord.Permissions(manage_channels=True).value)
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    left = await world.run(world.bob, "leave")  # bob steps away for a while: a CPU plays his seat
    assert "You left" in left.content
    await world.settle()
    world.service._scheduler._cpu_delay = 60.0  # type: ignore[attr-defined]
    kicked = await world.run(mod, "kick", member=world.alice)
    assert kicked.ephemeral and "alice was removed" in kicked.content, kicked.content
    await world.settle()
    return mod


async def test_a_removed_host_cannot_end_the_table(world: World) -> None:
    """Once removed, alice has no say over the table: `/eights end` by her is refused privately and the
    table goes on; a manager may still end it."""
    mod = await _kicked_host(world)
    answer = await world.run(world.alice, "end")
    await world.settle()
    assert await world.service.table_in_channel(world.channel.id) is not None, (
        f"the removed host ended the table (she was answered {answer.content!r})"
    )
    assert answer.ephemeral and "Only the host" in answer.content, answer.content
    ended = await world.run(mod, "end")
    await world.settle()
    assert ended.ephemeral and await world.service.table_in_channel(world.channel.id) is None


async def test_a_removed_host_cannot_kick_the_other_players(world: World) -> None:
    """The removed host cannot remove bob, who stepped away: he takes his seat back with /eights join."""
    await _kicked_host(world)
    answer = await world.run(world.alice, "kick", member=world.bob)
    await world.settle()
    assert answer.ephemeral and "Only the host" in answer.content, answer.content
    back = await world.run(world.bob, "join")
    assert "Your hand" in back.content, f"bob was barred from his seat: {back.content!r}"


async def test_the_board_names_no_removed_member_host_and_the_first_back_takes_it(world: World) -> None:
    """The board does not call the removed member host: the table has none until a person comes back, who
    takes the role (and may then end the table)."""
    await _kicked_host(world)
    snapshot = await world.snapshot()
    assert snapshot.host_id != world.alice.id
    assert not any(seat.is_host for seat in snapshot.seats)
    assert "(host" not in world.board().text(), world.board().text()
    await world.run(world.bob, "join")
    await world.settle()
    assert (await world.snapshot()).host_id == world.bob.id
    assert "**bob** (host)" in world.board().text(), world.board().text()
    ended = await world.run(world.bob, "end")
    await world.settle()
    assert ended.ephemeral and await world.service.table_in_channel(world.channel.id) is None
