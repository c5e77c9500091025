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


async def test_deleted_channels_leave_the_list_and_the_last_one_leaves_it_empty(store: Store) -> None:
    """A deleted channel leaves the list (a place of the 25 again; nobody is sent there); one not listed
    changes nothing; once the last one goes, every channel takes tables, as after ``clear_channels``."""
    service = ServerService(store)
    for channel in (5, 6):
        await service.update_settings(GUILD, allow_channel=channel)
    assert await service.channels_deleted(GUILD, (99,)) == (5, 6)
    assert await service.channels_deleted(GUILD, (6,)) == (5,)
    assert (await store.get_guild_settings(GUILD)).allowed_channel_ids == (5,)
    assert not await service.in_table_channels(GUILD, 7)
    assert await service.channels_deleted(GUILD, (5,)) == ()
    assert await service.in_table_channels(GUILD, 7)
    assert await store.get_guild_settings(OTHER_GUILD) == GuildSettings(guild_id=OTHER_GUILD)


async def test_listed_channels_the_server_no_longer_has_leave_the_list_when_it_is_read(store: Store) -> None:
    """Channels deleted while the bot was away: the face says which of the listed channels the server still
    has (when it knows them), and the others leave the list as it is shown, used or changed."""
    service = ServerService(store)
    for channel in (5, 6, 7):
        await service.update_settings(GUILD, allow_channel=channel)
    assert (await service.settings(GUILD)).allowed_channel_ids == (5, 6, 7)  # not known: all kept
    assert (await service.settings(GUILD, lambda c: c != 7)).allowed_channel_ids == (5, 6)
    assert not await service.in_table_channels(GUILD, 8, exists=lambda c: c != 6)
    changed = await service.update_settings(GUILD, allow_channel=8, exists=lambda c: c != 5)
    assert changed.allowed_channel_ids == (8,)
    assert (await store.get_guild_settings(GUILD)).allowed_channel_ids == (8,)


async def test_house_rules_are_kept_and_shown_whatever_the_default_preset(store: Store) -> None:
    """The house rules for new tables go to every preset that takes them: a default preset that does not take
    one is accepted, the rule is still shown (read against the standard game), and the settings name what
    the default preset's tables start without, with the reason; a rule set then is checked with them."""
    service = ServerService(store)
    await service.update_settings(GUILD, house_option="draw_limit", house_value="3")
    moved = await service.update_settings(GUILD, default_preset="must-play")
    assert moved.default_preset == "must-play"
    assert moved.default_house_rules == (
        "Draw up to 3 cards; a playable card drawn when you had no play must be played",
    )
    assert len(moved.default_preset_without) == 1
    assert moved.default_preset_without[0].startswith("Draw up to 3 cards")
    assert "the draw limit must be one card" in moved.default_preset_without[0]
    more = await service.update_settings(GUILD, house_option="reshuffle", house_value="off")
    assert (await store.get_guild_settings(GUILD)).default_house_rules == {
        "draw_limit": 3,
        "reshuffle": False,
    }
    assert len(more.default_house_rules) == 2 and len(more.default_preset_without) == 1
    back = await service.update_settings(GUILD, default_preset="classic")
    assert back.default_preset_without == () and len(back.default_house_rules) == 2


async def test_a_house_rule_the_default_preset_has_itself_is_kept_for_the_others(store: Store) -> None:
    """A rule set while another default preset was read (here one that `classic` has itself) still counts for
    the presets that differ: shown, and kept when another rule is set."""
    service = ServerService(store)
    await store.save_guild_settings(
        GuildSettings(
            guild_id=GUILD, default_house_rules={"draw_limit": None, "after_draw": "must-play-drawn"}
        )
    )
    shown = await service.settings(GUILD)
    assert shown.default_house_rules == (
        "Draw until a card can be played; a playable card drawn when you had no play must be played",
    )
    await service.update_settings(GUILD, house_option="reshuffle", house_value="off")
    rules = (await store.get_guild_settings(GUILD)).default_house_rules
    assert rules == {"draw_limit": None, "after_draw": "must-play-drawn", "reshuffle": False}
