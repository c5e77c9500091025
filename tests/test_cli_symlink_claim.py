"""Review of check and the claim of a file named through a symlink (753c124, debccdd)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.shards import ShardSet
from bot.store.claims import claim_shards
from tests.store.test_claims_one_file_two_names import database_and_link
from tests.test_cli import TOKEN, bot


async def test_check_through_a_symlink_says_run_would_be_refused_while_a_bot_holds_the_file(
    tmp_path: Path,
) -> None:
    """A bot runs on /srv/eights.sqlite3; the admin's other unit names it through a link. ``run`` there is
    refused (the claim's lock file is now the resolved file's: ``/srv/eights.sqlite3.lock``), but ``check``
    decides whether to try the claim by looking for ``<the path as written>.lock`` (bot/cli.py
    ``_check_database``: ``path.with_name(path.name + ".lock").exists()``, not resolved), finds none beside
    the link, and says ready (exit 0) while run exits 1."""
    database, link = await database_and_link(tmp_path)
    env = {"DATABASE_URL": f"sqlite:///{link}", "DISCORD_TOKEN": TOKEN}
    running = await claim_shards(f"sqlite:///{database}", ShardSet(None, None))  # the bot already running
    try:
        checked = await asyncio.to_thread(bot, tmp_path, "check", env=env)
        ran = await asyncio.to_thread(bot, tmp_path, "run", env=env)
    finally:
        await running.release()
    assert ran.returncode == 1 and "another process already runs" in ran.stderr, ran.stderr
    assert checked.returncode == 1, (
        f"check exits {checked.returncode} and says {checked.stdout.strip().splitlines()[-1]!r}, "
        f"while run with the same settings exits 1: {ran.stderr.strip()!r}"
    )
