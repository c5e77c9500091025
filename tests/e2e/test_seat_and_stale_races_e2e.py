"""A CPU's move racing the person taking their seat back; a card played from an old copy of a hand message.

Promise (README): "A button acts on the hand as you saw it when you pressed it: pressed twice at once (a
double tap), or after the hand changed, it answers "That move is no longer possible." privately and changes
nothing." Project guide: state and board consistent, no trace.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses

import pytest

from bot.service import NO_LONGER_POSSIBLE
from tests.e2e.board_checks import board_disagreements
from tests.e2e.conftest import World
from tests.e2e.race_steps import no_trace, private_answer, slow_commits, with_default_cpu_delay
from tests.e2e.test_hand_messages_e2e import fire, two_people


async def test_cpu_move_racing_join_taking_the_seat_back(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await with_default_cpu_delay(world)
    await two_people(world)
    left = await world.run(world.alice, "leave")
    assert "You left" in left.content
    before = await world.snapshot()
    assert before.seats[0].is_cpu and before.to_act == 0  # the CPU waits its delay to move for alice
    moves_before = len(await world.bot.store.moves(await world.table_id()))  # type: ignore[union-attr]
    slow_commits(world, monkeypatch)
    join = await world.fake.invoke(world.alice, world.channel, "eights join")
    await asyncio.gather(join.reply(), fire(world, "_on_cpu"))
    await asyncio.sleep(1.5)
    await world.settle()
    reply = await join.reply()
    assert reply.ephemeral and "Your hand" in reply.content and "You took your seat back." in reply.content
    snapshot = await world.snapshot()
    assert not snapshot.seats[0].is_cpu
    moves = await world.bot.store.moves(await world.table_id())  # type: ignore[union-attr]
    kinds = [m.action["kind"] for m in moves[moves_before:]]
    assert kinds.count("join") == 1 and kinds.count("cpu") <= 1, kinds
    # The hand alice was shown is the one she holds now (or the publisher updated it since).
    view = await world.service.hand(await world.table_id(), world.alice.id)
    shown = world.last_hand(world.alice).content
    assert all(card.label in shown for card in view.cards), (shown, [c.label for c in view.cards])
    assert not await board_disagreements(world)
    no_trace(caplog, world)


async def test_card_from_an_old_copy_of_the_hand_after_it_changed(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """alice's client still shows her hand as it was at her first turn (an edit it missed): at her next turn
    she presses a card of it that she still holds and may play. Refused, nothing changes."""
    hand = await two_people(world)
    old = dataclasses.replace(hand, components=copy.deepcopy(hand.components))  # what her client shows
    played = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    await (await world.fake.click(world.alice, hand, played["custom_id"])).reply()
    await world.settle()
    # bob moves; it is alice's turn again
    for _ in range(4):
        user = await world.human_to_act()
        if user is world.alice or user is None:
            break
        await world.play_by_buttons(user)
    assert await world.human_to_act() is world.alice
    table_id = await world.table_id()
    view = await world.service.hand(table_id, world.alice.id)
    held = {c.code for c in view.cards}
    stale = [
        b for b in old.buttons if ":play:" in b["custom_id"] and b["custom_id"].rsplit(":", 1)[1] in held
    ]
    assert stale, "no old card button to press"
    before = await world.snapshot()
    moves_before = len(await world.bot.store.moves(table_id))  # type: ignore[union-attr]
    click = await world.fake.click(world.alice, old, stale[0]["custom_id"])
    await click.callback()
    await world.settle()
    answer = private_answer(click)
    assert answer is not None and answer.content == NO_LONGER_POSSIBLE, (click.callback_type, answer)
    assert len(await world.bot.store.moves(table_id)) == moves_before  # type: ignore[union-attr]
    assert (await world.snapshot()).seats[0].card_count == before.seats[0].card_count
    no_trace(caplog, world)
