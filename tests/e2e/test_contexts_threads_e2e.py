"""Tables in threads: public and private threads of a text channel, forum posts, a voice channel's chat."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread, make_voice
from tests.e2e.test_bad_input import start_two


@pytest.mark.parametrize("kind", [11, 12, "forum", "voice"])
async def test_a_table_is_played_to_the_end_in_a_thread(world: World, kind: object) -> None:
    fake = world.fake
    if kind == "forum":
        forum = fake.create_channel(world.guild, "forum", type=15)
        where = make_thread(fake, world.guild, forum, "a post", type=11, owner=world.alice)
    elif kind == "voice":
        where = make_voice(fake, world.guild, "Lounge")
    else:
        where = make_thread(fake, world.guild, world.channel, "cards", type=int(kind), owner=world.alice)
    parent = world.channel
    world.channel = where  # every helper of the world now works in the thread
    world.service.seed_deals(1)
    await start_two(world)
    moves = await world.play_round_by_buttons()
    assert moves > 0
    await world.settle()
    texts = "\n".join(m.text() for m in fake.channel_messages(where))
    assert "Crazy Eights" in texts
    assert "won" in texts.lower() or "wins" in texts.lower(), texts[-500:]
    assert fake.channel_messages(parent) == []  # nothing leaked to the parent channel
