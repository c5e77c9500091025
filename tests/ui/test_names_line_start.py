"""Review of names kept on one line (e8b0ad1): the space a line break becomes starts the line."""

from __future__ import annotations

import re

from bot.service import TableEvent
from bot.ui import render
from tests.ui.test_names_markup import bob_named


def _line_of_a_move_by(name: str) -> str:
    lines = render.event_lines([TableEvent("played", 1, {"card": "9S"}, "engine")], bob_named(name))
    assert len(lines) == 1
    return lines[0]


def test_a_name_starting_with_a_line_break_and_a_list_number_is_not_a_numbered_list() -> None:
    """ "1. Winner" is escaped ("1\\. Winner played 9♠"), but "\\n1. Winner" (or "\\t1. Winner") is not:
    ``one_line`` first makes the line break a space, and ``_LIST_NUMBER`` (``^(\\d+)\\.``) only looks at the
    very start, so the line is " 1. Winner played 9♠" — Discord's list rule allows spaces before the
    number (`^( *)(\\d+\\.) `, as discord.py's own ``^\\s*-`` escape for bullets assumes)."""
    line = _line_of_a_move_by("\n1. Winner")
    assert not re.match(r"^\s*\d+\.\s", line), f"an ordered list item in Discord: {line!r}"


def test_a_name_starting_with_a_line_break_and_a_quote_marker_is_not_a_block_quote() -> None:
    """Before the change, "\\n> Winner" kept its line break and escape_markdown (multiline ``^>``) escaped
    the quote marker after it. Now the line break becomes a leading space first, and " > Winner played 9♠"
    escapes nothing: Discord's block quote rule allows spaces before ">" (`^ *> `): the whole move line
    shows as a quote."""
    line = _line_of_a_move_by("\n> Winner")
    assert not re.match(r"^\s*>\s", line), f"a block quote in Discord: {line!r}"
