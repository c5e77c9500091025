"""A board picture that fails to draw leaves the board as text: no error for anyone, the game goes on.

README (Cards, emojis and the board picture): the board message "also carries a picture of the table ... the
text board stays"; the picture is an extra (a server can turn it off, a channel may refuse files). So a
renderer that raises must cost the picture only: the board is still posted and edited after every move, as
text with its buttons, an older picture is taken off it (it would show a past state), ``/eights status`` and
a replay's step answer with their text, and the log says so once per table (the first time with the
traceback), never to a player.
"""

from __future__ import annotations

import logging

import pytest

from bot.ui.art import board as board_art
from tests.e2e.conftest import World
from tests.e2e.replay_steps import open_replay_at, play_to_the_end, started_table
from tests.e2e.test_round import open_and_start
from tests.fakediscord import FakeMessage

APPEARANCE_LOG = "bot.ui.appearance"


def break_the_renderer(monkeypatch: pytest.MonkeyPatch, *, cached_too: bool = False) -> None:
    """Every classic board picture fails from now on: ``_parts`` (what every picture is drawn or composed
    from) raises; ``cached_too``: so does the renderer itself, a picture it keeps included."""

    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError("picture renderer exploded")

    async def boom_async(*args: object, **kwargs: object) -> object:
        raise RuntimeError("picture renderer exploded")

    monkeypatch.setattr(board_art, "_parts", boom)
    if cached_too:
        monkeypatch.setattr(board_art.BoardRenderer, "render_async", boom_async)


def pictures_on(message: FakeMessage) -> list[dict[str, object]]:
    return [a for a in message.attachments if str(a.get("filename", "")).endswith(".png")]


def picture_failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == APPEARANCE_LOG and r.levelno >= logging.WARNING]


async def test_start_with_a_broken_renderer_still_shows_the_dealt_board_as_text(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """After Start the board shows round 1 (whose turn, the target) as text, without a picture, and the
    failure is logged once for the table, with its traceback (the first of the process)."""
    break_the_renderer(monkeypatch)
    with caplog.at_level(logging.WARNING, logger=APPEARANCE_LOG):
        await open_and_start(world)
        await world.settle()
        user = await world.human_to_act()  # a move: the board is edited again, still as text
        assert user is not None
        await world.play_by_buttons(user)
        await world.settle()
    board = world.board()
    assert "round 1" in str(board.embeds[0].get("title", "")), board.embeds[0].get("title")
    assert "to move" in board.text()
    assert board.buttons and not pictures_on(board)
    table_id = await world.table_id()
    failures = picture_failures(caplog)
    assert len(failures) == 1, [r.getMessage() for r in failures]
    assert failures[0].levelno == logging.ERROR and failures[0].exc_info is not None
    assert str(table_id) in failures[0].getMessage()
    world.fake.assert_clean()


async def test_a_picture_that_starts_failing_is_taken_off_the_board(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board carries its picture; the renderer then breaks: the next move's board is the new state as
    text, and the old picture (which would show the state before) is taken off the message."""
    await open_and_start(world)
    await world.settle()
    board = world.board()
    assert pictures_on(board)
    break_the_renderer(monkeypatch, cached_too=True)
    user = await world.human_to_act()
    assert user is not None
    before = board.embeds[0]
    await world.play_by_buttons(user)
    await world.settle()
    assert world.board().id == board.id  # edited in place
    assert world.board().embeds[0] != before
    assert not pictures_on(world.board())


async def test_status_with_a_broken_renderer_answers_with_the_text_board(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/eights status` ("show the board again: target, whose turn, card counts, scores") answers with the
    board as text when only its picture fails, not with "Something went wrong"."""
    await open_and_start(world)
    await world.settle()
    break_the_renderer(monkeypatch, cached_too=True)
    answer = await world.run(world.bob, "status")
    assert answer.embeds, f"no board in the answer: {answer.content!r}"
    assert str(answer.embeds[0].get("title", "")).startswith("Crazy Eights")
    assert not pictures_on(answer)
    assert "went wrong" not in answer.content.lower()
    assert "Traceback" not in answer.content and "RuntimeError" not in answer.content


async def test_a_replay_step_with_a_broken_renderer_shows_the_step_as_text(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay's step draws the board picture as it was too: when that fails, the step is shown without
    it (its board as text, its buttons), not as an error."""
    table_id = await started_table(world)
    await play_to_the_end(world)
    break_the_renderer(monkeypatch, cached_too=True)
    step = await open_replay_at(world, world.carol, table_id, 1)
    assert step.embeds and step.buttons
    assert not pictures_on(step)
    assert "went wrong" not in (step.content or "").lower()
