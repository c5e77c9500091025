"""ServerService: a server's settings (validated together, saved only when valid), its card display switches,
on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service.errors import ServiceError
from bot.service.models import CardDisplay
from bot.service.server import ServerService, in_table_channels, server_settings
from bot.store.base import GuildSettings, Store

GUILD = 1_000
OTHER_GUILD = 2_000


async def test_the_table_channels_take_their_threads(store: Store) -> None:
    """No list: every channel. A list: its channels, and the threads (forum posts) whose parent it names."""
    service = ServerService(store)
    assert await service.in_table_channels(GUILD, 5)
    assert await service.in_table_channels(GUILD, 50, parent_id=6)
    await service.update_settings(GUILD, allow_channel=5)
    assert await service.in_table_channels(GUILD, 5)
    assert await service.in_table_channels(GUILD, 50, parent_id=5)
    assert not await service.in_table_channels(GUILD, 6)
    assert not await service.in_table_channels(GUILD, 50, parent_id=6)
    assert not await service.in_table_channels(GUILD, 50)
    assert await service.in_table_channels(OTHER_GUILD, 6)  # another server's list is its own
    assert in_table_channels((), 1) and in_table_channels((1,), 2, 1) and not in_table_channels((1,), 2)


async def test_settings_default_then_change_and_persist(store: Store) -> None:
    service = ServerService(store)
    assert await service.settings(GUILD) == server_settings(GuildSettings(guild_id=GUILD))
    changed = await service.update_settings(
        GUILD, default_preset="party", turn_timeout=15, allow_channel=5, manager_role=77
    )
    assert changed == server_settings(
        GuildSettings(
            guild_id=GUILD,
            default_preset="party",
            default_turn_timeout=15.0,
            allowed_channel_ids=(5,),
            manager_role_id=77,
        )
    )
    assert server_settings(await store.get_guild_settings(GUILD)) == changed
    assert await store.get_guild_settings(OTHER_GUILD) == GuildSettings(guild_id=OTHER_GUILD)

    again = await service.update_settings(GUILD, allow_channel=6, turn_timeout=86_400)
    assert again.allowed_channel_ids == (5, 6)
    assert again.default_turn_timeout == 86_400.0
    assert (await service.update_settings(GUILD, allow_channel=6)).allowed_channel_ids == (
        5,
        6,
    )  # no duplicates
    assert (await service.update_settings(GUILD, disallow_channel=5)).allowed_channel_ids == (6,)
    replaced = await service.update_settings(GUILD, clear_channels=True, allow_channel=9)
    assert replaced.allowed_channel_ids == (9,)
    cleared = await service.update_settings(GUILD, clear_channels=True, clear_manager_role=True)
    assert (cleared.allowed_channel_ids, cleared.manager_role_id) == ((), None)
    assert server_settings(await store.get_guild_settings(GUILD)) == cleared


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"turn_timeout": 14}, "bad-timeout"),
        ({"turn_timeout": 86_401}, "bad-timeout"),
        ({"default_preset": "poker", "turn_timeout": 60}, "unknown-preset"),
        ({"manager_role": 3, "clear_manager_role": True}, "conflicting-options"),
        ({"allow_channel": 3, "disallow_channel": 3}, "conflicting-options"),
        ({"disallow_channel": 4}, "not-allowed-channel"),
    ],
)
async def test_bad_settings_are_refused_and_nothing_is_saved(
    store: Store, changes: dict[str, Any], code: str
) -> None:
    service = ServerService(store)
    # A valid change alongside the bad one must not be saved either.
    with pytest.raises(ServiceError) as refused:
        await service.update_settings(GUILD, **{"default_preset": "switch", **changes})
    assert refused.value.code == code
    assert await store.get_guild_settings(GUILD) == GuildSettings(guild_id=GUILD)


async def test_the_channel_list_has_a_limit(store: Store) -> None:
    service = ServerService(store)
    for channel in range(25):
        await service.update_settings(GUILD, allow_channel=channel)
    with pytest.raises(ServiceError) as refused:
        await service.update_settings(GUILD, allow_channel=99)
    assert refused.value.code == "too-many-channels"
    assert len((await store.get_guild_settings(GUILD)).allowed_channel_ids) == 25


async def test_card_display_defaults_on_then_changes_and_persists(store: Store) -> None:
    service = ServerService(store)
    assert await service.card_display(GUILD) == CardDisplay(card_emojis=True, board_picture=True)
    off = await service.update_card_display(GUILD, board_picture=False)
    assert off == CardDisplay(card_emojis=True, board_picture=False)
    assert await ServerService(store).card_display(GUILD) == off
    assert await service.card_display(OTHER_GUILD) == CardDisplay()  # per server
    both = await service.update_card_display(GUILD, card_emojis=False, board_picture=True)
    assert both == CardDisplay(card_emojis=False, board_picture=True)
    assert await service.update_card_display(GUILD) == both  # nothing asked, nothing changed
    # A damaged value reads as the defaults rather than breaking the settings.
    await store.set_meta(f"card_display:{GUILD}", "{not json")
    assert await service.card_display(GUILD) == CardDisplay()
