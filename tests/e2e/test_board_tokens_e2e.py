"""The public board and the interaction tokens it rides (README, *Discord's rate limits*, "Boards ride the
interactions"; the issue: "A table's board message is one the table's interactions created ..., edited
through that interaction's token while it is valid ... the board is posted again from a newer interaction and
the old board message removed"): one board per table, in the channel, whatever Discord answers a token."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.board_tokens import boards, is_board_upload, scale_windows, two_player_game
from tests.e2e.conftest import World
from tests.fakediscord.server import _Reject

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


@SQLITE_ONLY
async def test_an_unknown_webhook_answer_to_the_boards_token_does_not_leave_two_boards(world: World) -> None:
    """Discord answers a live interaction token 404 Unknown Webhook (10015) at times (discord-api-docs issue
    6851: "While the token is still active in the 15 minutes window, any API requests send to it return with
    404"; the bot itself expects tokens that "expired early, or [were] revoked", publisher._show_board). The
    board message is still there: only its token does not serve. README: one board per table ("the old
    board message is deleted"; "/eights status ... the old board is deleted"). Expected: the board is edited
    through the channel (or posted again with the old one removed): one live board. Before, the 404 was read
    as "the board message was deleted" (board.BoardMessages.edit) and a second board was posted in the
    channel beside the first, which stayed with its buttons."""
    fake = world.fake
    first = await world.run(world.alice, "new", target=1000)
    await world.settle()
    handle = fake._by_token  # the /eights new interaction: the board's carrier
    (token,) = [t for t, r in handle.items() if r.original is first]
    original = fake._webhook_record

    def webhook_record(request: Any) -> Any:
        if request.match_info["token"] == token:
            raise _Reject(404, 10015, "Unknown Webhook", violation=False)
        return original(request)

    fake._webhook_record = webhook_record  # type: ignore[method-assign]
    await (await fake.click(world.bob, first, label="Join")).callback()
    await world.settle()
    live = boards(world)
    assert len(live) == 1, f"{len(live)} live boards of one table: {live}"
    assert "bob" in str(live[0].embeds[0]), "the board does not show bob seated"


@SQLITE_ONLY
async def test_status_while_the_board_moves_to_a_newer_interaction_leaves_one_board(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "/eights status does the same at once: its answer is the board, and the old board is deleted"
    and the board "is posted again as a follow-up of the table's latest player interaction and the old board
    message is deleted": one board per table. A board repost (a follow-up carrying the picture, a slow upload)
    still on its way when a player runs /eights status: both replace the same old board. Expected: one live
    board once all is said. Before, publisher._move_board removed the board it read before its follow-up went
    out (already deleted by /eights status), so the board /eights status posted stayed beside the moved one:
    two live boards with buttons."""
    fake = world.fake
    await two_player_game(world)
    scale_windows(monkeypatch, repost=0.3)  # the /eights new token is "10 minutes" old
    await asyncio.sleep(0.4)
    in_flight, release = asyncio.Event(), asyncio.Event()
    read_body = fake._read_body

    async def slow_read_body(request: Any, *args: Any) -> Any:
        follow_up = request.method == "POST" and "/webhooks/" in request.path
        if follow_up and is_board_upload(request) and not release.is_set():
            in_flight.set()
            await release.wait()  # a slow upload of the picture
        return await read_body(request, *args)

    fake._read_body = slow_read_body  # type: ignore[method-assign]
    user = await world.human_to_act()
    assert user is not None
    await world.play_by_buttons(user)
    await asyncio.wait_for(in_flight.wait(), 10)
    await world.run(world.bob, "status")
    release.set()
    await world.settle()
    refused = fake.take_violations()
    live = boards(world)
    assert len(live) == 1, f"{len(live)} live boards of one table: {live}; refused: {refused}"
