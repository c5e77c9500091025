"""Steps the replay tests share (not tests themselves): a started table, reading a field of a board or replay
step, opening a replay at a given step, and playing a match to its end by buttons."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.test_hand_messages_e2e import fire
from tests.e2e.test_replays_e2e import replay
from tests.fakediscord import FakeMessage, FakeUser


async def started_table(world: World, seed: int = 1) -> int:
    """alice opens a one-round classic table (deal ``seed``), bob joins, a CPU (easy) too, alice starts it;
    returns the table's id."""
    world.service.seed_deals(seed)
    board = await world.run(world.alice, "new", preset="classic", target=1)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    table_id = await world.table_id()
    await world.run(world.alice, "start")
    await world.settle()
    return table_id


def embed_field(message: FakeMessage, name: str) -> str | None:
    """The value of the message's first embed's field ``name``; None when it has none."""
    for f in message.embeds[0].get("fields", []):
        if f["name"] == name:
            return str(f["value"])
    return None


def step_lines(message: FakeMessage) -> list[str]:
    """The public lines a replay step shows ("This step")."""
    return (embed_field(message, "This step") or "").splitlines()


def step_index(message: FakeMessage) -> int:
    """The 0-based step a replay message shows (its title says "step N of M")."""
    return int(str(message.embeds[0]["title"]).split("step ", 1)[1].split(" ", 1)[0]) - 1


async def open_replay_at(world: World, viewer: FakeUser, table_id: int, index: int) -> FakeMessage:
    """The replay opened by ``viewer``, moved with Next to step ``index`` (0-based)."""
    message = await replay(world, viewer, table_id)
    for _ in range(index):
        message = await (await world.fake.click(viewer, message, label="Next")).reply()
    assert step_index(message) == index, message.embeds[0]["title"]
    return message


async def play_to_the_end(world: World) -> None:
    """Play the channel's match to its end by buttons (the pause between rounds run out at once)."""
    for _ in range(2000):
        if await world.service.table_in_channel(world.channel.id) is None:
            return
        snap = await world.snapshot()
        if snap.phase == "between_rounds":
            await fire(world, "_on_pause_over")
            await world.settle()
            continue
        user = await world.human_to_act()
        if user is not None:
            await world.play_by_buttons(user)
        await world.settle()
    raise AssertionError("the match did not end")
