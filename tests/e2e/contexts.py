"""Interaction contexts the fake does not build by itself: threads, forum posts, voice chats, DMs,
user-installed contexts, channels the bot cannot see. Test code only (the fake is not changed)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.fakediscord.interactions import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    InteractionHandle,
    InteractionRecord,
)
from tests.fakediscord.model import FakeGuild, iso_now


@dataclass(eq=False)
class ThreadChannel(FakeChannel):
    parent_id: int = 0
    archived: bool = False
    locked: bool = False
    owner_id: int = 0

    def payload(self) -> dict[str, Any]:
        data = super().payload()
        data.update(
            parent_id=str(self.parent_id),
            owner_id=str(self.owner_id),
            member_count=1,
            message_count=0,
            total_message_sent=0,
            thread_metadata={
                "archived": self.archived,
                "auto_archive_duration": 1440,
                "archive_timestamp": iso_now(),
                "locked": self.locked,
                "invitable": True,
            },
        )
        data.pop("position", None)
        return data


@dataclass(eq=False)
class DMChannel(FakeChannel):
    recipient: FakeUser | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": 1,
            "last_message_id": None,
            "flags": 0,
            "recipients": [self.recipient.payload()] if self.recipient else [],
        }


def make_thread(
    fake: FakeDiscord, guild: FakeGuild, parent: FakeChannel, name: str, *, type: int = 11, owner: FakeUser
) -> ThreadChannel:
    thread = ThreadChannel(fake.snowflake(), guild.id, name, 0, type, parent_id=parent.id, owner_id=owner.id)
    fake.channels[thread.id] = thread
    fake._channel_messages[thread.id] = []
    fake._dispatch_guild(guild, "THREAD_CREATE", {**thread.payload(), "newly_created": True})
    return thread


def update_thread(fake: FakeDiscord, guild: FakeGuild, thread: ThreadChannel, **changes: Any) -> None:
    for key, value in changes.items():
        setattr(thread, key, value)
    fake._dispatch_guild(guild, "THREAD_UPDATE", thread.payload())


def make_dm(fake: FakeDiscord, user: FakeUser) -> DMChannel:
    channel = DMChannel(fake.snowflake(), None, "dm", 0, 1, recipient=user)  # type: ignore[arg-type]
    fake.channels[channel.id] = channel
    fake._channel_messages[channel.id] = []
    return channel


async def send_raw(
    fake: FakeDiscord,
    kind: int,
    user: FakeUser,
    channel: FakeChannel,
    data: dict[str, Any],
    *,
    guild: FakeGuild | None,
    message: FakeMessage | None = None,
    mutate: Callable[[dict[str, Any]], None] | None = None,
) -> InteractionHandle:
    """An interaction as real Discord may send it, built here so that it can lack a guild or a member."""
    session = next(reversed(list(fake.sessions.values())))
    interaction_id = fake.snowflake()
    token = f"itk.{interaction_id}.{secrets.token_urlsafe(16)}"
    record_guild = guild or FakeGuild(0, "(no guild)", user.id)
    record = InteractionRecord(
        id=interaction_id,
        token=token,
        type=kind,
        user=user,
        guild=record_guild,
        channel=channel,
        data=data,
        created_at=asyncio.get_running_loop().time(),
        message=message,
    )
    fake.interactions[interaction_id] = record
    fake._by_token[token] = record
    payload: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(fake.application_id),
        "type": kind,
        "data": data,
        "channel_id": str(channel.id),
        "channel": channel.payload(),
        "token": token,
        "version": 1,
        "locale": user.locale,
        "entitlements": [],
        "attachment_size_limit": 10 * 1024 * 1024,
    }
    if guild is not None and user.id in guild.members:
        member = guild.members[user.id].payload()
        member["permissions"] = str(guild.permissions_of(user.id))
        payload.update(
            guild_id=str(guild.id),
            guild={"id": str(guild.id), "locale": guild.locale, "features": []},
            member=member,
            guild_locale=guild.locale,
            app_permissions=str(
                guild.permissions_of(fake.bot_user.id) if fake.bot_user.id in guild.members else 0
            ),
            authorizing_integration_owners={"0": str(guild.id)},
            context=0,
        )
    else:
        payload.update(
            user=user.payload(),
            app_permissions=str(0),
            authorizing_integration_owners={"0": "0"},
            context=1,
        )
    if message is not None:
        payload["message"] = message.payload()
    if mutate is not None:
        mutate(payload)
    session.dispatch("INTERACTION_CREATE", payload)
    return InteractionHandle(fake, record)


def command_data(fake: FakeDiscord, guild: FakeGuild, command: str, **options: Any) -> dict[str, Any]:
    schema, chain, leaf = fake._find_command(guild, command)
    resolved: dict[str, dict[str, Any]] = {}
    built = fake._build_options(guild, leaf, options, resolved, command=command)
    return fake._command_data(schema, chain, built, resolved)


async def raw_command(
    fake: FakeDiscord,
    user: FakeUser,
    channel: FakeChannel,
    command: str,
    *,
    schema_guild: FakeGuild,
    guild: FakeGuild | None,
    mutate: Callable[[dict[str, Any]], None] | None = None,
    **options: Any,
) -> InteractionHandle:
    data = command_data(fake, schema_guild, f"eights {command}", **options)
    return await send_raw(fake, APPLICATION_COMMAND, user, channel, data, guild=guild, mutate=mutate)


async def raw_click(
    fake: FakeDiscord,
    user: FakeUser,
    channel: FakeChannel,
    message: FakeMessage,
    custom_id: str,
    *,
    guild: FakeGuild | None,
    mutate: Callable[[dict[str, Any]], None] | None = None,
) -> InteractionHandle:
    data = {"custom_id": custom_id, "component_type": 2}
    return await send_raw(
        fake, MESSAGE_COMPONENT, user, channel, data, guild=guild, message=message, mutate=mutate
    )


@dataclass(eq=False)
class VoiceChannel(FakeChannel):
    def payload(self) -> dict[str, Any]:
        data = super().payload()
        data.update(bitrate=64000, user_limit=0, rtc_region=None, video_quality_mode=1)
        return data


def make_voice(fake: FakeDiscord, guild: FakeGuild, name: str) -> VoiceChannel:
    channel = VoiceChannel(fake.snowflake(), guild.id, name, len(guild.channels), 2)
    guild.channels[channel.id] = channel
    fake.channels[channel.id] = channel
    fake._channel_messages[channel.id] = []
    fake._dispatch_guild(guild, "CHANNEL_CREATE", channel.payload())
    return channel


def refuse_channel_routes(fake: FakeDiscord, refused: dict[int, tuple[int, int, str]]) -> None:
    """The bot's own channel routes (GET/POST/PATCH/DELETE /channels/{id}/...) to the channels in ``refused``
    fail as Discord answers them: e.g. (403, 50001, "Missing Access") for a channel the bot cannot see,
    (400, 50083, "Thread is archived") for a locked archived thread. Interaction routes are unaffected."""
    from tests.fakediscord.server import _Reject

    original = fake._channel

    def channel(request: Any) -> FakeChannel:
        found = original(request)
        if found.id in refused:
            status, code, text = refused[found.id]
            raise _Reject(status, code, text, violation=False)
        return found

    fake._channel = channel  # type: ignore[method-assign]
