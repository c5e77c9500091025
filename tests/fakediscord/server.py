"""The fake Discord server: REST under /api/v10, the gateway websocket, and the test API."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import secrets
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from . import limits
from .attachments import Uploads
from .emojis import AppEmojis
from .errors import FormError
from .faults import GatewayFaults
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    AUTOCOMPLETE_RESULT,
    CALLBACKS_ALLOWED,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MESSAGE_COMPONENT,
    MODAL,
    MODAL_SUBMIT,
    UPDATE_MESSAGE,
    InteractionHandle,
    InteractionRecord,
    InvalidInteraction,
)
from .model import (
    ADMINISTRATOR,
    DEFAULT_EVERYONE_PERMISSIONS,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    MANAGE_MESSAGES,
    MESSAGE_CHAT_INPUT_COMMAND,
    MESSAGE_DEFAULT,
    MESSAGE_REPLY,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    SnowflakeFactory,
    iso_now,
)
from .ratelimits import VIA, DiscordLimits, RateLimits, ServerErrors, Ticket

API_PREFIX = "/api/v10"
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
# Create Message's enforce_nonce: "the message will be deduped for the same sender within a few minutes. If a
# message was created with the same nonce, no new message will be created and the previous message will be
# returned instead" (Discord's change log, 2024-02-12). The window is not documented; the fake keeps 5 min.
NONCE_WINDOW = 300.0

MessageObserver = Callable[[FakeMessage, FakeUser | None], None]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: str


class _Reject(FormError):
    """Answer the current request with this Discord error (and, when ``violation``, record it)."""


@dataclass(eq=False)
class GatewaySession:
    """One gateway session (one shard): survives a dropped websocket until it is resumed."""

    session_id: str
    shard_id: int
    shard_count: int
    intents: int
    ws: web.WebSocketResponse | None = None
    seq: int = 0
    # Highest sequence number written to a websocket.
    delivered: int = 0
    # Sent dispatches kept for RESUME: (seq, frame).
    sent: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=5000))
    outbox: asyncio.Queue[tuple[int, str]] = field(default_factory=asyncio.Queue)
    # Faults (see faults.py): nothing flows while half-open; an invalid session cannot be resumed.
    half_open: bool = False
    invalid: bool = False

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Queue a dispatch; the connection's writer sends queued frames in order."""
        self.seq += 1
        frame = json.dumps({"op": 0, "t": event, "s": self.seq, "d": data})
        self.sent.append((self.seq, frame))
        self.outbox.put_nowait((self.seq, frame))

    async def pump(self, ws: web.WebSocketResponse) -> None:
        """Write queued frames to ``ws`` until it closes (what is not written stays in ``sent``)."""
        while not ws.closed:
            seq, frame = await self.outbox.get()
            if seq <= self.delivered or self.half_open:
                continue  # already replayed by a RESUME, or kept in ``sent`` for the RESUME to come
            try:
                await ws.send_str(frame)
            except (ConnectionError, RuntimeError):
                return
            self.delivered = seq


def _json(data: Any, status: int = 200) -> web.Response:
    # Exactly "application/json": with "; charset=utf-8" discord.py would treat the body as text.
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def _no_content() -> web.Response:
    return web.Response(status=204)


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true")


