"""The publisher and the outbox (issue 26): a line about to go out is noted first (the rows before it are
told), goes in the channel with a nonce, and the moves it tells are marked told, many tables in one write;
after a restart the line that was on its way is told once: in the channel again with its nonces (Discord's
enforce_nonce returns a message it accepted), a follow-up only when the channel's history does not show it;
the moves after it follow, in order. A follow-up that meets a 5xx or loses its connection (Discord may have
posted it) is handled the same way without a restart: looked for in the history, never sent blindly."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import discord

from bot.delivery import answers
from bot.delivery.budget import FOLLOWUP_CREATE, OutcomeUnknown
from bot.delivery.feed import line_nonce
from bot.delivery.publisher import MARK_GATHER, RETRY_FIRST, TablePublisher
from bot.service import FakeClock, Outcome, TableEvent, UntoldLine
from tests.delivery.test_publisher import (
    PlayerInteraction,
    StubClient,
    StubService,
    advance,
    http_error,
    mentioned,
    settle,
)
from tests.ui.snapshots import BOB, snapshot, to_act


class OutboxService(StubService):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []

    async def note_telling(self, table_id: int, first: int, last: int, attempt: dict[str, Any]) -> None:
        self.calls.append(("note", (table_id, first, last, attempt)))

    async def mark_told(self, told: dict[int, int]) -> None:
        self.calls.append(("mark", dict(told)))


class NonceChannel:
    """The channel as Discord keeps it: a repeated nonce returns the first message; history by author."""

    def __init__(self, calls: list[tuple[str, Any]]) -> None:
        self.calls = calls
        self.messages: list[SimpleNamespace] = []
        self.by_nonce: dict[str, SimpleNamespace] = {}
        self.next_id = discord.utils.time_snowflake(datetime.now(UTC))  # ids as Discord's: by time

    async def send(self, content: str | None = None, **kwargs: Any) -> SimpleNamespace:
        nonce = kwargs.get("nonce")
        if nonce is not None and nonce in self.by_nonce:
            return self.by_nonce[nonce]
        self.next_id += 1
        message = SimpleNamespace(
            id=self.next_id, content=content, author=SimpleNamespace(id=1), kwargs=kwargs
        )
        self.messages.append(message)
        if content is not None:
            self.calls.append(("send", content))
        if nonce is not None:
            self.by_nonce[nonce] = message
        return message

    def history(self, *, limit: int, after: discord.Object, oldest_first: bool) -> Any:
        async def listing() -> Any:
            for message in self.messages:
                if message.id > after.id:
                    yield message

        return listing()

    def get_partial_message(self, message_id: int) -> Any:
        async def edit(**kwargs: Any) -> None:
            return None

        async def delete() -> None:
            return None

        return SimpleNamespace(edit=edit, delete=delete, id=message_id)


async def marks_written(publisher: TablePublisher) -> None:
    """Everything shown, then the told marks' gathering time over: the marks are written."""
    await settle(publisher)
    await advance(publisher, MARK_GATHER)
    assert not publisher.busy()


def build() -> tuple[TablePublisher, NonceChannel, OutboxService]:
    client = StubClient()
    service = OutboxService()
    channel = NonceChannel(service.calls)
    client.channel = channel  # type: ignore[assignment]
    client.user = SimpleNamespace(id=1)  # type: ignore[attr-defined]
    publisher = TablePublisher(client, service, gather_window=0.0, min_interval=0.0, clock=FakeClock())  # type: ignore[arg-type]
    return publisher, channel, service


def played(seat: int, card: str) -> TableEvent:
    return TableEvent("played", seat, {"card": card}, "engine")


async def test_a_line_is_noted_before_it_is_sent_and_marked_told_after() -> None:
    publisher, channel, service = build()
    board = to_act(snapshot(), 1)
    publisher.publish(Outcome(board, (played(0, "KH"),), {}, 4))
    publisher.publish(Outcome(board, (played(2, "QH"),), {}, 5))
    publisher.publish(Outcome(board, (), {}, 6))  # nothing public: told with the rest
    await marks_written(publisher)
    kinds = [kind for kind, _ in service.calls]
    assert kinds.index("note") < kinds.index("send") < kinds.index("mark")
    notes = [value for kind, value in service.calls if kind == "note"]
    table, first, last, attempt = notes[0]
    assert (table, first) == (7, 4) and last in (4, 5) and attempt["via"] == "channel"
    sent = channel.messages[0]
    assert attempt["lines"][0] == [sent.content, None, line_nonce(7, first, last, 0)]
    assert sent.kwargs["nonce"] == line_nonce(7, first, last, 0)
    told = {}
    for kind, value in service.calls:
        if kind == "mark":
            told.update(value)
    assert told == {7: 6}
    assert "K♥" in "".join(m.content for m in channel.messages) and "Q♥" in channel.messages[-1].content


