"""A server's settings changed from two places at the same moment (two admins' `/eights settings`, an admin's
and a channel deletion, another process of the bot): every change that is answered "saved" is kept, and each
answer shows the settings as saved, the other change included. On SQLite and PostgreSQL.

README, Commands: `/eights settings` shows or changes "this server's defaults: preset, turn timeout, allowed
channels, manager role, … card emojis on/off and board picture on/off, … the language"; a listed channel that
is deleted "leaves the list at once". Each change is one store transaction that reads what it changes
(``Store.change_guild_settings``), not a whole row written back from an earlier read.

The two changes are made to move in step (``InStep``): each waits for the other before and after each of its
first calls of the store's settings methods, so both read before either writes wherever the service reads
outside its transaction: what two admins clicking within a few milliseconds get, made certain.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from typing import Any

import pytest

from bot.service.server import ServerService
from bot.store.base import GuildSettings, Store
from tests.backends import open_migrated

GUILD = 424_242
# Every method the service reads or changes a server's settings and switches with.
SETTINGS_METHODS = ("get_guild_settings", "get_meta", "change_guild_settings")


class InStep:
    """The store, except that the first two calls of each of ``SETTINGS_METHODS`` start together and return
    together: each waits for the other at both points."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._calls: dict[str, int] = {}
        self._meetings: dict[tuple[str, str], tuple[list[int], asyncio.Event]] = {}

    async def _meet(self, name: str, point: str) -> None:
        arrived, both = self._meetings.setdefault((name, point), ([0], asyncio.Event()))
        arrived[0] += 1
        if arrived[0] == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)

    def __getattr__(self, name: str) -> Any:
        inner = getattr(self._store, name)
        if name not in SETTINGS_METHODS:
            return inner

        async def in_step(*args: Any, **kwargs: Any) -> Any:
            self._calls[name] = call = self._calls.get(name, 0) + 1
            if call > 2:
                return await inner(*args, **kwargs)
            await self._meet(name, "start")
            value = await inner(*args, **kwargs)
            await self._meet(name, "return")
            return value

        return in_step


def in_step(store: Store) -> ServerService:
    """The service (the bot has one, holding no state) over the store in step: both changes go through it."""
    return ServerService(InStep(store))


async def test_two_admins_adding_channels_at_once_keep_both(store: Store) -> None:
    """Admin A runs `/eights settings allow_channel:#a` while admin B runs `/eights settings
    allow_channel:#b`: both are answered "saved", and the list holds both channels (not only the channel
    of whoever saved last); the answer saved last lists both."""
    racing = in_step(store)
    a, b = await asyncio.gather(
        racing.update_settings(GUILD, allow_channel=111), racing.update_settings(GUILD, allow_channel=222)
    )
    assert 111 in a.allowed_channel_ids and 222 in b.allowed_channel_ids
    assert {111, 222} in ({*a.allowed_channel_ids}, {*b.allowed_channel_ids})
    kept = (await ServerService(store).settings(GUILD)).allowed_channel_ids
    assert set(kept) == {111, 222}, f"an admin's saved channel was lost: list is {kept}"


async def test_a_timeout_change_and_a_manager_role_at_once_keep_both(store: Store) -> None:
    """Admin A sets `turn_timeout:30`, admin B at the same moment `manager_role:@Mods`: afterwards the
    settings have both, rather than the second write putting back the value the other admin replaced."""
    racing = in_step(store)
    await asyncio.gather(
        racing.update_settings(GUILD, turn_timeout=30), racing.update_settings(GUILD, manager_role=999)
    )
    now = await ServerService(store).settings(GUILD)
    assert (now.default_turn_timeout, now.manager_role_id) == (30.0, 999), (
        f"a saved change was lost: timeout {now.default_turn_timeout}, manager role {now.manager_role_id}"
    )


