"""Playing in any language: by custom ids (whatever the labels say), and collecting what was shown."""

from __future__ import annotations

from tests.e2e.conftest import World, message_text
from tests.fakediscord import FakeMessage, FakeUser


def hand_messages(world: World, user: FakeUser) -> list[FakeMessage]:
    return [
        m
        for m in world.fake.ephemeral_messages(user)
        if any(
            ":play:" in str(c.get("custom_id", ""))
            or ":draw" in str(c.get("custom_id", ""))
            or ":pass" in str(c.get("custom_id", ""))
            or ":suit:" in str(c.get("custom_id", ""))
            for c in m.iter_components()
        )
    ]


def board(world: World) -> FakeMessage:
    boards = [
        m
        for m in world.fake.channel_messages(world.channel)
        if any(
            ":hand" in str(c.get("custom_id", "")) or ":join" in str(c.get("custom_id", ""))
            for c in m.iter_components()
        )
    ]
    assert boards
    return boards[-1]


async def play_once(world: World, user: FakeUser) -> None:
    table_id = await world.table_id()
    hands = hand_messages(world, user)
    if not (hands and world.publisher.hand_is_fresh(table_id, user.id)):
        b = board(world)
        hand_button = next(c for c in b.buttons if c["custom_id"].endswith(":hand"))
        reply = await (await world.fake.click(user, b, hand_button["custom_id"])).reply()
        message = reply
    else:
        message = hands[-1]
    ids = [b["custom_id"] for b in message.buttons]
    suit = [i for i in ids if ":suit:" in i]
    play = [i for i in ids if ":play:" in i]
    draw = [i for i in ids if i.endswith(":draw")]
    pss = [i for i in ids if i.endswith(":pass")]
    if suit:
        handle = await world.fake.click(user, message, suit[0])
    elif play:
        handle = await world.fake.click(user, message, play[0])
    elif message.selects:
        s = message.selects[0]
        handle = await world.fake.select(user, message, s["custom_id"], [s["options"][0]["value"]])
    elif draw:
        handle = await world.fake.click(user, message, draw[0])
    elif pss:
        handle = await world.fake.click(user, message, pss[0])
    else:
        raise AssertionError(f"nothing to do: {message_text(message)!r} {ids}")
    await handle.reply()


async def play_match(world: World, max_moves: int = 600) -> None:
    for _ in range(max_moves):
        user = await world.human_to_act()
        if user is None:
            await world.settle()
            snapshot = (
                await world.snapshot() if await world.service.table_in_channel(world.channel.id) else None
            )
            if snapshot is None or snapshot.phase not in ("between", "round_over", "playing"):
                return
            return
        await play_once(world, user)
    raise AssertionError("too many moves")
