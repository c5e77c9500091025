"""Typed crazier-abilities moves: ``/eights effect`` without the choice its card needs (RULESETS.md, "A turn"
4: "A card that needs a choice ... its player makes it") is answered with the option to add, as an 8 without
its colour is, and changes nothing; a last 8 typed with a colour is played (it names none: the game ends)."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.crazier_play import inject, live_round, open_table


async def test_an_effect_typed_without_the_choice_it_needs_says_which_option_to_add(world: World) -> None:
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    # alice holds Forbidden Knowledge (a player) and Death (a card in play: bob's Castle).
    await inject(world, ["AB 2B 9B", "AO 2O"], "AG", in_play=["", "6O"], first=0, draw="4B")
    before = (await live_round(world)).to_json()
    no_player = await world.run(world.alice, "effect", card="2B")
    no_target = await world.run(world.alice, "effect", card="9B")
    await world.settle()
    assert (await live_round(world)).to_json() == before
    assert no_player.ephemeral and no_target.ephemeral
    assert "(player option)" in no_player.content, no_player.content
    assert "(target option)" in no_target.content, no_target.content
    # With the choice, it is played.
    played = await world.run(world.alice, "effect", card="2B", player="bob")
    assert played.ephemeral and "(player option)" not in played.content
    assert (await live_round(world)).effect_used[0]


async def test_a_last_eight_typed_with_a_colour_is_played_and_wins(world: World) -> None:
    # The engine offers a last 8 without a colour (the game ends with it); a colour typed with it is no
    # reason to refuse the winning move.
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    await inject(world, ["8P 3B", "AO 2O"], "5G", first=0, draw="9G KB QB")
    await world.run(world.alice, "effect", card="3B")  # Potion of Vitality: two more discards
    await world.run(world.alice, "play", card="9G")
    answer = await world.run(world.alice, "play", card="8P", suit="blue")
    await world.settle()
    rnd = await live_round(world)
    assert rnd.over and rnd.winners == [0], answer.content
