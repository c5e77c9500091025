"""A player's hand message follows the table when it stops being theirs to play: a CPU taking the seat over
after timeouts, or the table closed by its host. It never goes on saying "Your turn" with card buttons."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage


async def fire(world: World, handler_name: str) -> None:
    """Run one of the scheduler's timer handlers for the channel's table, guarded as its timer runs it (the
    end-to-end tests use real time: no waiting for a turn's minute)."""
    table_id = await world.table_id()
    registry: Any = world.service._registry
    live = registry.get(table_id)
    assert live is not None
    scheduler = registry.scheduler
    await scheduler._guarded(getattr(scheduler, handler_name), table_id, live.version)()


async def two_people(world: World, **options: object) -> FakeMessage:
    world.service.seed_deals(1)  # alice leads with a playable card (10♦, 7♥, J♥)
    board = await world.run(world.alice, "new", **options)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    assert "Your turn" in hand.content and any(":play:" in b["custom_id"] for b in hand.buttons)
    return hand


def card_buttons(message: FakeMessage) -> list[str]:
    return [str(b["label"]) for b in message.buttons if ":play:" in b["custom_id"]]


async def test_the_hand_message_says_so_when_a_cpu_takes_the_seat_over(world: World) -> None:
    # alice lets her turn run out three times: the third timeout hands her seat to a CPU.
    await two_people(world, target=1000)
    for _ in range(200):
        snap = await world.snapshot()
        if snap.seats[0].is_cpu:
            break
        if snap.phase == "between_rounds":
            await fire(world, "_on_pause_over")
        else:
            user = await world.human_to_act()
            if user is world.alice:
                await fire(world, "_on_turn_timeout")
            elif user is world.bob:
                await world.play_by_buttons(world.bob)
        await world.settle()
    assert (await world.snapshot()).seats[0].is_cpu, "alice's seat was never taken over"
    assert any("A CPU player now plays for alice" in t for t in world.public_texts())
    shown = world.last_hand(world.alice)
    assert "Your turn" not in shown.content and not card_buttons(shown), shown.content
    assert "A CPU player is playing your seat" in shown.content


async def test_the_hand_message_says_so_when_the_host_ends_the_table(world: World) -> None:
    hand = await two_people(world)  # alice, the host, is to move
    ended = await world.run(world.alice, "end")
    assert ended.ephemeral
    await world.settle()
    assert "This table was closed." in world.board().text()
    assert hand.content == "The table is closed." and not hand.buttons


async def test_a_move_from_an_older_hand_message_brings_the_newer_one_up_to_date(world: World) -> None:
    """alice has two hand messages (Start's answer, then "My hand"'s) and plays from the older one: the newer
    one, refreshed until then, shows her hand after the move too, not her old cards and live turn
    controls."""
    older = await two_people(world, target=1000)
    newer = await (await world.fake.click(world.alice, world.board(), label="My hand")).reply()
    await world.settle()
    assert newer.id != older.id and card_buttons(newer)
    button = next(b for b in older.buttons if ":play:" in b["custom_id"])
    await (await world.fake.click(world.alice, older, button["custom_id"])).reply()
    await world.settle()
    assert (await world.snapshot()).to_act == 1  # bob's turn now
    assert not card_buttons(newer), newer.content
    assert "Your turn" not in newer.content
    assert newer.content.split("\n")[-1] == older.content.split("\n")[-1], (newer.content, older.content)
