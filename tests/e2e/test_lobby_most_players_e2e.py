"""The "Most players" house rule on a table opened with a number of seats, end to end through the fake
Discord: what the host sets is what the lobby board asks for and what Join and Add CPU take, also after a
restart."""

from __future__ import annotations

from tests.e2e.conftest import World


def description(world: World) -> str:
    return str(world.board().embeds[0].get("description", ""))


async def test_raising_most_players_on_a_table_opened_with_seats_gives_the_seats_it_shows(
    world: World,
) -> None:
    """README, *House rules*: "Every option of the rules can be changed"; README, `/eights house`: "change one
    house rule of the table before the first deal".

    A table opened with `/eights new seats:3`; the host sets `max_players` to 5. The change is accepted
    ("House rule changed: At most 5 players"), the board lists "At most 5 players" and asks for "2–5 seats"
    (not "2–3"), and a fourth person pressing Join takes a seat rather than hearing "This table is full."."""
    await world.run(world.alice, "new", seats=3)
    await world.settle()
    assert "2–3 seats" in description(world), description(world)
    changed = await world.run(world.alice, "house", option="max_players", value="5")
    await world.settle()
    assert changed.ephemeral and "House rule changed" in changed.content, changed.content
    assert "At most 5 players" in world.board().text()
    assert "2–5 seats" in description(world), description(world)
    for user in (world.bob, world.carol):
        assert "seated" in (await world.run(user, "join")).content
    dave = world.fake.create_user("dave")
    world.fake.add_member(world.guild, dave)
    fourth = await world.run(dave, "join")
    await world.settle()
    assert "full" not in fourth.content, (
        f"the 4th join got: {fourth.content!r}; board: {description(world)!r}"
    )
    assert len((await world.snapshot()).seats) == 4


async def test_the_seats_most_players_set_survive_a_restart(world: World) -> None:
    """Opened with 3 seats and raised to 5 by "Most players", the table still asks for "2–5 seats" after the
    bot restarts; the host's Add CPU fills the 4th and 5th seats, and a 6th is refused as full."""
    await world.run(world.alice, "new", seats=3)
    await world.run(world.alice, "house", option="max_players", value="5")
    await world.run(world.bob, "join")
    await world.settle()
    await world.restart()
    await world.settle()
    assert "2–5 seats" in description(world), description(world)
    for _ in range(3):
        assert "full" not in (await world.run(world.alice, "cpu")).content
    await world.settle()
    sixth = await world.run(world.alice, "cpu")
    assert sixth.ephemeral and "This table is full." in sixth.content, sixth.content
    assert len((await world.snapshot()).seats) == 5


async def test_most_players_below_the_people_seated_is_refused_privately(world: World) -> None:
    """Three seated at a table opened with 3 seats: "Most players" 2 is refused privately with the reason,
    and the board still asks for "2–3 seats"."""
    await world.run(world.alice, "new", seats=3)
    for user in (world.bob, world.carol):
        await world.run(user, "join")
    refusal = await world.run(world.alice, "house", option="max_players", value="2")
    await world.settle()
    assert refusal.ephemeral and "3 players are seated; these rules allow at most 2." in refusal.content
    assert "2–3 seats" in description(world), description(world)
    assert "At most 2 players" not in world.board().text()
