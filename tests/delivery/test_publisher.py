"""The publisher: what reaches the channel, the board and the hands, and when, with a stub Discord client.

Time is the service's ``FakeClock``: the tests move it on (``advance``, ``settle``) and never wait on the wall
clock for the lanes, so a loaded machine changes nothing of what they see."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.delivery import answers
from bot.delivery import publisher as publisher_module
from bot.delivery.budget import GlobalBudget
from bot.delivery.carrier import REPOST_AFTER
from bot.delivery.channel_refusals import REFUSED_FOR, REFUSED_MAX
from bot.delivery.publisher import DEFAULT_DEBOUNCE, HAND_EDIT_WINDOW, TablePublisher, gather_window_for
from bot.service import FakeClock, HandView, Outcome, TableEvent, TableSnapshot
from bot.service.models import CardDisplay
from bot.ui import render
from bot.ui.appearance import Appearance
from bot.ui.art.board import BoardRenderer
from tests.ui.snapshots import ALICE, BOB, hand, snapshot, to_act


class StubMessage:
    def __init__(self, channel: StubChannel, message_id: int) -> None:
        self.channel, self.id = channel, message_id

    async def edit(self, **kwargs: Any) -> None:
        if self.id in self.channel.deleted:
            raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"), "Unknown Message")
        self.channel.edits.append((self.id, kwargs))

    async def delete(self) -> None:
        self.channel.deleted.add(self.id)


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
        self.pictures: dict[int, tuple[int, str]] = {}

    async def hand(self, table_id: int, user_id: int) -> HandView:
        return self.hands[user_id]

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        self.boards.append((table_id, message_id))

    async def board_picture(self, table_id: int) -> tuple[int, str] | None:
        return self.pictures.get(table_id)

    async def set_board_picture(self, table_id: int, message_id: int, digest: str) -> None:
        self.pictures[table_id] = (message_id, digest)

    async def forget_board_picture(self, table_id: int) -> None:
        self.pictures.pop(table_id, None)


class StubInteraction:
    def __init__(self) -> None:
        self.edits: list[dict[str, Any]] = []

    async def edit_original_response(self, **kwargs: Any) -> None:
        # The view's controls as sent (as Discord receives them): the bot releases a view once it is sent.
        view = kwargs.get("view")
        if view is not None:
            kwargs["controls"] = list(view.children)
        self.edits.append(kwargs)


def fake_clock(publisher: TablePublisher) -> FakeClock:
    clock = publisher.clock
    assert isinstance(clock, FakeClock)
    return clock


async def run_ready() -> None:
    """Let every task that can run now do so (the stubs answer at once)."""
    for _ in range(50):
        await asyncio.sleep(0)  # a yield to the loop, not a wait


async def advance(publisher: TablePublisher, seconds: float) -> None:
    """Move the publisher's fake clock ``seconds`` on, letting the lanes run at each timer on the way."""
    clock = fake_clock(publisher)
    target = clock.now() + seconds
    while True:
        await run_ready()
        due = [when for when in clock.pending() if when <= target]
        if not due:
            break
        await clock.advance(max(0.0, due[0] - clock.now()))
    await clock.advance(max(0.0, target - clock.now()))
    await run_ready()


async def settle(publisher: TablePublisher) -> None:
    """Run the fake clock on, timer by timer, until everything queued has been shown. Only what is not on
    the clock (a real ``GlobalBudget``'s pacing) is waited for in real time."""
    clock = fake_clock(publisher)
    for _ in range(10_000):
        await run_ready()
        if not publisher.busy():
            return
        due = clock.pending()
        if due:
            await clock.advance(max(0.0, due[0] - clock.now()))
        else:
            await publisher.idle(timeout=0.05)
    raise AssertionError("the publisher never settled")


@pytest.fixture
def setup() -> tuple[TablePublisher, StubChannel, StubService, FakeClock]:
    client = StubClient()
    clock = FakeClock()
    service = StubService()
    publisher = TablePublisher(client, service, gather_window=0.2, min_interval=0.0, clock=clock)  # type: ignore[arg-type]
    return publisher, client.channel, service, clock


def played(seat: int, card: str) -> TableEvent:
    return TableEvent("played", seat, {"card": card}, "engine")


async def test_cpu_moves_are_gathered_into_one_message_and_one_edit(setup: Any) -> None:
    publisher, channel, _, _ = setup
    cpu_turn = to_act(snapshot(), 2)
    publisher.publish(Outcome(cpu_turn, (played(0, "KH"),)))
    await advance(publisher, 0.02)
    assert channel.sent == []  # waiting for the CPU's move
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(2, "QH"), TableEvent("turn", 1, {}, "engine"))))
    await settle(publisher)
    assert len(channel.sent) == 1 and len(channel.edits) == 1
    hint = "(press **My hand** on the board to see your cards)"
    assert channel.sent[0]["content"] == f"alice played K♥\nCPU 1 played Q♥\n▶ <@{BOB}>, your turn {hint}."


async def test_a_cpu_that_takes_long_does_not_hold_the_board_back(setup: Any) -> None:
    publisher, channel, _, _ = setup
    publisher.publish(Outcome(to_act(snapshot(), 2), (played(0, "KH"), TableEvent("turn", 2, {}, "engine"))))
    await advance(publisher, 0.3)
    assert len(channel.sent) == 1 and channel.sent[0]["content"] == "alice played K♥\n▶ CPU 1 to move."


async def test_the_turn_line_mentions_only_the_player_to_move(setup: Any) -> None:
    publisher, channel, _, _ = setup
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"), TableEvent("turn", 1, {}, "engine"))))
    await settle(publisher)
    mentions = channel.sent[0]["allowed_mentions"]
    assert mentions.everyone is False and mentions.roles is False and mentions.replied_user is False
    assert [user.id for user in mentions.users] == [BOB]


