"""A command of the standings, server or replays features whose work waits on the database past Discord's
3 seconds is still answered: every ``/eights`` command is watched by the deferral watchdog
(``bot.exts._group.FeatureCog.interaction_check``). Here the store gives up 5 s later (the SQLite busy
timeout); without the watchdog Discord would have dropped the interaction by then, and the admin would see
"This interaction failed" instead of "could not save, try again"."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

from bot.exts._group import STORE_FAILED
from bot.store.sqlite import SqliteStore
from tests.e2e.conftest import World
from tests.service.db_faults import SqliteLockHolder

MANAGE_GUILD = discord.Permissions(manage_guild=True).value


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_settings_while_another_process_holds_the_database_are_answered(world: World) -> None:
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=MANAGE_GUILD)
    assert world.bot is not None and isinstance(world.bot.store, SqliteStore)
    # e.g. an admin's `sqlite3` shell or a backup tool holding the write lock (as test_database_faults_e2e).
    holder = SqliteLockHolder(Path(world.bot.store.path))
    try:
        handle = await world.fake.invoke(admin, world.channel, "eights settings", turn_timeout=120)
        # The fake, as Discord, refuses a first callback after 3 s ("the bot broke Discord's rules").
        await handle.callback(timeout=10.0)
        answer = await handle.reply(timeout=20.0)
    finally:
        holder.release()
    assert answer.ephemeral
    assert STORE_FAILED in answer.content, answer.content
    assert len(answer.content) < 200
