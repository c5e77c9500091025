"""A replay step shows the board as the channel saw it at that moment (README, *Replays*: "each step with its
public lines and the board as it was"): its last plays and its host then, not the match's final ones. Each
test captures the live board at a moment of a match and compares it with the replay's step for that moment."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.replay_steps import embed_field, open_replay_at, play_to_the_end, started_table
from tests.e2e.test_replays_e2e import StateLog


async def test_a_replay_step_shows_the_boards_last_plays_as_the_channel_saw_them(world: World) -> None:
    """After a few plays the live board's "Last plays" lists them; the replay's board for that same moment
    lists the same plays (not "—", which would say nothing had been played yet)."""
    log = StateLog()
    world.service.observe(log)
    table_id = await started_table(world)
    for _ in range(4):  # a few plays, so the live board has some to list
        user = await world.human_to_act()
        assert user is not None
        await world.play_by_buttons(user)
        await world.settle()
    live_last_plays = embed_field(world.board(), "Last plays")
    index = len(log.states) - 1  # the step of the state the live board shows now
    assert live_last_plays not in (None, "—"), live_last_plays
    await play_to_the_end(world)

    step = await open_replay_at(world, world.carol, table_id, index)
    assert embed_field(step, "Last plays") == live_last_plays


async def test_a_replay_step_names_the_host_the_board_named_then(world: World) -> None:
    """The host (alice) leaves during the match and the host role passes on to bob (README, *Time*: "the host
    role passes on"). The board at the deal named alice as the host, and so does the replay's first step;
    bob, host only later, is not named host there."""
    log = StateLog()
    world.service.observe(log)
    world.service.seed_deals(1)
    board = await world.run(world.alice, "new", preset="classic", target=1)
    for user in (world.bob, world.carol):
        await (await world.fake.click(user, board, label="Join")).callback()
    await world.settle()
    table_id = await world.table_id()
    await world.run(world.alice, "start")
    await world.settle()
    live_seats = embed_field(world.board(), "Seats")
    assert live_seats is not None and "**alice** (host)" in live_seats
    assert len(log.states) == 1  # the deal: step 1 of the replay
    left = await world.run(world.alice, "leave")
    assert left.ephemeral
    await world.settle()
    assert (await world.snapshot()).host_id == world.bob.id
    await play_to_the_end(world)

    step = await open_replay_at(world, world.carol, table_id, 0)
    seats = embed_field(step, "Seats")
    assert seats is not None
    assert "**alice** (host)" in seats and "**bob** (host)" not in seats, seats
