"""What `/eights settings` changes, seen where it takes effect: the tables' language from the first line after
a restart, the house rules for new tables as the next table gets them, the list of table channels once a
listed channel is deleted, and the answer itself in the admin's language.

README, "Languages": the tables' public messages "are in the server's language: `/eights settings language:`
when a manager chose one"; private replies are in the reader's language. README, Commands: `/eights settings`
shows the "house rules for new tables" (each new table gets every one its preset takes) and keeps the list of
table channels (a listed channel that is deleted leaves it).
"""

from __future__ import annotations

from typing import Any

import discord

from tests.e2e.conftest import World, message_text
from tests.e2e.language_play import board, play_once
from tests.fakediscord import FakeChannel, FakeMessage, FakeUser

MANAGE_GUILD = discord.Permissions(manage_guild=True).value
RULES_FIELD = "House rules for new tables"
ENGLISH_LINE_WORDS = (" played ", "your turn", "to move", "ran out of time")


def admin_of(world: World, locale: str = "en-US") -> FakeUser:
    admin = world.fake.create_user("admin")
    admin.locale = locale
    world.fake.add_member(world.guild, admin, permissions=MANAGE_GUILD)
    return admin


def fields(message: FakeMessage) -> dict[str, Any]:
    return {f["name"]: f["value"] for f in message.embeds[0]["fields"]}


async def delete_channel(world: World, channel: FakeChannel) -> None:
    """A moderator deletes the channel: Discord forgets it and tells the bot (CHANNEL_DELETE)."""
    del world.fake.channels[channel.id]
    world.guild.channels.pop(channel.id, None)
    world.fake._dispatch_guild(world.guild, "CHANNEL_DELETE", channel.payload())
    await world.settle()


async def test_a_cpu_move_right_after_a_restart_is_told_in_the_language_the_server_chose(
    world: World,
) -> None:
    """A server chose French for its tables (`/eights settings language:fr`; its language in Discord is
    English). A restart finds a CPU seat to move, and it moves at once, before anything else of the server
    was read: the CPU's line is French like every other public line of the table (the publisher reads the
    server's settings before it writes a table's first line or board)."""
    admin = admin_of(world)
    await world.run(admin, "settings", language="fr")
    world.service._scheduler._cpu_delay = 60.0  # type: ignore[attr-defined]  # the CPU waits: restart first
    world.service.seed_deals(1)  # alice leads
    await world.run(world.alice, "new")
    await world.run(world.alice, "cpu")
    await world.run(world.alice, "start")
    await world.settle()
    await play_once(world, world.alice)
    await world.settle()
    assert message_text(board(world)).startswith("Huit américain"), message_text(board(world))
    before = len(world.fake.channel_messages(world.channel))

    await world.restart()  # this bot's CPU delay is the tests' 0: the CPU moves as soon as it is restored
    await world.settle()
    lines = [m.content for m in world.fake.channel_messages(world.channel)[before:] if m.content]
    assert lines, "the CPU did not move after the restart"
    english = [line for line in lines if any(word in line for word in ENGLISH_LINE_WORDS)]
    assert not english, f"public lines in English in a server that chose French: {english}"


async def test_the_house_rules_shown_after_a_change_of_default_preset_are_those_new_tables_get(
    world: World,
) -> None:
    """An admin sets a house rule for new tables (draw up to 3 cards), then makes `must-play` the default
    preset, whose turn ends after one card drawn. The change is saved, and the answer shows the rule new
    tables still get (a `classic` table opened next is dealt with it), and says that the default preset's
    tables start without it, and why."""
    admin = admin_of(world)
    await world.run(admin, "settings", house_option="draw_limit", house_value="3")
    moved = await world.run(admin, "settings", default_preset="must-play")
    await world.run(world.alice, "new", preset="classic")
    applied = (await world.snapshot()).house_rules
    assert applied, "the classic table did not get the server's house rule"
    assert moved.embeds, moved.content
    shown = fields(moved)[RULES_FIELD]
    rule, _, without = shown.partition("\n")
    assert not rule.startswith("none") and "3" in rule, (shown, applied)
    assert without.startswith("Not at must-play tables (the default preset): Draw up to 3"), shown
    assert "the draw limit must be one card" in without, shown


async def test_a_deleted_table_channel_leaves_the_list(world: World) -> None:
    """Tables may open in #eights and #cards (`allow_channel`); a moderator deletes #cards. The list loses
    it: the settings answer lists #eights only, and a player refused in #general is sent to #eights only,
    not to a channel that is gone (Discord would show it as "#deleted-channel", and `disallow_channel`
    could not name it to remove it)."""
    admin = admin_of(world)
    cards = world.fake.create_channel(world.guild, "cards")
    await world.run(admin, "settings", allow_channel=world.channel)
    await world.run(admin, "settings", allow_channel=cards)
    await delete_channel(world, cards)

    shown = await world.run(admin, "settings")
    listed = fields(shown)["Table channels"]
    refused = await world.run(world.alice, "new", channel=world.other_channel)
    assert refused.ephemeral and f"<#{world.channel.id}>" in refused.content, refused.content
    assert f"<#{cards.id}>" not in listed, f"a deleted channel is still listed: {listed}"
    assert f"<#{cards.id}>" not in refused.content, (
        f"players are sent to a deleted channel: {refused.content}"
    )


async def test_once_the_last_listed_channel_is_deleted_tables_open_in_any_channel(world: World) -> None:
    """Tables may open in #cards only; a moderator deletes #cards. The list is empty, as after
    `clear_channels`: the settings say "any channel", and a table opens in #general."""
    admin = admin_of(world)
    cards = world.fake.create_channel(world.guild, "cards")
    await world.run(admin, "settings", allow_channel=cards)
    await delete_channel(world, cards)

    shown = await world.run(admin, "settings")
    assert fields(shown)["Table channels"] == "any channel", fields(shown)
    opened = await world.run(world.alice, "new", channel=world.other_channel)
    assert not opened.ephemeral or "can only be opened" not in opened.content, opened.content


async def test_a_channel_deleted_while_the_bot_was_away_leaves_the_list_when_it_is_shown(
    world: World,
) -> None:
    """#cards is listed, and deleted without the bot hearing of it (it was down). The next settings answer
    lists #eights only, and the list keeps no place for #cards: it is gone from the saved settings too."""
    admin = admin_of(world)
    cards = world.fake.create_channel(world.guild, "cards")
    await world.run(admin, "settings", allow_channel=world.channel)
    await world.run(admin, "settings", allow_channel=cards)
    del world.fake.channels[cards.id]
    world.guild.channels.pop(cards.id, None)
    # discord.py's cache forgets it as a new session's GUILD_CREATE would list the server without it.
    assert world.bot is not None
    cached = world.bot.get_guild(world.guild.id)
    assert cached is not None
    cached._remove_channel(cached.get_channel(cards.id))  # type: ignore[arg-type]

    shown = await world.run(admin, "settings")
    assert fields(shown)["Table channels"] == f"<#{world.channel.id}>", fields(shown)
    saved = await world.bot.store.get_guild_settings(world.guild.id)
    assert saved.allowed_channel_ids == (world.channel.id,)


async def test_the_default_preset_is_named_in_the_admins_language(world: World) -> None:
    """A German admin's settings answer names the default preset as Discord's own list of presets does for
    them and as the board does ("klassisch"), not by its English id "classic" (a preset is named in the
    reader's language wherever it is shown)."""
    admin = admin_of(world, "de")
    shown = await world.run(admin, "settings")
    values = fields(shown)
    assert "Standardvariante" in values, values  # the answer is German
    assert values["Standardvariante"] == "klassisch", values
