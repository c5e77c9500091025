"""A match where a player left and a CPU took their seat over, replayed after that player used /eights forget
(README: "delete your own statistics everywhere"; forget-user makes "every copy of their id and name in
finished games" anonymous): the replay still shows what the channel saw, and no more."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.replay_steps import open_replay_at, play_to_the_end, started_table, step_index, step_lines
from tests.e2e.test_replays_e2e import replay, store_of

TAKEOVER = "A CPU player now plays for"


async def test_a_forgotten_players_private_notice_does_not_become_a_public_replay_line(world: World) -> None:
    """When bob left, the channel saw one line "A CPU player now plays for bob who left" (bob alone was also
    told privately). After bob is forgotten, the replay's step still shows that line once: the private notice
    to bob, its recipient blanked by forget, stays private rather than becoming a second public line."""
    table_id = await started_table(world)
    await world.run(world.bob, "leave")
    await world.settle()
    public = [line for text in world.public_texts() for line in text.splitlines() if TAKEOVER in line]
    assert len(public) == 1, public  # the channel saw it once
    await play_to_the_end(world)

    # Before forget: the step shows the line once.
    message = await replay(world, world.alice, table_id)
    for _ in range(200):
        if any(TAKEOVER in line for line in step_lines(message)):
            break
        message = await (await world.fake.click(world.alice, message, label="Next")).reply()
    before = [line for line in step_lines(message) if TAKEOVER in line]
    assert len(before) == 1, before
    index = step_index(message)

    await store_of(world).forget_user(world.bob.id)
    await world.restart()  # a replay built before is not reused (nor would it be: the seats changed)
    message = await open_replay_at(world, world.alice, table_id, index)
    after = [line for line in step_lines(message) if TAKEOVER in line]
    assert len(after) == 1, after
