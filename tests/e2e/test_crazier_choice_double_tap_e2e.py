"""A pending beginning-of-turn choice answered twice at once (a double tap on the hand's choice select) when
the same ability waits again in the same turn (two Elven Princesses, two Angels of Hope): the first press
answers the choice shown, the second is refused "That move is no longer possible." and answers nothing, not
the next choice, which offers the same moves but was never shown.

README, Commands: "A button acts on the hand as you saw it when you pressed it: pressed twice at once (a
double tap), or after the hand changed, it answers "That move is no longer possible." privately and changes
nothing."; RULESETS.md, "A turn" 4: "A card that needs a choice ... its player makes it"."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import World
from tests.e2e.crazier_play import fresh_hand, inject, live_round, open_table, select_of
from tests.e2e.race_steps import slow_commits


async def _double_tap(world: World, monkeypatch: pytest.MonkeyPatch, value: str) -> list[str]:
    """alice presses ``value`` in her hand's choice select twice at once (commits slowed so both presses are
    in flight together); the two replies."""
    message = await fresh_hand(world, world.alice)
    select = select_of(message, "pick")
    assert select is not None, message.content
    custom_id = str(select["custom_id"])
    slow_commits(world, monkeypatch, 0.1)
    first = await world.fake.select(world.alice, message, custom_id, [value])
    second = await world.fake.select(world.alice, message, custom_id, [value])
    replies = await asyncio.gather(first.reply(), second.reply())
    await world.settle()
    return [r.content for r in replies]


async def test_a_double_tap_on_a_princess_look_answers_only_the_card_shown(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice controls two Elven Princesses: she is shown 9G and asked keep-or-move. A double tap on "Move it
    to the bottom" moves 9G; the second press is refused, and 10G (the second Princess's look, never shown to
    her) stays on top, waiting for her own answer."""
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    rnd = await inject(
        world, ["AB 2B 3O", "AO 2O 3P"], "KG AG", in_play=["4B 4P", ""], first=0, draw="9G 10G 3G"
    )
    assert rnd.choice is not None and rnd.choice["kind"] == "look"
    answers = await _double_tap(world, monkeypatch, "move")
    rnd = await live_round(world)
    assert rnd.draw[-1] == "10G", (rnd.draw[-3:], answers)
    assert rnd.choice is not None and rnd.choice["kind"] == "look", rnd.choice
    assert any("no longer possible" in a for a in answers), answers


async def test_a_double_tap_on_an_angel_of_hope_makes_the_player_draw_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice controls two Angels of Hope; the first asks her for a player and she double-taps bob: bob draws
    one card and the second press is refused (the second Angel's choice still waits for her)."""
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    rnd = await inject(
        world, ["AB 2B 3O", "AO 2O 3P"], "KG AG", in_play=["5B 5P", ""], first=0, draw="9G 10G 3G"
    )
    assert rnd.choice is not None and rnd.choice["kind"] == "player"
    answers = await _double_tap(world, monkeypatch, "1")
    rnd = await live_round(world)
    assert len(rnd.hands[1]) == 4, (rnd.hands[1], answers)
    assert rnd.choice is not None and rnd.choice["kind"] == "player", rnd.choice
    assert any("no longer possible" in a for a in answers), answers
