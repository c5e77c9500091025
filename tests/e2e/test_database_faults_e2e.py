"""The database failing under a running bot, end to end through the fake Discord (issue 26): the SQLite file
held by another process past the busy timeout. The person's click gets the short private "could not save"
line, nothing changes in the channel, the hand or the move log, and the same button acts once the lock is
gone, without a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.exts._group import STORE_FAILED
from bot.store.sqlite import SqliteStore
from tests.e2e.conftest import World
from tests.e2e.test_bad_input import start_two
from tests.e2e.test_lobby import public_state
from tests.service.db_faults import SqliteLockHolder


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_sqlite_locked_by_another_process_mid_game(world: World) -> None:
    world.service.seed_deals(1)  # Alice leads with a card she could play: her hand offers Draw
    hand = await start_two(world)
    assert world.bot is not None and isinstance(world.bot.store, SqliteStore)
    store = world.bot.store
    table_id = await world.table_id()
    before_public, before_hand = public_state(world), hand.content
    before_moves = len(await store.moves(table_id))
    draw = hand.buttons[[b["label"] for b in hand.buttons].index("Draw")]["custom_id"]

    holder = SqliteLockHolder(Path(store.path))
    try:
        click = await world.fake.click(world.alice, hand, draw)
        # The commit waits out the busy timeout (5 s): the answer comes after a deferral, as a follow-up.
        kind = await click.callback(timeout=30.0)
        answer = await (click.followup(0, timeout=30.0) if kind == 6 else click.reply(timeout=30.0))
    finally:
        holder.release()
    assert answer.ephemeral and answer.content.startswith(STORE_FAILED), answer.content
    assert len(answer.content) < 120 and "Traceback" not in answer.content
    await world.settle()
    assert public_state(world) == before_public and hand.content == before_hand
    assert len(await store.moves(table_id)) == before_moves

    again = await world.fake.click(world.alice, hand, draw)
    await again.callback()
    await world.settle()
    assert (await world.snapshot()).seats[0].card_count == 8
    assert len(await store.moves(table_id)) == before_moves + 1
