"""A player's move racing something else at the table: the host ending it, the host kicking that player,
the player's own /eights leave against their turn's timeout.

Promise (project guide): "two clicks at once ... gets a clear short answer and changes nothing"; nobody sees
a stack trace; state and board stay consistent.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.service import NO_LONGER_POSSIBLE
from tests.e2e.board_checks import board_disagreements
from tests.e2e.conftest import World
from tests.e2e.race_steps import fire_turn_timeout, no_trace, private_answer, slow_commits
from tests.e2e.test_hand_messages_e2e import two_people

CLEAR_ANSWERS = {
    NO_LONGER_POSSIBLE,
    "This button has expired.",
    "This table has finished; this button has expired.",
    "The table is closed.",
    "You were removed from this table.",
    "A CPU player has your seat; use /eights join to take it back.",
}


async def test_end_racing_a_card_click(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """/eights end by the host while the host's card click is on its way: both answered, one move log."""
    hand = await two_people(world)
    table_id = await world.table_id()
    slow_commits(world, monkeypatch)
    button = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    click = await world.fake.click(world.alice, hand, button["custom_id"])
    end = await world.fake.invoke(world.alice, world.channel, "eights end")
    await asyncio.gather(click.callback(), end.callback())
    await world.settle()
    assert (await end.reply()).content == "The table is closed."
    answer = private_answer(click)
    shown = answer.content if answer is not None else (await click.reply()).content
    assert "Your hand" in shown or any(text in shown for text in CLEAR_ANSWERS), shown
    assert await world.service.table_in_channel(world.channel.id) is None
    assert "The table is closed" in world.board().text() or world.board().buttons == []
    del table_id
    no_trace(caplog, world)


async def test_kick_racing_the_kicked_players_move(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The host kicks bob while bob's card click is on its way: bob gets a clear answer; his seat is the
    CPU's; the board agrees with the state."""
    hand = await two_people(world)
    await (
        await world.fake.click(
            world.alice, hand, next(b for b in hand.buttons if ":play:" in b["custom_id"])["custom_id"]
        )
    ).reply()
    await world.settle()
    assert world.user_of(await world.snapshot(), (await world.snapshot()).to_act or 0) is world.bob
    bob_hand = await world.hand_message(world.bob)
    move = next(
        (b for b in bob_hand.buttons if ":play:" in b["custom_id"]),
        next((b for b in bob_hand.buttons if b["label"] == "Draw"), None),
    )
    assert move is not None, bob_hand.content
    slow_commits(world, monkeypatch)
    click = await world.fake.click(world.bob, bob_hand, move["custom_id"])
    kick = await world.fake.invoke(world.alice, world.channel, "eights kick", member=world.bob)
    await asyncio.gather(click.callback(), kick.callback())
    await world.settle()
    assert "was removed" in (await kick.reply()).content
    answer = private_answer(click)
    shown = answer.content if answer is not None else (await click.reply()).content
    assert "Your hand" in shown or any(text in shown for text in CLEAR_ANSWERS), shown
    snapshot = await world.snapshot()
    assert snapshot.seats[1].is_cpu
    assert not await board_disagreements(world)
    no_trace(caplog, world)


async def test_leave_racing_own_turn_timeout(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """alice types /eights leave as her turn's time runs out: one takeover, one timeout at most, a clear
    answer, the board as the state."""
    await two_people(world)
    slow_commits(world, monkeypatch)
    leave = await world.fake.invoke(world.alice, world.channel, "eights leave")
    await asyncio.gather(leave.callback(), fire_turn_timeout(world))
    await world.settle()
    assert "You left" in (await leave.reply()).content
    texts = "\n".join(world.public_texts())
    assert texts.count("alice left") + texts.count("takes over") <= 2, texts
    snapshot = await world.snapshot()
    assert snapshot.seats[0].is_cpu
    assert not await board_disagreements(world)
    no_trace(caplog, world)
