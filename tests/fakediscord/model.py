"""The fake's world: users, guilds, channels, roles, members and messages, and their Discord JSON payloads."""

from __future__ import annotations

import copy
import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

DISCORD_EPOCH_MS = 1420070400000

# Permission bits used by the fake (see Discord's permission table).
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
SEND_MESSAGES_IN_THREADS = 1 << 38  # Discord's Send Messages does not cover threads: this does
ALL_PERMISSIONS = (1 << 53) - 1
DEFAULT_EVERYONE_PERMISSIONS = (
    ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_APPLICATION_COMMANDS
    | SEND_MESSAGES_IN_THREADS  # in Discord's default @everyone too
)

# Message flags.
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7

# Message types.
MESSAGE_DEFAULT = 0
MESSAGE_REPLY = 19
MESSAGE_CHAT_INPUT_COMMAND = 20


class SnowflakeFactory:
    """Increasing snowflakes whose timestamp part is now, so discord.py's created_at makes sense."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def __call__(self) -> int:
        millis = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return (millis << 22) | (next(self._counter) & 0x3FFFFF)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    #: The language of their Discord client: the ``locale`` of their interactions.
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }


@dataclass(eq=False)
class FakeRole:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeChannel:
    id: int
    guild_id: int
    name: str
    position: int
    type: int = 0  # GUILD_TEXT

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "guild_id": str(self.guild_id),
            "type": self.type,
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [],
            "topic": None,
            "nsfw": False,
            "parent_id": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild_id: int
    roles: list[FakeRole]
    # An explicit permission value (as Discord computes it for the channel), or None to derive it from roles.
    permissions: int | None = None
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def payload(self) -> dict[str, Any]:
        return {
            "user": self.user.payload(),
            "nick": self.nick,
            "avatar": None,
            "roles": [str(r.id) for r in self.roles],
            "joined_at": self.joined_at,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
        }


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    #: The server's language (its community locale): the ``guild_locale`` of interactions there.
    locale: str = "en-US"

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def permissions_of(self, user_id: int) -> int:
        """The member's guild-level permissions (channel overwrites are not modelled)."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members[user_id]
        if member.permissions is not None:
            return member.permissions
        value = self.everyone.permissions
        for role in member.roles:
            value |= role.permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def payload(self, *, member_ids: set[int] | None = None) -> dict[str, Any]:
        """The GUILD_CREATE payload, with the members in ``member_ids`` (all when None)."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": self.locale,  # the server's language, as Discord sends it
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": iso_now(),
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "voice_states": [],
            "members": [
                m.payload() for m in self.members.values() if member_ids is None or m.user.id in member_ids
            ],
            "channels": [c.payload() for c in self.channels.values()],
            "threads": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


@dataclass(frozen=True)
class MessageVersion:
    """One state of a message: what it showed before an edit (or now)."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    edited_at: str | None
    attachments: list[dict[str, Any]] = field(default_factory=list)


@dataclass(eq=False)
class FakeMessage:
    """A message as the fake stores it; ``recipient`` is set for ephemeral ones: only that user sees them."""

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    type: int = MESSAGE_DEFAULT
    recipient: FakeUser | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    created_at: str = field(default_factory=iso_now)
    edited_at: str | None = None
    deleted: bool = False
    # Earlier versions, oldest first; the current state is not in it.
    history: list[MessageVersion] = field(default_factory=list)

    def __repr__(self) -> str:
        to = f" to={self.recipient.name}" if self.recipient else ""
        state = " deleted" if self.deleted else ""
        return (
            f"<FakeMessage id={self.id}{to} edits={len(self.history)}{state} content={self.content[:60]!r}>"
        )

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while it is a deferred response's "thinking…" placeholder."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def versions(self) -> list[MessageVersion]:
        """Every state the message has had, oldest first, the current one last."""
        return [*self.history, self.snapshot()]

    @property
    def edit_count(self) -> int:
        return len(self.history)

    def snapshot(self) -> MessageVersion:
        return MessageVersion(
            self.content,
            copy.deepcopy(self.embeds),
            copy.deepcopy(self.components),
            self.edited_at,
            copy.deepcopy(self.attachments),
        )

    def iter_components(self) -> list[dict[str, Any]]:
        """Every interactive component (buttons, selects), flattened out of rows and containers."""
        found: list[dict[str, Any]] = []

        def walk(items: list[dict[str, Any]]) -> None:
            for item in items:
                if item.get("type") in (2, 3, 5, 6, 7, 8):
                    found.append(item)
                for key in ("components", "accessory"):
                    child = item.get(key)
                    if isinstance(child, list):
                        walk(child)
                    elif isinstance(child, dict):
                        walk([child])

        walk(self.components)
        return found

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") == 2]

    @property
    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") in (3, 5, 6, 7, 8)]

    def component(self, custom_id: str | None = None, *, label: str | None = None) -> dict[str, Any]:
        """The component with this custom_id or (button) label; AssertionError listing what exists if none."""
        for item in self.iter_components():
            if custom_id is not None and item.get("custom_id") == custom_id:
                return item
            if label is not None and item.get("label") == label:
                return item
        present = [(c.get("custom_id"), c.get("label")) for c in self.iter_components()]
        raise AssertionError(
            f"message {self.id} has no component custom_id={custom_id!r} label={label!r}; it has {present}"
        )

    def text(self) -> str:
        """Content and embed text together, for assertions that do not care where text is shown."""
        parts = [self.content]
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            for fld in embed.get("fields", []):
                parts.append(f"{fld.get('name', '')}: {fld.get('value', '')}")
            if embed.get("footer", {}).get("text"):
                parts.append(str(embed["footer"]["text"]))
            if embed.get("author", {}).get("name"):
                parts.append(str(embed["author"]["name"]))
        return "\n".join(p for p in parts if p)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.created_at,
            "edited_timestamp": self.edited_at,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": self.attachments,
            "embeds": self.embeds,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
            "components": self.components,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
            data["webhook_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        return data
