"""Who is called to move in a crazier-abilities team game (RULESETS.md, Teams: "A team takes its turn
together: each member does their own beginning-of-turn abilities, draw, discard and effect"): every person
of the team who may move is mentioned in the line and named on the board, and a member who may move only
once a teammate's beginning-of-turn choice is made is called then."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World
from tests.e2e.crazier_play import end_turn, live_round, open_table, pick, stack_deals, stacked_deck


async def test_a_team_turn_calls_every_person_of_the_team(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # alice and carol (people) against bob and a CPU; alice's team leads, and both may move at once.
    deck = stacked_deck(
        ["AB 2B 3B 9B 10B 7B 6B", "AO 2O 3O 9O 10O 7O 6O", "AG 2G 3G 9G 10G 7G 6G", "AP 2P 3P 9P 10P 7P 6P"],
        "KB",
    )
    stack_deals(monkeypatch, (deck, 0))
    await open_table(world, [world.alice, world.bob, world.carol], ("normal",), teams=True)
    snapshot = await world.snapshot()
    assert snapshot.crazier is not None and set(snapshot.crazier.acting) == {0, 2}
    calls = [line for line in world.public_texts() if "your turn" in line]
    assert calls and f"<@{world.alice.id}>" in calls[-1] and f"<@{world.carol.id}>" in calls[-1], calls
    description = world.board().embeds[0]["description"]
    assert "alice" in description and "carol" in description, description

    await pick(world, world.alice, "disc", "AB")
    await end_turn(world, world.alice)
    snapshot = await world.snapshot()
    assert snapshot.crazier is not None and snapshot.crazier.acting == (2,)  # carol alone is left to play
    assert "carol" in world.board().embeds[0]["description"]
    assert "alice" not in world.board().embeds[0]["description"]


async def test_a_member_who_may_move_once_a_teammates_choice_is_made_is_called(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # carol plays an Angel of Hope. Her team's next turn begins with her (the team's first player moves one
    # seat a team turn): the Angel asks her for a player before she draws, and alice's beginning of turn waits
    # for it. Only then may alice move.
    deck = stacked_deck(
        ["AB 2B 3B 4B 6B 7B 8B", "AO 2O 3O 4O 6O 7O 8O", "5G AG 2G 3G 4G 6G 7G", "AP 2P 3P 4P 6P 7P 8P"],
        "KB",
    )
    stack_deals(monkeypatch, (deck, 0))
    await open_table(world, [world.alice, world.bob, world.carol], ("easy",), teams=True)
    await end_turn(world, world.alice)
    await pick(world, world.carol, "eff", "5G")
    await end_turn(world, world.carol)
    await end_turn(world, world.bob)
    await world.until(lambda: _choice_of(world, 2), "carol's Angel of Hope to ask her", timeout=15.0)
    rnd = await live_round(world)
    assert rnd.acting == [2] and rnd.stage[0] == "start"  # alice's turn has not begun
    before = len(world.public_texts())

    await pick(world, world.carol, "pick", "2")  # a card for herself
    rnd = await live_round(world)
    assert set(rnd.acting) == {0, 2}
    await world.settle()
    after = world.public_texts()[before:]
    assert any(f"<@{world.alice.id}>" in line for line in after), after


async def _choice_of(world: World, seat: int) -> bool:
    rnd = await live_round(world)
    return rnd.choice is not None and rnd.choice["by"] == seat
