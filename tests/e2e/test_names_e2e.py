"""A display name that reads as a mention reaches the channel as text, end to end."""

from __future__ import annotations

import json
import re

from bot.ui.names import plain_name, shown_name
from tests.e2e.conftest import World
from tests.fakediscord import FakeUser


async def _a_move_each(world: World, name: str) -> None:
    """Mallory, displayed as ``name``, opens a table; alice joins; mallory starts it; each moves once (the
    lines name them)."""
    mallory = world.fake.create_user(name)
    world.fake.add_member(world.guild, mallory)
    board = await world.run(mallory, "new", target=1000)
    await (await world.fake.click(world.alice, board, label="Join")).callback()
    await world.settle()
    await (await world.fake.click(mallory, world.board(), label="Start")).reply()
    await world.settle()
    for _ in range(2):
        snapshot = await world.snapshot()
        assert snapshot.to_act is not None
        user = mallory if snapshot.seats[snapshot.to_act].user_id == mallory.id else world.alice
        await world.play_by_buttons(user)
        await world.settle()


async def test_a_name_written_as_a_mention_reaches_the_channel_escaped(world: World) -> None:
    # Mallory calls herself by carol's mention; carol does not play, so nothing at the table may mention her.
    impostor = f"<@{world.carol.id}>"
    await _a_move_each(world, impostor)
    texts = [m.text() for m in world.fake.channel_messages(world.channel)]
    texts += [version.content for m in world.fake.channel_messages(world.channel) for version in m.versions]
    assert not any(impostor in text for text in texts), [t for t in texts if impostor in t]
    assert shown_name(impostor) in world.board().text()


async def test_a_name_hiding_a_masked_link_behind_isolate_controls_reaches_the_channel_as_text(
    world: World,
) -> None:
    """README (Cards, emojis and the board picture): a display name "with markdown or as a link (`https://…`)
    reads as typed and is neither". Mallory, displayed as "[Claim your prize]\\u2066(https:\\u2066//evil…)",
    opens a table and plays: no version of any public message (its content or its embeds: the board) holds
    a masked link, words leading to evil.example."""
    await _a_move_each(world, "[Claim your prize]\u2066(https:\u2066//evil.example)")
    masked_link = re.compile(r"(?<!\\)\[[^\]]*\]\(https?://")
    shown = [
        version.content + json.dumps(version.embeds, ensure_ascii=False)
        for message in world.fake.channel_messages(world.channel)
        for version in [*message.versions, message]
    ]
    live = [text for text in shown if masked_link.search(text)]
    assert not live, f"{len(live)} public message version(s) hold a masked link, e.g. {live[0][:300]!r}"


RLO_NAME = "\u202eevil"  # a right-to-left override, then text


async def _play_match(world: World, host: FakeUser) -> int:
    board = await world.run(host, "new", preset="classic", target=1)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    table_id = await world.table_id()
    await world.run(host, "start")
    await world.settle()
    for _ in range(20):
        await world.play_round_by_buttons()
        if await world.service.table_in_channel(world.channel.id) is None:
            return table_id
        await (await world.fake.click(host, world.board(), label="Next round")).callback()
        await world.settle()
    raise AssertionError("the match did not end")


async def test_history_and_replay_choices_isolate_a_right_to_left_name(world: World) -> None:
    """A player named with a right-to-left override: the public /eights history's Replay select and the
    /eights replay autocomplete list the match as "#1 classic: <names in order of place>", the name
    isolated (not, the override would reverse the rest of the label: "bob ,live")."""
    mallory = world.fake.create_user(RLO_NAME)
    world.fake.add_member(world.guild, mallory)
    world.alice = mallory  # the helpers find the people to move among alice, bob and carol
    await _play_match(world, mallory)
    history = await world.run(world.bob, "history")
    labels = [str(o["label"]) for s in history.selects for o in s["options"]]
    choices = await world.fake.autocomplete(world.bob, world.channel, "eights replay", "match", "")
    shown = labels + [str(c["name"]) for c in choices]
    assert len(shown) == 2
    for text in shown:
        assert plain_name(RLO_NAME) in text, repr(text)
