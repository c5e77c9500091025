"""Two clicks on the same move at the same moment: one applies, the other is told it is no longer possible."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.service import NO_LONGER_POSSIBLE
from tests.e2e.conftest import World
from tests.fakediscord.interactions import UPDATE_MESSAGE


async def test_two_clicks_on_the_same_card_apply_once(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    world.service.seed_deals(1)  # Alice leads with a card she can play: no auto-draw before the clicks
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    table_id = await world.table_id()
    before = await world.snapshot()
    assert world.bot is not None
    store = world.bot.store
    moves_before = len(await store.moves(table_id))

    # Both clicks reach the bot before the first move is stored: slow the commit down a little.
    commit = store.commit_move

    async def slow_commit(*args: Any, **kwargs: Any) -> int:
        await asyncio.sleep(0.05)
        return await commit(*args, **kwargs)

    monkeypatch.setattr(store, "commit_move", slow_commit)
    button = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    first = await world.fake.click(world.alice, hand, button["custom_id"])
    second = await world.fake.click(world.alice, hand, button["custom_id"])
    await asyncio.gather(first.callback(), second.callback())
    await world.settle()

    answers = sorted([first, second], key=lambda handle: handle.callback_type != UPDATE_MESSAGE)
    applied, refused = answers
    assert applied.callback_type == UPDATE_MESSAGE  # the hand, updated in place
    refusal = await refused.reply()
    assert refusal.ephemeral and refusal.content == NO_LONGER_POSSIBLE

    after = await world.snapshot()
    assert after.seats[0].card_count == before.seats[0].card_count - 1
    assert len(await store.moves(table_id)) == moves_before + 1
    played = [line for line in world.public_texts() if "alice played" in line]
    assert len(played) == 1 and played[0].count("alice played") == 1


async def test_two_clicks_on_draw_draw_one_card(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """A double tap on Draw (issue 13): a draw stays legal after the first one, yet only one card is drawn;
    the other press is answered privately and the hand message shows the hand after one draw."""
    world.service.seed_deals(1)  # Alice leads with a card she can play: no auto-draw before the clicks
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    table_id = await world.table_id()
    assert world.bot is not None
    store = world.bot.store
    moves_before = len(await store.moves(table_id))
    assert (await world.snapshot()).seats[0].card_count == 7

    commit = store.commit_move

    async def slow_commit(*args: Any, **kwargs: Any) -> int:
        await asyncio.sleep(0.05)
        return await commit(*args, **kwargs)

    monkeypatch.setattr(store, "commit_move", slow_commit)
    old_ids = {button["custom_id"] for button in hand.buttons}
    first = await world.fake.click(world.alice, hand, label="Draw")
    second = await world.fake.click(world.alice, hand, label="Draw")
    await asyncio.gather(first.callback(), second.callback())
    await world.settle()

    applied, refused = sorted([first, second], key=lambda handle: handle.callback_type != UPDATE_MESSAGE)
    assert applied.callback_type == UPDATE_MESSAGE
    refusal = await refused.reply()
    assert refusal.ephemeral and refusal.content == NO_LONGER_POSSIBLE
    assert len(await store.moves(table_id)) == moves_before + 1
    assert (await world.snapshot()).seats[0].card_count == 8

    # The hand message shows the eight cards Alice holds, the one drawn named once.
    shown = await applied.reply()
    view = await world.service.hand(table_id, world.alice.id)
    assert len(view.cards) == 8
    assert all(card.label in shown.content for card in view.cards)
    assert shown.content.count("You drew") == 1
    # Its controls are the new situation's: the first of them (Draw again, or a card) acts.
    assert shown.buttons and shown.buttons[0]["custom_id"] not in old_ids
    again = await world.fake.click(world.alice, shown, shown.buttons[0]["custom_id"])
    assert await again.callback() == UPDATE_MESSAGE
    await world.settle()
    assert len(await store.moves(table_id)) >= moves_before + 2
