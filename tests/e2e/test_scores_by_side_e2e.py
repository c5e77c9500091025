"""Scores told by side, as players read them: a Crazier Eights team match's /eights scores and board name each
team once with the team's score, a partnership's board and round line name each side once, and the slash
commands a manager may use say so in their descriptions."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.test_crazier import click_move, start_team_game_of_four


async def _first_team_game_over(world: World) -> None:
    """alice & carol against bob & CPU 1 (crazier-abilities teams, seed 5), played to the end of game 1."""
    await start_team_game_of_four(world)
    for _ in range(3000):
        user = await world.human_to_act()
        if user is None:
            break
        await click_move(world, user)
    await world.settle()
    snapshot = await world.snapshot()
    assert snapshot.phase == "between_rounds" and snapshot.teams, snapshot.phase
    # The team that went out scores 0, the other team the cards it held, held by both members alike.
    assert snapshot.totals[0] == snapshot.totals[2] and snapshot.totals[1] == snapshot.totals[3]
    assert snapshot.totals[1] > 0


async def first_partnership_round_over(world: World) -> None:
    """alice & CPU 2 against CPU 1 & CPU 3 (classic with the partnership house rule, seed 3), played to the
    end of round 1."""
    world.service.seed_deals(3)
    await world.run(world.alice, "new", preset="classic", target=500)
    await world.run(world.alice, "house", option="partnership", value="on")
    for level in ("easy", "easy", "easy"):
        await world.run(world.alice, "cpu", level=level)
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    await world.play_round_by_buttons()
    await world.settle()
    snapshot = await world.snapshot()
    assert snapshot.phase == "between_rounds" and snapshot.partnership


async def test_scores_of_a_crazier_team_match_are_told_by_team(world: World) -> None:
    """RULESETS.md, Crazier Eights teams: "points are by team". The private /eights scores of a
    crazier-abilities team match name each team once ("alice & carol", "bob & CPU 1") with the team's score,
    as the final ranking does, and so do the board between games (its round scores) and the
    channel's line of the game's scores."""
    await _first_team_game_over(world)
    snapshot = await world.snapshot()
    loser_points = snapshot.totals[1]
    scores = await world.run(world.alice, "scores")
    assert scores.ephemeral
    text = scores.content
    assert "alice & carol" in text and "bob & CPU 1" in text, text
    assert f"Round 1: alice & carol 0, bob & CPU 1 {loser_points}" in text, text
    assert f"Totals: alice & carol 0, bob & CPU 1 {loser_points}" in text, text
    board = world.board().text()
    round_part = board[board.find("Round 1 scores:") : board.find("Seats:")]
    assert "**alice & carol**: 0 this round, 0 in total" in round_part, board
    assert f"**bob & CPU 1**: {loser_points} this round, {loser_points} in total" in round_part, board
    public = "\n".join(world.public_texts())
    assert f"Round 1 scores (totals): alice & carol 0 (0), bob & CPU 1 {loser_points} ({loser_points})" in (
        public
    ), public


async def test_the_board_between_rounds_of_a_partnership_tells_the_round_scores_by_side(world: World) -> None:
    """README, Partnership: "scores and the final ranking are by side" (RULESETS.md, Partnership 4: "each
    side scores the total of its members' hands"). Between rounds the board that /eights status posts tells
    the round's scores once per side ("alice & CPU 2") with the side's score, as its Sides field and
    /eights scores do, and so does the channel's line of the round's scores."""
    await first_partnership_round_over(world)
    snapshot = await world.snapshot()
    board = await world.run(world.carol, "status")  # a member who does not play asks for the board
    text = board.text()
    assert "Round 1 scores:" in text and "Seats:" in text, text
    round_part = text[text.find("Round 1 scores:") : text.find("Seats:")]
    for seat in snapshot.seats:
        assert f"**{seat.name}**: " not in round_part, round_part  # one line per side, not per partner
    assert "alice & CPU 2" in round_part and "CPU 1 & CPU 3" in round_part, round_part
    public = [line for line in world.public_texts() if "Round 1 scores (totals)" in line]
    assert public, world.public_texts()
    scored = (
        snapshot.round_scores[0][0],
        snapshot.totals[0],
        snapshot.round_scores[0][1],
        snapshot.totals[1],
    )
    expected = "Round 1 scores (totals): alice & CPU 2 {} ({}), CPU 1 & CPU 3 {} ({})".format(*scored)
    assert any(expected in line for line in public), public


async def test_the_command_descriptions_name_the_managers_who_may_use_them(world: World) -> None:
    """README, Commands: /eights cpu, start, end, kick and house are for the "host or manager: Manage
    Channels or the server's manager role", and a member with the manager role may use them. The
    descriptions Discord shows under each command — the bot's only help text — name the managers beside
    the host; start's names a partnership's four seats, and kick's does not say a CPU always takes the seat
    (a kick in the lobby frees it)."""
    commands = world.fake.synced_commands()
    described = {
        sub["name"]: sub["description"]
        for command in commands
        for sub in command.get("options", [])
        if sub.get("type") == 1
    }
    wrong = {
        name: described[name]
        for name in ("cpu", "start", "end", "kick", "house")
        if "manager" not in described[name].lower()
    }
    assert not wrong, wrong
    assert "exactly four in a partnership" in described["start"], described["start"]
    assert "; a CPU player takes the seat" not in described["kick"], described["kick"]
    assert "during a game" in described["kick"], described["kick"]