async def test_lobby_chatter_stays_on_the_board(setup: Any) -> None:
    publisher, channel, _, _ = setup
    lobby = snapshot(phase="lobby", status="lobby", to_act=None)
    publisher.publish(Outcome(lobby, (TableEvent("joined", 1, {"user_id": BOB, "name": "bob"}),)))
    await settle(publisher)
    assert channel.sent == [] and len(channel.edits) == 1
    # An unchanged board is not edited again.
    publisher.publish(Outcome(lobby, ()))
    await settle(publisher)
    assert len(channel.edits) == 1


async def test_a_deleted_board_is_posted_again(setup: Any) -> None:
    publisher, channel, service, _ = setup
    channel.deleted.add(555)
    publisher.publish(Outcome(to_act(snapshot(), 0), (played(1, "KH"),)))
    await settle(publisher)
    boards = [message for message in channel.sent if "embed" in message]
    assert len(boards) == 1 and service.boards == [(7, channel.next_id)]
    assert publisher.board_id(snapshot()) == channel.next_id


async def test_a_board_edits_buttons_are_released_once_sent(setup: Any) -> None:
    """A view and its buttons refer to each other: a board edit's view left as it was sent waited for the
    cyclic garbage collector (about 24 a second at 300 busy tables). Routed by custom id, it is not needed
    once sent."""
    publisher, channel, _, _ = setup
    playing = to_act(snapshot(), 0)
    publisher.publish(Outcome(playing, (played(1, "KH"),)))
    await settle(publisher)
    publisher.publish(Outcome(replace(playing, phase="between_rounds", to_act=None), ()))
    await settle(publisher)
    views = [fields["view"] for _, fields in channel.edits if fields.get("view") is not None]
    assert views  # the buttons changed with the phase: the edit sent new ones
    assert all(view.is_finished() and not view.children for view in views)


async def test_a_board_posted_in_the_channel_has_its_buttons_released_once_sent(setup: Any) -> None:
    publisher, channel, _, _ = setup
    channel.deleted.add(555)  # the board's message is gone: it is posted again
    publisher.publish(Outcome(to_act(snapshot(), 0), (played(1, "KH"),)))
    await settle(publisher)
    views = [message["view"] for message in channel.sent if message.get("view") is not None]
    assert views
    assert all(view.is_finished() and not view.children for view in views)


def hand_of(
    user_position: int, snap: TableSnapshot, cards: list[str], playable: set[str], **changes: Any
) -> HandView:
    mine = snap.to_act == user_position
    return hand(cards, playable, snap=snap, position=user_position, your_turn=mine, can_draw=mine, **changes)


async def test_a_hand_is_refreshed_in_place_when_its_turn_comes(setup: Any) -> None:
    publisher, channel, service, clock = setup
    before = to_act(snapshot(), 0)
    bob = StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.hands.remember(7, BOB, bob, render.hand_content(service.hands[BOB]), ())
    publisher.publish(Outcome(before, ()))
    await settle(publisher)
    assert bob.edits == []  # nothing changed for bob

    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine"))))
    await settle(publisher)
    assert len(bob.edits) == 1 and "**Your turn.**" in bob.edits[0]["content"]
    assert channel.sent[-1]["content"].endswith(f"<@{BOB}>, your turn.")  # no "press My hand"

    # Past the token's life the hand is left alone and the line points at "My hand".
    await clock.advance(HAND_EDIT_WINDOW + 1)
    again = to_act(replace(snapshot(), target_card="9H"), 1)
    service.hands[BOB] = hand_of(1, again, ["3C", "9C", "4H"], {"9C", "4H"})
    events = (TableEvent("drew", 0, {"count": 1}, "engine"), TableEvent("turn", 1, {}, "engine"))
    publisher.publish(Outcome(again, events, {BOB: ()}))
    await settle(publisher)
    assert len(bob.edits) == 1
    assert "press **My hand**" in channel.sent[-1]["content"]


async def test_closing_a_table_forgets_its_hands(setup: Any) -> None:
    publisher = setup[0]
    alice = StubInteraction()
    publisher.hands.remember(7, ALICE, alice, "x", ())
    closed = snapshot(phase="abandoned", status="abandoned", to_act=None)
    publisher.publish(Outcome(closed, (TableEvent("closed", None, {"reason": "ended"}),)))
    await settle(publisher)
    assert publisher.hands.session(7, ALICE) is None
    assert not publisher.holds(7)


async def test_a_closed_table_leaves_no_board_built_for_an_answer_that_never_went_out(setup: Any) -> None:
    """The board built for an interaction's answer (``/eights status``) whose answer never went out is
    forgotten with its table, as everything else of it."""
    publisher = setup[0]
    await publisher.board_message(to_act(snapshot(), 1))  # its answer then failed: never posted
    assert publisher._board._built
    closed = snapshot(phase="abandoned", status="abandoned", to_act=None)
    publisher.publish(Outcome(closed, (TableEvent("closed", None, {"reason": "ended"}),)))
    await settle(publisher)
    assert not publisher.holds(7) and publisher._board._built == {}


async def test_a_refresh_waits_for_a_hand_being_shown_and_refreshes_that_one(setup: Any) -> None:
    publisher, _, service, _ = setup
    before = to_act(snapshot(), 0)
    old, new = StubInteraction(), StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.hands.remember(7, BOB, old, render.hand_content(service.hands[BOB]), ())
    lock = publisher.hands.lock(7, BOB)
    await lock.acquire()  # bob's hand is being shown as a new message (e.g. he pressed "My hand")
    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine"))))
    await advance(publisher, 0.05)
    assert old.edits == [] and new.edits == []  # the refresh waits
    stale = hand_of(1, before, ["3C", "9C"], set())  # shown from the state before alice's move
    publisher.hands.remember(7, BOB, new, render.hand_content(stale), (), stale)
    lock.release()
    await settle(publisher)
    assert old.edits == []
    assert len(new.edits) == 1 and "**Your turn.**" in new.edits[0]["content"]


