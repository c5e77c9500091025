"""The publisher: what reaches the channel, the board and the hands, and when, with a stub Discord client."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.cogs.publisher import HAND_EDIT_WINDOW, TablePublisher
from bot.service import HandView, Outcome, TableEvent, TableSnapshot
from bot.ui import render
from tests.ui.snapshots import ALICE, BOB, hand, snapshot, to_act


class StubMessage:
    def __init__(self, channel: StubChannel, message_id: int) -> None:
        self.channel, self.id = channel, message_id

    async def edit(self, **kwargs: Any) -> None:
        if self.id in self.channel.deleted:
            raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"), "Unknown Message")
        self.channel.edits.append((self.id, kwargs))


class StubChannel:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.edits: list[tuple[int, dict[str, Any]]] = []
        self.deleted: set[int] = set()
        self.next_id = 900

    async def send(self, content: str | None = None, **kwargs: Any) -> SimpleNamespace:
        self.next_id += 1
        self.sent.append({"content": content, **kwargs})
        return SimpleNamespace(id=self.next_id)

    def get_partial_message(self, message_id: int) -> StubMessage:
        return StubMessage(self, message_id)


class StubClient:
    def __init__(self) -> None:
        self.channel = StubChannel()

    def get_partial_messageable(self, channel_id: int, *, guild_id: int | None = None) -> StubChannel:
        return self.channel


class StubService:
    def __init__(self) -> None:
        self.hands: dict[int, HandView] = {}
        self.boards: list[tuple[int, int | None]] = []

    async def hand(self, table_id: int, user_id: int) -> HandView:
        return self.hands[user_id]

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        self.boards.append((table_id, message_id))


class StubInteraction:
    def __init__(self) -> None:
        self.edits: list[dict[str, Any]] = []

    async def edit_original_response(self, **kwargs: Any) -> None:
        self.edits.append(kwargs)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def setup() -> tuple[TablePublisher, StubChannel, StubService, Clock]:
    client = StubClient()
    clock = Clock()
    publisher = TablePublisher(client, gather_window=0.2, min_interval=0.0, monotonic=clock)  # type: ignore[arg-type]
    service = StubService()
    publisher.service = service  # type: ignore[assignment]
    return publisher, client.channel, service, clock


def played(seat: int, card: str) -> TableEvent:
    return TableEvent("played", seat, {"card": card}, "engine")


async def test_cpu_moves_are_gathered_into_one_message_and_one_edit(setup: Any) -> None:
    publisher, channel, _, _ = setup
    cpu_turn = to_act(snapshot(), 2)
    publisher.publish(Outcome(cpu_turn, (played(0, "KH"),)))
    await asyncio.sleep(0.02)
    assert channel.sent == []  # waiting for the CPU's move
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(2, "QH"), TableEvent("turn", 1, {}, "engine"))))
    await publisher.idle()
    assert len(channel.sent) == 1 and len(channel.edits) == 1
    hint = "(press **My hand** on the board to see your cards)"
    assert channel.sent[0]["content"] == f"alice played K♥\nCPU 1 played Q♥\n▶ <@{BOB}>, your turn {hint}."


async def test_a_cpu_that_takes_long_does_not_hold_the_board_back(setup: Any) -> None:
    publisher, channel, _, _ = setup
    publisher.publish(Outcome(to_act(snapshot(), 2), (played(0, "KH"), TableEvent("turn", 2, {}, "engine"))))
    await asyncio.sleep(0.3)
    assert len(channel.sent) == 1 and channel.sent[0]["content"] == "alice played K♥\n▶ CPU 1 to move."


async def test_the_turn_line_mentions_only_the_player_to_move(setup: Any) -> None:
    publisher, channel, _, _ = setup
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"), TableEvent("turn", 1, {}, "engine"))))
    await publisher.idle()
    mentions = channel.sent[0]["allowed_mentions"]
    assert mentions.everyone is False and mentions.roles is False and mentions.replied_user is False
    assert [user.id for user in mentions.users] == [BOB]


async def test_lobby_chatter_stays_on_the_board(setup: Any) -> None:
    publisher, channel, _, _ = setup
    lobby = snapshot(phase="lobby", status="lobby", to_act=None)
    publisher.publish(Outcome(lobby, (TableEvent("joined", 1, {"user_id": BOB, "name": "bob"}),)))
    await publisher.idle()
    assert channel.sent == [] and len(channel.edits) == 1
    # An unchanged board is not edited again.
    publisher.publish(Outcome(lobby, ()))
    await publisher.idle()
    assert len(channel.edits) == 1


async def test_a_deleted_board_is_posted_again(setup: Any) -> None:
    publisher, channel, service, _ = setup
    channel.deleted.add(555)
    publisher.publish(Outcome(to_act(snapshot(), 0), (played(1, "KH"),)))
    await publisher.idle()
    boards = [message for message in channel.sent if "embed" in message]
    assert len(boards) == 1 and service.boards == [(7, channel.next_id)]
    assert publisher.board_id(snapshot()) == channel.next_id


def hand_of(user_position: int, snap: TableSnapshot, cards: list[str], playable: set[str]) -> HandView:
    mine = snap.to_act == user_position
    return hand(cards, playable, snap=snap, position=user_position, your_turn=mine, can_draw=mine)


async def test_a_hand_is_refreshed_in_place_when_its_turn_comes(setup: Any) -> None:
    publisher, channel, service, clock = setup
    before = to_act(snapshot(), 0)
    bob = StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.remember_hand(7, BOB, bob, render.hand_content(service.hands[BOB]), None)
    publisher.publish(Outcome(before, ()))
    await publisher.idle()
    assert bob.edits == []  # nothing changed for bob

    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine"))))
    await publisher.idle()
    assert len(bob.edits) == 1 and "**Your turn.**" in bob.edits[0]["content"]
    assert channel.sent[-1]["content"].endswith(f"<@{BOB}>, your turn.")  # no "press My hand"

    # Past the token's life the hand is left alone and the line points at "My hand".
    clock.now += HAND_EDIT_WINDOW + 1
    again = to_act(replace(snapshot(), target_card="9H"), 1)
    service.hands[BOB] = hand_of(1, again, ["3C", "9C", "4H"], {"9C", "4H"})
    events = (TableEvent("drew", 0, {"count": 1}, "engine"), TableEvent("turn", 1, {}, "engine"))
    publisher.publish(Outcome(again, events, {BOB: ()}))
    await publisher.idle()
    assert len(bob.edits) == 1
    assert "press **My hand**" in channel.sent[-1]["content"]


async def test_closing_a_table_forgets_its_hands(setup: Any) -> None:
    publisher = setup[0]
    alice = StubInteraction()
    publisher.remember_hand(7, ALICE, alice, "x", None)
    closed = snapshot(phase="abandoned", status="abandoned", to_act=None)
    publisher.publish(Outcome(closed, (TableEvent("closed", None, {"reason": "ended"}),)))
    await publisher.idle()
    assert publisher.session(7, ALICE) is None
    assert 7 not in publisher._feeds


async def test_a_refresh_waits_for_a_hand_being_shown_and_refreshes_that_one(setup: Any) -> None:
    publisher, _, service, _ = setup
    before = to_act(snapshot(), 0)
    old, new = StubInteraction(), StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.remember_hand(7, BOB, old, render.hand_content(service.hands[BOB]), None)
    lock = publisher.hand_lock(7, BOB)
    await lock.acquire()  # bob's hand is being shown as a new message (e.g. he pressed "My hand")
    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine"))))
    await asyncio.sleep(0.05)
    assert old.edits == [] and new.edits == []  # the refresh waits
    stale = hand_of(1, before, ["3C", "9C"], set())  # shown from the state before alice's move
    publisher.remember_hand(7, BOB, new, render.hand_content(stale), None, stale)
    lock.release()
    await publisher.idle()
    assert old.edits == []
    assert len(new.edits) == 1 and "**Your turn.**" in new.edits[0]["content"]


async def test_a_hand_is_refreshed_at_once_while_the_public_line_waits_for_its_spacing(setup: Any) -> None:
    publisher, channel, service, _ = setup
    publisher.min_interval = 0.5
    before = to_act(snapshot(), 0)
    bob = StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.remember_hand(7, BOB, bob, render.hand_content(service.hands[BOB]), None)
    publisher.publish(Outcome(before, (played(1, "KH"),)))
    await asyncio.sleep(0.05)
    assert len(channel.sent) == 1 and len(channel.edits) == 1  # a table's first line goes out at once

    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine"))))
    await asyncio.sleep(0.05)
    assert len(bob.edits) == 1 and "**Your turn.**" in bob.edits[0]["content"]  # bob learns it at once
    assert len(channel.sent) == 1 and len(channel.edits) == 1  # the channel hears of it after the spacing

    await publisher.idle()
    assert len(channel.sent) == 2 and len(channel.edits) == 2
    assert channel.sent[1]["content"].startswith("alice played 9♦")


async def test_the_hand_of_the_player_who_moved_is_left_to_their_answer(setup: Any) -> None:
    publisher, _, service, _ = setup
    before = to_act(snapshot(), 0)
    alice = StubInteraction()
    service.hands[ALICE] = hand_of(0, before, ["9D", "3C"], {"9D"})
    publisher.remember_hand(7, ALICE, alice, render.hand_content(service.hands[ALICE]), None)
    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[ALICE] = hand_of(0, after, ["3C"], set())
    moved = Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine")), {ALICE: ()})
    publisher.publish(moved, shown_to=ALICE)  # her click's answer shows her new hand
    await publisher.idle()
    assert alice.edits == []
    # Someone else's outcome with the same change does refresh her hand message.
    publisher.publish(moved)
    await publisher.idle()
    assert len(alice.edits) == 1 and "Not your turn." in alice.edits[0]["content"]
