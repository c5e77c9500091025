"""crazier-abilities' public lines as players read them: a player's name is written as they chose it."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World
from tests.e2e.crazier_play import open_table, stack_deals, stacked_deck


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
