"""A display name that reads as a mention reaches the channel as text, end to end."""

from __future__ import annotations

from bot.ui.names import shown_name
from tests.e2e.conftest import World


async def test_a_name_written_as_a_mention_reaches_the_channel_escaped(world: World) -> None:
    # Mallory calls herself by carol's mention; carol does not play, so nothing at the table may mention her.
    impostor = f"<@{world.carol.id}>"
    mallory = world.fake.create_user(impostor)
    world.fake.add_member(world.guild, mallory)
    board = await world.run(mallory, "new", target=1000)
    await (await world.fake.click(world.alice, board, label="Join")).callback()
    await world.settle()
    await (await world.fake.click(mallory, world.board(), label="Start")).reply()
    await world.settle()
    for _ in range(2):  # a move by each: the lines name them
        snapshot = await world.snapshot()
        assert snapshot.to_act is not None
        user = mallory if snapshot.seats[snapshot.to_act].user_id == mallory.id else world.alice
        await world.play_by_buttons(user)
        await world.settle()
    texts = [m.text() for m in world.fake.channel_messages(world.channel)]
    texts += [version.content for m in world.fake.channel_messages(world.channel) for version in m.versions]
    assert not any(impostor in text for text in texts), [t for t in texts if impostor in t]
    assert shown_name(impostor) in world.board().text()
