"""The row of paging buttons under a paged message (a leaderboard's Previous / Next; a replay's First, Back,
Next, Last): where each one goes from the page shown, and whether it is disabled, having nowhere to go.

Back and Next go one page over even when disabled (page 0 before the first, one past the last), so that two
buttons of a row never share a target: a custom id that names only its target (the leaderboard's) stays
unique in its message, as Discord requires. A button whose custom id names its move too may keep its target
within the pages (the replay's do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import discord

PageMove = Literal["first", "back", "next", "last"]
# (the move, the page it goes to, disabled) -> the button
PageButton = Callable[[PageMove, int, bool], discord.ui.Item[Any]]


def page_row(
    current: int,
    first: int,
    last: int,
    moves: Sequence[PageMove],
    button: PageButton,
    *,
    view: discord.ui.View | None = None,
) -> discord.ui.View:
    """``moves`` as buttons (made by ``button``) for page ``current`` of ``first``..``last``, added to
    ``view`` (default: a new persistent view, no timeout)."""
    view = view if view is not None else discord.ui.View(timeout=None)
    for move in moves:
        if move == "first":
            target, disabled = first, current <= first
        elif move == "back":
            target, disabled = current - 1, current <= first
        elif move == "next":
            target, disabled = current + 1, current >= last
        else:
            target, disabled = last, current >= last
        view.add_item(button(move, target, disabled))
    return view
