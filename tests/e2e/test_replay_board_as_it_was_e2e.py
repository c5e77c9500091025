"""A replay step shows the board as the channel saw it at that moment (README, *Replays*: "each step with its
public lines and the board as it was"): its last plays and its host then, not the match's final ones. Each
test captures the live board at a moment of a match and compares it with the replay's step for that moment."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.replay_live import BoardLog, all_steps, board_fields, play_out, start_index
from tests.e2e.replay_steps import embed_field, open_replay_at, play_to_the_end, started_table
from tests.e2e.test_replays_e2e import StateLog, store_of


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


async def renamed_rejoin(world: World) -> tuple[int, BoardLog, int, int]:
    """alice, bob and an easy CPU play classic; bob leaves (a CPU plays his seat: the board reads "bob …
    CPU plays"), changes his server nickname to "Robert" and takes his seat back with /eights join (the
    board now reads "Robert"); the match is played out. The table, the boards captured, and the steps
    where bob had just left and had just come back."""
    table_id = await started_table(world, seed=3)
    start = await start_index(world, table_id)
    boards = BoardLog(world, table_id)
    await world.run(world.bob, "leave")
    await world.settle()
    left = await boards.capture(start)
    assert "**bob** (CPU plays, normal)" in boards.boards[left]["Seats"], boards.boards[left]
    world.guild.members[world.bob.id].nick = "Robert"
    rejoined = await world.run(world.bob, "join")
    assert rejoined.ephemeral, rejoined.content
    back = await boards.capture(start)
    assert "**Robert**" in board_fields(world.board().embeds[0])["Seats"]
    await play_out(world)
    return table_id, boards, left, back


async def test_a_step_before_a_rejoin_names_the_seat_as_the_board_did_then(world: World) -> None:
    """A player who takes their seat back under another name (their server nickname changed meanwhile) is
    named at each replay step as the channel's board named them then (README, *Replays*: "each step shows
    what the channel saw then"): by their old name at the deal and while the CPU played their seat, by the
    new one from the step they came back on; not by the name they came back with at every step."""
    table_id, boards, left, back = await renamed_rejoin(world)

    steps = await all_steps(world, world.carol, table_id)
    assert board_fields(steps[left].embed)["Seats"] == boards.boards[left]["Seats"]
    assert board_fields(steps[back].embed)["Seats"] == boards.boards[back]["Seats"]
    assert "**bob**" in board_fields(steps[0].embed)["Seats"]
    assert "**Robert**" in board_fields(steps[-1].embed)["Seats"]


async def test_a_forgotten_player_who_came_back_renamed_is_deleted_at_every_step(world: World) -> None:
    """The player who took their seat back under another name is then forgotten (forget-user): the replay
    names their seat "Deleted player" at every step, before and after they came back; neither the name
    they had nor the one they came back with shows again, on the board or in the step's lines."""
    table_id, _boards, left, back = await renamed_rejoin(world)
    await store_of(world).forget_user(world.bob.id)
    await world.restart()  # a replay built before is not reused

    steps = await all_steps(world, world.carol, table_id)
    for step in (steps[0], steps[left], steps[back], steps[-1]):
        assert "**Deleted player**" in board_fields(step.embed)["Seats"], step.embed
    for step in steps:
        shown = "\n".join([*board_fields(step.embed).values(), *step.lines])
        assert "bob" not in shown and "Robert" not in shown, shown
