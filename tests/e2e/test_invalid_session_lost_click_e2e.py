"""An op 9 INVALID SESSION (not resumable): the bot identifies again, after discord.py's wait before a new
IDENTIFY; an interaction Discord sent to the dead session meanwhile is lost (Discord shows the player "This
interaction failed")."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import World

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


@SQLITE_ONLY
async def test_a_click_lost_to_an_invalid_session_changes_nothing_and_the_same_hand_works_after(
    world: World,
) -> None:
    """README (*Commands*): "Buttons of a hand that did not change keep working". The click lost with the
    dead session changes nothing (no half move, no line), and the player's second press of the same button,
    once the new session is READY, plays the card once; the board follows."""
    fake = world.fake
    assert world.bot is not None

    async def slow_identify(shard_id: int | None, *, initial: bool = False) -> None:
        await asyncio.sleep(1.0)  # discord.py waits 5 s before a new IDENTIFY; the fake test harness none

    world.service.seed_deals(1)  # alice leads with a playable card
    await world.run(world.alice, "new", target=1000)
    await world.run(world.bob, "join")
    hand = await (await fake.click(world.alice, world.board(), label="Start")).reply()
    await world.settle()
    button = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    before = await world.snapshot()
    lines_before = len(world.public_texts())

    world.bot.before_identify_hook = slow_identify  # type: ignore[method-assign]
    identifies = len(fake.identifies)
    assert await fake.drop_gateway(kind="invalid_session") == 1
    await asyncio.sleep(0.2)  # the client has closed the dead session's connection
    lost = await fake.click(world.alice, hand, button["custom_id"])  # to the dead session
    await fake.wait_for(lambda: len(fake.identifies) > identifies, timeout=15.0, what="a new IDENTIFY")
    await asyncio.sleep(0.5)
    await world.settle()
    assert lost.record.callback_type is None  # lost: "This interaction failed"
    assert (await world.snapshot()).seats[0].card_count == before.seats[0].card_count
    assert len(world.public_texts()) == lines_before

    again = await fake.click(world.alice, hand, button["custom_id"])
    await again.callback()
    await world.settle()
    after = await world.snapshot()
    assert after.seats[0].card_count == (before.seats[0].card_count or 0) - 1
    played = [t for t in world.public_texts()[lines_before:] if "alice played" in t]
    assert len(played) == 1, world.public_texts()[lines_before:]
    assert "**bob** to move" in world.board().text(), world.board().text()
    assert not fake.take_violations()
