"""The board as players read it: its Last plays list and its picture, against what happened.

README, *Cards, emojis and the board picture*: the picture is "redrawn and uploaded only when what it shows
changes". Each draw is told once (``event_lines``: "cards owed by the line that says so"): a player reading
the board must not count a penalty twice.
"""

from __future__ import annotations

import pytest

from tests.e2e.board_checks import board_disagreements, fields_of, picture_of
from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.e2e.test_round import open_and_start


async def test_a_caught_last_card_tells_the_penalty_draw_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """classic with the "last card" house rule, three players, two cards each: alice plays K♥, keeps one
    card and does not call it; bob catches her with /eights catch and she draws 2. The board's Last plays
    (and the channel's line) tell those 2 cards once — "bob caught alice without a last-card call: alice
    draws 2" — and not also "alice drew 2 cards" just before it, which reads as 4 cards drawn."""
    stack_classic_deal(
        monkeypatch,
        [["KH", "5C"], ["QC", "4D"], ["JC", "3D"]],
        "9H",
        leader=0,
        stock_top=["2S", "3S", "6D", "7D"],
    )
    board = await world.run(world.alice, "new", preset="classic", target=1000)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await (await world.fake.click(world.carol, board, label="Join")).callback()
    await world.run(world.alice, "house", option="last_card", value="on")
    await world.run(world.alice, "house", option="hand_size", value="2")
    started = await world.run(world.alice, "start")
    assert "Your hand" in started.content, started.content
    await world.settle()
    played = await world.run(world.alice, "play", card="KH")
    assert played.ephemeral and "You played K♥" in played.content, played.content
    await world.settle()
    caught = await world.run(world.bob, "catch", player="alice")
    assert caught.ephemeral, caught.content
    await world.settle()
    snapshot = await world.snapshot()
    assert snapshot.seats[0].card_count == 3  # one card kept, two drawn: the catch happened

    last_plays = fields_of(world)["Last plays"].splitlines()
    catch_line = "bob caught alice without a last-card call: alice draws 2"
    assert catch_line in last_plays, last_plays
    assert "alice drew 2 cards" not in last_plays, (
        f"the board tells alice's 2 penalty cards twice: {last_plays}"
    )
    line = next(text for text in reversed(world.public_texts()) if "caught alice" in text)
    assert "alice drew 2 cards" not in line.splitlines(), line


async def test_a_seat_taken_over_and_taken_back_does_not_upload_the_same_picture_again(world: World) -> None:
    """bob leaves while alice is to move (a CPU takes his seat), then takes it back with /eights join. The
    picture shows neither (names, counts, whose turn are unchanged, and so are its pixels and alt text), so
    README's "redrawn and uploaded only when what it shows changes" means the board keeps its picture: the
    text board alone says "(CPU plays)": no identical PNG is uploaded again."""
    await open_and_start(world)
    snapshot = await world.snapshot()
    if snapshot.to_act != 0:  # alice moves first in most deals; else the roles swap
        leaver, stayer = world.alice, world.bob
    else:
        leaver, stayer = world.bob, world.alice
    assert stayer is not None
    await world.settle()
    before = picture_of(world)
    assert before is not None
    shown = world.fake.files.content(before)

    left = await world.run(leaver, "leave")
    assert left.ephemeral and "CPU player plays your seat" in left.content, left.content
    await world.settle()
    assert "CPU plays" in world.board().text()
    assert await board_disagreements(world) == []
    after_leave = picture_of(world)
    assert after_leave is not None
    assert world.fake.files.content(after_leave) == shown, "the picture was meant to look the same"
    back = await world.run(leaver, "join")
    assert back.ephemeral and "took your seat back" in back.content, back.content
    await world.settle()
    after_join = picture_of(world)
    assert after_join is not None and world.fake.files.content(after_join) == shown
    assert (after_leave["id"], after_join["id"]) == (before["id"], before["id"]), (
        "an unchanged picture was uploaded again: "
        f"{before['id']} -> {after_leave['id']} -> {after_join['id']}"
    )