async def test_a_hand_is_refreshed_at_once_while_the_public_line_waits_for_its_spacing(setup: Any) -> None:
    publisher, channel, service, _ = setup
    publisher.min_interval = 0.5
    before = to_act(snapshot(), 0)
    bob = StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.hands.remember(7, BOB, bob, render.hand_content(service.hands[BOB]), ())
    publisher.publish(Outcome(before, (played(1, "KH"),)))
    await advance(publisher, 0.05)
    assert len(channel.sent) == 1 and len(channel.edits) == 1  # a table's first line goes out at once

    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine"))))
    await advance(publisher, 0.05)
    assert len(bob.edits) == 1 and "**Your turn.**" in bob.edits[0]["content"]  # bob learns it at once
    assert len(channel.sent) == 1 and len(channel.edits) == 1  # the channel hears of it after the spacing

    await settle(publisher)
    assert len(channel.sent) == 2 and len(channel.edits) == 2
    assert channel.sent[1]["content"].startswith("alice played 9♦")


async def test_the_hand_of_the_player_who_moved_is_left_to_their_answer(setup: Any) -> None:
    publisher, _, service, _ = setup
    before = to_act(snapshot(), 0)
    alice = StubInteraction()
    service.hands[ALICE] = hand_of(0, before, ["9D", "3C"], {"9D"})
    publisher.hands.remember(7, ALICE, alice, render.hand_content(service.hands[ALICE]), ())
    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[ALICE] = hand_of(0, after, ["3C"], set())
    moved = Outcome(after, (played(0, "9D"), TableEvent("turn", 1, {}, "engine")), {ALICE: ()})
    publisher.publish(moved, shown_to=ALICE)  # her click's answer shows her new hand
    await settle(publisher)
    assert alice.edits == []
    # Someone else's outcome with the same change does refresh her hand message.
    publisher.publish(moved)
    await settle(publisher)
    assert len(alice.edits) == 1 and "Not your turn." in alice.edits[0]["content"]


async def test_an_uncalled_last_card_refreshes_the_opponents_hands_with_catch_under_a_house_rule(
    setup: Any,
) -> None:
    """classic with the house rule "last card": the hand refresh asks the table's rules, not its preset."""
    publisher, _, service, _ = setup
    rules = {"preset": "classic", "has_last_card": True, "house_rules": ("Last card must be called",)}
    alice_two = (replace(seat, card_count=2 if seat.position == 0 else 5) for seat in snapshot().seats)
    before = to_act(snapshot(**rules, seats=tuple(alice_two)), 0)
    bob = StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.hands.remember(7, BOB, bob, render.hand_content(service.hands[BOB]), ())
    publisher.publish(Outcome(before, ()))
    await settle(publisher)
    assert bob.edits == []
    # alice plays down to one card without calling it; the turn passes to the CPU, not to bob.
    alice_one = tuple(replace(seat, card_count=1) if seat.position == 0 else seat for seat in before.seats)
    after = to_act(replace(before, seats=alice_one, target_card="9D"), 2)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], set(), catch_targets=(0,))
    publisher.publish(Outcome(after, (played(0, "9D"), TableEvent("turn", 2, {}, "engine"))))
    await settle(publisher)
    assert len(bob.edits) == 1
    labels = [getattr(item.item, "label", None) for item in bob.edits[0]["controls"]]
    assert "Catch alice" in labels


# --- outcomes published out of their commit order -----------------------------------------------------------


def board_fields(channel: StubChannel) -> dict[str, str]:
    """The fields of the last board edit that went through the channel."""
    boards = [fields for _, fields in channel.edits if fields.get("embed") is not None]
    embed = boards[-1]["embed"].to_dict()
    return {field["name"]: field["value"] for field in embed.get("fields", [])}


def alice_then_cpu() -> tuple[Outcome, Outcome]:
    """alice's move (version 5: the CPU to move), then the CPU's answer (version 6: bob to move)."""
    alice_played = Outcome(
        to_act(replace(snapshot(), target_card="KH"), 2),
        (played(0, "KH"), TableEvent("turn", 2, {}, "engine")),
        {},
        5,
    )
    cpu_played = Outcome(
        to_act(replace(snapshot(), target_card="QH"), 1),
        (played(2, "QH"), TableEvent("turn", 1, {}, "engine")),
        {},
        6,
    )
    return alice_played, cpu_played


async def test_an_outcome_published_late_is_told_before_the_newer_moves_and_leaves_the_board_newest(
    setup: Any,
) -> None:
    """A move's outcome may reach the publisher after a newer one (its caller awaited something first, and
    a CPU's move its commit let start came meanwhile): its plays are told before the newer ones still
    queued, and the board shows the newer state, not the older one published last."""
    publisher, channel, _, _ = setup
    alice_played, cpu_played = alice_then_cpu()
    publisher.publish(cpu_played)
    publisher.publish(alice_played)
    await settle(publisher)
    hint = "(press **My hand** on the board to see your cards)"
    assert [m["content"] for m in channel.sent] == [
        f"alice played K♥\nCPU 1 played Q♥\n▶ <@{BOB}>, your turn {hint}."
    ]
    fields = board_fields(channel)
    assert "Q♥" in fields["Target"]
    assert "▶" in fields["Seats"].splitlines()[1]  # bob to move


async def test_an_outcome_published_after_the_newer_news_was_shown_does_not_turn_the_board_back(
    setup: Any,
) -> None:
    publisher, channel, _, _ = setup
    alice_played, cpu_played = alice_then_cpu()
    publisher.publish(cpu_played)
    await settle(publisher)
    edits = len(channel.edits)
    publisher.publish(alice_played)
    await settle(publisher)
    assert len(channel.edits) == edits  # the board already shows the latest state
    assert "Q♥" in board_fields(channel)["Target"]
    assert "alice played K♥" in channel.sent[-1]["content"]  # told all the same


# --- the global budget: turns, coalescing, failures ---------------------------------------------------------


def http_error(kind: type[discord.HTTPException], status: int, code: int = 0) -> discord.HTTPException:
    message: Any = {"code": code, "message": "stub"} if code else "stub"
    return kind(SimpleNamespace(status=status, reason="stub"), message)  # type: ignore[arg-type]


