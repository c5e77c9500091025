"""The paging row both paged messages use (bot/ui/paging.py): each move's target and disabled state."""

from __future__ import annotations

from typing import Any

import discord

from bot.ui.paging import PageMove, page_row

MOVES: tuple[PageMove, ...] = ("first", "back", "next", "last")


def row(current: int, first: int, last: int) -> list[tuple[str, int, bool]]:
    def button(move: PageMove, target: int, disabled: bool) -> discord.ui.Item[Any]:
        return discord.ui.Button(label=move, custom_id=f"{move}:{target}", disabled=disabled)

    view = page_row(current, first, last, MOVES, button)
    assert view.timeout is None  # persistent: the buttons outlive the process
    found = []
    for item in view.children:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        move, target = item.custom_id.split(":")
        found.append((move, int(target), item.disabled))
    return found


def test_a_middle_page_goes_everywhere() -> None:
    assert row(5, 0, 9) == [("first", 0, False), ("back", 4, False), ("next", 6, False), ("last", 9, False)]


def test_the_ends_disable_the_moves_with_nowhere_to_go() -> None:
    assert row(0, 0, 9) == [("first", 0, True), ("back", -1, True), ("next", 1, False), ("last", 9, False)]
    assert row(9, 0, 9) == [("first", 0, False), ("back", 8, False), ("next", 10, True), ("last", 9, True)]


def test_a_single_page_keeps_back_and_next_apart() -> None:
    # Back and Next never share a target, so a custom id naming only the target stays unique.
    moves = row(1, 1, 1)
    assert all(disabled for *_, disabled in moves)
    assert {target for move, target, _ in moves if move in ("back", "next")} == {0, 2}
