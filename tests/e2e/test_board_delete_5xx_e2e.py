"""The board posted again (``/eights status``) replaces the old one, which is deleted; a passing 5xx on that
delete is tried again a little later, so the channel keeps one board per table."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import World


def boards(world: World) -> list:
    return [
        m
        for m in world.fake.channel_messages(world.channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_503_on_deleting_the_replaced_board_is_retried_until_one_board_is_left(world: World) -> None:
    """README, *Discord's rate limits* ("Boards ride the interactions"): "/eights status does the same at
    once: its answer is the board, and the old board is deleted through the token that posted it while it
    lives (else ... through the channel)" -- one board per table; and "Nothing dropped ... A line, board edit
    or hand refresh that still fails after discord.py's retries (a 429, a 5xx, a dropped connection) is tried
    again a little later". After a restart the bot no longer knows the interaction that posted the board, so
    the old board goes through the channel route; one 503 there (discord.py raises at once on a 503) is met
    by a second delete a little later (the publisher's first retry is at 1 s), and the channel is left with
    the new board only, not a second, frozen one with live buttons."""
    await world.run(world.alice, "new", target=1000)
    await world.run(world.bob, "join")
    await world.settle()
    old = world.board()
    await world.restart()  # the bot no longer knows the interaction that posted the board
    await world.settle()
    world.fake.server_errors.fail_next(1, path_contains=f"/messages/{old.id}", status=503)
    await world.run(world.carol, "status")
    await world.settle()
    await asyncio.sleep(5.0)  # time for a retry "a little later"
    await world.settle()
    assert world.fake.server_errors.count == 1
    live = boards(world)
    assert len(live) == 1, f"{len(live)} boards in the channel: {[b.id for b in live]} (old {old.id})"
