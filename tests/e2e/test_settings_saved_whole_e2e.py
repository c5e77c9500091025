"""`/eights settings` as two admins and a failing database see it: a command's changes are saved whole or not
at all, each answer shows the settings as saved, and the boards use the switches the database holds.

README, Commands: `/eights settings` changes "this server's defaults: preset, …, card emojis on/off and board
picture on/off … the language" in one command; the bot's answer to a failed write (bot/exts/_group.py
``STORE_FAILED``) is "The bot could not save this, so nothing changed. Try again in a moment."
"""

from __future__ import annotations

import asyncio

import discord

from bot.exts._group import STORE_FAILED
from bot.service.models import CardDisplay
from bot.service.server import ServerService
from tests.e2e.conftest import World
from tests.fakediscord import FakeUser
from tests.service.display_refused import display_writes_refused

MANAGE_GUILD = discord.Permissions(manage_guild=True).value


def admin_of(world: World, name: str = "admin") -> FakeUser:
    admin = world.fake.create_user(name)
    world.fake.add_member(world.guild, admin, permissions=MANAGE_GUILD)
    return admin


async def test_a_failed_settings_command_changes_nothing(world: World) -> None:
    """The admin runs `/eights settings default_preset:party card_emojis:False` while the database refuses
    writes to the display switches (a full disk). The answer is the private "could not save this, so
    nothing changed", and so it is: new tables still open with the classic preset, and the cards keep their
    emojis."""
    admin = admin_of(world)
    assert world.bot is not None
    store = world.bot.store
    async with display_writes_refused(store):
        answer = await world.run(admin, "settings", default_preset="party", card_emojis=False)
    assert answer.ephemeral
    assert answer.content == STORE_FAILED, answer.content
    saved = await store.get_guild_settings(world.guild.id)
    assert saved.default_preset == "classic", (
        f"told {answer.content!r}, yet the default preset was saved as {saved.default_preset!r}"
    )
    assert await world.bot.appearance.load(world.guild.id) == CardDisplay()
    shown = await world.run(admin, "settings")  # and the settings say so
    assert "party" not in str(shown.embeds), shown.embeds


async def test_two_admins_at_once_both_switches_hold_in_the_database_and_on_the_boards(world: World) -> None:
    """Two admins send `/eights settings card_emojis:False` and `/eights settings language:Deutsch` at the
    same moment: both switches are saved, and the switches the boards are drawn with (the bot's kept copy)
    are those the database holds, not one admin's alone until the next restart."""
    first, second = admin_of(world, "first"), admin_of(world, "second")
    assert world.bot is not None
    handles = [
        await world.fake.invoke(first, world.channel, "eights settings", card_emojis=False),
        await world.fake.invoke(second, world.channel, "eights settings", language="de"),
    ]
    answers = await asyncio.gather(*(handle.reply() for handle in handles))
    assert all(answer.embeds for answer in answers), [answer.content for answer in answers]
    saved = await ServerService(world.bot.store).card_display(world.guild.id)
    assert (saved.card_emojis, saved.language) == (False, "de"), saved
    assert await world.bot.appearance.load(world.guild.id) == saved