class FakeDiscord:
    """A Discord server for tests. See the package docstring for the whole test API."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "Crazy Eights",
        recommended_shards: int = 1,
        callback_deadline: float = 3.0,
        token_lifetime: float = 15 * 60.0,
        wait_timeout: float = 5.0,
        heartbeat_interval: float = 41.25,
        advertised_gateway_url: str | None = None,
        limits: DiscordLimits | None = None,
        server_error_rate: float = 0.0,
        fault_seed: int = 0,
    ) -> None:
        self.token = token
        self.recommended_shards = recommended_shards
        self.callback_deadline = callback_deadline
        self.token_lifetime = token_lifetime
        self.wait_timeout = wait_timeout
        self.poll_interval = 0.01
        self.heartbeat_interval = heartbeat_interval
        # The gateway URL named by GET /gateway/bot and READY's resume_gateway_url (default: this fake's), to
        # check that a configured gateway wins over what Discord names.
        self.advertised_gateway_url = advertised_gateway_url
        self.snowflake = SnowflakeFactory()

        self.application_id = self.snowflake()
        self.bot_user = FakeUser(self.application_id, bot_name, bot=True)
        self.owner = FakeUser(self.snowflake(), "app-owner")
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user, self.owner.id: self.owner}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        # (author id, nonce) -> (loop time, message) of channel messages created with enforce_nonce.
        self._nonces: dict[tuple[int, str], tuple[float, FakeMessage]] = {}
        self.nonce_repeats = 0  # creates answered with the earlier message of the same nonce
        self._channel_messages: dict[int, list[FakeMessage]] = {}
        self._ephemeral: dict[int, list[FakeMessage]] = {}
        self._commands: dict[int | None, list[dict[str, Any]]] = {}
        self._command_ids: dict[tuple[int | None, str, int], int] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}

        self.sessions: dict[str, GatewaySession] = {}
        self.identifies: list[tuple[int, int]] = []  # (shard_id, shard_count) of each IDENTIFY
        self.resumes: list[tuple[int, str]] = []  # (shard_id, session_id) of each successful RESUME
        self.refused_resumes = 0  # RESUMEs answered with op 9 (invalid session)
        self.gateway_connections = 0

        self.unknown_requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self.request_count = 0
        # Requests by route ("PATCH /api/v10/webhooks/{app}/{token}/messages/{message}"): what a
        # bench divides by its operations.
        self.requests_by_route: Counter[str] = Counter()
        self._observers: list[MessageObserver] = []
        self.emojis = AppEmojis(self)  # the application's own emojis (tests/fakediscord/emojis.py)
        self.files = Uploads(self)  # files uploaded with messages (tests/fakediscord/attachments.py)
        self._waiters: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        self._websockets: set[web.WebSocketResponse] = set()
        self._runner: web.AppRunner | None = None
        self.port = 0
        # Discord's limits and faults, off unless asked for (see ratelimits.py and faults.py).
        self.limits: RateLimits | None = RateLimits(limits) if limits is not None else None
        self.server_errors = ServerErrors(rate=server_error_rate, seed=fault_seed)
        self.faults = GatewayFaults(self)
        self._transports: dict[web.WebSocketResponse, asyncio.BaseTransport] = {}

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        self._add_routes(app)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1]

    async def close(self) -> None:
        for ws in list(self._websockets):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for _, future in self._waiters:
            if not future.done():
                future.cancel()

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base_url(self) -> str:
        return f"{self.base_url}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def enable_limits(self, settings: DiscordLimits | None = None) -> RateLimits:
        """Turn Discord's rate limits on (``DiscordLimits()``: global 50/s, per-route buckets, the ban)."""
        self.limits = RateLimits(settings or DiscordLimits())
        return self.limits

    def transport_of(self, ws: web.WebSocketResponse) -> asyncio.BaseTransport | None:
        return self._transports.get(ws)

    # ------------------------------------------------------------------ world building

    def create_user(self, name: str, *, bot: bool = False) -> FakeUser:
        user = FakeUser(self.snowflake(), name, bot=bot)
        self.users[user.id] = user
        return user

    def create_guild(self, name: str = "Test Guild", *, owner: FakeUser | None = None) -> FakeGuild:
        """A guild the bot is in (its member has a role with every permission a game bot needs)."""
        guild_id = self.snowflake()
        owner = owner or self.owner
        guild = FakeGuild(guild_id, name, owner.id)
        guild.roles[guild_id] = FakeRole(guild_id, guild_id, "@everyone", DEFAULT_EVERYONE_PERMISSIONS, 0)
        bot_role = FakeRole(
            self.snowflake(), guild_id, self.bot_user.name, DEFAULT_EVERYONE_PERMISSIONS | MANAGE_MESSAGES, 1
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[owner.id] = FakeMember(owner, guild_id, [])
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, guild_id, [bot_role])
        self.guilds[guild_id] = guild
        session = self._session_for(guild.id)
        if session is not None:
            session.dispatch("GUILD_CREATE", self._guild_create(session, guild))
        return guild

    def create_channel(self, guild: FakeGuild, name: str, *, type: int = 0) -> FakeChannel:
        channel = FakeChannel(self.snowflake(), guild.id, name, len(guild.channels), type)
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        self._channel_messages[channel.id] = []
        self._dispatch_guild(guild, "CHANNEL_CREATE", channel.payload())
        return channel

    def create_role(self, guild: FakeGuild, name: str, *, permissions: int = 0) -> FakeRole:
        role = FakeRole(self.snowflake(), guild.id, name, permissions, len(guild.roles))
        guild.roles[role.id] = role
        self._dispatch_guild(guild, "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()})
        return role

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        roles: Iterable[FakeRole] = (),
        permissions: int | None = None,
        nick: str | None = None,
    ) -> FakeMember:
        """Make ``user`` a member. ``permissions`` (an int, e.g. ``discord.Permissions(...).value``) overrides
        what the roles would give; by default the member has @everyone's and its roles' permissions."""
        member = FakeMember(user, guild.id, list(roles), permissions, nick)
        guild.members[user.id] = member
        payload = {**member.payload(), "guild_id": str(guild.id)}
        self._dispatch_guild(guild, "GUILD_MEMBER_ADD", payload, intent=INTENT_GUILD_MEMBERS)
        return member

    # ------------------------------------------------------------------ reading what the bot did

    def channel_messages(self, channel: FakeChannel, *, include_deleted: bool = False) -> list[FakeMessage]:
        """The channel's public messages, oldest first (each with its edit history in ``versions``)."""
        return [m for m in self._channel_messages.get(channel.id, []) if include_deleted or not m.deleted]

    def ephemeral_messages(self, user: FakeUser, *, include_deleted: bool = False) -> list[FakeMessage]:
        """The ephemeral messages ``user`` was shown, oldest first."""
        return [m for m in self._ephemeral.get(user.id, []) if include_deleted or not m.deleted]

    def synced_commands(self, guild: FakeGuild | None = None) -> list[dict[str, Any]]:
        """The command JSON the bot last synced, globally (``guild=None``) or for ``guild``."""
        return copy.deepcopy(self._commands.get(guild.id if guild else None, []))

    def add_message_observer(self, observer: MessageObserver) -> None:
        """Call ``observer(message, recipient)`` on every message the bot creates or edits.

        ``recipient`` is None for a public message and the only user who sees it for an ephemeral one. An
        exception from the observer (e.g. an AssertionError of a privacy check) is recorded as a violation.
        """
        self._observers.append(observer)

    def take_violations(self) -> list[str]:
        """Return and forget the recorded violations (for tests that provoke one on purpose)."""
        taken, self.violations = self.violations, []
        return taken

    def take_unknown_requests(self) -> list[RecordedRequest]:
        taken, self.unknown_requests = self.unknown_requests, []
        return taken

    def assert_clean(self) -> None:
        """Fail if the bot called an endpoint the fake does not know or broke one of Discord's rules (with
        limits on: or provoked a global 429, or got banned)."""
        problems = [f"unknown endpoint: {r.method} {r.path}" for r in self.unknown_requests]
        problems += [f"violation: {v}" for v in self.violations]
        if self.limits is not None:
            try:
                self.limits.assert_no_global_429()
            except AssertionError as error:
                problems.append(str(error))
        if problems:
            raise AssertionError("fake Discord saw problems:\n  " + "\n  ".join(problems))

    async def wait_for(
        self, predicate: Callable[[], Any], *, timeout: float | None = None, what: str = "condition"
    ) -> Any:
        """Wait until ``predicate()`` is truthy and return its value. It is re-checked at once whenever the
        fake's state changes, and every ``poll_interval`` (10 ms) for conditions on the bot's own state."""
        result = predicate()
        if result:
            return result
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        entry = (predicate, future)
        self._waiters.append(entry)
        limit = self.wait_timeout if timeout is None else timeout
        deadline = loop.time() + limit
        try:
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise AssertionError(
                        f"timed out after {limit}s waiting for {what}; violations so far: {self.violations}"
                    )
                await asyncio.wait({future}, timeout=min(self.poll_interval, remaining))
                if future.done():
                    return future.result()
                result = predicate()
                if result:
                    return result
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(entry)
            if not future.done():
                future.cancel()

    def _notify(self) -> None:
        for predicate, future in list(self._waiters):
            if future.done():
                continue
            try:
                result = predicate()
            except Exception as exc:
                future.set_exception(exc)
                continue
            if result:
                future.set_result(result)

    # ------------------------------------------------------------------ acting as users

    async def invoke(
        self, user: FakeUser, channel: FakeChannel, command: str, /, **options: Any
    ) -> InteractionHandle:
        """Run slash command ``command`` ("eights new": command then subcommand group/subcommand names) as
        ``user`` in ``channel``; ``options`` are checked against the synced schema as Discord's client
        does."""
        guild = self._guild_of(channel)
        schema, chain, leaf = self._find_command(guild, command)
        self._check_command_permission(guild, user, schema, command)
        resolved: dict[str, dict[str, Any]] = {}
        built = self._build_options(guild, leaf, options, resolved, command=command)
        data = self._command_data(schema, chain, built, resolved)
        record = await self._send_interaction(APPLICATION_COMMAND, user, channel, data)
        return InteractionHandle(self, record)

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        option: str,
        /,
        partial: str = "",
        *,
        timeout: float | None = None,
        **options: Any,
    ) -> list[dict[str, Any]]:
        """Ask for autocomplete of ``option`` with ``partial`` typed, the other ``options`` already filled;
        returns the bot's choices (``[{"name": ..., "value": ...}]``)."""
        guild = self._guild_of(channel)
        schema, chain, leaf = self._find_command(guild, command)
        self._check_command_permission(guild, user, schema, command)
        spec = next((o for o in leaf.get("options", []) if o["name"] == option), None)
        if spec is None or not spec.get("autocomplete"):
            raise InvalidInteraction(f"/{command} has no autocomplete option {option!r}")
        resolved: dict[str, dict[str, Any]] = {}
        built = self._build_options(guild, leaf, options, resolved, command=command, check_required=False)
        focused_value: Any = partial
        if spec["type"] in (4, 10):
            # Discord sends what was typed so far, as a string, for numeric options too.
            focused_value = str(partial)
        built.append({"type": spec["type"], "name": option, "value": focused_value, "focused": True})
        data = self._command_data(schema, chain, built, resolved)
        record = await self._send_interaction(AUTOCOMPLETE, user, channel, data, focused_type=spec["type"])
        handle = InteractionHandle(self, record)
        await handle.callback(timeout)
        assert record.choices is not None
        return record.choices

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str | None = None,
        *,
        label: str | None = None,
    ) -> InteractionHandle:
        """Click the button with ``custom_id`` (or ``label``) on ``message`` as ``user``."""
        if custom_id is None and label is None:
            raise InvalidInteraction("click needs a custom_id or a label")
        self._check_can_use(user, message)
        button = message.component(custom_id, label=label)
        if button.get("type") != 2:
            raise InvalidInteraction(f"component {custom_id or label!r} is not a button")
        if button.get("disabled"):
            raise InvalidInteraction(f"button {button.get('label')!r} is disabled")
        if button.get("style") in (5, 6):
            raise InvalidInteraction(
                f"button {button.get('label')!r} is a link/premium button: no interaction"
            )
        data = {"custom_id": button["custom_id"], "component_type": 2}
        channel = self.channels[message.channel_id]
        record = await self._send_interaction(MESSAGE_COMPONENT, user, channel, data, message=message)
        return InteractionHandle(self, record)

    async def select(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: Iterable[Any]
    ) -> InteractionHandle:
        """Pick ``values`` in the select ``custom_id`` on ``message`` as ``user`` (option values for a string
        select; FakeUser/FakeRole/FakeChannel objects for user, role, mentionable and channel selects)."""
        self._check_can_use(user, message)
        select = message.component(custom_id)
        kind = select.get("type")
        if kind not in (3, 5, 6, 7, 8):
            raise InvalidInteraction(f"component {custom_id!r} is not a select")
        if select.get("disabled"):
            raise InvalidInteraction(f"select {custom_id!r} is disabled")
        picked = list(values)
        low, high = select.get("min_values", 1), select.get("max_values", 1)
        if not low <= len(picked) <= high:
            raise InvalidInteraction(f"select {custom_id!r} takes {low} to {high} values, not {len(picked)}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
        if kind == 3:
            allowed = [o["value"] for o in select.get("options", [])]
            unknown = [v for v in picked if v not in allowed]
            if unknown:
                raise InvalidInteraction(
                    f"select {custom_id!r} has no options {unknown}; it offers {allowed}"
                )
            data["values"] = picked
        else:
            guild = self.guilds[message.guild_id] if message.guild_id else None
            if guild is None:
                raise InvalidInteraction("entity selects need a guild message")
            resolved: dict[str, dict[str, Any]] = {}
            data["values"] = [self._resolve_entity(guild, v, resolved) for v in picked]
            data["resolved"] = resolved
        channel = self.channels[message.channel_id]
        record = await self._send_interaction(MESSAGE_COMPONENT, user, channel, data, message=message)
        return InteractionHandle(self, record)

    async def craft_component(
        self,
        user: FakeUser,
        channel: FakeChannel,
        message: FakeMessage,
        custom_id: str,
        *,
        values: list[str] | None = None,
    ) -> InteractionHandle:
        """A component interaction as a tampered client could send it: the component ``custom_id`` (a
        button, or a string select picking ``values``) is added to ``message`` as the interaction carries
        it (the stored message is unchanged), whatever message it is and whichever channel it is in; ``user``
        need only be a member of ``channel``'s server. For testing that the bot trusts nothing in it."""
        component: dict[str, Any] = {"type": 2, "style": 2, "label": "crafted", "custom_id": custom_id}
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
        if values is not None:
            options = [{"label": value, "value": value} for value in values]
            component = {"type": 3, "custom_id": custom_id, "options": options}
            data = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
        components = [*message.components, {"type": 1, "components": [component]}]
        record = await self._send_interaction(
            MESSAGE_COMPONENT, user, channel, data, message=message, message_components=components
        )
        return InteractionHandle(self, record)

    async def submit_modal(
        self, user: FakeUser, opened_by: InteractionHandle, **values: str
    ) -> InteractionHandle:
        """Fill in and submit the modal the bot opened in answer to ``opened_by``: ``values`` by text input
        custom_id (inputs left out are sent empty; required ones must be given)."""
        modal = opened_by.record.modal
        if modal is None:
            raise InvalidInteraction(f"interaction {opened_by.id} did not open a modal")
        if user is not opened_by.record.user:
            raise InvalidInteraction("only the user who opened a modal can submit it")
        rows = []
        inputs = []
        for item in modal.get("components", []):
            children = item.get("components") or ([item["component"]] if item.get("component") else [])
            for child in children:
                if child.get("type") == 4:
                    inputs.append(child)
                    value = values.pop(child["custom_id"], "")
                    if child.get("required", True) and not value:
                        raise InvalidInteraction(f"modal input {child['custom_id']!r} is required")
                    rows.append(
                        {
                            "type": 1,
                            "components": [{"type": 4, "custom_id": child["custom_id"], "value": value}],
                        }
                    )
        if values:
            raise InvalidInteraction(
                f"modal has no inputs {sorted(values)}; it has {[i['custom_id'] for i in inputs]}"
            )
        data = {"custom_id": modal["custom_id"], "components": rows}
        record = await self._send_interaction(
            MODAL_SUBMIT, user, opened_by.record.channel, data, message=opened_by.record.message
        )
        return InteractionHandle(self, record)

    async def post_user_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """A user writes an ordinary message in a channel (dispatched as MESSAGE_CREATE)."""
        guild = self._guild_of(channel)
        if user.id not in guild.members:
            raise InvalidInteraction(f"{user.name} is not a member of {guild.name}")
        return self._store_message(
            FakeMessage(self.snowflake(), channel.id, guild.id, user, content=content), recipient=None
        )

    async def drop_gateway(
        self, shard_id: int | None = None, *, code: int = 4000, invalidate: bool = False, kind: str = "close"
    ) -> int:
        """Drop the bot's gateway connection(s) (of ``shard_id``, or all) so that the client resumes.

        ``kind``: "close" (close frame with ``code``), "abrupt" (TCP cut), "half_open" (heartbeats no longer
        acknowledged, nothing written), "reconnect" (op 7), "invalid_session" (op 9, the client identifies
        again); see faults.py. With ``invalidate`` (kind "close") the session is forgotten first: the RESUME
        is refused (op 9) and the client IDENTIFYs again. Returns how many connections were hit."""
        if not invalidate:
            return await self.faults.inject(kind, shard_id, code=code)
        closed = 0
        for session in list(self.sessions.values()):
            if shard_id is not None and session.shard_id != shard_id:
                continue
            del self.sessions[session.session_id]
            ws, session.ws = session.ws, None
            if ws is not None and not ws.closed:
                await ws.close(code=code)
                closed += 1
        return closed

    # ------------------------------------------------------------------ interactions: building

    def _guild_of(self, channel: FakeChannel) -> FakeGuild:
        guild = self.guilds.get(channel.guild_id)
        if guild is None:
            raise InvalidInteraction(f"channel {channel.name} has no guild")
        return guild

    def _find_command(
        self, guild: FakeGuild, path: str
    ) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
        parts = path.strip().lstrip("/").split()
        if not parts:
            raise InvalidInteraction("empty command")
        candidates = [
            c for c in self._commands.get(guild.id, []) + self._commands.get(None, []) if c["type"] == 1
        ]
        schema = next((c for c in candidates if c["name"] == parts[0]), None)
        if schema is None:
            names = sorted(c["name"] for c in candidates)
            raise InvalidInteraction(f"no slash command {parts[0]!r} synced for this guild; synced: {names}")
        chain: list[dict[str, Any]] = []
        node = schema
        for part in parts[1:]:
            subs = [o for o in node.get("options", []) if o["type"] in (1, 2)]
            found = next((o for o in subs if o["name"] == part), None)
            if found is None:
                raise InvalidInteraction(
                    f"/{path}: no subcommand {part!r}; there are {[o['name'] for o in subs]}"
                )
            chain.append(found)
            node = found
        if any(o["type"] in (1, 2) for o in node.get("options", [])):
            subs = [o["name"] for o in node["options"]]
            raise InvalidInteraction(f"/{path} is a group: name one of its subcommands {subs}")
        return schema, chain, node

    def _check_command_permission(
        self, guild: FakeGuild, user: FakeUser, schema: dict[str, Any], path: str
    ) -> None:
        if user.id not in guild.members:
            raise InvalidInteraction(f"{user.name} is not a member of {guild.name}")
        required = schema.get("default_member_permissions")
        if required is not None:
            have = guild.permissions_of(user.id)
            # "0" hides the command from everyone but administrators.
            allowed = bool(have & ADMINISTRATOR) if int(required) == 0 else not int(required) & ~have
            if not allowed:
                raise InvalidInteraction(
                    f"{user.name} lacks the permissions /{path} requires (hidden for them)"
                )

    def _build_options(
        self,
        guild: FakeGuild,
        leaf: dict[str, Any],
        given: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        *,
        command: str,
        check_required: bool = True,
    ) -> list[dict[str, Any]]:
        specs = {o["name"]: o for o in leaf.get("options", [])}
        built = []
        for name, value in given.items():
            spec = specs.get(name)
            if spec is None:
                raise InvalidInteraction(f"/{command} has no option {name!r}; it has {sorted(specs)}")
            built.append(
                {
                    "type": spec["type"],
                    "name": name,
                    "value": self._option_value(guild, spec, value, resolved),
                }
            )
        if check_required:
            missing = [n for n, s in specs.items() if s.get("required") and n not in given]
            if missing:
                raise InvalidInteraction(f"/{command} needs options {missing}")
        return built

    def _option_value(
        self, guild: FakeGuild, spec: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]]
    ) -> Any:
        kind, name = spec["type"], spec["name"]
        wrong = InvalidInteraction(f"option {name!r} (type {kind}) cannot take {value!r}")
        if kind == 3:
            if not isinstance(value, str):
                raise wrong
            if not spec.get("min_length", 0) <= len(value) <= spec.get("max_length", 6000):
                raise InvalidInteraction(f"option {name!r}: length of {value!r} out of range")
        elif kind in (4, 10):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or (kind == 4 and isinstance(value, float))
            ):
                raise wrong
            if "min_value" in spec and value < spec["min_value"]:
                raise InvalidInteraction(f"option {name!r}: {value} is below {spec['min_value']}")
            if "max_value" in spec and value > spec["max_value"]:
                raise InvalidInteraction(f"option {name!r}: {value} is above {spec['max_value']}")
        elif kind == 5:
            if not isinstance(value, bool):
                raise wrong
        elif kind in (6, 7, 8, 9):
            expected = {
                6: (FakeUser, FakeMember),
                7: (FakeChannel,),
                8: (FakeRole,),
                9: (FakeUser, FakeMember, FakeRole),
            }
            if not isinstance(value, expected[kind]):
                raise wrong
            if isinstance(value, FakeChannel) and value.type not in spec.get("channel_types", [value.type]):
                raise InvalidInteraction(f"option {name!r}: channel type {value.type} not allowed")
            return self._resolve_entity(guild, value, resolved)
        else:
            raise InvalidInteraction(f"option {name!r}: type {kind} is not supported by the fake")
        choices = spec.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise InvalidInteraction(
                f"option {name!r}: {value!r} is not one of {[c['value'] for c in choices]}"
            )
        return value

    def _resolve_entity(self, guild: FakeGuild, value: Any, resolved: dict[str, dict[str, Any]]) -> str:
        if isinstance(value, FakeMember):
            value = value.user
        if isinstance(value, FakeUser):
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            member = guild.members.get(value.id)
            if member is not None:
                data = member.payload()
                del data["user"]
                data["permissions"] = str(guild.permissions_of(value.id))
                resolved.setdefault("members", {})[str(value.id)] = data
            return str(value.id)
        if isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if isinstance(value, FakeChannel):
            data = value.payload()
            data["permissions"] = str(guild.permissions_of(self.bot_user.id))
            resolved.setdefault("channels", {})[str(value.id)] = data
            return str(value.id)
        raise InvalidInteraction(f"cannot resolve {value!r}")

    @staticmethod
    def _command_data(
        schema: dict[str, Any],
        chain: list[dict[str, Any]],
        built: list[dict[str, Any]],
        resolved: dict[str, dict[str, Any]],
    ) -> dict[str, Any]:
        options = built
        for sub in reversed(chain):
            options = [{"type": sub["type"], "name": sub["name"], "options": options}]
        data: dict[str, Any] = {"id": schema["id"], "name": schema["name"], "type": 1, "options": options}
        if schema.get("guild_id"):
            data["guild_id"] = schema["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _check_can_use(self, user: FakeUser, message: FakeMessage) -> None:
        if message.deleted:
            raise InvalidInteraction(f"message {message.id} was deleted")
        if message.recipient is not None and message.recipient is not user:
            raise InvalidInteraction(
                f"message {message.id} is ephemeral to {message.recipient.name}, not {user.name}"
            )
        if message.loading:
            raise InvalidInteraction(f"message {message.id} is still loading")
        guild = self.guilds.get(message.guild_id or 0)
        if guild is not None and user.id not in guild.members:
            raise InvalidInteraction(f"{user.name} is not a member of {guild.name}")

    async def _send_interaction(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
        focused_type: int | None = None,
        message_components: list[dict[str, Any]] | None = None,
    ) -> InteractionRecord:
        guild = self._guild_of(channel)
        member = guild.members.get(user.id)
        if member is None:
            raise InvalidInteraction(f"{user.name} is not a member of {guild.name}")
        session = self._session_for(guild.id)
        if session is None:
            raise AssertionError("no bot is connected to the fake's gateway (for this guild's shard)")
        interaction_id = self.snowflake()
        token = f"itk.{interaction_id}.{secrets.token_urlsafe(16)}"
        record = InteractionRecord(
            id=interaction_id,
            token=token,
            type=kind,
            user=user,
            guild=guild,
            channel=channel,
            data=data,
            created_at=asyncio.get_running_loop().time(),
            message=message,
            focused_type=focused_type,
        )
        self.interactions[interaction_id] = record
        self._by_token[token] = record
        member_data = member.payload()
        member_data["permissions"] = str(guild.permissions_of(user.id))
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "member": member_data,
            "token": token,
            "version": 1,
            "app_permissions": str(guild.permissions_of(self.bot_user.id)),
            "locale": user.locale,
            "guild_locale": guild.locale,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild.id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if message is not None:
            payload["message"] = message.payload()
            if message_components is not None:  # as a tampered client sent it (``craft_component``)
                payload["message"]["components"] = message_components
        session.dispatch("INTERACTION_CREATE", payload)
        return record

    # ------------------------------------------------------------------ messages

    def _store_message(self, message: FakeMessage, *, recipient: FakeUser | None) -> FakeMessage:
        message.recipient = recipient
        self.messages[message.id] = message
        if recipient is None:
            self._channel_messages.setdefault(message.channel_id, []).append(message)
            guild = self.guilds.get(message.guild_id or 0)
            if guild is not None:
                self._dispatch_guild(guild, "MESSAGE_CREATE", message.payload(), intent=INTENT_GUILD_MESSAGES)
        else:
            self._ephemeral.setdefault(recipient.id, []).append(message)
        self._observe(message)
        self._notify()
        return message

    def _new_bot_message(
        self,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        attachments: list[dict[str, Any]],
        flags: int,
        kind: int,
        record: InteractionRecord | None,
    ) -> FakeMessage:
        message = FakeMessage(
            id=self.snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            content=data.get("content") or "",
            embeds=copy.deepcopy(data.get("embeds") or []),
            components=copy.deepcopy(data.get("components") or []),
            attachments=attachments,
            flags=flags,
            type=kind,
        )
        if record is not None:
            message.application_id = self.application_id
            message.interaction_metadata = {
                "id": str(record.id),
                "type": record.type,
                "user": record.user.payload(),
                "authorizing_integration_owners": {"0": str(record.guild.id)},
            }
        return message

    def _edit_message(
        self, message: FakeMessage, data: dict[str, Any], attachments: list[dict[str, Any]]
    ) -> None:
        """Apply an edit (only the fields present change); a loading placeholder is not kept as a version."""
        content: str = (data.get("content") or "") if "content" in data else message.content
        embeds: list[dict[str, Any]] = (data.get("embeds") or []) if "embeds" in data else message.embeds
        components: list[dict[str, Any]] = (
            (data.get("components") or []) if "components" in data else message.components
        )
        kept = message.attachments
        if "attachments" in data:
            # discord.py lists the attachments to keep by id; new uploads come with the request.
            keep_ids = {str(a.get("id")) for a in data.get("attachments") or []}
            kept = [a for a in message.attachments if a["id"] in keep_ids] + attachments
        if not (content or embeds or components or kept):
            raise _Reject(400, 50006, f"edit would leave message {message.id} empty")
        if message.loading:
            message.flags &= ~FLAG_LOADING
        else:
            message.history.append(message.snapshot())
            message.edited_at = iso_now()
        message.content = content
        message.embeds = copy.deepcopy(embeds)
        message.components = copy.deepcopy(components)
        message.attachments = kept
        self._observe(message)
        guild = self.guilds.get(message.guild_id or 0)
        if message.recipient is None and guild is not None:
            self._dispatch_guild(guild, "MESSAGE_UPDATE", message.payload(), intent=INTENT_GUILD_MESSAGES)
        self._notify()

    def _delete_message(self, message: FakeMessage) -> None:
        message.deleted = True
        guild = self.guilds.get(message.guild_id or 0)
        if message.recipient is None and guild is not None:
            payload = {
                "id": str(message.id),
                "channel_id": str(message.channel_id),
                "guild_id": str(guild.id),
            }
            self._dispatch_guild(guild, "MESSAGE_DELETE", payload, intent=INTENT_GUILD_MESSAGES)
        self._notify()

    def _observe(self, message: FakeMessage) -> None:
        for observer in self._observers:
            try:
                observer(message, message.recipient)
            except Exception as exc:
                self.violations.append(f"message observer rejected message {message.id}: {exc}")

    # ------------------------------------------------------------------ REST plumbing

    def _add_routes(self, app: web.Application) -> None:
        p = API_PREFIX
        r = app.router
        r.add_get("/gateway", self._gateway)
        r.add_get(p + "/users/@me", self._get_me)
        r.add_get(p + "/oauth2/applications/@me", self._get_application)
        r.add_get(p + "/gateway", self._get_gateway)
        r.add_get(p + "/gateway/bot", self._get_gateway_bot)
        r.add_get(p + "/applications/{app}/commands", self._get_commands)
        r.add_put(p + "/applications/{app}/commands", self._put_commands)
        r.add_get(p + "/applications/{app}/guilds/{guild}/commands", self._get_commands)
        r.add_put(p + "/applications/{app}/guilds/{guild}/commands", self._put_commands)
        r.add_post(p + "/interactions/{interaction}/{token}/callback", self._callback)
        r.add_post(p + "/webhooks/{app}/{token}", self._followup_create)
        r.add_get(p + "/webhooks/{app}/{token}/messages/{message}", self._webhook_message_get)
        r.add_patch(p + "/webhooks/{app}/{token}/messages/{message}", self._webhook_message_edit)
        r.add_delete(p + "/webhooks/{app}/{token}/messages/{message}", self._webhook_message_delete)
        r.add_get(p + "/channels/{channel}", self._channel_get)
        r.add_get(p + "/channels/{channel}/messages", self._channel_messages_list)
        r.add_post(p + "/channels/{channel}/messages", self._channel_message_create)
        r.add_get(p + "/channels/{channel}/messages/{message}", self._channel_message_get)
        r.add_patch(p + "/channels/{channel}/messages/{message}", self._channel_message_edit)
        r.add_delete(p + "/channels/{channel}/messages/{message}", self._channel_message_delete)
        r.add_get(p + "/guilds/{guild}", self._guild_get)
        r.add_get(p + "/guilds/{guild}/members/{user}", self._member_get)
        self.emojis.add_routes(r, p)
        self.files.add_routes(r)
        r.add_route("*", "/{tail:.*}", self._unknown)
        app.middlewares.append(self._middleware)

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Any]
    ) -> web.StreamResponse:
        self.request_count += 1
        resource = request.match_info.route.resource
        self.requests_by_route[f"{request.method} {resource.canonical if resource else request.path}"] += 1
        if not request.path.startswith(API_PREFIX):
            return await self._handle(request, handler)  # the gateway: no REST limits
        ticket: Ticket | None = None
        if self.limits is not None:
            admitted = self.limits.admit(request, self.application_id)
            if isinstance(admitted, web.Response):
                return admitted
            ticket = admitted
        response = self.server_errors.roll(request.path) or await self._handle(request, handler)
        if ticket is not None and self.limits is not None:
            self.limits.answered(ticket, response)
        response.headers.setdefault("Via", VIA)
        return response

    async def _handle(
        self, request: web.Request, handler: Callable[[web.Request], Any]
    ) -> web.StreamResponse:
        try:
            response: web.StreamResponse = await handler(request)
            return response
        except FormError as reject:
            if reject.violation:
                self.violations.append(f"{request.method} {request.path}: {reject.message}")
                record = self._record_of(request)
                if record is not None:
                    record.errors.append(reject.message)
                self._notify()
            return _json(reject.body(), reject.status)
        except web.HTTPException:
            raise
        except Exception as exc:
            # A bug in the fake: answer 400, not 500, so discord.py does not retry for seconds.
            self.violations.append(f"fake Discord failed on {request.method} {request.path}: {exc!r}")
            self._notify()
            return _json({"code": 0, "message": f"fake Discord error: {exc!r}"}, 400)

    def _record_of(self, request: web.Request) -> InteractionRecord | None:
        token = request.match_info.get("token")
        return self._by_token.get(token) if token else None

    async def _unknown(self, request: web.Request) -> web.Response:
        body = await request.text()
        self.unknown_requests.append(RecordedRequest(request.method, request.path_qs, body[:2000]))
        self._notify()
        return _json(
            {"code": 0, "message": f"404: Not Found (fake Discord does not know {request.path})"}, 404
        )

    def _require_bot_auth(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise _Reject(401, 0, "401: Unauthorized", violation=False)

    async def _read_body(
        self, request: web.Request, channel: FakeChannel | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The JSON payload (plain or multipart ``payload_json``) and the attachments of uploaded files.
        ``channel``: a channel route, where uploads need the bot's Attach Files permission."""
        content_type = request.headers.get("Content-Type", "")
        attachments: list[dict[str, Any]] = []
        if content_type.startswith("multipart/"):
            return await self.files.read_multipart(request, channel)
        text = await request.text()
        if not text:
            return {}, attachments
        if content_type != "application/json":
            raise _Reject(400, 50035, f"body sent with Content-Type {content_type!r}, not application/json")
        data = json.loads(text)
        if not isinstance(data, dict):
            raise _Reject(400, 50035, "JSON body must be an object")
        return data, attachments

    # ------------------------------------------------------------------ REST: login and gateway discovery

    async def _get_me(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        data = self.bot_user.payload()
        data.update({"verified": True, "mfa_enabled": False, "flags": 0, "locale": "en-US"})
        return _json(data)

    async def _get_application(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return _json(
            {
                "id": str(self.application_id),
                "name": self.bot_user.name,
                "icon": None,
                "description": "Crazy Eights (fake Discord)",
                "summary": "",
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "owner": self.owner.payload(),
                "team": None,
                "flags": 0,
                "bot": self.bot_user.payload(),
            }
        )

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return _json({"url": self.advertised_gateway_url or self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        limits_ = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return _json(
            {
                "url": self.advertised_gateway_url or self.gateway_url,
                "shards": self.recommended_shards,
                "session_start_limit": limits_,
            }
        )

    # ------------------------------------------------------------------ REST: application commands

    def _command_scope(self, request: web.Request) -> int | None:
        self._require_bot_auth(request)
        if request.match_info["app"] != str(self.application_id):
            raise _Reject(403, 50001, "Missing Access: not this bot's application")
        guild = request.match_info.get("guild")
        if guild is None:
            return None
        if int(guild) not in self.guilds:
            raise _Reject(403, 50001, f"Missing Access: the bot is not in guild {guild}")
        return int(guild)

    async def _get_commands(self, request: web.Request) -> web.Response:
        return _json(self._commands.get(self._command_scope(request), []))

    async def _put_commands(self, request: web.Request) -> web.Response:
        scope = self._command_scope(request)
        body = json.loads(await request.text() or "[]")
        if not isinstance(body, list) or len(body) > 100:
            raise _Reject(400, 50035, "bulk overwrite takes a list of at most 100 commands")
        errors = [e for command in body for e in limits.check_command_schema(command)]
        if errors:
            raise _Reject(400, 50035, "Invalid Form Body: " + "; ".join(errors))
        stored = []
        for command in body:
            kind = command.get("type", 1)
            key = (scope, command["name"], kind)
            command_id = self._command_ids.setdefault(key, self.snowflake())
            entry = {
                "default_member_permissions": None,
                "contexts": None,
                "integration_types": [0],
                "nsfw": False,
                "options": [],
                **copy.deepcopy(command),
                "id": str(command_id),
                "application_id": str(self.application_id),
                "version": str(self.snowflake()),
                "type": kind,
            }
            if entry["default_member_permissions"] is not None:
                # Discord answers permission bit sets as strings, whatever form they were sent in.
                entry["default_member_permissions"] = str(entry["default_member_permissions"])
            if scope is not None:
                entry["guild_id"] = str(scope)
            stored.append(entry)
        self._commands[scope] = stored
        self._notify()
        return _json(stored)

    # ------------------------------------------------------------------ REST: interaction callback

    async def _callback(self, request: web.Request) -> web.Response:
        record = self._by_token.get(request.match_info["token"])
        if record is None or str(record.id) != request.match_info["interaction"]:
            raise _Reject(404, 10062, "Unknown interaction (no interaction with this id and token)")
        body, attachments = await self._read_body(request)
        now = asyncio.get_running_loop().time()
        if record.callback_type is not None:
            raise _Reject(400, 40060, f"Interaction has already been acknowledged (interaction {record.id})")
        elapsed = now - record.created_at
        if elapsed > self.callback_deadline:
            raise _Reject(
                404,
                10062,
                f"Unknown interaction: first callback {elapsed:.2f}s after the interaction "
                f"(Discord allows {self.callback_deadline:g}s)",
            )
        kind = body.get("type")
        data = body.get("data") or {}
        if kind not in CALLBACKS_ALLOWED.get(record.type, set()):
            raise _Reject(
                400, 50035, f"callback type {kind} is not allowed for interaction type {record.type}"
            )
        message: FakeMessage | None = None
        if kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE):
            flags = int(data.get("flags") or 0)
            if kind == CHANNEL_MESSAGE:
                self._check_message(data, creating=True)
            else:
                flags = (flags & FLAG_EPHEMERAL) | FLAG_LOADING
            message_type = MESSAGE_CHAT_INPUT_COMMAND if record.type == APPLICATION_COMMAND else MESSAGE_REPLY
            message = self._new_bot_message(
                record.channel, data, attachments=attachments, flags=flags, kind=message_type, record=record
            )
            record.original = message
        elif kind in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE):
            if record.message is None:
                raise _Reject(
                    400, 50035, f"callback type {kind} needs a message to update (modal not from one)"
                )
            message = record.original = record.message
            if message.deleted:
                raise _Reject(404, 10008, f"Unknown Message: message {message.id} was deleted")
        elif kind == AUTOCOMPLETE_RESULT:
            errors = limits.check_autocomplete_choices(data.get("choices"), record.focused_type or 3)
            if errors:
                raise _Reject(400, 50035, "Invalid Form Body: " + "; ".join(errors))
            record.choices = data["choices"]
        elif kind == MODAL:
            errors = limits.check_modal(data)
            if errors:
                raise _Reject(400, 50035, "Invalid Form Body: " + "; ".join(errors))
            record.modal = data
        if kind == UPDATE_MESSAGE:
            assert message is not None
            self._check_message(data, creating=False)
            self._edit_message(message, data, attachments)
        record.callback_type = kind
        record.callback_data = body
        record.callback_at = now
        if kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE):
            assert message is not None
            self._store_message(message, recipient=record.user if message.ephemeral else None)
        self._notify()
        if not _truthy(request.query.get("with_response")):
            return _no_content()
        response: dict[str, Any] = {
            "interaction": {
                "id": str(record.id),
                "type": record.type,
                "activity_instance_id": None,
                "response_message_id": str(message.id) if message else None,
                "response_message_loading": kind == DEFERRED_CHANNEL_MESSAGE,
                "response_message_ephemeral": bool(message and message.ephemeral),
            }
        }
        if kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, UPDATE_MESSAGE) and message is not None:
            response["resource"] = {"type": kind, "message": message.payload()}
        return _json(response)

    def _check_message(self, data: dict[str, Any], *, creating: bool) -> None:
        errors = limits.check_message(data, creating=creating)
        if errors:
            code = 50006 if errors == ["cannot send an empty message"] else 50035
            raise _Reject(400, code, "Invalid Form Body: " + "; ".join(errors))
        for error in self.emojis.check_components(data.get("components")):
            raise error

    # ------------------------------------------------------------------ REST: interaction webhooks

    def _webhook_record(self, request: web.Request) -> InteractionRecord:
        if request.match_info["app"] != str(self.application_id):
            raise _Reject(404, 10015, "Unknown Webhook: the webhook id must be the application id")
        record = self._by_token.get(request.match_info["token"])
        if record is None:
            raise _Reject(404, 10015, "Unknown Webhook: no interaction has this token")
        if asyncio.get_running_loop().time() - record.created_at > self.token_lifetime:
            raise _Reject(
                401, 50027, f"Invalid Webhook Token: interaction token older than {self.token_lifetime:g}s"
            )
        if record.type == AUTOCOMPLETE:
            raise _Reject(400, 50035, "autocomplete interactions have no messages or follow-ups")
        return record

    def _webhook_target(self, record: InteractionRecord, message_ref: str) -> FakeMessage:
        if message_ref == "@original":
            if record.callback_type is None:
                raise _Reject(
                    404, 10015, f"Unknown Webhook: original response before the callback ({record.id})"
                )
            if record.original is None:
                raise _Reject(
                    404, 10008, f"Unknown Message: callback type {record.callback_type} has no message"
                )
            message = record.original
        else:
            found = next((m for m in record.followups if str(m.id) == message_ref), None)
            if found is None:
                raise _Reject(
                    404, 10008, f"Unknown Message: {message_ref} is not a follow-up of this interaction"
                )
            message = found
        if message.deleted:
            raise _Reject(404, 10008, f"Unknown Message: message {message.id} was deleted")
        return message

    async def _followup_create(self, request: web.Request) -> web.Response:
        record = self._webhook_record(request)
        body, attachments = await self._read_body(request)
        if record.callback_type is None:
            raise _Reject(
                404, 10015, f"Unknown Webhook: follow-up before the interaction callback ({record.id})"
            )
        self._check_message(body, creating=True)
        original = record.original
        if record.callback_type == DEFERRED_CHANNEL_MESSAGE and original is not None and original.loading:
            # Discord: the first follow-up after a deferred response replaces the "thinking…" message, and it
            # stays as public or ephemeral as the defer was, whatever the follow-up's own flags say.
            self._edit_message(original, body, attachments)
            message = original
        else:
            flags = int(body.get("flags") or 0) & FLAG_EPHEMERAL
            message = self._new_bot_message(
                record.channel,
                body,
                attachments=attachments,
                flags=flags,
                kind=MESSAGE_DEFAULT,
                record=record,
            )
            self._store_message(message, recipient=record.user if message.ephemeral else None)
        record.followups.append(message)
        self._notify()
        if _truthy(request.query.get("wait")):
            return _json(message.payload())
        return _no_content()

    async def _webhook_message_get(self, request: web.Request) -> web.Response:
        record = self._webhook_record(request)
        return _json(self._webhook_target(record, request.match_info["message"]).payload())

    async def _webhook_message_edit(self, request: web.Request) -> web.Response:
        record = self._webhook_record(request)
        message = self._webhook_target(record, request.match_info["message"])
        body, attachments = await self._read_body(request)
        self._check_message(body, creating=False)
        self._edit_message(message, body, attachments)
        if request.match_info["message"] == "@original":
            record.original_edits += 1
            self._notify()
        return _json(message.payload())

    async def _webhook_message_delete(self, request: web.Request) -> web.Response:
        record = self._webhook_record(request)
        self._delete_message(self._webhook_target(record, request.match_info["message"]))
        return _no_content()

    # ------------------------------------------------------------------ REST: channels, guilds

    def _channel(self, request: web.Request) -> FakeChannel:
        self._require_bot_auth(request)
        channel = self.channels.get(int(request.match_info["channel"]))
        if channel is None:
            raise _Reject(404, 10003, f"Unknown Channel {request.match_info['channel']}")
        return channel

    def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage:
        message = self.messages.get(int(request.match_info["message"]))
        if (
            message is None
            or message.channel_id != channel.id
            or message.deleted
            or message.recipient is not None
        ):
            # Ephemeral messages cannot be reached through the channel, as on Discord.
            raise _Reject(404, 10008, f"Unknown Message {request.match_info['message']}", violation=False)
        return message

    async def _channel_get(self, request: web.Request) -> web.Response:
        return _json(self._channel(request).payload())

    async def _channel_messages_list(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        limit = min(int(request.query.get("limit", 50)), 100)
        before = int(request.query.get("before", 0)) or None
        after = int(request.query.get("after", 0)) or None
        found = [
            m
            for m in reversed(self.channel_messages(channel))
            if (before is None or m.id < before) and (after is None or m.id > after)
        ]
        return _json([m.payload() for m in found[:limit]])

    async def _channel_message_create(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, attachments = await self._read_body(request, channel)
        self._check_message(body, creating=True)
        nonce = body.get("nonce")
        key = (self.bot_user.id, str(nonce)) if nonce is not None and body.get("enforce_nonce") else None
        now = asyncio.get_running_loop().time()
        if key is not None and key in self._nonces:
            at, earlier = self._nonces[key]
            if now - at < NONCE_WINDOW:
                self.nonce_repeats += 1
                return _json(earlier.payload())
        kind = MESSAGE_REPLY if body.get("message_reference") else MESSAGE_DEFAULT
        message = self._new_bot_message(
            channel, body, attachments=attachments, flags=0, kind=kind, record=None
        )
        self._store_message(message, recipient=None)
        if key is not None:
            self._nonces[key] = (now, message)
        return _json(message.payload())

    async def _channel_message_get(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return _json(self._channel_message(request, channel).payload())

    async def _channel_message_edit(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self.messages.get(int(request.match_info["message"]))
        if (
            message is None
            or message.channel_id != channel.id
            or message.deleted
            or message.recipient is not None
        ):
            raise _Reject(404, 10008, f"Unknown Message {request.match_info['message']} (edit)")
        if message.author is not self.bot_user:
            raise _Reject(403, 50005, f"Cannot edit a message authored by another user ({message.id})")
        body, attachments = await self._read_body(request, channel)
        self._check_message(body, creating=False)
        self._edit_message(message, body, attachments)
        return _json(message.payload())

    async def _channel_message_delete(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self.messages.get(int(request.match_info["message"]))
        if (
            message is None
            or message.channel_id != channel.id
            or message.deleted
            or message.recipient is not None
        ):
            raise _Reject(404, 10008, f"Unknown Message {request.match_info['message']} (delete)")
        guild = self.guilds[channel.guild_id]
        if (
            message.author is not self.bot_user
            and not guild.permissions_of(self.bot_user.id) & MANAGE_MESSAGES
        ):
            raise _Reject(403, 50013, "Missing Permissions to delete another user's message")
        self._delete_message(message)
        return _no_content()

    async def _guild_get(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self.guilds.get(int(request.match_info["guild"]))
        if guild is None:
            raise _Reject(404, 10004, f"Unknown Guild {request.match_info['guild']}", violation=False)
        data = guild.payload()
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            data.pop(key, None)
        return _json(data)

    async def _member_get(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self.guilds.get(int(request.match_info["guild"]))
        member = guild.members.get(int(request.match_info["user"])) if guild else None
        if member is None:
            raise _Reject(404, 10007, "Unknown Member", violation=False)
        return _json(member.payload())

    # ------------------------------------------------------------------ gateway

    def _session_for(self, guild_id: int) -> GatewaySession | None:
        """The newest session whose shard holds the guild (Discord's (guild_id >> 22) % shard_count)."""
        for session in reversed(list(self.sessions.values())):
            if (guild_id >> 22) % session.shard_count == session.shard_id:
                return session
        return None

    def _dispatch_guild(self, guild: FakeGuild, event: str, data: dict[str, Any], *, intent: int = 0) -> None:
        session = self._session_for(guild.id)
        if session is not None and (not intent or session.intents & intent):
            session.dispatch(event, data)

    def _guild_create(self, session: GatewaySession, guild: FakeGuild) -> dict[str, Any]:
        # As on Discord: without the presences intent only the bot's own member comes with GUILD_CREATE
        # (a bot with the members intent asks for the rest with a member chunk request).
        everyone = session.intents & INTENT_GUILD_PRESENCES
        return guild.payload(member_ids=None if everyone else {self.bot_user.id})

    def _guilds_for_shard(self, shard_id: int, shard_count: int) -> list[FakeGuild]:
        return [g for g in self.guilds.values() if (g.id >> 22) % shard_count == shard_id]

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        self._websockets.add(ws)
        if request.transport is not None:
            self._transports[ws] = request.transport
        self.gateway_connections += 1
        session: GatewaySession | None = None
        writer: asyncio.Task[None] | None = None
        try:
            if request.query.get("v") != "10" or request.query.get("encoding") != "json":
                self.violations.append(
                    f"gateway connected with query {request.query_string!r} (want v=10 json)"
                )
            hello = {"op": 10, "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)}}
            await ws.send_str(json.dumps(hello))
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op, data = frame.get("op"), frame.get("d")
                if op == 1:  # heartbeat (a half-open connection no longer answers)
                    if session is None or not session.half_open:
                        await ws.send_str(json.dumps({"op": 11}))
                elif op in (2, 6) and session is None:  # identify, resume
                    session = await (self._identify(ws, data) if op == 2 else self._resume(ws, data))
                    if session is None:
                        break
                    writer = asyncio.create_task(session.pump(ws))
                elif op == 8 and session is not None:  # request guild members
                    self._send_member_chunks(session, data)
                elif op in (3, 4):  # presence / voice state: accepted, not modelled
                    pass
                else:
                    self.violations.append(f"gateway: unexpected opcode {op}")
        finally:
            self._websockets.discard(ws)
            self._transports.pop(ws, None)
            if writer is not None:
                writer.cancel()
            if session is not None and session.ws is ws:
                session.ws = None
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> GatewaySession | None:
        if data.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        shard_id, shard_count = data.get("shard") or [0, 1]
        if not 0 <= shard_id < shard_count:
            await ws.close(code=4010, message=b"Invalid shard.")
            return None
        self.identifies.append((shard_id, shard_count))
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            shard_id=shard_id,
            shard_count=shard_count,
            intents=int(data.get("intents") or 0),
            ws=ws,
        )
        # A new IDENTIFY for a shard replaces its previous session.
        for old_id, old in list(self.sessions.items()):
            if old.shard_id == shard_id:
                del self.sessions[old_id]
        self.sessions[session.session_id] = session
        guilds = self._guilds_for_shard(shard_id, shard_count)
        ready = {
            "v": 10,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.advertised_gateway_url or self.gateway_url,
            "shard": [shard_id, shard_count],
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
        }
        session.dispatch("READY", ready)
        for guild in guilds:
            session.dispatch("GUILD_CREATE", self._guild_create(session, guild))
        self.faults.served(session)
        self._notify()
        return session

    async def _resume(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> GatewaySession | None:
        session = self.sessions.get(data.get("session_id", ""))
        if data.get("token") != self.token or session is None or session.invalid:
            self.refused_resumes += 1
            await ws.send_str(json.dumps({"op": 9, "d": False}))  # invalid session, not resumable
            return None
        seq = int(data.get("seq") or 0)
        session.ws = ws
        session.half_open = False
        self.resumes.append((session.shard_id, session.session_id))
        for number, frame in list(session.sent):
            if number > seq:
                await ws.send_str(frame)
        session.delivered = session.seq
        session.dispatch("RESUMED", {})
        self.faults.served(session)
        self._notify()
        return session

    def _send_member_chunks(self, session: GatewaySession, data: dict[str, Any]) -> None:
        guild = self.guilds.get(int(data.get("guild_id") or 0))
        if guild is None:
            return
        wanted = {int(u) for u in data.get("user_ids") or []}
        members = [m.payload() for m in guild.members.values() if not wanted or m.user.id in wanted]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)
