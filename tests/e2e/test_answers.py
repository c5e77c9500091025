"""Answers beside the game itself: unexpected errors, the rules, and taking a seat back from the CPU."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from bot.engine import get_preset, rules_help
from bot.service import TableService
from tests.e2e.conftest import World
from tests.fakediscord.interactions import DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE


async def test_an_unexpected_error_shows_only_a_reference(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()

    async def broken(self: TableService, table_id: int, user_id: int) -> None:
        raise RuntimeError("secret internals: KH QS")

    monkeypatch.setattr(TableService, "hand", broken)
    with caplog.at_level(logging.ERROR, logger="bot.exts._group"):
        typed = await world.run(world.bob, "hand")
        clicked = await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    for answer in (typed, clicked):
        assert answer.ephemeral
        match = re.fullmatch(r"Something went wrong \(ref ([0-9a-f]{8})\)\.", answer.content)
        assert match, answer.content
        assert any(match.group(1) in record.getMessage() for record in caplog.records)
    assert "secret" not in typed.content + clicked.content


async def test_rules_of_a_preset_and_of_the_table(world: World) -> None:
    rules = await world.run(world.bob, "rules", preset="switch")
    assert rules.ephemeral and rules.content == rules_help(get_preset("switch"))
    await world.run(world.alice, "new", preset="party")
    table_rules = await world.run(world.bob, "rules")
    assert table_rules.ephemeral and table_rules.content == rules_help(get_preset("party"))
    assert len(table_rules.content) <= 2000


async def test_a_player_who_left_takes_the_seat_back(world: World) -> None:
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    left = await world.run(world.bob, "leave")
    assert left.ephemeral and "CPU player plays your seat" in left.content
    await world.settle()
    assert "bob** (CPU plays" in world.board().text()
    back = await (await world.fake.click(world.bob, world.board(), label="Take my seat back")).reply()
    assert back.ephemeral and "You took your seat back." in back.content and "Your hand" in back.content
    await world.settle()
    assert "CPU plays" not in world.board().text()
    assert [b["label"] for b in world.board().buttons] == ["My hand", "Leave"]


async def test_slow_work_is_deferred_and_answered_after(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    for cog in world.table_cogs:
        cog.defer_after = 0.05
    act = TableService.act

    async def slow_act(self: TableService, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.3)
        return await act(self, *args, **kwargs)

    monkeypatch.setattr(TableService, "act", slow_act)
    button = next(b for b in hand.buttons if ":play:" in b["custom_id"] or b["label"] == "Draw")
    click = await world.fake.click(world.alice, hand, button["custom_id"])
    assert await click.callback() == DEFERRED_UPDATE_MESSAGE  # deferred in time...
    updated = await click.reply()  # ...then the hand is updated in place
    assert updated.id == hand.id and ("You played" in updated.content or "You drew" in updated.content)

    await world.settle()
    user = await world.human_to_act()
    assert user is not None
    typed = await world.fake.invoke(user, world.channel, "eights draw")
    assert await typed.callback() == DEFERRED_CHANNEL_MESSAGE
    answer = await typed.reply()
    assert answer.ephemeral and ("Your hand" in answer.content or "(9" in answer.content)


async def test_status_moves_the_board_to_the_bottom(world: World) -> None:
    first = await world.run(world.alice, "new")
    await world.fake.post_user_message(world.bob, world.channel, "anyone for cards?")
    again = await world.run(world.bob, "status")
    assert not again.ephemeral and again.id != first.id
    assert world.fake.channel_messages(world.channel)[-1].id == again.id
    await world.fake.wait_for(lambda: first.deleted, what="the old board deleted")  # one board per table
    await (await world.fake.click(world.bob, again, label="Join")).callback()
    await world.settle()
    assert "bob" in world.board().text() and world.board().id == again.id


async def test_answered_interactions_are_not_held_by_their_watch(world: World) -> None:
    """The 2-second watch on each interaction is dropped once it is answered: under load, pending watches
    held thousands of interactions (and their messages) alive and slowed the garbage collector."""
    import gc

    import discord

    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    for _ in range(8):
        await world.run(world.bob, "status")
        await (await world.fake.click(world.alice, world.board(), label="My hand")).reply()
    await world.settle()
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, discord.Interaction)]
    # At most the interactions whose hand messages are kept for refreshing, one per player, and a few
    # in flight; 16 were answered here.
    assert len(alive) <= 4, len(alive)


async def test_private_hand_messages_leave_no_view_timers_and_their_buttons_work(world: World) -> None:
    """discord.py gives a view sent in an ephemeral message a 15-minute timeout task; ours are released
    once sent (their buttons are found by custom id), so a hand message costs no memory after it is sent."""
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    for _ in range(5):
        await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    await world.run(world.alice, "forget")
    timers = [t for t in asyncio.all_tasks() if "timeout_task" in t.get_coro().__qualname__]
    assert timers == []
    # The hand messages' buttons still play: a whole round by them.
    assert await world.play_round_by_buttons() > 0


async def test_a_click_whose_answer_meets_5xx_is_still_answered_within_discords_3_seconds(
    world: World,
) -> None:
    """discord.py waits 1 s, then 3 s, before sending an answer again after a 5xx: two in a row and the
    click's answer came after Discord's 3 s ("This interaction failed"). The bot tries again sooner."""
    board = await world.run(world.alice, "new")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    button = next(b for b in hand.buttons if ":play:" in b["custom_id"] or b["label"] == "Draw")
    errors_before = world.fake.server_errors.count
    world.fake.server_errors.fail_next(2, path_contains="/callback")
    click = await world.fake.click(world.alice, hand, button["custom_id"])
    updated = await click.reply(timeout=5.0)
    assert world.fake.server_errors.count == errors_before + 2  # both 5xx were met
    assert click.record.callback_at is not None
    assert click.record.callback_at - click.record.created_at < 1.5  # Discord allows 3
    assert updated.id == hand.id and ("You played" in updated.content or "You drew" in updated.content)
    await world.settle()
