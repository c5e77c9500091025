"""What the table says, read as players read it: README's example transcript as the channel shows it, a team
lobby's seat counts, a lobby kick's line, and a partnership's scores by side."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.e2e.test_scores_by_side_e2e import first_partnership_round_over


async def test_a_cpu_without_a_playable_card_reads_as_the_readme_transcript(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README's example transcript, played with its deal: Ben's typed 8♣ naming spades, then the CPU (no
    spade, no 8) drawing twice and playing 2♠, read in the channel exactly as README shows those lines."""
    # Seats: alice (Ana), bob (Ben), CPU 1. The CPU holds no spade and no 8; the stock gives it 5♦ then 2♠.
    stack_classic_deal(
        monkeypatch,
        [
            ["3C", "4H", "8D", "9S", "KH"],
            ["8C", "2H", "5H", "6H", "7H"],
            ["3D", "4D", "5C", "6C", "7D"],
        ],
        "9H",
        leader=0,
        stock_top=["5D", "2S"],
    )
    board = await world.run(world.alice, "new", preset="classic")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await world.fake.click(world.alice, world.board(), label="Add CPU")).callback()
    await world.settle()
    await (await world.fake.click(world.alice, world.board(), label="Start")).reply()
    await world.settle()
    hand = await (await world.fake.click(world.alice, world.board(), label="My hand")).reply()
    king = next(b for b in hand.buttons if str(b.get("label", "")).startswith("K"))
    await (await world.fake.click(world.alice, hand, king["custom_id"])).reply()
    await world.settle()
    await world.run(world.bob, "play", card="8c", suit="spades")
    await world.settle()
    lines = "\n".join(world.public_texts())
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(readme) if line.startswith("Bot     Ben played 8♣"))
    shown = [readme[first].removeprefix("Bot")]
    shown += [line for line in readme[first + 1 : first + 4] if line.startswith("        ")]
    expected = "\n".join(line.strip().replace("Ben", "bob") for line in shown)
    assert expected.endswith("CPU 1 played 2♠"), expected
    assert expected in lines, lines


async def test_a_team_lobby_tells_the_seats_a_team_game_starts_with(world: World) -> None:
    """README: teams are "two teams seated alternately (4 or 6 players)", and Start refuses other counts. The
    lobby of a team table says Start takes 4 or 6 seats, not 2–6."""
    board = await world.run(world.alice, "new", preset="crazier-abilities", teams=True)
    text = board.text()
    assert "2–6 seats" not in text, text
    assert "4 or 6" in text or "four or six" in text, text


async def test_a_lobby_kick_does_not_say_a_cpu_took_the_seat(world: World) -> None:
    """A kick in the lobby frees the seat: its line (in the board's Last plays once the game starts) says bob
    was removed from the table, not that a CPU player takes his seat (that is a kick during a game)."""
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    kicked = await world.run(world.alice, "kick", member=world.bob)
    assert kicked.ephemeral and "bob was removed" in kicked.content
    await world.settle()
    snapshot = await world.snapshot()
    assert [s.name for s in snapshot.seats] == ["alice"]  # the seat is gone, no CPU in it
    await world.run(world.alice, "cpu", level="easy")
    await world.run(world.alice, "start")
    await world.settle()
    snapshot = await world.snapshot()
    assert [s.name for s in snapshot.seats] == ["alice", "CPU 1"]  # bob's seat was never a CPU's
    text = world.board().text()
    assert "bob was removed" in text, text
    assert "CPU player takes the seat" not in text, text


async def test_scores_of_a_partnership_are_told_by_side(world: World) -> None:
    """README: in a partnership "scores and the final ranking are by side". The private /eights scores name
    the sides ("alice & CPU 2") with one score per side, as the board's Sides field does, not each partner
    with the side's score as if it were their own."""
    await first_partnership_round_over(world)
    assert "alice & CPU 2" in world.board().text()  # the board tells the sides
    scores = await world.run(world.alice, "scores")
    assert scores.ephemeral
    assert "alice & CPU 2" in scores.content and "CPU 1 & CPU 3" in scores.content, scores.content
