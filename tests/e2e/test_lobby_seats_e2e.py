"""How many seats a lobby asks for and takes, and what /eights new answers in a channel whose table is open:
what the lobby board and the lobby's answers tell players and hosts, end to end through the fake Discord."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage


def public_state(world: World) -> list[tuple[int, int]]:
    """Every public message with its number of versions: equal before and after means nothing public
    was posted or edited."""
    return [(m.id, len(m.versions)) for m in world.fake.channel_messages(world.channel, include_deleted=True)]


def description(message: FakeMessage) -> str:
    return str(message.embeds[0].get("description", ""))


async def test_the_lobby_board_names_the_fewest_seats_the_rules_need(world: World) -> None:
    """The host raises "Fewest players" (``min_players``) to 4 in the lobby: /eights start refuses 2 or 3
    seats, and the board asks for the seats Start accepts, "with 4–7 seats" (as /eights new's own refusal
    names them: "Seats must be between {low} and {max}")."""
    board = await world.run(world.alice, "new")
    assert "2–7 seats" in description(world.board()), description(world.board())
    changed = await world.run(world.alice, "house", option="min_players", value="4")
    assert changed.ephemeral and "At least 4 players" in changed.content, changed.content
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()

    start = await world.run(world.alice, "start")
    assert start.ephemeral and "At least 4 seats" in start.content, start.content  # what Start accepts
    text = description(world.board())
    assert "2–7 seats" not in text, text
    assert "4–7 seats" in text, text


async def test_a_lobby_of_as_many_seats_as_it_needs_names_one_number(world: World) -> None:
    """A table opened with 2 seats (the fewest its rules start with) asks for "2 seats", not a range
    ("2–2 seats"); so does a crazier-abilities table of 2 seats."""
    await world.run(world.alice, "new", seats=2)
    text = description(world.board())
    assert "with 2 seats" in text and "2–2" not in text, text
    await world.run(world.alice, "end")
    await world.settle()

    await world.run(world.alice, "new", preset="crazier-abilities", seats=2)
    await world.settle()
    text = description(world.board())
    assert "with 2 seats" in text and "2–2" not in text, text


async def test_a_team_table_cannot_be_opened_with_a_seat_count_it_cannot_start(world: World) -> None:
    """README, /eights new: "`teams:True` with `crazier-abilities`: two teams seated alternately (4 or 6
    players)". /eights new with teams and 5 seats (full at five, a number Start refuses) is refused
    privately, naming 4 and 6, and opens nothing (as 3 seats is refused)."""
    before = public_state(world)
    answer = await world.run(world.alice, "new", preset="crazier-abilities", teams=True, seats=5)
    await world.settle()
    assert answer.ephemeral, "a team table of 5 seats was opened: " + answer.text()[:300]
    assert "4" in answer.content and "6" in answer.content, answer.content
    assert await world.service.table_in_channel(world.channel.id) is None
    assert public_state(world) == before


async def test_a_full_team_table_starts(world: World) -> None:
    """A team table is never full at a number of seats Start refuses: asked for 5 seats it is not opened;
    opened as it comes, it seats 6, and once two people and four CPU players sit down (nobody else can)
    it starts."""
    refused = await world.run(world.alice, "new", preset="crazier-abilities", teams=True, seats=5)
    assert refused.ephemeral and "4 or 6" in refused.content, refused.content
    opened = await world.run(world.alice, "new", preset="crazier-abilities", teams=True)
    assert not opened.ephemeral, opened.content
    await (await world.fake.click(world.bob, opened, label="Join")).callback()
    await world.settle()
    for _ in range(4):
        await (await world.fake.click(world.alice, world.board(), label="Add CPU")).callback()
        await world.settle()
    full = await world.run(world.carol, "join")
    assert "full" in full.content, full.content
    start = await world.run(world.alice, "start")
    await world.settle()
    assert (await world.snapshot()).phase == "playing", f"a full team table cannot start: {start.content!r}"


async def test_new_during_a_game_says_a_game_is_being_played(world: World) -> None:
    """Alice and Bob are playing; Carol, not seated, types /eights new. The private refusal says a game
    is being played here, to wait for it to end or watch it, and does not send her to /eights join, which
    takes nobody new during a game ("The game has already started; wait for the next table."). In the
    lobby the same refusal tells her to join."""
    board = await world.run(world.alice, "new")
    in_lobby = await world.run(world.carol, "new")
    assert in_lobby.ephemeral and "join it with /eights join" in in_lobby.content, in_lobby.content
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()

    before = public_state(world)
    answer = await world.run(world.carol, "new")
    await world.settle()
    assert answer.ephemeral and "already a table" in answer.content, answer.content
    assert "wait for it to end" in answer.content, answer.content
    assert "/eights join" not in answer.content, answer.content
    assert public_state(world) == before
    joined = await world.run(world.carol, "join")
    assert joined.ephemeral and "already started" in joined.content, joined.content
