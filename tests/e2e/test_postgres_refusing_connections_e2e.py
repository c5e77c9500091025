"""PostgreSQL refusing new connections under a running bot, end to end through the fake Discord: the DBA runs
`ALTER DATABASE … ALLOW_CONNECTIONS false` (before maintenance, or a failover's switch) and terminates the
bot's pool sessions; the server answers every new connection with SQLSTATE 55000 ("database … is not
currently accepting connections", asyncpg's ObjectNotInPrerequisiteStateError).

README "When the database falters": while the database fails, a person's move gets the private answer "The
bot could not save this, so nothing changed. Try again in a moment." and changes nothing; turn timeouts that
fall due are retried (every 1 s, doubling to 8 s) and happen once it is back; no traceback per attempt.

A connection refused is an outage like a server that is down (bot/store/postgres.py ``_is_unavailable``:
whatever fails while a connection is opened), and since no statement was sent the commit is not asked
about: nothing changed, for certain (StoreRefusedError). It used to leave the store raw: "Something went
wrong (ref …)" with a traceback, and a timer put off for the scheduler's generic 30 s."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.exts._group import STORE_FAILED
from bot.service.scheduler import STORE_RETRY_MAX
from bot.shards import ShardSet
from bot.store import claim_shards
from tests.e2e.test_database_faults_e2e import (
    alice_against_a_cpu,
    answer,
    click_draw_or_play,
    short_turns_allowed,  # noqa: F401  (autouse: 1 s turns allowed)
    world_on,
)
from tests.fakediscord import FakeDiscord
from tests.store.pg_own_database import admin, own_database, terminate_bot

RECOVERY = STORE_RETRY_MAX + 6.0  # as tests/e2e/test_database_faults_e2e.py allows after the return


@pytest.fixture
async def own_db() -> AsyncIterator[tuple[str, str]]:
    """(name, url) of a new, migrated database of this test alone."""
    async with own_database() as database:
        yield database


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.levelname} {r.name}: {r.getMessage()}" for r in caplog.records if r.exc_info]


async def test_a_move_and_the_leaderboard_while_the_database_refuses_connections_say_could_not_save(
    fake: FakeDiscord, tmp_path: Path, own_db: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """The bot runs as `run` does (its shard claim held); the DBA stops new connections and terminates the
    bot's pool sessions. Alice's click gets the short "could not save … nothing changed" answer at once (the
    commit was refused before anything was sent: the database is not asked about it), /eights leaderboard
    (a read) the same line, and nothing is logged with a traceback."""
    name, url = own_db
    claim = await claim_shards(url, ShardSet(), watch_interval=2.0)
    try:
        async with world_on(fake, tmp_path, url, claim) as world:
            hand = await alice_against_a_cpu(world, turn=60.0)
            await world.settle()
            caplog.clear()
            caplog.set_level(logging.INFO)
            await admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            try:
                assert await terminate_bot(name, pool_only=True) >= 1
                await asyncio.sleep(0.2)
                loop = asyncio.get_running_loop()
                clicked = loop.time()
                moved = await click_draw_or_play(world, hand)
                took = loop.time() - clicked
                board = await answer(world, world.alice, "leaderboard")
            finally:
                await admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
            assert moved.ephemeral and moved.content == STORE_FAILED, (moved.content, tracebacks(caplog))
            assert took < 2.0, f"{took:.1f} s: the refused commit was asked about"
            assert board.ephemeral and board.content == STORE_FAILED, (board.content, tracebacks(caplog))
            assert not tracebacks(caplog)
    finally:
        await claim.release()


async def test_a_turn_timeout_due_while_connections_are_refused_happens_soon_after(
    fake: FakeDiscord, tmp_path: Path, own_db: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Alice's 3-second turn falls due while the database refuses new connections for 6 s: the timeout is
    retried as for any outage and happens within STORE_RETRY_MAX (+ slack) of the database's return, with no
    traceback (it was logged "timer failed; its timers are set again in 30s" and happened 30 s later)."""
    name, url = own_db
    claim = await claim_shards(url, ShardSet(), watch_interval=2.0)
    try:
        async with world_on(fake, tmp_path, url, claim) as world:
            assert world.bot is not None
            store = world.bot.store
            await alice_against_a_cpu(world, turn=3.0)
            table_id = await world.table_id()
            await world.settle()
            before = len(await store.moves(table_id))
            caplog.clear()
            caplog.set_level(logging.INFO)
            await admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            try:
                await terminate_bot(name, pool_only=True)
                await asyncio.sleep(6.0)  # her turn falls due meanwhile
            finally:
                await admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
            loop = asyncio.get_running_loop()
            back = loop.time()

            async def timed_out() -> bool:
                return len(await store.moves(table_id)) > before

            await world.until(timed_out, "the timeout after the outage", timeout=RECOVERY)
            assert loop.time() - back < RECOVERY
            assert not tracebacks(caplog), "no traceback for a database fault"
    finally:
        await claim.release()
