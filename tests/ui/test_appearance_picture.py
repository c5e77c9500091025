"""``Appearance.picture``: a board picture that fails to draw is no picture, said once per table in the log.

Everything that shows a board (the board message, ``/eights status``, a replay's step) asks ``picture`` and
sends what it gets beside the text: a renderer's exception must not reach them, or the text goes down with
the picture. A cancellation is not a failure: it goes on up.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any

import pytest

from bot.ui import appearance as appearance_module
from bot.ui.appearance import Appearance
from bot.ui.art.board import BoardPicture, BoardRenderer
from tests.ui.snapshots import snapshot

LOGGER = "bot.ui.appearance"


class BrokenRenderer(BoardRenderer):
    """A renderer whose every picture raises ``error``."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(cache_size=1)
        self.error = error

    async def render_async(self, snapshot: Any) -> BoardPicture | None:
        raise self.error


def failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]


async def test_a_failing_picture_is_none_and_said_once_per_table(caplog: pytest.LogCaptureFixture) -> None:
    """The first failure of the process is an error with its traceback and the table's id; another table's
    is one warning line; the same table failing again adds nothing above debug."""
    appearance = Appearance(pictures=BrokenRenderer(RuntimeError("renderer exploded")))
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        assert await appearance.picture(snapshot(table_id=7)) is None
        assert await appearance.picture(snapshot(table_id=7, stock_size=29)) is None
        assert await appearance.picture(snapshot(table_id=8)) is None
    said = failures(caplog)
    assert [(r.levelno, "table 7" in r.getMessage()) for r in said[:1]] == [(logging.ERROR, True)]
    assert said[0].exc_info is not None
    assert len(said) == 2 and said[1].levelno == logging.WARNING and "table 8" in said[1].getMessage()
    assert said[1].exc_info is None and "renderer exploded" in said[1].getMessage()


async def test_a_cancelled_picture_is_not_taken_for_a_failure(caplog: pytest.LogCaptureFixture) -> None:
    appearance = Appearance(pictures=BrokenRenderer(asyncio.CancelledError()))
    with pytest.raises(asyncio.CancelledError):
        await appearance.picture(snapshot())
    assert not failures(caplog)


async def test_a_failing_crazier_picture_is_none_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Crazier Eights board goes through the same guard (its input is read from the snapshot first)."""

    def broken(snap: object) -> object:
        raise ValueError("no board in this snapshot")

    monkeypatch.setattr(appearance_module, "crazier_board_of", broken)
    appearance = Appearance(pictures=BoardRenderer(cache_size=1))
    crazier = replace(snapshot(), preset="crazier-abilities", crazier=object())  # type: ignore[arg-type]
    assert await appearance.picture(crazier) is None
    assert appearance.picture_key(crazier) is None  # what the board's "unchanged?" question reads


async def test_a_working_renderer_still_gives_its_picture() -> None:
    appearance = Appearance(pictures=BoardRenderer(cache_size=1))
    picture = await appearance.picture(snapshot())
    assert picture is not None and picture.png.startswith(b"\x89PNG")
    assert appearance.picture_key(snapshot()) == picture.key