async def test_marks_of_many_tables_go_in_one_write() -> None:
    publisher, _, service = build()
    for table_id in (7, 8, 9):
        publisher.publish(Outcome(snapshot(table_id=table_id), (), {}, table_id * 10))
    await marks_written(publisher)
    assert [value for kind, value in service.calls if kind == "mark"] == [{7: 70, 8: 80, 9: 90}]


async def test_a_resumed_channel_line_is_sent_again_with_its_nonces_and_not_repeated() -> None:
    publisher, channel, _ = build()
    board = to_act(snapshot(), 1)
    # The previous process sent the line (Discord accepted it) and died before marking it.
    accepted = await channel.send("alice played K♥", nonce="n-0")
    resumed = UntoldLine(
        3,
        4,
        {
            "via": "channel",
            "after": None,
            "at": 0.0,
            "lines": [["alice played K♥", None, "n-0"], ["CPU 1 played Q♥", None, "n-1"]],
        },
    )
    publisher.publish(Outcome(board, (played(1, "JH"),), {}, 5, resumed))
    await settle(publisher)
    contents = [m.content for m in channel.messages]
    assert contents[0] == accepted.content and contents.count("alice played K♥") == 1
    assert contents[1] == "CPU 1 played Q♥"  # the part Discord had not accepted
    assert "J♥" in contents[2]  # then the moves after it, in order
    assert len(contents) == 3


async def test_a_resumed_follow_up_is_looked_for_in_the_channel_history() -> None:
    publisher, channel, service = build()
    board = to_act(snapshot(), 1)
    before = await channel.send("bob played 2♠")
    await channel.send("alice played K♥")  # the follow-up Discord accepted
    resumed = UntoldLine(
        3,
        3,
        {
            "via": "followup",
            "after": before.id,
            "at": 0.0,
            "lines": [["alice played K♥", None, "n-0"], ["CPU 1 played Q♥", None, "n-1"]],
        },
    )
    publisher.publish(Outcome(board, (), {}, 3, resumed))
    await marks_written(publisher)
    assert [m.content for m in channel.messages] == ["bob played 2♠", "alice played K♥", "CPU 1 played Q♥"]
    assert {7: 3} in [value for kind, value in service.calls if kind == "mark"]


async def test_marks_gather_without_keeping_the_publisher_busy_and_are_written_at_close() -> None:
    publisher, _, service = build()
    publisher.publish(Outcome(snapshot(table_id=7), (), {}, 70))
    await settle(publisher)
    await advance(publisher, MARK_GATHER / 2)
    publisher.publish(Outcome(snapshot(table_id=8), (), {}, 80))
    await settle(publisher)
    # Everything is shown: the marks only gather (one write for both tables, none yet).
    assert not publisher.busy() and [kind for kind, _ in service.calls if kind == "mark"] == []
    await publisher.close()  # at once, the clock not moved on
    assert [value for kind, value in service.calls if kind == "mark"] == [{7: 70, 8: 80}]


class PostingFollowups:
    """An interaction's follow-ups, posted in ``channel`` as the bot's messages; the first ``fail`` lines
    among them meet a 5xx (``OutcomeUnknown``, as the budget raises it): after Discord posted them
    (``taken``) or before. ``calls``: the lines sent (the board, moved to the interaction, is not one)."""

    def __init__(self, channel: NonceChannel, *, fail: int = 1, taken: bool = True) -> None:
        self.channel = channel
        self.fail = fail
        self.taken = taken
        self.calls: list[dict[str, Any]] = []

    async def send(self, content: str | None = None, **kwargs: Any) -> SimpleNamespace:
        if content is None:  # the board
            return await self.channel.send(content, **kwargs)
        self.calls.append({"content": content, **kwargs})
        failing = self.fail > 0
        self.fail -= 1
        if failing and not self.taken:
            raise OutcomeUnknown(FOLLOWUP_CREATE, 502)
        message = await self.channel.send(content, **kwargs)
        if failing:
            raise OutcomeUnknown(FOLLOWUP_CREATE, 502)
        return message


