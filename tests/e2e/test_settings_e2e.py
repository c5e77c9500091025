"""/eights settings as server admins use it: the house rules for new tables are shown as new tables get them,
also when the default preset takes none (crazier-abilities), and setting one then is accepted; a member who
may not manage a table is told who may (the host, Manage Channels, or the server's manager role)."""

from __future__ import annotations

from typing import Any

import discord

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser

MANAGE_GUILD = discord.Permissions(manage_guild=True).value
RULES_FIELD = "House rules for new tables"


def fields(message: FakeMessage) -> dict[str, Any]:
    return {f["name"]: f["value"] for f in message.embeds[0]["fields"]}


def admin_of(world: World) -> FakeUser:
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=MANAGE_GUILD)
    return admin


async def test_the_house_rules_shown_are_those_new_tables_get_whatever_the_default_preset(
    world: World,
) -> None:
    admin = admin_of(world)
    await world.run(admin, "settings", house_option="draw_limit", house_value="3")
    moved = await world.run(admin, "settings", default_preset="crazier-abilities")
    shown = fields(moved)[RULES_FIELD]
    await world.run(world.alice, "new", preset="classic")
    applied = (await world.snapshot()).house_rules
    assert applied and not shown.startswith("none") and "3" in shown, (shown, applied)


async def test_a_house_rule_set_while_the_default_preset_takes_none_is_kept(world: World) -> None:
    admin = admin_of(world)
    saved = await world.run(
        admin, "settings", default_preset="crazier-abilities", house_option="draw_limit", house_value="2"
    )
    assert "can't be used" not in saved.content and "2" in fields(saved)[RULES_FIELD], saved.content


async def test_a_member_who_may_not_manage_the_table_is_told_who_may(world: World) -> None:
    await world.run(world.alice, "new")
    refused = await world.run(world.bob, "cpu")
    assert refused.ephemeral and "manager role" in refused.content, refused.content
