"""A crazier-abilities player who lost the game (RULESETS.md, "Winning and losing": "A player who loses leaves
the game") reads so in their hand message, not "Not your turn." as if their turn would come."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.crazier_play import end_turn, fresh_hand, inject, live_round, open_table


async def test_a_player_who_lost_reads_that_they_are_out(world: World) -> None:
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob, world.carol])
    # carol moves first; then alice's Mordred finds bob holding twelve cards: he loses.
    await inject(
        world,
        ["AB", "AO 2O 3O 4O 5O 6O 7O 9O 10O JO QO KO", "AP 2P"],
        "AG",
        in_play=["QB", "", ""],
        first=2,
        draw="9B 4B",
    )
    await end_turn(world, world.carol)
    rnd = await live_round(world)
    assert not rnd.over and not rnd.alive[1], "bob lost to Mordred"
    hand = await fresh_hand(world, world.bob)
    assert "You are out of this game" in hand.content, hand.content
    assert "Not your turn." not in hand.content
    assert "You are out of this game" not in (await fresh_hand(world, world.carol)).content