async def followed_up(publisher: TablePublisher, followups: PostingFollowups) -> PlayerInteraction:
    """alice's answered click, whose follow-ups carry the table's lines; her move makes it bob's turn
    (versions 4)."""
    alice = PlayerInteraction()
    alice.followup = followups  # type: ignore[assignment]
    await answers.acknowledge(alice)  # type: ignore[arg-type]
    moved = Outcome(to_act(snapshot(), 1), (played(0, "KH"), TableEvent("turn", 1, {}, "engine")), {}, 4)
    publisher.publish(moved, via=alice)  # type: ignore[arg-type]
    return alice


def lines_of(channel: NonceChannel) -> list[SimpleNamespace]:
    return [m for m in channel.messages if m.content is not None]


async def test_a_follow_up_discord_took_before_its_5xx_is_found_in_the_history_not_sent_again() -> None:
    publisher, channel, service = build()
    followups = PostingFollowups(channel, taken=True)
    await followed_up(publisher, followups)
    await advance(publisher, MARK_GATHER + 0.1)
    # In doubt: not sent again at once, and its moves not marked told yet.
    assert len(followups.calls) == 1
    assert all(value.get(7, 0) < 4 for kind, value in service.calls if kind == "mark")
    await marks_written(publisher)
    (line,) = lines_of(channel)
    assert "K♥" in line.content and mentioned(line.kwargs) == [BOB]
    assert len(followups.calls) == 1  # found in the history: never posted twice
    assert {7: 4} in [value for kind, value in service.calls if kind == "mark"]


async def test_a_follow_up_answered_5xx_before_discord_took_it_is_sent_again_with_its_mention() -> None:
    publisher, channel, service = build()
    followups = PostingFollowups(channel, taken=False)
    await followed_up(publisher, followups)
    await marks_written(publisher)
    (line,) = lines_of(channel)
    assert "K♥" in line.content and mentioned(line.kwargs) == [BOB]
    assert len(followups.calls) == 2  # the history did not show it: sent again, as a follow-up
    assert {7: 4} in [value for kind, value in service.calls if kind == "mark"]


async def test_a_line_in_doubt_whose_history_cannot_be_read_is_sent_again_never_lost() -> None:
    """The bot may not read the channel (no Read Message History: tables play through interactions there
    too): the follow-up is sent again, through the interaction; it may show twice, but is never lost."""
    publisher, channel, _ = build()

    def refused(**kwargs: Any) -> Any:
        raise http_error(discord.Forbidden, 403, 50001)

    channel.history = refused  # type: ignore[method-assign]
    followups = PostingFollowups(channel, taken=True)
    await followed_up(publisher, followups)
    await settle(publisher)
    assert len(followups.calls) == 2 and len(lines_of(channel)) == 2
    assert all(mentioned(line.kwargs) == [BOB] for line in lines_of(channel))


async def test_a_history_read_that_fails_for_a_while_is_tried_again_not_answered_by_sending() -> None:
    publisher, channel, _ = build()
    reads = []
    history = channel.history

    def flaky(**kwargs: Any) -> Any:
        reads.append(kwargs)
        if len(reads) == 1:
            raise http_error(discord.DiscordServerError, 503)
        return history(**kwargs)

    channel.history = flaky  # type: ignore[method-assign]
    followups = PostingFollowups(channel, taken=True)
    await followed_up(publisher, followups)
    await advance(publisher, RETRY_FIRST + 0.1)
    assert len(reads) == 1 and len(followups.calls) == 1
    await settle(publisher)
    assert len(reads) == 2 and len(followups.calls) == 1 and len(lines_of(channel)) == 1


async def test_the_moves_after_a_line_in_doubt_wait_for_it() -> None:
    publisher, channel, _ = build()
    followups = PostingFollowups(channel, taken=False)
    alice = await followed_up(publisher, followups)
    await advance(publisher, 0.1)
    publisher.publish(Outcome(to_act(snapshot(), 0), (played(1, "QH"),), {}, 5), via=alice)  # type: ignore[arg-type]
    await settle(publisher)
    contents = [m.content for m in lines_of(channel)]
    assert len(contents) == 2 and "K♥" in contents[0] and "Q♥" in contents[1]
