"""Races in the lobby and between rounds: several people (or one person twice) press the same board button at
the same instant.

Promise (project guide): "bad input from anyone (... two clicks at once ...) gets a clear short answer and
changes nothing"; README: "The lobby's Add CPU pressed twice at once adds one CPU player."
"""

from __future__ import annotations

import asyncio

import pytest

from bot.service import NO_LONGER_POSSIBLE
from tests.e2e.classic_deals import first_round_won
from tests.e2e.conftest import World
from tests.e2e.race_steps import no_trace, private_answer, public_count, slow_commits


async def test_two_people_take_the_last_seat_at_once(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Two people press Join for the last seat at once: one sits, the other is told the table is full."""
    board = await world.run(world.alice, "new", seats=2)
    await world.settle()
    slow_commits(world, monkeypatch)
    bob = await world.fake.click(world.bob, board, label="Join")
    carol = await world.fake.click(world.carol, board, label="Join")
    await asyncio.gather(bob.callback(), carol.callback())
    await world.settle()
    seats = [seat.name for seat in (await world.snapshot()).seats]
    assert len(seats) == 2 and seats[0] == "alice"
    loser = carol if seats[1] == "bob" else bob
    answer = private_answer(loser)
    assert answer is not None and answer.ephemeral and answer.content == "This table is full."
    no_trace(caplog, world)


async def test_start_pressed_twice_at_once_deals_once(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The host's double tap on Start: one deal, the other press answered privately."""
    world.service.seed_deals(1)  # alice leads with a playable card: nothing is drawn for her at once
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    slow_commits(world, monkeypatch)
    first = await world.fake.click(world.alice, board, label="Start")
    second = await world.fake.click(world.alice, board, label="Start")
    replies = await asyncio.gather(first.reply(), second.reply())
    await world.settle()
    assert all(reply.ephemeral for reply in replies)
    texts = sorted(reply.content for reply in replies)
    assert sum("Your hand" in text for text in texts) == 1, texts
    assert any(text == "The game has already started." for text in texts), texts
    assert public_count(world, "Round 1 dealt") == 1
    snapshot = await world.snapshot()
    assert snapshot.round_number == 1 and [s.card_count for s in snapshot.seats] == [7, 7]
    no_trace(caplog, world)


async def test_next_round_pressed_by_two_players_at_once_deals_once(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Between rounds, two players press Next round at once: round 2 is dealt once; the other press is
    answered "That move is no longer possible."."""
    await first_round_won(world, monkeypatch)
    assert (await world.snapshot()).phase == "between_rounds"
    board = world.board()
    slow_commits(world, monkeypatch)
    first = await world.fake.click(world.alice, board, label="Next round")
    second = await world.fake.click(world.bob, board, label="Next round")
    replies = await asyncio.gather(first.reply(), second.reply())
    await world.settle()
    assert all(reply.ephemeral for reply in replies)
    texts = [reply.content for reply in replies]
    assert sum("Your hand" in text for text in texts) == 1, texts
    assert sum(text == NO_LONGER_POSSIBLE for text in texts) == 1, texts
    snapshot = await world.snapshot()
    assert snapshot.round_number == 2 and snapshot.phase == "playing"
    assert public_count(world, "Round 2 dealt") == 1
    no_trace(caplog, world)


async def test_two_new_tables_in_one_channel_at_once_open_one(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Two people type /eights new in the same channel at the same instant: one table, one board; the other
    is told a table is already open there."""
    assert world.bot is not None
    store = world.bot.store
    create = store.create_table

    async def slow_create(*args: object, **kwargs: object) -> object:
        await asyncio.sleep(0.05)
        return await create(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "create_table", slow_create)
    first = await world.fake.invoke(world.alice, world.channel, "eights new")
    second = await world.fake.invoke(world.bob, world.channel, "eights new")
    replies = await asyncio.gather(first.reply(), second.reply())
    await world.settle()
    public = [reply for reply in replies if not reply.ephemeral]
    private = [reply for reply in replies if reply.ephemeral]
    assert len(public) == 1 and len(private) == 1, [r.content for r in replies]
    assert private[0].content.startswith("There is already a table open in this channel"), private[0].content
    boards = [
        m
        for m in world.fake.channel_messages(world.channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]
    assert len(boards) == 1
    no_trace(caplog, world)
