"""``/eights effect`` typed without the choice its card needs (RULESETS.md, crazier-abilities, "A turn" 4: "A
card that needs a choice ... its player makes it"): the answer says which option to add, as an 8 without its
colour does, and nothing changes."""

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
