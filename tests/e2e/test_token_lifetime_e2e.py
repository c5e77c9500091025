"""Discord's 15-minute interaction token in long games (README, *Discord's rate limits*), end to end against
the fake Discord, which answers a token older than its ``token_lifetime`` with 401 50027 and records the
request as a violation (an invalid request, counted towards Discord's ban).

Time is scaled: one "minute" is ``M`` seconds; the bot's windows (HAND_EDIT_WINDOW 14 min, REPOST_AFTER 10
min) and the fake's token lifetime (15 min) are scaled alike (``tests.e2e.board_tokens.scale_windows``)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from tests.e2e.board_tokens import boards, scale_windows
from tests.e2e.conftest import World
from tests.e2e.test_hand_messages_e2e import card_buttons, fire, two_people
from tests.e2e.test_leaks_e2e import cpu_table_in, fire_in
from tests.fakediscord import FakeMessage
from tests.fakediscord.server import _Reject

M = 0.2  # seconds per "minute"
HINT = "press **My hand**"


def scaled(world: World, monkeypatch: pytest.MonkeyPatch, *, lifetime: float = 15 * M) -> None:
    scale_windows(monkeypatch, repost=10 * M, window=14 * M)
    world.fake.token_lifetime = lifetime


def count_401s(world: World) -> tuple[Counter[str], list[str]]:
    """Every 401 the fake answers an interaction webhook with from now on: by token, and what was sent."""
    fake: Any = world.fake
    seen: Counter[str] = Counter()
    routes: list[str] = []
    original = fake._webhook_record

    def record(request: Any) -> Any:
        try:
            return original(request)
        except _Reject as reject:
            if reject.status == 401:
                token = request.match_info["token"]
                seen[token] += 1
                what = fake._by_token[token].data.get("custom_id") or "command"
                routes.append(f"{request.method} {request.path.rsplit('/', 1)[-1][:12]} (token of {what})")
            raise

    fake._webhook_record = record
    return seen, routes


def lines(world: World) -> list[str]:
    return [m.content for m in world.fake.channel_messages(world.channel) if m.content]


async def click_first_card(world: World, hand: FakeMessage) -> FakeMessage:
    first = card_buttons(hand)[0]
    button = next(b for b in hand.buttons if b["label"] == first)
    return await (await world.fake.click(world.alice, hand, button["custom_id"])).reply()


async def test_turn_coming_14_and_a_half_minutes_after_the_hand_was_opened_points_at_my_hand(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand message is edited in place only while its token is younger than HAND_EDIT_WINDOW; past it the
    turn line tells the player to press My hand. bob opened his hand 14.5 minutes ago: it is not edited (no
    401), and the line that calls him says to press My hand."""
    scaled(world, monkeypatch)
    alice_hand = await two_people(world, target=1000, turn_timeout=3600)
    bob_hand = await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    await asyncio.sleep(14.5 * M)
    seen = len(bob_hand.versions)
    await click_first_card(world, alice_hand)
    await world.settle()
    assert (await world.human_to_act()) is world.bob
    assert len(bob_hand.versions) == seen, "bob's expired hand was edited"
    turn = [t for t in lines(world) if f"<@{world.bob.id}>" in t][-1]
    assert HINT in turn, turn
    assert world.fake.take_violations() == []


async def test_old_hand_buttons_work_after_20_minutes_and_the_click_keeps_the_hand_refreshed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "Buttons of a hand that did not change keep working"; the click is a new interaction whose
    token updates that message: alice's 20-minute-old hand plays in place, and when her turn comes
    again the same message is refreshed through the click's token (no "press My hand" hint)."""
    scaled(world, monkeypatch)
    alice_hand = await two_people(world, target=1000, turn_timeout=3600)
    await asyncio.sleep(20 * M)
    reply = await click_first_card(world, alice_hand)
    assert reply.id == alice_hand.id and "Your hand" in reply.content, reply.content
    await world.settle()
    while (await world.human_to_act()) is world.bob:
        await world.play_by_buttons(world.bob)
        await world.settle()
    assert (await world.human_to_act()) is world.alice
    assert "Your turn" in alice_hand.content, alice_hand.content
    turn = [t for t in lines(world) if f"<@{world.alice.id}>" in t][-1]
    assert HINT not in turn, turn
    assert world.fake.take_violations() == []


