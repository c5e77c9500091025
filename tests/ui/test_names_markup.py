"""Names people chose, shown in the channel: line breaks, list numbers, isolate controls hidden in markup and
markdown inside a URL stay text."""

from __future__ import annotations

import re
from dataclasses import replace

import discord
import pytest

from bot.service import TableEvent, TableSnapshot
from bot.ui import render
from bot.ui.names import shown_name
from tests.ui.snapshots import BOB, snapshot


def bob_named(name: str) -> TableSnapshot:
    """The standard table of tests/ui (alice, bob, a CPU; alice to move) with bob renamed."""
    base = snapshot()
    seats = tuple(replace(s, name=name) if s.user_id == BOB else s for s in base.seats)
    return replace(base, seats=seats)


LRI = "\u2066"  # LEFT-TO-RIGHT ISOLATE: Discord keeps it in a display name
# A masked link, "[words](https://…)", whose "[" is not escaped.
MASKED_LINK = re.compile(r"(?<!\\)\[[^\]]*\]\(https?://")


def line_of_a_move_by(name: str) -> str:
    """The public line of a move by bob, named ``name``."""
    lines = render.event_lines([TableEvent("played", 1, {"card": "9S"}, "engine")], bob_named(name))
    assert len(lines) == 1
    return lines[0]


def board_text(name: str) -> str:
    """The public board's description and field values, bob named ``name``."""
    embed: discord.Embed = render.board_embed(bob_named(name))
    return "\n".join([embed.description or ""] + [str(f.value) for f in embed.fields])


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


def test_an_isolate_control_inside_a_url_does_not_make_the_name_a_link() -> None:
    """README: a display name "as a link (`https://…`) reads as typed and is neither". An isolate control
    inside "://" ("https:\\u2066//evil…") is removed before the escaping, which then breaks the "://" it
    sees: the move line and the board hold no "://"."""
    name = f"https:{LRI}//evil.example/free-nitro"
    assert "://" not in line_of_a_move_by(name)
    assert "://" not in board_text(name)


def test_isolate_controls_cannot_hide_a_masked_link_from_the_escaping() -> None:
    """A display name "[Claim your prize]\\u2066(https:\\u2066//evil.example)" is not a masked link (words
    leading elsewhere) in the move line or on the board (embeds render masked links): its controls are
    removed first, so the escaping sees, and escapes, "[…](…)" and "://"."""
    name = f"[Claim your prize]{LRI}(https:{LRI}//evil.example)"
    line = line_of_a_move_by(name)
    assert not MASKED_LINK.search(line), repr(line)
    board = board_text(name)
    assert not MASKED_LINK.search(board), repr(board)


def test_an_isolate_control_inside_everyone_is_no_bare_everyone() -> None:
    """ "@\\u2066everyone" is shown as "@everyone" typed plainly is, "@\\u200beveryone": never a bare
    "@everyone" (nor "@here")."""
    assert "@everyone" not in shown_name(f"@{LRI}everyone")
    assert "@here" not in shown_name(f"@{LRI}here")


# An unescaped pair of each marker (neither one preceded by a backslash).
UNESCAPED = {
    "**": re.compile(r"(?<!\\)\*(?<!\\\*)\*.+(?<!\\)\*\*"),
    "||": re.compile(r"(?<!\\)\|\|.+(?<!\\)\|\|"),
    "~~": re.compile(r"(?<!\\)~~.+(?<!\\)~~"),
    "`": re.compile(r"(?<!\\)`[^`]+(?<!\\)`"),
}


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("https://x.example/**FREE**", "**"),
        ("https://x.example/||hidden||", "||"),
        ("https://x.example/~~gone~~", "~~"),
        ("https://x.example/`code`", "`"),
    ],
)
def test_markdown_inside_a_url_shaped_name_is_escaped(name: str, marker: str) -> None:
    """README: a display name "with markdown or as a link (`https://…`) reads as typed and is neither". The
    URL in the name is no link (its "://" broken), so the markdown in it is escaped as anywhere else: the
    move line of "https://x.example/**FREE**" shows "**FREE**", not FREE in bold (nor a spoiler, a strike or
    code)."""
    line = line_of_a_move_by(name)
    assert "://" not in line
    assert not UNESCAPED[marker].search(line), repr(line)
