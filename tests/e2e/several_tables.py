"""Steps of the several-tables tests (``test_several_tables_e2e.py``; not tests): tables in any channel or
server, not only the world's own channel, played through each table's own controls."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.conftest import World
from tests.fakediscord import FakeChannel, FakeMessage, FakeUser

TABLE_OF_ID = re.compile(r"^e8[sm]?:(\d+):")


def boards_in(world: World, channel: FakeChannel) -> list[FakeMessage]:
    """The boards posted in ``channel`` (public messages with an embed titled "Crazy Eights…")."""
    return [
        m
        for m in world.fake.channel_messages(channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


def board_in(world: World, channel: FakeChannel) -> FakeMessage:
    """The latest board of ``channel``."""
    boards = boards_in(world, channel)
    assert boards, f"no board in {channel.name}"
    return boards[-1]


async def table_in(world: World, channel: FakeChannel) -> int:
    """The id of the open table of ``channel``."""
    table_id = await world.service.table_in_channel(channel.id)
    assert table_id is not None, f"no table in {channel.name}"
    return table_id


async def open_and_start(
    world: World, channel: FakeChannel, host: FakeUser, *others: FakeUser, **options: Any
) -> int:
    """Open a table in ``channel`` (host first), seat ``others`` with Join, start; returns its id."""
    board = await world.run(host, "new", channel=channel, **options)
    await world.settle()
    for user in others:
        await (await world.fake.click(user, board, label="Join")).callback()
        await world.settle()
    await (await world.fake.click(host, board, label="Start")).reply()
    await world.settle()
    return await table_in(world, channel)


def tables_named(message: FakeMessage) -> set[int]:
    """The table ids the message's controls name (custom ids "e8:<table>:…")."""
    found: set[int] = set()
    for component in message.iter_components():
        match = TABLE_OF_ID.match(str(component.get("custom_id", "")))
        if match:
            found.add(int(match.group(1)))
    return found


def tables_named_in_versions(message: FakeMessage) -> set[int]:
    """The table ids the controls of every version the message had name."""
    found: set[int] = set()
    for version in message.versions:
        for row in version.components:
            stack = [row]
            while stack:
                item = stack.pop()
                match = TABLE_OF_ID.match(str(item.get("custom_id", "")))
                if match:
                    found.add(int(match.group(1)))
                for key in ("components", "accessory"):
                    child = item.get(key)
                    if isinstance(child, list):
                        stack.extend(child)
                    elif isinstance(child, dict):
                        stack.append(child)
    return found


async def fire_at(world: World, table_id: int, handler_name: str) -> None:
    """Run one of the scheduler's timer handlers for ``table_id``, guarded as its timer runs it."""
    registry: Any = world.service._registry
    live = registry.get(table_id)
    assert live is not None
    scheduler = registry.scheduler
    await scheduler._guarded(getattr(scheduler, handler_name), table_id, live.version)()


def person_to_act(world: World, snap: Any, people: list[FakeUser]) -> FakeUser | None:
    """The one of ``people`` whose turn it is at the table of ``snap`` (None: a CPU's, or no turn)."""
    if snap.phase != "playing" or snap.to_act is None:
        return None
    seat = snap.seats[snap.to_act]
    if seat.is_cpu:
        return None
    return next((u for u in people if u.id == seat.user_id), None)


async def act_once(world: World, table: int, channel: FakeChannel, people: list[FakeUser]) -> bool:
    """The person to move at ``table`` makes one move through that table's own hand message (a suit, the
    first playable card, Draw, Pass). False when no person is to move there."""
    await world.settle()
    table_now = await world.service.table_in_channel(channel.id)
    if table_now != table:
        return False
    snap = await world.service.snapshot(table)
    user = person_to_act(world, snap, people)
    if user is None:
        return False
    hands = [
        m
        for m in world.fake.ephemeral_messages(user)
        if "Your hand" in m.content and m.channel_id == channel.id and tables_named(m) == {table}
    ]
    if hands and world.publisher.hand_is_fresh(table, user.id):
        message = hands[-1]
    else:
        message = await world.run(user, "hand", channel=channel)
    buttons = [x for x in message.buttons if ":suit:" in x["custom_id"]]
    buttons = buttons or [x for x in message.buttons if ":play:" in x["custom_id"]]
    if buttons:
        handle = await world.fake.click(user, message, buttons[0]["custom_id"])
    elif message.selects:
        select = message.selects[0]
        handle = await world.fake.select(user, message, select["custom_id"], [select["options"][0]["value"]])
    elif any(x["label"] == "Draw" for x in message.buttons):
        handle = await world.fake.click(user, message, label="Draw")
    elif any(x["label"] == "Pass" for x in message.buttons):
        handle = await world.fake.click(user, message, label="Pass")
    else:
        raise AssertionError(f"nothing to do: {message.content!r}")
    await handle.reply()
    await world.settle()
    return True


async def play_round(world: World, table: int, channel: FakeChannel, people: list[FakeUser]) -> None:
    """Play ``table``'s round to its end by buttons."""
    for _ in range(400):
        if await world.service.table_in_channel(channel.id) != table:
            return
        snap = await world.service.snapshot(table)
        if snap.phase != "playing":
            return
        if not await act_once(world, table, channel, people):
            await world.settle()
    raise AssertionError("the round did not end")


async def play_match_in(
    world: World, table: int, channel: FakeChannel, people: list[FakeUser], host: FakeUser
) -> None:
    """Play ``table``'s match to its end (rounds by buttons, "Next round" pressed by the host)."""
    for _ in range(20):
        await play_round(world, table, channel, people)
        if await world.service.table_in_channel(channel.id) != table:
            return
        await (await world.fake.click(host, board_in(world, channel), label="Next round")).callback()
        await world.settle()
    raise AssertionError("the match did not end")
