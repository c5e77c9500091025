"""Review of check and the claim of a file named through a symlink (753c124, debccdd)."""

from __future__ import annotations

from pathlib import Path

from bot.shards import ShardSet
from tests.store.test_claims_one_file_two_names import database_and_link
from tests.test_cli import TOKEN, check_and_run_while_held


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
    ran = await check_and_run_while_held(
        tmp_path,
        env,
        f"sqlite:///{database}",
        ShardSet(None, None),  # the bot already running
    )
    assert "another process already runs" in ran.stderr, ran.stderr