class FlakyChannel(StubChannel):
    """A channel whose requests fail as told (one error per call, in order) and can be held back."""

    def __init__(self) -> None:
        super().__init__()
        self.send_errors: list[BaseException] = []
        self.edit_errors: list[BaseException] = []
        self.attempts: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()

    async def send(self, content: str | None = None, **kwargs: Any) -> SimpleNamespace:
        self.attempts.append("send")
        await self.gate.wait()
        if self.send_errors:
            raise self.send_errors.pop(0)
        return await super().send(content, **kwargs)

    def get_partial_message(self, message_id: int) -> StubMessage:
        channel = self

        class Message(StubMessage):
            async def edit(self, **kwargs: Any) -> None:
                channel.attempts.append("edit")
                await channel.gate.wait()
                if channel.edit_errors:
                    raise channel.edit_errors.pop(0)
                await super().edit(**kwargs)

        return Message(self, message_id)


class FlakyClient(StubClient):
    def __init__(self) -> None:
        self.channel = FlakyChannel()


class Followups:
    """An interaction's webhook: follow-ups, and edits and deletes of them (ids from 700 on)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.errors: list[BaseException] = []
        self.edits: list[tuple[int, dict[str, Any]]] = []
        self.deleted: list[int] = []

    async def send(self, content: str | None = None, **kwargs: Any) -> SimpleNamespace:
        if self.errors:
            raise self.errors.pop(0)
        self.sent.append({"content": content, **kwargs})
        return SimpleNamespace(id=700 + len(self.sent))

    async def edit_message(self, message_id: int, **kwargs: Any) -> None:
        self.edits.append((message_id, kwargs))

    async def delete_message(self, message_id: int) -> None:
        self.deleted.append(message_id)


_interaction_ids = itertools.count(1)


class PlayerInteraction(StubInteraction):
    """A player's click, answered (or not yet) through ``bot.delivery.answers``."""

    def __init__(self) -> None:
        super().__init__()
        self.id = next(_interaction_ids)
        self.followup = Followups()
        self.response = SimpleNamespace(is_done=lambda: True)
        self.channel_id = 2  # the table's channel (see tests/ui/snapshots.py)
        self.original_deleted = False

    async def delete_original_response(self) -> None:
        self.original_deleted = True


@pytest.fixture
def flaky(monkeypatch: pytest.MonkeyPatch) -> tuple[TablePublisher, FlakyChannel, StubService]:
    monkeypatch.setattr(publisher_module, "RETRY_FIRST", 0.05)
    client = FlakyClient()
    service = StubService()
    publisher = TablePublisher(client, service, gather_window=0.2, min_interval=0.0, clock=FakeClock())  # type: ignore[arg-type]
    return publisher, client.channel, service


def shown_hand(
    publisher: TablePublisher, service: StubService, user: int, interaction: Any, view: HandView
) -> None:
    """``user``'s hand message (shown through ``interaction``) shows ``view``, as the service's hand now."""
    service.hands[user] = view
    publisher.hands.remember(7, user, interaction, render.hand_content(view), ())


def turn_to(position: int) -> TableEvent:
    return TableEvent("turn", position, {}, "engine")


def mentioned(message: dict[str, Any]) -> list[int]:
    users = message["allowed_mentions"].users
    return [user.id for user in users] if users else []


async def test_lines_follow_up_the_players_answered_interaction_exempt_from_the_global_limit(
    flaky: Any,
) -> None:
    publisher, channel, _ = flaky
    alice = PlayerInteraction()
    moved = Outcome(to_act(snapshot(), 2), (played(0, "KH"), turn_to(2)))
    publisher.publish(moved, shown_to=ALICE, via=alice)  # type: ignore[arg-type]
    await advance(publisher, 0.35)
    # Her answer has not gone out yet: a follow-up now would take its place; nothing is posted.
    assert alice.followup.sent == [] and channel.sent == []
    await answers.acknowledge(alice)  # type: ignore[arg-type]
    await advance(publisher, 0.05)
    lines = [message["content"] for message in alice.followup.sent if message["content"] is not None]
    assert lines == ["alice played K♥\n▶ CPU 1 to move."]
    # The CPU's move that follows (no interaction of its own) is told through the table's latest one.
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(2, "KS"), turn_to(1))))
    await settle(publisher)
    lines = [message for message in alice.followup.sent if message["content"] is not None]
    assert len(lines) == 2 and mentioned(lines[1]) == [BOB]
    # The board moved to her interaction as well (posted as its follow-up, the channel's board removed):
    # no message and no edit through the channel routes.
    (board,) = [message for message in alice.followup.sent if "embed" in message]
    assert board["wait"] is True and 555 in channel.deleted
    assert channel.sent == [] and channel.edits == []


async def test_a_follow_up_that_can_no_longer_be_sent_goes_to_the_channel(flaky: Any) -> None:
    publisher, channel, _ = flaky
    alice = PlayerInteraction()
    await answers.acknowledge(alice)  # type: ignore[arg-type]
    alice.followup.errors.append(http_error(discord.NotFound, 404))  # e.g. the token expired
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"), turn_to(1))), via=alice)  # type: ignore[arg-type]
    await settle(publisher)
    assert alice.followup.sent == []
    assert [m["content"].splitlines()[0] for m in channel.sent] == ["alice played K♥"]
    assert mentioned(channel.sent[0]) == [BOB]


