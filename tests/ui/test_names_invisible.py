"""A name with nothing to see in it is written as its seat, wherever the board picture's plate would write it.

Discord accepts display names made only of invisible characters: the Hangul filler U+3164 ("ㅤ", the usual
"invisible name"), zero-width spaces, word joiners. The board picture's plate cannot draw them and reads
"Seat 4" (``drawable_name``); the picture's description (alt text: screen readers, and the hover text) must
then name the seat the same way, not read "4. ㅤ, 5 cards" ("4., 5 cards" aloud: no name and no seat). A name
with anything visible in it is left exactly as typed.
"""

from __future__ import annotations

import re

import pytest

from bot.i18n import use_locale
from bot.ui import render
from bot.ui.art import board as board_art
from bot.ui.art.crazier_board import CrazierBoard, CrazierSeat, crazier_alt_text
from bot.ui.names import has_visible, plain_name, seat_words, visible_or_seat
from tests.ui.snapshots import seat, snapshot

INVISIBLE_NAMES = {
    "hangul-filler": "\u3164",
    "two-fillers": "\u3164\u3164",
    "zwsp": "\u200b\u200b",
    "word-joiner": "\u2060",
    "braille-blank": "\u2800",
    "spaces-and-variation-selector": " \ufe0f ",
    "empty": "",
}
# Characters that show nothing (what a reader of the description would "see" of a name made of them).
UNSEEN = "\u3164\u200b\u2060\u2068\u2069\u2800\ufe0f"


def _seen(text: str) -> str:
    return "".join(ch for ch in text if ch.isprintable() and not ch.isspace() and ch not in UNSEEN)


@pytest.mark.parametrize("name", INVISIBLE_NAMES.values(), ids=INVISIBLE_NAMES.keys())
def test_an_invisible_name_is_described_as_the_picture_draws_it(name: str) -> None:
    """The plate and the description both say "Seat 4" for the fourth seat."""
    seats = (
        seat(0, "alice", 1001, to_act=True),
        seat(1, "bob", 1002),
        seat(2, "carol", 1003),
        seat(3, name, 1004),
    )
    board = snapshot(seats=seats, totals=(0, 0, 0, 0))
    with use_locale("en"):
        drawn = board_art.drawable_name(name, 3)
        described = board_art.alt_text(board)
    assert drawn == "Seat 4"
    entry = re.search(r"4\. (.*?), 5 cards", described)
    assert entry is not None, described
    assert _seen(entry.group(1)), f"seat 4 has no readable name in the alt text: {described!r}"
    assert entry.group(1) == drawn


def test_the_seat_words_are_in_the_servers_language() -> None:
    board = snapshot(seats=(seat(0, "alice", 1001, to_act=True), seat(1, "\u3164", 1002)), totals=(0, 0))
    with use_locale("de"):
        described = board_art.alt_text(board)
        drawn = board_art.drawable_name("\u3164", 1)
    assert f"2. {drawn}," in described and drawn != "Seat 2"


@pytest.mark.parametrize("name", INVISIBLE_NAMES.values(), ids=INVISIBLE_NAMES.keys())
def test_the_crazier_boards_description_names_the_seat_too(name: str) -> None:
    board = CrazierBoard(
        top_card="5B",
        draw_pile=30,
        discard_pile=3,
        seats=(CrazierSeat(0, "Ana", 5, to_act=True), CrazierSeat(1, name, 4)),
    )
    with use_locale("en"):
        described = crazier_alt_text(board)
    assert "2. Seat 2, 4 cards in hand" in described, described


@pytest.mark.parametrize(
    "name", ["alice", "ㅤalice", "Zoë", "李小龍", "🙂", "e\u0301", "<@123>", "Deleted player", "a\u200bb"]
)
def test_a_name_with_anything_visible_is_kept_as_typed(name: str) -> None:
    assert has_visible(name)
    assert visible_or_seat(name, 3) == name
    board = snapshot(seats=(seat(0, "alice", 1001, to_act=True), seat(1, name, 1002)), totals=(0, 0))
    with use_locale("en"):
        assert f"2. {plain_name(name)}, 5 cards" in board_art.alt_text(board)


@pytest.mark.parametrize("name", INVISIBLE_NAMES.values(), ids=INVISIBLE_NAMES.keys())
def test_visible_or_seat_gives_the_plates_words(name: str) -> None:
    """The helper the text board can share: the seat's words, capitalised as a name on a plate."""
    assert not has_visible(name)
    with use_locale("en"):
        assert visible_or_seat(name, 3) == seat_words(3) == "Seat 4"


def test_the_text_boards_seat_line_names_an_invisible_name_by_its_seat() -> None:
    """The text board's seat line shows **Seat 2** for such a name, as the picture and its description do,
    not an empty-looking **ㅤ**."""
    board = snapshot(seats=(seat(0, "alice", 1001, to_act=True), seat(1, "\u3164", 1002)), totals=(0, 0))
    with use_locale("en"):
        embed = render.board_embed(board)
    seats_field = next(f.value for f in embed.fields if f.value and "`2`" in f.value)
    assert "`2` **Seat 2**" in seats_field, seats_field
