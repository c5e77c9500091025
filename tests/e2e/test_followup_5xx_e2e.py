"""A turn line sent as a follow-up (``POST /webhooks/{application_id}/{token}``: Discord's execute webhook,
which takes no nonce) met by a 5xx. Discord's edge answers 502/504 at times after Discord took the request:
sent again blindly (the budget's quick retry, discord.py's webhook adapter), the line showed twice and the
next player was pinged twice. README, *Discord's rate limits*: the bot never sends a follow-up's creation
again after a 5xx; it reads the channel's history for the line a moment later and sends only what is not
there, so the line is shown and the player pinged once, and never lost (where the bot cannot read the
channel, it sends the line again: it may show twice, never lost)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from aiohttp import web

from tests.e2e.conftest import World
from tests.e2e.test_channel_refusals_e2e import ChannelCalls

FOLLOWUP = re.compile(r"/webhooks/\d+/[^/]+$")
SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


class FollowupFault:
    """The next follow-up creation that mentions ``mention`` is answered 502 once: after the fake posted it
    (``taken``, as Discord's edge does after Discord took it) or before (not posted). Counts the follow-up
    creations that mention it."""

    def __init__(self, world: World, *, taken: bool) -> None:
        self.fake = world.fake
        self.taken = taken
        self.left = 1
        self.mention = ""
        self.posts = 0  # follow-up creations mentioning ``mention`` that reached the fake
        self.original = self.fake._handle
        self.fake._handle = self.handle  # type: ignore[method-assign]

    def remove(self) -> None:
        self.fake._handle = self.original  # type: ignore[method-assign]

    async def handle(self, request: web.Request, handler: Any) -> web.StreamResponse:
        creates = request.method == "POST" and FOLLOWUP.search(request.path) is not None
        mentions = creates and bool(self.mention) and self.mention in await request.text()
        if mentions:
            self.posts += 1
        if mentions and self.left > 0 and not self.taken:
            self.left -= 1  # Discord did not post it
            return web.json_response({"message": "502: Bad Gateway", "code": 0}, status=502)
        response = await self.original(request, handler)
        if mentions and self.left > 0 and response.status == 200:
            self.left -= 1  # Discord posted it; its edge answers 502
            return web.json_response({"message": "502: Bad Gateway", "code": 0}, status=502)
        return response


async def two_players(world: World) -> None:
    fake = world.fake
    board = await world.run(world.alice, "new", target=1000)
    await (await fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await fake.click(world.alice, board, label="Start")).reply()
    await world.settle()


async def play_until_met(world: World, fault: FollowupFault) -> tuple[str, int]:
    """Play by buttons until a move hands the turn on through a follow-up that meets the fault (an 8 asks
    for a suit first); returns the mention and how many public messages came before that move."""
    fake = world.fake
    for _ in range(20):
        mover = await world.human_to_act()
        assert mover is not None
        other = world.bob if mover is world.alice else world.alice
        fault.mention = f"<@{other.id}>"
        fault.posts = 0
        before = len(fake.channel_messages(world.channel))
        await world.play_by_buttons(mover)
        await world.settle()
        if fault.left == 0:
            await world.settle()
            await world.human_to_act()
            await world.settle()
            return fault.mention, before
    raise AssertionError("no follow-up mentioning the next player was sent")


def pings(world: World, mention: str, before: int) -> list[str]:
    new = [m.content for m in world.fake.channel_messages(world.channel)[before:] if not m.embeds]
    return [text for text in new if mention in text]


@SQLITE_ONLY
async def test_a_turn_line_taken_by_discord_then_answered_502_is_shown_and_pings_once(world: World) -> None:
    """Discord posted the follow-up and its edge answered 502: the follow-up is not sent again (neither by
    the budget's quick retry nor by discord.py's adapter); the bot finds the line in the channel's history,
    so it is shown once and the next player is pinged once."""
    await two_players(world)
    fault = FollowupFault(world, taken=True)
    try:
        mention, before = await play_until_met(world, fault)
    finally:
        fault.remove()
    shown = pings(world, mention, before)
    assert len(shown) == 1, f"the next player was pinged {len(shown)} times for one turn: {shown}"
    assert fault.posts == 1, f"the follow-up was sent {fault.posts} times"


@SQLITE_ONLY
async def test_a_turn_line_answered_502_without_being_posted_is_sent_again_once(world: World) -> None:
    """Discord did not post the follow-up (502 before it): the channel's history does not show it, so the
    line is sent again, once: never lost, never doubled."""
    await two_players(world)
    fault = FollowupFault(world, taken=False)
    try:
        mention, before = await play_until_met(world, fault)
    finally:
        fault.remove()
    shown = pings(world, mention, before)
    assert len(shown) == 1, f"the next player was pinged {len(shown)} times for one turn: {shown}"
    assert fault.posts == 2  # the one answered 502, then the one posted after the history was read


@SQLITE_ONLY
async def test_where_the_bot_cannot_read_the_channel_a_line_in_doubt_is_sent_again_never_lost(
    world: World,
) -> None:
    """The bot lacks the channel's permissions (tables play through interactions there, README): the
    history that would tell whether Discord took the follow-up is refused, so the line is sent again as a
    follow-up. It may show twice (here it does: Discord had taken it), but it is never lost."""
    await two_players(world)
    calls = ChannelCalls(world)
    calls.refuse = 50001  # Missing Access: the channel's own routes (its history) refuse the bot
    fault = FollowupFault(world, taken=True)
    try:
        mention, before = await play_until_met(world, fault)
    finally:
        fault.remove()
        calls.refuse = None
    world.fake.take_violations()  # the refused channel calls
    shown = pings(world, mention, before)
    assert calls.count["GET"] >= 1, "the channel's history was not looked at"
    assert len(shown) == 2, shown
    assert fault.posts == 2
