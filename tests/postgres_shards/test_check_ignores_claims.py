"""``python -m bot check`` beside a running process that holds the same shards.

README, command table: "`check` | validate the settings and the database without changing anything, print
what `run` would do; exit 0 if it would start, 1 if not". And "Shards as separate processes": a second
process on any of the same shards "refuses to start with one line naming the database and the shards
(exit 1)".

``check`` (bot/cli.py ``cmd_check`` / ``_check_database``) never looks at the shard claims: with shard 0 held
by a running process it prints "ready: run would start the bot with these settings" and exits 0, while
``run`` with the same settings exits 1. (The same for a SHARD_COUNT other than the running processes'.) An
admin checking a new container's settings, or a deployment script gating on ``check``, is told the opposite
of what will happen."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.shards import ShardSet
from bot.store import open_store
from bot.store.claims import claim_shards
from tests.test_cli import TOKEN, bot, check_and_run_while_held


async def test_check_says_run_would_be_refused_when_another_process_holds_the_shards(
    tmp_path: Path, own_db: tuple[str, str]
) -> None:
    _, url = own_db
    env = {"DATABASE_URL": url, "DISCORD_TOKEN": TOKEN, "SHARD_COUNT": "2", "SHARD_IDS": "0"}
    # the process already running shard 0 of 2
    ran = await check_and_run_while_held(tmp_path, env, url, ShardSet(2, (0,)))
    assert "another process already runs shard 0 of 2" in ran.stderr, ran.stderr


async def test_check_says_run_would_be_refused_when_another_process_holds_the_sqlite_file(
    tmp_path: Path,
) -> None:
    database = tmp_path / "eights.sqlite3"
    url = f"sqlite:///{database}"
    store = await open_store(url)
    await store.migrate()
    await store.close()
    env = {"DATABASE_URL": url, "DISCORD_TOKEN": TOKEN}
    free = await asyncio.to_thread(bot, tmp_path, "check", env=env)
    assert free.returncode == 0, free.stdout + free.stderr
    running = await claim_shards(url, ShardSet(None, None))  # a bot running every shard on this file
    try:
        checked = await asyncio.to_thread(bot, tmp_path, "check", env=env)
    finally:
        await running.release()
    assert checked.returncode == 1 and "another process already runs" in checked.stdout + checked.stderr
    again = await asyncio.to_thread(bot, tmp_path, "check", env=env)  # released: ready, and nothing held
    assert again.returncode == 0
