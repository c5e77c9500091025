"""A coalesced turn line at a table of long markdown names: every move told, the mention kept."""

from __future__ import annotations

from dataclasses import replace

from bot.service import TableEvent
from tests.e2e.conftest import World
from tests.ui.snapshots import ALICE, BOB, seat, snapshot

# Discord allows 32 characters in a display name; each of these is shown escaped, 64 characters long.
ANA = "_*" * 16
BEN = "*_" * 16


async def test_a_long_coalesced_line_is_split_not_cut_and_keeps_the_mention(world: World) -> None:
    """README, Discord's rate limits: when a table waited for its turn, "its line tells every move since the
    last one (in several messages if one cannot hold them)" and "a 'your turn' mention is carried into the
    next line, never lost"; bot/delivery/feed.py: "told in several messages rather than summarised, so that
    every play is told".

    Before, the publisher split a line's events by their number of lines only (``line_chunks``, 11 a
    message), and ``render.turn_line`` then cut the text at 2,000 characters (``_clip``). With two players
    named with 32 markdown characters (64 once escaped) and 11 moves waiting, among them catches (a catch's
    line names three times), the one message was cut with "…": the last moves and the "▶ @Ben, your turn."
    mention were dropped (the message's allowed_mentions still listed Ben, but no <@Ben> was left in it, so
    nobody was pinged)."""
    seats = (seat(0, ANA, ALICE), seat(1, BEN, BOB, to_act=True), seat(2, "CPU 1", None))
    snap = replace(snapshot(), seats=seats, to_act=1)
    events: list[TableEvent] = []
    for _ in range(4):
        events.append(TableEvent("last_card_caught", 0, {"target": 1, "count": 2}, "engine"))
        events.append(TableEvent("last_card_caught", 1, {"target": 0, "count": 2}, "engine"))
    events += [
        TableEvent("played", 0, {"card": "7S"}, "engine"),
        TableEvent("played", 2, {"card": "7D"}, "engine"),
        TableEvent("played", 1, {"card": "9D"}, "engine"),
        TableEvent("turn", 1, {}, "engine"),
    ]
    messages = world.publisher._line_messages(snap, events, True)
    contents = [m.content or "" for m in messages]
    for content in contents:
        assert len(content) <= 2000
        assert not content.endswith("…"), f"a line was cut: {content[-120:]!r}"
    told = "\n".join(contents)
    assert f"<@{BOB}>" in told, f"the mention of the player to move is lost: {contents[-1][-160:]!r}"
    assert "played 9♦" in told  # the last move is told