async def test_a_cpu_only_table_idle_past_the_token_edits_its_board_through_the_channel(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "A table with no player interaction for 15 minutes (CPU seats only, idle) falls back
    to editing its board through the channel". Round 2 dealt 16 minutes after the last person acted: the
    same board shows it, the lines go out, and no spent token is used."""
    scaled(world, monkeypatch)
    await cpu_table_in(world, world.channel, target=1000)
    await world.settle()
    before = world.board()
    await asyncio.sleep(16 * M)
    posted = len(lines(world))
    await fire_in(world, world.channel, "_on_pause_over")
    await world.settle()
    snap = await world.snapshot()
    assert snap.round_number == 2
    assert world.board().id == before.id and len(boards(world)) == 1
    assert "round 2" in world.board().text()
    assert len(lines(world)) > posted
    assert world.fake.take_violations() == []


async def test_a_token_discord_refused_is_not_used_again_by_the_other_lanes(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token Discord refused for good is used by no lane again (README: refusals that would only repeat
    "are logged and not retried, so they cannot pile up towards the ban"), and nothing is lost: the line and
    the board fall back to the channel.

    alice's Start click is both her hand message and the table's latest interaction, and Discord ends its
    token before the bot's 14 minutes. The hands lane refreshes her hand through it first and gets 401
    50027; the turn line that follows (three seconds later) and the board then go through the channel, not
    through that token: one invalid request per spent token (before, up to three: hand refresh, line
    follow-up, board repost, each lane learning of the dead token on its own)."""
    scale_windows(monkeypatch, repost=20.0, window=28.0)  # the bot's minutes run slower than Discord's
    await two_people(world, target=1000, turn_timeout=3600)
    await world.settle()
    assert world.fake.take_violations() == []
    world.fake.token_lifetime = 1.0  # Discord ends the tokens early
    seen, routes = count_401s(world)
    world.publisher.min_interval = 3.0  # the public lanes wait: the hand's refresh goes first, alone
    await asyncio.sleep(1.2)
    posted = len(lines(world))
    await fire(world, "_on_turn_timeout")  # the timer plays alice's turn: her hand changes, a line is due
    await world.settle()
    assert len(lines(world)) > posted, "the line was lost"
    assert "bob" in str(world.board().embeds[0].get("description")), "the board edit was lost"
    world.fake.take_violations()  # the 401s themselves: counted below
    assert seen and all(n == 1 for n in seen.values()), routes


async def test_restart_after_15_minutes_old_hand_buttons_and_the_turn_line(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """README: buttons of a hand that did not change keep working "also after the bot restarts".
    Restarted 16 minutes after the hands were shown: alice's old button plays in place, bob's old hand is
    not edited (its token is spent; the new process knows no session) and his turn line says to press My
    hand; no error logged."""
    scaled(world, monkeypatch)
    alice_hand = await two_people(world, target=1000, turn_timeout=3600)
    bob_hand = await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    await asyncio.sleep(16 * M)
    await world.restart()
    await world.settle()
    seen = len(bob_hand.versions)
    reply = await click_first_card(world, alice_hand)
    assert reply.id == alice_hand.id and "You played" in reply.content, reply.content
    await world.settle()
    assert (await world.human_to_act()) is world.bob
    assert len(bob_hand.versions) == seen
    turn = [t for t in lines(world) if f"<@{world.bob.id}>" in t][-1]
    assert HINT in turn, turn
    assert world.fake.take_violations() == []
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= 40]
    assert not bad, [r.getMessage() for r in bad]


async def test_a_refused_click_on_an_expired_hand_shows_the_hand_now_in_that_message(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "(the hand message updates in place)"; no hand message is left showing cards and a turn that
    are gone. alice's hand message was shown at the deal; its token ran out; the turn timer played her turn
    for her, so that message still shows cards she no longer holds, with their buttons. When she presses
    one, the move is refused, and the click (a new interaction, whose token updates that very message)
    answers in place: the clicked message shows her hand now, with "That move is no longer possible." as its
    note, not a separate private answer beside the stale hand."""
    scaled(world, monkeypatch)
    alice_hand = await two_people(world, target=1000, turn_timeout=3600)
    old, old_cards = alice_hand.content, card_buttons(alice_hand)
    await asyncio.sleep(16 * M)
    await fire(world, "_on_turn_timeout")  # the timer plays alice's turn for her
    await world.settle()
    while (await world.human_to_act()) is world.bob:
        await world.play_by_buttons(world.bob)
        await world.settle()
    assert (await world.human_to_act()) is world.alice
    assert alice_hand.content == old  # expired: not refreshed (as designed)
    reply = await click_first_card(world, alice_hand)
    await world.settle()
    assert world.fake.take_violations() == []
    assert reply.id == alice_hand.id, f"answered apart: {reply.content!r}"
    assert alice_hand.content != old, alice_hand.content
    assert "no longer possible" in alice_hand.content and "Your hand" in alice_hand.content, (
        alice_hand.content
    )
    assert card_buttons(alice_hand) != old_cards  # the card the timer played is gone
