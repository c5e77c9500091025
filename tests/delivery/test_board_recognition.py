"""Which of the channel's messages are a table's boards, as the start-up check reads them
(``bot.delivery.board._boards_of``): the bot's own messages carrying that table's board buttons."""

from __future__ import annotations

from typing import Any

from bot.delivery.board import _boards_of

ME = 1000


def message(message_id: int, *custom_ids: str, author: int = ME) -> dict[str, Any]:
    buttons = [{"type": 2, "style": 1, "label": "x", "custom_id": custom_id} for custom_id in custom_ids]
    return {
        "id": str(message_id),
        "author": {"id": str(author)},
        "content": "",
        "components": [{"type": 1, "components": buttons}] if buttons else [],
    }


def test_the_tables_boards_are_the_bots_messages_with_its_board_buttons_newest_first() -> None:
    page = [
        message(9, "e8:7:7.2:hand", "e8:7::leave"),  # a board in play
        message(8),  # a turn line
        message(6, "e8:7::join", "e8:7::leave", "e8:7::cpu:0", "e8:7::start", "e8:7::house"),  # a lobby's
        message(5, "e8:7:7.1:next", "e8:7:7.1:hand"),  # between rounds
        message(12, "e8:8::join"),  # another table's board
        message(11, "e8:7::join", author=2000),  # not the bot's
        message(10, "eights-replay:7:1"),  # another feature's buttons
        message(4, "e8:7:7.1.abc:play:KH"),  # not a board's action
    ]
    assert _boards_of(page, 7, ME) == [9, 6, 5]
    assert _boards_of(page, 8, ME) == [12]
    assert _boards_of(page, 7, None) == []