async def test_card_switch_and_language_at_once_keep_both(store: Store) -> None:
    """Admin A turns `card_emojis:False`, admin B at the same moment sets `language:Deutsch`: both switches
    hold afterwards (they are one value in the database), and the answer saved last shows both, so the
    bot's kept copy of the switches, set from the answers, matches the database."""
    racing = in_step(store)
    a, b = await asyncio.gather(
        racing.update_card_display(GUILD, card_emojis=False), racing.update_card_display(GUILD, language="de")
    )
    assert a.card_emojis is False and b.language == "de"
    now = await ServerService(store).card_display(GUILD)
    assert (now.card_emojis, now.language) == (False, "de"), f"a saved switch was lost: {now}"
    assert now in (a, b)


async def test_a_table_setting_and_a_switch_at_once_keep_both(store: Store) -> None:
    """One admin changes the default preset and the board picture in one command while another sets the
    language: all three hold."""
    racing = in_step(store)
    await asyncio.gather(
        racing.change_settings(GUILD, default_preset="party", board_picture=False),
        racing.change_settings(GUILD, language="fr"),
    )
    server = ServerService(store)
    display = await server.card_display(GUILD)
    assert (await server.settings(GUILD)).default_preset == "party"
    assert (display.board_picture, display.language) == (False, "fr"), display


async def test_a_channel_deleted_while_an_admin_adds_one_stays_off_the_list(store: Store) -> None:
    """#a and #b are listed; #a is deleted (the bot's listener takes it off the list) while an admin's
    command that adds #c runs (it began before the bot heard of the deletion: the server's channels it
    checks the list against still have #a): the list is #b and #c. The deleted channel is not put back by
    the admin's change, nor the admin's channel lost to the deletion."""
    server = ServerService(store)
    for channel in (5, 6):
        await server.update_settings(GUILD, allow_channel=channel)
    racing = in_step(store)
    await asyncio.gather(
        racing.channels_deleted(GUILD, (5,)),
        racing.update_settings(GUILD, allow_channel=7, exists=lambda channel: True),
    )
    assert set((await server.settings(GUILD)).allowed_channel_ids) == {6, 7}


@pytest.mark.parametrize("saved_before", [False, True], ids=["first-settings", "settings-saved"])
async def test_a_change_waits_for_another_process_saving_and_keeps_its_change(
    store: Store, backend_url: str, saved_before: bool
) -> None:
    """Another process of the bot (a second store on the same database, on a thread of its own) is in the
    middle of saving the server's settings (it has read them and adds #b) when an admin here adds #a: the
    admin's change waits for it to commit, then reads what it saved, so the list holds both. A change that
    read before the other committed and wrote after would drop #b. Both for a server's first settings and
    for a server that has saved some (PostgreSQL: a row to insert, or one to lock)."""
    if saved_before:
        await ServerService(store).update_settings(GUILD, turn_timeout=60)
    reading, release = threading.Event(), threading.Event()

    def adds_b(settings: GuildSettings, display: str | None) -> tuple[GuildSettings, str | None]:
        reading.set()
        assert release.wait(10), "the test never let the other process go on"
        return replace(settings, allowed_channel_ids=(*settings.allowed_channel_ids, 222)), display

    async def other_process() -> None:
        other = await open_migrated(backend_url)
        try:
            await other.change_guild_settings(GUILD, f"card_display:{GUILD}", adds_b)
        finally:
            await other.close()

    other = asyncio.create_task(asyncio.to_thread(asyncio.run, other_process()))
    try:
        assert await asyncio.to_thread(reading.wait, 10), "the other process never read the settings"
        admin = asyncio.create_task(ServerService(store).update_settings(GUILD, allow_channel=111))
        await asyncio.sleep(0.3)
        assert not admin.done(), "the admin's change did not wait for the other process's"
    finally:
        release.set()
        await other
    assert set((await admin).allowed_channel_ids) == {111, 222}
    assert set((await store.get_guild_settings(GUILD)).allowed_channel_ids) == {111, 222}