async def test_a_line_that_failed_is_folded_into_the_next_with_its_mention(flaky: Any) -> None:
    publisher, channel, _ = flaky
    channel.send_errors = [
        http_error(discord.DiscordServerError, 503),
        http_error(discord.HTTPException, 429),
    ]
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"), turn_to(1))))
    await advance(publisher, 0.02)
    assert channel.sent == [] and channel.attempts.count("send") == 1
    # Bob moves before the retry: one line tells both moves and mentions alice, whose turn it is now.
    publisher.publish(Outcome(to_act(snapshot(), 0), (played(1, "KS"), turn_to(0))))
    await settle(publisher)
    assert channel.attempts.count("send") == 3
    assert len(channel.sent) == 1
    lines = channel.sent[0]["content"].splitlines()
    assert lines[:2] == ["alice played K♥", "bob played K♠"]
    assert lines[-1].startswith(f"▶ <@{ALICE}>, your turn")
    assert mentioned(channel.sent[0]) == [ALICE]


async def test_a_mention_is_not_lost_when_the_line_fails(flaky: Any) -> None:
    publisher, channel, _ = flaky
    channel.send_errors = [http_error(discord.DiscordServerError, 500)]
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"), turn_to(1))))
    await settle(publisher)
    assert len(channel.sent) == 1 and mentioned(channel.sent[0]) == [BOB]
    assert channel.sent[0]["content"].endswith(
        "your turn (press **My hand** on the board to see your cards)."
    )


async def test_a_refused_line_is_not_retried(flaky: Any) -> None:
    publisher, channel, _ = flaky
    channel.send_errors = [http_error(discord.Forbidden, 403)]
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"), turn_to(1))))
    await settle(publisher)
    await advance(publisher, 0.2)
    assert channel.attempts.count("send") == 1 and channel.sent == []  # retrying would add invalid requests
    assert len(channel.edits) == 1  # the board still shows the move


async def test_a_failed_board_edit_is_rescheduled_and_ends_showing_the_latest_state(flaky: Any) -> None:
    publisher, channel, _ = flaky
    channel.edit_errors = [
        http_error(discord.DiscordServerError, 502),
        http_error(discord.HTTPException, 429),
    ]
    first = to_act(snapshot(), 1)
    publisher.publish(Outcome(first, ()))
    await advance(publisher, 0.02)
    latest = to_act(replace(snapshot(), target_card="QD", stock_size=12), 0)
    publisher.publish(Outcome(latest, ()))
    await settle(publisher)
    assert channel.attempts.count("edit") == 3
    assert len(channel.edits) == 1
    assert channel.edits[0][1]["embed"].to_dict() == render.board_embed(latest).to_dict()


async def test_boards_take_turns_oldest_first_each_showing_its_latest_state() -> None:
    client = StubClient()
    channel = client.channel
    budget = GlobalBudget(1, window=0.1)  # one request per 0.1 s
    publisher = TablePublisher(
        client,  # type: ignore[arg-type]
        StubService(),  # type: ignore[arg-type]
        gather_window=0.0,
        min_interval=0.0,
        budget=budget,
        clock=FakeClock(),
    )
    await budget.acquire()  # the window's turn is taken: every table waits

    def table(table_id: int, stock: int) -> Outcome:
        return Outcome(
            replace(snapshot(), table_id=table_id, board_message_id=table_id, stock_size=stock), ()
        )

    publisher.publish(table(1, 30))
    await advance(publisher, 0.005)
    publisher.publish(table(2, 30))
    await advance(publisher, 0.005)
    publisher.publish(table(3, 30))
    await advance(publisher, 0.005)
    for stock in (29, 28, 27):  # table 3 is busy while it waits; table 2 waited longer
        publisher.publish(table(3, stock))
        publisher.publish(table(2, stock + 10))
    await advance(publisher, 0.005)
    assert channel.edits == [] and publisher.backlog() == 3 and publisher.behind() >= 0.015
    await settle(publisher)
    shown = [(message_id, edit["embed"].to_dict()["fields"]) for message_id, edit in channel.edits]
    assert [message_id for message_id, _ in shown] == [1, 2, 3]  # one edit each, oldest first
    stocks = {
        message_id: next(f["value"] for f in fields if f["name"] == "Stock") for message_id, fields in shown
    }
    assert stocks == {1: "30 cards", 2: "37 cards", 3: "27 cards"}  # each one's latest state
    assert publisher.backlog() == 0 and publisher.behind() == 0.0


async def test_the_hands_never_wait_for_the_public_lanes() -> None:
    client = FlakyClient()
    channel = client.channel
    service = StubService()
    publisher = TablePublisher(client, service, gather_window=0.0, min_interval=0.0, clock=FakeClock())  # type: ignore[arg-type]
    channel.gate.clear()  # every line and board edit is stuck (429s, a slow Discord...)
    before = to_act(snapshot(), 0)
    bob = StubInteraction()
    service.hands[BOB] = hand_of(1, before, ["3C", "9C"], set())
    publisher.hands.remember(7, BOB, bob, render.hand_content(service.hands[BOB]), ())  # type: ignore[arg-type]
    publisher.publish(Outcome(replace(before, table_id=8), (played(0, "KH"),)))  # another busy table
    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), turn_to(1))))
    await advance(publisher, 0.05)
    assert len(bob.edits) == 1 and "**Your turn.**" in bob.edits[0]["content"]
    assert channel.sent == [] and channel.edits == []
    channel.gate.set()
    await settle(publisher)
    assert len(channel.edits) == 2


