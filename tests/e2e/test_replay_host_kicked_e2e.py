"""A replay step's board names the host the channel's board named then (README, *Replays*: "each step shows
what the channel saw then (its lines and the board …)"), also after a manager removed the host and nobody
was left to take the role (README, Commands, `/eights kick member`: "a removed host's role passes to the next
person playing their own seat, else the table has no host")."""

from __future__ import annotations

import discord

from tests.e2e.conftest import World
from tests.e2e.replay_live import BoardLog, all_steps, board_fields, play_out, start_index


async def test_a_step_after_the_host_was_kicked_shows_no_host_as_the_board_did(world: World) -> None:
    """alice hosts a match with bob and a CPU; bob steps away (a CPU plays his seat), then a manager removes
    alice: the table has no host, and the live board's Seats field names nobody "(host" until bob takes his
    seat back. The replay's step for that moment shows the same Seats field, not alice as host."""
    mod = world.fake.create_user("mod")
    world.fake.add_member(world.guild, mod, permissions=discord.Permissions(manage_channels=True).value)
    world.service.seed_deals(3)
    board = await world.run(world.alice, "new", preset="classic", target=100)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    table_id = await world.table_id()
    await world.run(world.alice, "start")
    await world.settle()
    start = await start_index(world, table_id)
    boards = BoardLog(world, table_id)
    await world.run(world.bob, "leave")
    await world.settle()
    kicked = await world.run(mod, "kick", member=world.alice)
    assert kicked.ephemeral and "alice was removed" in kicked.content, kicked.content
    # CPUs play every seat now: round 1 runs to its end, and the pause before round 2 waits.
    await world.settle()
    assert (await world.snapshot()).phase == "between_rounds"
    no_host = await boards.capture(start)
    assert "(host" not in boards.boards[no_host]["Seats"], boards.boards[no_host]
    await world.run(world.bob, "join")
    await world.settle()
    await play_out(world)

    steps = await all_steps(world, world.carol, table_id)
    assert board_fields(steps[no_host].embed)["Seats"] == boards.boards[no_host]["Seats"]
