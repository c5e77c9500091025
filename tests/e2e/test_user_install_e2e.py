"""Commands from a server the bot is not a member of: the app installed by a user (User Install), used in a
server that never added the bot. Discord sends the server's id, ``authorizing_integration_owners`` names
only the user, there is no bot member, and ``app_permissions`` are the bits Discord gives a user's app for
its answers (Embed Links, Attach Files, Mention Everyone, Use External Emojis), not the bot's.

The guide's standard: bad input gets a clear short answer; an answer that sends the person somewhere the bot
then refuses (``/eights new`` there), or tells them to grant permissions (README *Troubleshooting*: "check
the channel's permission overrides for the bot's role": there is no such role), is misleading. And /eights is
declared for servers that added the bot only, so Discord does not offer it there at all.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.contexts import raw_command, refuse_channel_routes
from tests.fakediscord.model import DEFAULT_EVERYONE_PERMISSIONS, FakeChannel, FakeGuild, FakeMember, FakeRole
from tests.fakediscord.server import FakeDiscord

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
USER_APP_PERMISSIONS = (1 << 14) | (1 << 15) | (1 << 17) | (1 << 18)
GUILD_INSTALL = 0  # Discord's installation context (integration type) of an app added to a server
GUILD_CONTEXT = 0  # Discord's interaction context type of a server channel


def foreign_channel(world: World) -> tuple[FakeGuild, FakeChannel]:
    """A channel of a server alice is in and the bot is not: the bot's own routes there answer 403."""
    fake = world.fake
    foreign = FakeGuild(fake.snowflake(), "Elsewhere", world.carol.id)
    foreign.roles[foreign.id] = FakeRole(foreign.id, foreign.id, "@everyone", DEFAULT_EVERYONE_PERMISSIONS, 0)
    foreign.members[world.alice.id] = FakeMember(world.alice, foreign.id, [])
    channel = FakeChannel(fake.snowflake(), foreign.id, "general", 0)
    fake.channels[channel.id] = channel
    fake._channel_messages[channel.id] = []
    refuse_channel_routes(fake, {channel.id: (403, 50001, "Missing Access")})
    return foreign, channel


def user_installed(world: World):  # type: ignore[no-untyped-def]
    def mutate(payload: dict[str, Any]) -> None:
        payload["authorizing_integration_owners"] = {"1": str(world.alice.id)}
        payload["app_permissions"] = str(USER_APP_PERMISSIONS)

    return mutate


async def command_there(world: World, command: str) -> str:
    """Alice's ``/eights <command>`` in the server without the bot: its private answer, checked short."""
    foreign, channel = foreign_channel(world)
    handle = await raw_command(
        world.fake,
        world.alice,
        channel,
        command,
        schema_guild=world.guild,
        guild=foreign,
        mutate=user_installed(world),
    )
    answer = await handle.reply()
    await world.settle()
    text = answer.text()
    assert answer.ephemeral and len(text) < 300, text
    assert await world.service.table_in_channel(channel.id) is None
    return text


@SQLITE_ONLY
async def test_new_in_a_server_without_the_bot_says_the_bot_is_not_there(world: World) -> None:
    """``/eights new`` there says the bot must be added to the server, not "I'm missing the permissions View
    Channel, Send Messages, Read Message History" (read from ``app_permissions``, which are not the bot's:
    nobody can grant it anything there)."""
    text = await command_there(world, "new")
    assert "missing the permission" not in text, text
    assert "isn't in this server" in text, text


@SQLITE_ONLY
async def test_join_in_a_server_without_the_bot_does_not_send_people_to_new(world: World) -> None:
    """``/eights join`` there says the bot must be added, not "There is no open table in this channel. Open
    one with /eights new." (which is then refused there: a loop; a DM's answer already avoids it)."""
    text = await command_there(world, "join")
    assert "/eights new" not in text, text
    assert "isn't in this server" in text, text


def eights_command(fake: FakeDiscord) -> dict[str, Any]:
    return next(c for c in fake.synced_commands() if c["name"] == "eights")


@SQLITE_ONLY
async def test_eights_is_declared_for_servers_that_added_the_bot(world: World) -> None:
    """/eights (every command of the bot: the tables, standings, replays and settings are its subcommands)
    is synced as installed by servers only, used in server channels only: a user's install does not get it,
    nor does a DM with the bot."""
    command = eights_command(world.fake)
    assert command["integration_types"] == [GUILD_INSTALL], command["integration_types"]
    assert command["contexts"] == [GUILD_CONTEXT], command["contexts"]
