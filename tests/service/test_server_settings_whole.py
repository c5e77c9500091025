"""A settings change is saved whole or not at all: the table settings and the display switches of one
`/eights settings` command are one store transaction, so a command refused or failed part-way leaves every
setting as it was, as its answer says ("The bot could not save this, so nothing changed"). On SQLite and
PostgreSQL."""

from __future__ import annotations

import pytest

from bot.service.errors import DatabaseFault, ServiceError
from bot.service.models import CardDisplay
from bot.service.server import ServerService, server_settings
from bot.store.base import GuildSettings, Store
from tests.service.display_refused import display_writes_refused

GUILD = 1_000


async def test_a_change_whose_switch_write_fails_saves_none_of_it(store: Store) -> None:
    """The default preset and a display switch changed together while the database refuses the switch's
    write (a full disk): the service reports the database unavailable, and the default preset is still the
    one it was (not saved by a first commit before the failing one), the switch too."""
    service = ServerService(store)
    await service.update_settings(GUILD, allow_channel=5)
    before = await store.get_guild_settings(GUILD)
    async with display_writes_refused(store):
        with pytest.raises(DatabaseFault) as failed:
            await service.change_settings(GUILD, default_preset="party", allow_channel=6, card_emojis=False)
    assert failed.value.unavailable
    assert await store.get_guild_settings(GUILD) == before
    assert await service.card_display(GUILD) == CardDisplay()
    # Once the database takes writes again, the same command saves all of it.
    settings, display = await service.change_settings(
        GUILD, default_preset="party", allow_channel=6, card_emojis=False
    )
    assert (settings.default_preset, settings.allowed_channel_ids) == ("party", (5, 6))
    assert display == CardDisplay(card_emojis=False) == await service.card_display(GUILD)


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"language": "xx"}, "unknown-language"),
        ({"disallow_channel": 4, "card_emojis": False}, "not-allowed-channel"),
        ({"house_option": "draw_limit", "house_value": "many", "board_picture": False}, "bad-house-rule"),
    ],
)
async def test_a_refused_change_saves_none_of_it(store: Store, changes: dict[str, object], code: str) -> None:
    """A table setting beside a mistaken switch, or a switch beside a mistaken table setting: refused with
    the reason, and neither saved."""
    service = ServerService(store)
    with pytest.raises(ServiceError) as refused:
        await service.change_settings(GUILD, default_preset="party", **changes)  # type: ignore[arg-type]
    assert refused.value.code == code
    assert await store.get_guild_settings(GUILD) == GuildSettings(GUILD)
    assert await service.card_display(GUILD) == CardDisplay()
    assert await store.get_meta(f"card_display:{GUILD}") is None


async def test_a_change_answers_what_was_saved_and_writes_only_what_changed(store: Store) -> None:
    """The answer is the settings and switches as saved; a command that changes nothing writes nothing (no
    settings row or switch value appears for a server that has none)."""
    service = ServerService(store)
    settings, display = await service.change_settings(GUILD, turn_timeout=60, language="de")
    assert settings == server_settings(await store.get_guild_settings(GUILD))
    assert settings.default_turn_timeout == 60.0
    assert display == CardDisplay(language="de") == await service.card_display(GUILD)
    other = GUILD + 1
    shown, switches = await service.change_settings(other, clear_channels=True, card_emojis=True)
    assert shown == server_settings(GuildSettings(other)) and switches == CardDisplay()
    assert await store.get_meta(f"card_display:{other}") is None
    assert (await store.row_counts())["guild_settings"] == 1
