"""A member joins while the table is being opened: their /eights join lands after the table is stored but
before Discord has answered the /eights new (whose answer is the board, with its picture).

The join's outcome reaches the publisher's board lane while ``BoardMessages`` knows no board for the table yet
(``remember_board`` runs only once ``answer_publicly`` returns), so the lane posts a board of its own through
the channel (``TablePublisher`` "no board yet: ``edit`` posts it in the channel"; ``BoardMessages.edit`` ->
``_post``) while /eights new's answer, a board too, is on its way: the channel holds two boards, and one of
them (here the answer to /eights new, the first in the channel) is never edited again nor deleted: it goes on
showing the lobby as it was, with live buttons.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage

DISCORD_ANSWER = 0.2  # seconds Discord takes to answer an interaction callback carrying the board's picture


def boards(world: World) -> list[FakeMessage]:
    return [
        m
        for m in world.fake.channel_messages(world.channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


async def test_a_join_while_the_table_opens_leaves_one_board(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = world.fake
    handle = fake._handle

    async def discord_answers_callbacks_in_a_while(request: Any, handler: Any) -> Any:
        response = await handle(request, handler)
        if request.path.endswith("/callback"):
            await asyncio.sleep(DISCORD_ANSWER)  # the message is there; the answer is on its way back
        return response

    monkeypatch.setattr(fake, "_handle", discord_answers_callbacks_in_a_while)
    opening = await fake.invoke(world.alice, world.channel, "eights new")

    async def opened() -> bool:
        return await world.service.table_in_channel(world.channel.id) is not None

    await world.until(opened, "the table stored")
    joining = await fake.invoke(world.bob, world.channel, "eights join")
    board, seated = await asyncio.gather(opening.reply(), joining.reply())
    assert not board.ephemeral and seated.content == "You're seated. The host starts the game."
    await world.settle()
    await (await fake.click(world.carol, world.board(), label="Join")).callback()
    await asyncio.sleep(2 * DISCORD_ANSWER)  # every answer back at the bot
    await world.settle()
    assert [seat.name for seat in (await world.snapshot()).seats] == ["alice", "bob", "carol"]

    # One table, one board (README, "Boards ride the interactions": "A table's board is a message one of the
    # table's interactions posted: the answer to /eights new"); every board in the channel shows the table.
    shown = boards(world)
    assert len(shown) == 1, [(m.id, m.embeds[0]["fields"][-1]["value"]) for m in shown]
