"""A rule's number is worded in the plural form its language gives it: one round is "1 Runde", a target of
one point "Ziel: 1 Punkt" (not "1 Runden", "1 Punkte")."""

from __future__ import annotations

from tests.e2e.conftest import World, message_text
from tests.e2e.language_play import board


async def test_one_round_house_rule_is_singular_on_a_german_board(world: World) -> None:
    world.guild.locale = "de"
    world.alice.locale = "de"
    await world.run(world.alice, "new", preset="classic")
    changed = await world.run(world.alice, "house", option="rounds", value="1")
    assert changed.ephemeral
    await world.settle()
    text = message_text(board(world)) + "\n" + changed.content
    assert "1 Runde" in text, text
    assert "1 Runden" not in text, text


async def test_target_of_one_point_is_singular_on_a_german_board(world: World) -> None:
    world.guild.locale = "de"
    world.alice.locale = "de"
    await world.run(world.alice, "new", preset="classic", target=1)
    await world.settle()
    text = message_text(board(world))
    assert "Ziel: 1 Punkt" in text, text
    assert "1 Punkte" not in text, text
