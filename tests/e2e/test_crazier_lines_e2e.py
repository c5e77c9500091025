"""crazier-abilities' public lines as players read them: a player's name is written as they chose it, and a
reshuffle is told as what an effect or ability did only when it made room for that card's draw or look."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World
from tests.e2e.crazier_play import end_turn, inject, open_table, stack_deals, stacked_deck


async def test_a_line_that_begins_with_a_name_writes_it_as_the_player_chose_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # alice and a player named "Alice" sit at the table; alice leads and draws: the line must not say
    # "Alice drew 1 card", which names the other player.
    other = world.fake.create_user("Alice")
    world.fake.add_member(world.guild, other)
    deck = stacked_deck(
        ["AB 2B 3B 9B 10B 7B 6B", "AO 2O 3O 9O 10O 7O 6O", "AG 2G 3G 9G 10G 7G 6G"], "KP", draw="5P"
    )
    stack_deals(monkeypatch, (deck, 0))
    await open_table(world, [world.alice, world.bob, other])
    lines = [row for text in world.public_texts() for row in text.splitlines()]
    assert "alice drew 1 card." in lines or any(row.startswith("alice drew 1 card") for row in lines), lines
    assert not any(row.startswith("Alice drew") for row in lines), lines


async def test_the_turns_own_reshuffle_is_not_told_as_what_an_ability_did(world: World) -> None:
    # alice's Devious Dragon, alone in play, destroys itself at the beginning of her turn; then her turn's
    # draw finds the draw pile empty and the discard pile is shuffled into a new one: its own line, not the
    # Dragon's.
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    await inject(world, ["AB 2B", "AO 2O"], "AG", in_play=["JB", ""], first=1, draw="9B", rest="discard")
    await end_turn(world, world.bob)
    rows = [row for text in world.public_texts() for row in text.splitlines()]
    dragon = [row for row in rows if row.startswith("Devious Dragon:")]
    assert dragon and not any("shuffled" in row for row in dragon), dragon
    assert any(row.startswith("The discard pile") and "shuffled" in row for row in rows), rows


async def test_a_reshuffle_a_card_caused_is_told_as_what_it_did(world: World) -> None:
    # alice's Forbidden Knowledge makes bob draw two from an empty draw pile: the reshuffle is its doing.
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    await inject(world, ["AB 2B 3B", "AO 2O"], "AG", first=0, draw="9B", rest="discard")
    await world.run(world.alice, "effect", card="2B", player="bob")
    await world.settle()
    rows = [row for text in world.public_texts() for row in text.splitlines()]
    told = [row for row in rows if "Forbidden Knowledge" in row and "shuffled" in row]
    assert told, rows