async def test_a_players_hand_is_refreshed_when_their_own_answer_did_not_go_out(
    setup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    publisher, _, service, _ = setup
    monkeypatch.setattr(publisher_module, "ANSWER_WAIT", 0.1)
    alice = PlayerInteraction()
    previous = StubInteraction()
    shown_hand(publisher, service, ALICE, previous, hand_of(0, to_act(snapshot(), 0), ["9D", "3C"], {"9D"}))
    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[ALICE] = hand_of(0, after, ["3C"], set())
    moved = Outcome(after, (played(0, "9D"), turn_to(1)), {ALICE: ()})
    # Her click's answer (her new hand) never goes out: Discord refused it, say.
    publisher.publish(moved, shown_to=ALICE, via=alice)  # type: ignore[arg-type]
    await settle(publisher)
    assert len(previous.edits) == 1 and "Not your turn." in previous.edits[0]["content"]


async def test_many_moves_gathered_while_waiting_are_all_told(flaky: Any) -> None:
    publisher, channel, _ = flaky
    channel.gate.clear()  # the channel is slow: moves pile up behind the first line
    publisher.publish(Outcome(to_act(snapshot(), 2), (played(0, "2C"),)))
    await advance(publisher, 0.01)
    cards = [f"{rank}{suit}" for suit in "HS" for rank in ("3", "4", "5", "6", "7", "9", "10", "J", "Q", "K")]
    for card in cards:
        publisher.publish(Outcome(to_act(snapshot(), 1), (played(2, card), turn_to(1))))
    channel.gate.set()
    await settle(publisher)
    told = [line for message in channel.sent for line in (message["content"] or "").splitlines()]
    assert [line for line in told if " played " in line] == ["alice played 2♣"] + [
        f"CPU 1 played {render.label(card)}" for card in cards
    ]
    assert not any("earlier moves" in line for line in told)
    assert all(len(message["content"]) <= 2000 for message in channel.sent)
    # Only the last message says whose turn it is.
    assert [mentioned(message) for message in channel.sent] == [[]] * (len(channel.sent) - 1) + [[BOB]]


async def test_an_interaction_in_another_channel_does_not_carry_the_table_s_line(flaky: Any) -> None:
    publisher, channel, _ = flaky
    elsewhere = PlayerInteraction()
    elsewhere.channel_id = 99
    await answers.acknowledge(elsewhere)  # type: ignore[arg-type]
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"), turn_to(1))), via=elsewhere)  # type: ignore[arg-type]
    await settle(publisher)
    assert elsewhere.followup.sent == [] and len(channel.sent) == 1


class FlakyHand(StubInteraction):
    """A hand message whose edits fail as told first."""

    def __init__(self, *errors: BaseException) -> None:
        super().__init__()
        self.errors = list(errors)

    async def edit_original_response(self, **kwargs: Any) -> None:
        if self.errors:
            raise self.errors.pop(0)
        await super().edit_original_response(**kwargs)


async def test_a_hand_refresh_that_failed_is_tried_again_and_an_expired_one_is_left(
    setup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    publisher, _, service, _ = setup
    monkeypatch.setattr(publisher_module, "RETRY_FIRST", 0.02)
    bob = FlakyHand(http_error(discord.DiscordServerError, 503), http_error(discord.HTTPException, 429))
    shown_hand(publisher, service, BOB, bob, hand_of(1, to_act(snapshot(), 0), ["3C", "9C"], set()))
    after = to_act(replace(snapshot(), target_card="9D"), 1)
    service.hands[BOB] = hand_of(1, after, ["3C", "9C"], {"9C"})
    publisher.publish(Outcome(after, (played(0, "9D"), turn_to(1))))
    await settle(publisher)
    assert len(bob.edits) == 1 and "**Your turn.**" in bob.edits[0]["content"]
    assert publisher.hand_is_fresh(7, BOB)
    # A token that expired (401) is not tried again: the line points at "My hand" from now on.
    bob.errors.append(http_error(discord.HTTPException, 401))
    later = to_act(replace(snapshot(), target_card="9H"), 0)
    service.hands[BOB] = hand_of(1, later, ["3C"], set())
    publisher.publish(Outcome(later, (played(1, "9C"), turn_to(0))))
    await settle(publisher)
    assert len(bob.edits) == 1 and not publisher.hand_is_fresh(7, BOB)


@pytest.fixture
def pictured() -> tuple[TablePublisher, StubChannel, BoardRenderer]:
    client = StubClient()
    renderer = BoardRenderer()
    publisher = TablePublisher(
        client,  # type: ignore[arg-type]
        StubService(),  # type: ignore[arg-type]
        gather_window=0.2,
        min_interval=0.0,
        appearance=Appearance(pictures=renderer),
        clock=FakeClock(),
    )
    return publisher, client.channel, renderer


def attachments_of(edit: tuple[int, dict[str, Any]]) -> list[discord.File] | None:
    return edit[1].get("attachments")


async def test_the_board_picture_is_sent_when_it_changes_only(pictured: Any) -> None:
    publisher, channel, renderer = pictured
    board = to_act(snapshot(), 1)
    publisher.publish(Outcome(board, (played(0, "KH"),)))
    await settle(publisher)
    (first,) = attachments_of(channel.edits[-1]) or []
    assert first.filename == "board.png" and first.description and "Target card" in first.description
    # Something the picture does not show (the turn deadline) changes: the text is edited, the picture stays.
    publisher.publish(Outcome(replace(board, deadline=(board.deadline or 0) + 60), ()))
    await settle(publisher)
    assert len(channel.edits) == 2 and attachments_of(channel.edits[-1]) is None
    assert renderer.drawn == 1
    # The target changes: a new picture goes with the edit.
    publisher.publish(Outcome(replace(board, target_card="QH"), (played(1, "QH"),)))
    await settle(publisher)
    (second,) = attachments_of(channel.edits[-1]) or []
    assert "Queen of Hearts" in (second.description or "") and renderer.drawn == 2


async def test_what_a_picture_shows_is_recorded_at_shutdown_not_at_every_move(pictured: Any) -> None:
    """The record (read only by the next process) is dropped at the first change and written at ``close``:
    one write a move would cost as much as the move's own commit."""
    publisher, channel, _ = pictured
    service = publisher.service
    board = to_act(snapshot(), 1)
    service.pictures[board.table_id] = (555, "what the board showed before")
    writes: list[tuple[int, int, str]] = []
    recorded = service.set_board_picture

    async def counted(table_id: int, message_id: int, digest: str) -> None:
        writes.append((table_id, message_id, digest))
        await recorded(table_id, message_id, digest)

    service.set_board_picture = counted
    for target in ("KH", "QH", "JH", "10H"):
        publisher.publish(Outcome(replace(board, target_card=target), (played(0, target),)))
        await settle(publisher)
    assert len([edit for edit in channel.edits if attachments_of(edit)]) == 4
    # Never a record telling an older picture: dropped at the first change, none written during play.
    assert writes == [] and board.table_id not in service.pictures
    await publisher.close()
    ((table_id, message_id, digest),) = writes
    assert (table_id, message_id) == (board.table_id, 555) and service.pictures[table_id] == (555, digest)


async def test_a_server_with_the_picture_off_gets_none(pictured: Any) -> None:
    publisher, channel, renderer = pictured
    publisher.appearance.set_switches(snapshot().guild_id, CardDisplay(card_emojis=True, board_picture=False))
    publisher.publish(Outcome(to_act(snapshot(), 1), (played(0, "KH"),)))
    await settle(publisher)
    assert attachments_of(channel.edits[-1]) == [] and renderer.drawn == 0


# --- the board rides the table's interactions (bot.delivery.carrier) ------------------------------------


async def answered_with_the_board(interaction: PlayerInteraction, message_id: int) -> None:
    """``interaction`` answered with the board (``/eights new``): its original response is ``message_id``."""
    interaction.response = SimpleNamespace(
        is_done=lambda: False,
        send_message=lambda **kwargs: asyncio.sleep(0, SimpleNamespace(message_id=message_id)),
    )
    await answers.answer_publicly(interaction, embed=discord.Embed(title="board"))  # type: ignore[arg-type]
    interaction.response = SimpleNamespace(is_done=lambda: True)


async def test_the_board_is_edited_through_the_interaction_that_posted_it(flaky: Any) -> None:
    publisher, channel, service = flaky
    new = PlayerInteraction()
    await answered_with_the_board(new, 555)
    await publisher.remember_board(7, 555, via=new)  # type: ignore[arg-type]
    publisher.publish(Outcome(to_act(snapshot(), 2), (played(0, "KH"), turn_to(2))))
    await settle(publisher)
    assert len(new.edits) == 1 and "embed" in new.edits[0]  # its original response, through its token
    assert channel.edits == [] and service.boards == [(7, 555)]


async def test_the_board_moves_to_a_newer_interaction_before_its_token_ends(flaky: Any) -> None:
    publisher, channel, service = flaky
    new = PlayerInteraction()
    await answered_with_the_board(new, 555)
    await publisher.remember_board(7, 555, via=new)  # type: ignore[arg-type]
    await advance(publisher, REPOST_AFTER + 1)
    alice = PlayerInteraction()
    await answers.acknowledge(alice)  # type: ignore[arg-type]
    publisher.publish(
        Outcome(to_act(snapshot(), 1), (played(0, "KH"), turn_to(1))), shown_to=ALICE, via=alice
    )  # type: ignore[arg-type]
    await settle(publisher)
    (board,) = [message for message in alice.followup.sent if "embed" in message]
    assert board["wait"] is True and "view" in board
    moved_to = 700 + alice.followup.sent.index(board) + 1
    # The old board went through its own token; the new one is the table's board from now on.
    assert new.original_deleted and channel.deleted == set()
    assert service.boards[-1] == (7, moved_to) and publisher.board_id(snapshot()) == moved_to
    # Later edits go through the new interaction's webhook, to the follow-up it posted.
    publisher.publish(Outcome(to_act(snapshot(), 2), (played(1, "QH"), turn_to(2))))
    await settle(publisher)
    assert [message_id for message_id, _ in alice.followup.edits] == [moved_to]
    assert channel.edits == [] and channel.sent == []


async def test_a_table_without_interactions_for_15_minutes_falls_back_to_the_channel(flaky: Any) -> None:
    publisher, channel, _ = flaky
    new = PlayerInteraction()
    await answered_with_the_board(new, 555)
    await publisher.remember_board(7, 555, via=new)  # type: ignore[arg-type]
    await advance(publisher, HAND_EDIT_WINDOW)
    publisher.publish(Outcome(to_act(snapshot(), 2), (played(1, "KH"), turn_to(2))))
    await settle(publisher)
    assert new.edits == [] and [message_id for message_id, _ in channel.edits] == [555]


async def test_a_board_whose_token_is_refused_goes_through_the_channel(flaky: Any) -> None:
    publisher, channel, _ = flaky
    new = PlayerInteraction()
    await answered_with_the_board(new, 555)
    await publisher.remember_board(7, 555, via=new)  # type: ignore[arg-type]

    async def refused(**kwargs: Any) -> None:
        raise http_error(discord.HTTPException, 401)

    new.edit_original_response = refused  # type: ignore[method-assign]
    publisher.publish(Outcome(to_act(snapshot(), 2), (played(1, "KH"), turn_to(2))))
    await settle(publisher)
    assert [message_id for message_id, _ in channel.edits] == [555]


async def test_without_attach_files_a_board_edited_in_the_channel_goes_on_as_text(pictured: Any) -> None:
    publisher, channel, _ = pictured
    tried: list[bool] = []

    class NoFiles(StubMessage):
        async def edit(self, **kwargs: Any) -> None:
            tried.append(bool(kwargs.get("attachments")))
            if kwargs.get("attachments"):
                raise http_error(discord.Forbidden, 403, 50013)  # Missing Permissions: Attach Files
            await super().edit(**kwargs)

    channel.get_partial_message = lambda message_id: NoFiles(channel, message_id)
    board = to_act(snapshot(), 1)
    publisher.publish(Outcome(board, (played(0, "KH"),)))
    await settle(publisher)
    publisher.publish(Outcome(replace(board, target_card="QH"), (played(1, "QH"),)))
    await settle(publisher)
    # One refused upload (a 403 counts towards Discord's ban), then text only.
    assert tried == [True, False, False] and len(channel.edits) == 2


def test_the_gather_window_covers_a_cpus_delay_and_the_services_batch() -> None:
    # The default second: the CPU answers 1.3 s after a play reached the lanes; they wait a little longer.
    assert gather_window_for(1.0, 0.3) == pytest.approx(1.55)
    assert gather_window_for(0.3, 0.3) == pytest.approx(0.85)
    # No delay: CPU moves come at once, the short window gathers them. A long one would hold a person's
    # play off the board too long: the short window, the play shown at once.
    assert gather_window_for(0.0, 0.0) == DEFAULT_DEBOUNCE
    assert gather_window_for(3.0, 0.3) == DEFAULT_DEBOUNCE


async def test_at_most_a_few_boards_are_edited_at_once_and_a_waiting_one_shows_the_latest(flaky: Any) -> None:
    publisher, channel, _ = flaky
    slots = publisher_module.BOARD_EDITS_IN_FLIGHT
    release = asyncio.Event()
    in_flight: list[int] = []
    most = 0

    class SlowInteraction(PlayerInteraction):
        async def edit_original_response(self, **kwargs: Any) -> None:
            nonlocal most
            in_flight.append(self.id)
            most = max(most, len(in_flight))
            await release.wait()
            in_flight.remove(self.id)
            self.edits.append(kwargs)

    tables = range(100, 100 + slots + 3)
    carriers: dict[int, SlowInteraction] = {}
    for table_id in tables:
        carriers[table_id] = SlowInteraction()
        await answered_with_the_board(carriers[table_id], 1000 + table_id)
        await publisher.remember_board(table_id, 1000 + table_id, via=carriers[table_id])  # type: ignore[arg-type]
        publisher.publish(Outcome(to_act(snapshot(table_id=table_id), 1), (played(0, "KH"), turn_to(1))))
    await advance(publisher, 0.05)
    assert most == slots and len(in_flight) == slots  # the others wait for a slot
    waiting = next(table_id for table_id in tables if carriers[table_id].id not in in_flight)
    # What happens at a waiting table meanwhile is on its board when its turn comes: one edit, the latest.
    latest = replace(to_act(snapshot(table_id=waiting), 0), target_card="QH")
    publisher.publish(Outcome(latest, (played(1, "QH"), turn_to(0))))
    release.set()
    await settle(publisher)
    assert most == slots
    assert all(len(carriers[table_id].edits) >= 1 for table_id in tables)
    (edit,) = carriers[waiting].edits
    assert "Q♥" in str(edit["embed"].to_dict())
    assert channel.edits == []


# --- a replaced board whose channel refuses the bot ---------------------------------------------------------


class NoTablesService(StubService):
    async def table_in_channel(self, channel_id: int) -> int | None:
        return None

    def tables_in_threads_of(self, channel_id: int) -> list[int]:
        return []

    def tables_of_unknown_parent(self, guild_id: int | None = None) -> list[tuple[int, int]]:
        return []


class RefusingDeletes:
    """The channel refuses the bot's deletes (403 Missing Access) while ``refusing``; counts them."""

    def __init__(self, channel: StubChannel) -> None:
        self.refusing = True
        self.tried: list[int] = []
        outer = self

        class Message(StubMessage):
            async def delete(self) -> None:
                outer.tried.append(self.id)
                if outer.refusing:
                    raise http_error(discord.Forbidden, 403, 50001)
                await super().delete()

        channel.get_partial_message = lambda message_id: Message(channel, message_id)  # type: ignore[method-assign]


@pytest.fixture
async def replaced_while_refused() -> tuple[TablePublisher, StubChannel, RefusingDeletes]:
    """The table's board (555, posted in the channel) replaced by an /eights status answer (556) while the
    channel refuses the bot: the old board's delete is refused once, and waits."""
    client = StubClient()
    publisher = TablePublisher(
        client, NoTablesService(), gather_window=0.2, min_interval=0.0, clock=FakeClock()
    )  # type: ignore[arg-type]
    deletes = RefusingDeletes(client.channel)
    await publisher.remember_board(7, 555)
    status = PlayerInteraction()
    await answered_with_the_board(status, 556)
    await publisher.replace_board(to_act(snapshot(), 1), 556, status)  # type: ignore[arg-type]
    await settle(publisher)
    assert deletes.tried == [555] and client.channel.deleted == set()
    await advance(publisher, REFUSED_FOR / 2)
    assert deletes.tried == [555]  # left alone during the channel's pause
    return publisher, client.channel, deletes


async def test_a_board_replaced_while_its_channel_refuses_is_deleted_once_the_channel_allows_the_bot(
    replaced_while_refused: Any,
) -> None:
    """Discord says the channel's permissions changed: the old board is deleted at once."""
    publisher, channel, deletes = replaced_while_refused
    deletes.refusing = False
    publisher.permissions_changed(channel_id=2)
    await settle(publisher)
    assert deletes.tried == [555, 555] and channel.deleted == {555}
    assert publisher._removals == {}


async def test_a_board_replaced_while_its_channel_refuses_is_tried_at_each_end_of_its_pause(
    replaced_while_refused: Any,
) -> None:
    """Without a word from Discord, the old board is tried again when the channel's pause ends (its next
    allowed request), once a pause: refused again, the pause doubles; allowed, it is deleted."""
    publisher, channel, deletes = replaced_while_refused
    await advance(publisher, REFUSED_FOR / 2)
    assert deletes.tried == [555, 555]  # the end of the first pause: refused again
    await advance(publisher, REFUSED_FOR * 2 - 1)
    assert deletes.tried == [555, 555]  # within the second, twice as long
    deletes.refusing = False
    await advance(publisher, 1)
    await settle(publisher)
    assert deletes.tried == [555, 555, 555] and channel.deleted == {555}
    assert publisher._removals == {}


async def test_a_board_waiting_for_its_channel_is_dropped_when_the_channel_is_deleted(
    replaced_while_refused: Any,
) -> None:
    """The channel deleted: its boards went with it; nothing is tried again, nothing is kept."""
    publisher, _, deletes = replaced_while_refused
    publisher.channel_deleted(2)
    await advance(publisher, REFUSED_MAX * 2)
    await settle(publisher)
    assert deletes.tried == [555] and publisher._removals == {}
    assert not publisher._refusals.gone(2)  # no table of this publisher's was there: nothing remembered
