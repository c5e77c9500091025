"""The server turned read-only under the bot (a failover that lands on a replica promoted late:
`ALTER DATABASE … SET default_transaction_read_only = on` and the bot's sessions terminated), then writable
again (sessions terminated once more, as a failover's switch does).

README "When the database falters": a person's move gets "The bot could not save this, so nothing changed.
Try again in a moment." and changes nothing; turn timeouts that fall due are retried and happen once it is
back; `health` fails while the database cannot be written and passes once it is back; one warning when the
outage starts and one when it ends, no traceback. README `check`: "a read-only PostgreSQL server" is a
problem.

asyncpg's ReadOnlySQLTransactionError is one of bot/store/postgres.py ``_is_unavailable``'s errors (the
database, asked, says the move was not stored: "nothing changed"); the shard claim (advisory locks, allowed
on a read-only session) is taken again at once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from bot.exts._group import STORE_FAILED
from bot.service.scheduler import STORE_RETRY_MAX
from bot.shards import ShardSet
from bot.store import claim_shards
from tests.e2e.test_database_faults_e2e import (
    alice_against_a_cpu,
    click_draw_or_play,
    health,
    short_turns_allowed,  # noqa: F401  (autouse: 1 s turns allowed)
    world_on,
)
from tests.fakediscord import FakeDiscord
from tests.store.pg_own_database import admin, own_database, terminate_bot

RECOVERY = STORE_RETRY_MAX + 6.0


@pytest.fixture
async def own_db() -> AsyncIterator[tuple[str, str]]:
    """(name, url) of a new, migrated database of this test alone."""
    async with own_database() as database:
        yield database


async def test_a_read_only_server_refuses_moves_clearly_and_play_resumes_once_writable(
    fake: FakeDiscord, tmp_path: Path, own_db: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """The database turned read-only (its sessions terminated) on Alice's 4-second turn: her click gets
    "could not save … nothing changed", `health` fails, her turn's timeout is tried and not done; once it is
    writable again the timeout happens within STORE_RETRY_MAX (+ slack), `health` passes, and nothing was
    logged with a traceback."""
    name, url = own_db
    claim = await claim_shards(url, ShardSet(), watch_interval=2.0)
    try:
        async with world_on(fake, tmp_path, url, claim) as world:
            assert world.bot is not None
            store = world.bot.store
            hand = await alice_against_a_cpu(world, turn=4.0)
            table_id = await world.table_id()
            await world.settle()
            before = len(await store.moves(table_id))

            async def timed_out() -> bool:  # read on a connection of the test's own
                conn = await asyncpg.connect(url)
                try:
                    count = await conn.fetchval("SELECT count(*) FROM moves WHERE table_id = $1", table_id)
                finally:
                    await conn.close()
                return int(count) > before

            caplog.clear()
            caplog.set_level(logging.INFO)
            await admin(f"ALTER DATABASE {name} SET default_transaction_read_only = on")
            try:
                await terminate_bot(name)
                await asyncio.sleep(1.5)  # the claim is taken again on a read-only session
                answer = await click_draw_or_play(world, hand)
                assert answer.ephemeral and answer.content == STORE_FAILED, answer.content
                code, out = await health(world)
                assert code == 1 and out.startswith("unhealthy"), out
                await asyncio.sleep(4.0)  # her turn falls due meanwhile
                assert not await timed_out()
            finally:
                await admin(f"ALTER DATABASE {name} RESET default_transaction_read_only")
                await terminate_bot(name)

            await world.until(timed_out, "the timeout after the failover", timeout=RECOVERY)
            await world.settle()
            code, out = await health(world)
            assert code == 0 and out.startswith("healthy"), out
            assert not [r for r in caplog.records if r.exc_info], "no traceback for a database fault"
    finally:
        await claim.release()
