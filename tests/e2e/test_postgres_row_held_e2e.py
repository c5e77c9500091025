"""A table's state row held by another session's long transaction (a DBA's script, a report taking
`FOR UPDATE`, a stuck migration) on a server with PostgreSQL's defaults (no lock_timeout, no
statement_timeout), end to end through the fake Discord: what the table's player, and the other tables, get
meanwhile.

README "When the database falters": a database that "is held locked by another process … does not stop the
bot. While it fails, a person's move gets the private answer 'The bot could not save this, so nothing
changed. Try again in a moment.'", after waiting for the lock at most as long as SQLite's busy timeout
(5 s). The store's sessions run with lock_timeout = LOCK_TIMEOUT (bot/store/postgres.py ``_server_settings``):
the server gives the statement up, changing nothing (LockNotAvailableError), and the database, asked, says
so. Without it the move waited up to asyncpg's command timeout (COMMAND_TIMEOUT, 60 s), its table held all
along, and was then answered "in doubt"."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg

from bot.exts._group import STORE_FAILED
from tests.e2e.test_database_faults_e2e import (
    alice_against_a_cpu,
    short_turns_allowed,  # noqa: F401  (autouse: 1 s turns allowed)
    world_on,
)
from tests.fakediscord import FakeDiscord

ANSWER_WITHIN = 10.0  # seconds: twice the lock timeout (5 s), a sixth of COMMAND_TIMEOUT


async def test_a_move_on_a_row_another_session_holds_is_answered_could_not_save_within_seconds(
    fake: FakeDiscord, tmp_path: Path, pg_url: str
) -> None:
    """Another session holds Alice's table's state row (FOR UPDATE, in a transaction left open). Her click is
    deferred within Discord's 3 s and answered "could not save … nothing changed" within ANSWER_WITHIN; once
    the row is free her move goes through."""
    holder = await asyncpg.connect(pg_url)
    try:
        async with world_on(fake, tmp_path, pg_url) as world:
            assert world.bot is not None
            hand = await alice_against_a_cpu(world, turn=120.0)
            table_id = await world.table_id()
            await world.settle()
            before = len(await world.bot.store.moves(table_id))
            tx = holder.transaction()
            await tx.start()
            await holder.fetch("SELECT version FROM game_state WHERE table_id = $1 FOR UPDATE", table_id)
            try:
                loop = asyncio.get_running_loop()
                clicked = loop.time()
                click = await world.fake.click(world.alice, hand, label="Draw")
                kind = await click.callback(timeout=3.0)  # Discord's deadline: deferred in time
                assert kind in (5, 6), kind
                try:
                    answer = await click.followup(0, timeout=ANSWER_WITHIN)
                except (TimeoutError, AssertionError):
                    raise AssertionError(
                        f"no answer {ANSWER_WITHIN:.0f} s after her click on a row another session holds"
                    ) from None
                took = loop.time() - clicked
            finally:
                await tx.rollback()
            assert answer.ephemeral and answer.content == STORE_FAILED, (answer.content, took)
            assert len(await world.bot.store.moves(table_id)) == before

            again = await world.fake.click(world.alice, hand, label="Draw")
            await again.callback()
            await world.settle()
            assert len(await world.bot.store.moves(table_id)) > before
    finally:
        await holder.close()


async def test_other_tables_move_while_one_row_is_held(
    fake: FakeDiscord, tmp_path: Path, pg_url: str
) -> None:
    """A row lock on one table's state does not hold up another table's moves: Bob's lobby in another channel
    takes a CPU seat within Discord's 3 s."""
    holder = await asyncpg.connect(pg_url)
    try:
        async with world_on(fake, tmp_path, pg_url) as world:
            await alice_against_a_cpu(world, turn=120.0)
            table_id = await world.table_id()
            board = await world.run(world.bob, "new", channel=world.other_channel)
            await world.settle()
            tx = holder.transaction()
            await tx.start()
            await holder.fetch("SELECT version FROM game_state WHERE table_id = $1 FOR UPDATE", table_id)
            try:
                click = await world.fake.click(world.bob, board, label="Add CPU")
                await click.callback(timeout=3.0)
                other = await world.service.table_in_channel(world.other_channel.id)
                assert other is not None

                async def seated() -> bool:
                    return len((await world.service.snapshot(other)).seats) == 2

                await world.until(seated, "Bob's CPU seated", timeout=3.0)
            finally:
                await tx.rollback()
    finally:
        await holder.close()
