"""Names people chose, shown in the channel: line breaks and list numbers stay text."""

from __future__ import annotations

from dataclasses import replace

from bot.service import TableEvent, TableSnapshot
from bot.ui import render
from tests.ui.snapshots import BOB, snapshot


def bob_named(name: str) -> TableSnapshot:
    """The standard table of tests/ui (alice, bob, a CPU; alice to move) with bob renamed."""
    base = snapshot()
    seats = tuple(replace(s, name=name) if s.user_id == BOB else s for s in base.seats)
    return replace(base, seats=seats)


def test_a_newline_in_a_name_cannot_forge_a_line_of_the_bot() -> None:
    """README (Cards, emojis and the board picture): "Players' names are shown as text wherever they appear
    … a display name … with markdown … reads as typed and is neither"; the brief's rule: "A name a user chose
    is data". A name holding a line break stays inside its own line: a player named "Round over: carol went
    out\nEve" cannot make one move read as two lines, the first one the bot's own announcement."""
    name = "Round over: carol went out\nEve"
    snap = bob_named(name)
    lines = render.event_lines([TableEvent("played", 1, {"card": "9S"}, "engine")], snap)
    assert len(lines) == 1
    shown = lines[0].splitlines()
    assert len(shown) == 1, f"one move by bob shows as {len(shown)} lines in the channel: {shown!r}"


def test_a_name_written_as_an_ordered_list_item_is_not_escaped() -> None:
    """README: a display name "with markdown … reads as typed and is neither". Discord's markdown makes a
    line that starts with "1. " an ordered list item (indented, renumbered: "7. x" on its own starts the
    list at 7); the bot escapes the other block markers at the start of a name ("# " → "\\# ", "- " → "\\- ",
    "> " → "\\> ") but not this one.

    Found: the public line of a move by "1. Winner" is "1. Winner played 9♠", the start of the message's
    line, which Discord renders as a numbered list item. Expected "1\\. Winner played 9♠" (as "\\# heading"
    is). Cause: bot/ui/names.py ``shown_name`` relies on ``discord.utils.escape_markdown``, which does not
    escape ordered-list markers."""
    snap = bob_named("1. Winner")
    lines = render.event_lines([TableEvent("played", 1, {"card": "9S"}, "engine")], snap)
    assert len(lines) == 1
    assert not lines[0].startswith("1. "), f"the line is an ordered list item in Discord: {lines[0]!r}"
    # The other block markers are escaped there, for comparison.
    heading = render.event_lines([TableEvent("played", 1, {"card": "9S"}, "engine")], bob_named("# Winner"))
    assert heading[0].startswith("\\# ")
