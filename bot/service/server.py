"""A server's own use cases: its table settings (default preset, turn timeout, table channels, manager role,
house rules new tables start with), its card display switches, and a user's request to delete their
statistics (``forget``).

Nothing here knows Discord: inputs are ids and plain values, outputs are ``ServerSettings`` and
``CardDisplay``, and a mistaken request raises ``ServiceError`` with a short sentence for a private reply.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.engine import PRESETS, RulesetError, rule_options
from bot.engine.errors import typed_shown
from bot.i18n import LOCALES, _
from bot.service.catalog import preset_names
from bot.service.errors import ServiceError
from bot.service.faults import store_faults
from bot.service.models import CardDisplay
from bot.service.views import server_house_words, server_rules_left_out
from bot.store.base import GuildSettings, Store

log = logging.getLogger(__name__)

#: Whether a channel id is still one of the server's channels (the face asks Discord's cache), for a server
#: whose channels are known; without one, nothing is dropped from the list of table channels.
ChannelCheck = Callable[[int], bool]

MIN_TURN_TIMEOUT: Final = 15  # seconds
MAX_TURN_TIMEOUT: Final = 24 * 60 * 60
# A longer list of table channels is better expressed through Discord's own channel permissions.
MAX_ALLOWED_CHANNELS: Final = 25
#: The /eights settings language value that follows the server's language in Discord again.
AUTO_LANGUAGE: Final = "auto"

STANDARD_PRESET = "classic"  # the preset house rules are read against when the default does not take them


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """A guild's table settings."""

    guild_id: int
    default_preset: str
    default_turn_timeout: float
    allowed_channel_ids: tuple[int, ...]  # empty: any channel
    manager_role_id: int | None
    # The house rules new tables start with, in words: each table gets every one its preset takes.
    default_house_rules: tuple[str, ...] = ()
    # Those the default preset's tables start without (it does not take them), each with its reason.
    default_preset_without: tuple[str, ...] = ()


def in_table_channels(allowed: Sequence[int], channel_id: int, parent_id: int | None = None) -> bool:
    """Whether a server's list of table channels (``allowed``; empty: any channel) takes ``channel_id``: a
    listed channel (text, forum or voice), or a thread of one (a forum post), whose ``parent_id`` is
    listed."""
    return not allowed or channel_id in allowed or (parent_id is not None and parent_id in allowed)


def server_settings(row: GuildSettings) -> ServerSettings:
    rules = row.default_house_rules
    base = _house_rules_base(row.default_preset, rules)
    return ServerSettings(
        guild_id=row.guild_id,
        default_preset=row.default_preset,
        default_turn_timeout=row.default_turn_timeout,
        allowed_channel_ids=row.allowed_channel_ids,
        manager_role_id=row.manager_role_id,
        default_house_rules=server_house_words(base, rules),
        default_preset_without=server_rules_left_out(row.default_preset, base, rules),
    )


def _house_rules_base(preset: str, rules: dict[str, Any]) -> str:
    """The preset a server's house rules are read against (shown in words, and a new one checked with them):
    its default preset when they fit it together, else the standard game, else the first preset they fit.
    New tables get them whatever the default: each table every rule its own preset takes (lobby), so a
    default preset chosen after the rules may take fewer of them, or none (crazier-abilities takes none)."""
    first = preset if preset in PRESETS else STANDARD_PRESET
    for candidate in (first, STANDARD_PRESET, *PRESETS):
        try:
            rule_options.with_house_rules(candidate, rules)
        except (RulesetError, TypeError, ValueError):
            continue
        return candidate
    return first


@store_faults
class ServerService:
    """A server's settings, display switches and a user's forget, over one store. Holds no state."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def settings(self, guild_id: int, exists: ChannelCheck | None = None) -> ServerSettings:
        """The server's settings; ``exists``: the listed channels it says are gone leave the list first."""
        return server_settings(await self._current(guild_id, exists))

    async def in_table_channels(
        self, guild_id: int, channel_id: int, parent_id: int | None = None, exists: ChannelCheck | None = None
    ) -> bool:
        """Whether the channel (or the thread of ``parent_id``) is one of the server's table channels: where
        tables open and the standings answer in public. Any channel, when the server lists none (also once
        the last listed channel is gone)."""
        settings = await self._current(guild_id, exists)
        return in_table_channels(settings.allowed_channel_ids, channel_id, parent_id)

    async def channels_deleted(self, guild_id: int, channel_ids: Collection[int]) -> tuple[int, ...]:
        """Channels of the server were deleted: off its list of table channels, so that they keep no place
        of the ``MAX_ALLOWED_CHANNELS`` and nobody is sent there. The last listed channel gone, the list is
        empty: tables open in any channel again, as after ``clear_channels``. Returns the list left."""
        # Read first: most deleted channels were never listed, and they need no write.
        settings = await self._store.get_guild_settings(guild_id)
        gone = frozenset(c for c in settings.allowed_channel_ids if c in channel_ids)
        return (await self._without(guild_id, gone) if gone else settings).allowed_channel_ids

    async def _current(self, guild_id: int, exists: ChannelCheck | None) -> GuildSettings:
        """The server's settings without the listed channels ``exists`` says it no longer has (deleted while
        the bot was away: Discord told no one), saved so."""
        settings = await self._store.get_guild_settings(guild_id)
        gone = _gone(settings, exists)
        return await self._without(guild_id, gone) if gone else settings

    async def _without(self, guild_id: int, gone: frozenset[int]) -> GuildSettings:
        """The channels ``gone`` off the server's list, as one change of its settings (a change saved at the
        same moment is kept)."""
        left_out: list[int] = []

        def change(settings: GuildSettings, display: str | None) -> tuple[GuildSettings, str | None]:
            left_out[:] = [c for c in settings.allowed_channel_ids if c in gone]
            return _without_channels(settings, gone), display

        saved, _value = await self._store.change_guild_settings(guild_id, _display_key(guild_id), change)
        _log_left_out(guild_id, left_out, saved)
        return saved

    async def update_settings(
        self,
        guild_id: int,
        *,
        default_preset: str | None = None,
        turn_timeout: int | None = None,
        allow_channel: int | None = None,
        disallow_channel: int | None = None,
        clear_channels: bool = False,
        manager_role: int | None = None,
        clear_manager_role: bool = False,
        house_option: str | None = None,
        house_value: str | None = None,
        clear_house_rules: bool = False,
        exists: ChannelCheck | None = None,
    ) -> ServerSettings:
        """Apply the given changes of the table settings (``change_settings`` without the display switches)
        and return the settings saved."""
        settings, _switches = await self.change_settings(
            guild_id,
            default_preset=default_preset,
            turn_timeout=turn_timeout,
            allow_channel=allow_channel,
            disallow_channel=disallow_channel,
            clear_channels=clear_channels,
            manager_role=manager_role,
            clear_manager_role=clear_manager_role,
            house_option=house_option,
            house_value=house_value,
            clear_house_rules=clear_house_rules,
            exists=exists,
        )
        return settings

    async def change_settings(
        self,
        guild_id: int,
        *,
        default_preset: str | None = None,
        turn_timeout: int | None = None,
        allow_channel: int | None = None,
        disallow_channel: int | None = None,
        clear_channels: bool = False,
        manager_role: int | None = None,
        clear_manager_role: bool = False,
        house_option: str | None = None,
        house_value: str | None = None,
        clear_house_rules: bool = False,
        card_emojis: bool | None = None,
        board_picture: bool | None = None,
        language: str | None = None,
        exists: ChannelCheck | None = None,
    ) -> tuple[ServerSettings, CardDisplay]:
        """Apply the given changes together and return the settings and display switches as saved: all
        validated before anything is saved, and saved in one store transaction that reads what they change
        (``Store.change_guild_settings``), so that a refused or failed command changes nothing and a change
        another admin saves at the same moment is kept (and shown). ``exists``: as for ``settings``, the
        listed channels the server no longer has leave the list first.

        ``clear_channels`` runs before ``allow_channel``, so both together replace the list with one channel;
        ``clear_house_rules`` before a house rule (``house_option`` and ``house_value`` together), which is
        checked with the rules kept against the default preset (else the preset ``_house_rules_base`` reads
        them against): an impossible combination is refused with the reason. A default preset is taken
        whatever the house rules: new tables get each rule their own preset takes, and the settings say
        which ones the default preset's tables start without (``ServerSettings.default_preset_without``).
        The switches (None: unchanged): ``language`` a catalogue ("de", "pt_BR"), or ``AUTO_LANGUAGE`` to
        follow the server's language in Discord again.
        """
        # What needs nothing saved is checked first: a mistyped command takes no lock.
        if default_preset is not None and default_preset not in preset_names():
            raise ServiceError(
                "unknown-preset",
                _(
                    "There is no preset called '{default_preset}'.",
                    default_preset=typed_shown(default_preset),
                ),
            )
        if turn_timeout is not None and not MIN_TURN_TIMEOUT <= turn_timeout <= MAX_TURN_TIMEOUT:
            raise ServiceError(
                "bad-timeout",
                _(
                    "The turn timeout must be between {min_turn_timeout} seconds and 24 hours "
                    "({max_turn_timeout} seconds).",
                    min_turn_timeout=MIN_TURN_TIMEOUT,
                    max_turn_timeout=MAX_TURN_TIMEOUT,
                ),
            )
        if manager_role is not None and clear_manager_role:
            raise ServiceError("conflicting-options", _("Set a manager role or clear it, not both."))
        if allow_channel is not None and allow_channel == disallow_channel:
            raise ServiceError("conflicting-options", _("Allow a channel or disallow it, not both."))
        if (house_option is None) != (house_value is None):
            raise ServiceError("conflicting-options", _("Give a house rule and its value together."))
        if language is not None and language != AUTO_LANGUAGE and language not in LOCALES:
            raise ServiceError(
                "unknown-language", _("There is no language called '{name}'.", name=typed_shown(language))
            )
        # Which listed channels the server no longer has: asked here, of the list as it is (``exists`` asks
        # the face's cache, which ``change`` does not touch: it may run on the store's thread).
        gone: frozenset[int] = frozenset()
        if exists is not None:
            gone = _gone(await self._store.get_guild_settings(guild_id), exists)
        left_out: list[int] = []

        def change(settings: GuildSettings, raw: str | None) -> tuple[GuildSettings, str | None]:
            left_out[:] = [c for c in settings.allowed_channel_ids if c in gone]
            new = _without_channels(settings, gone)
            if default_preset is not None:
                new = replace(new, default_preset=default_preset)
            if turn_timeout is not None:
                new = replace(new, default_turn_timeout=float(turn_timeout))
            new = replace(
                new,
                allowed_channel_ids=_channels(
                    new.allowed_channel_ids, allow_channel, disallow_channel, clear_channels
                ),
            )
            if clear_manager_role:
                new = replace(new, manager_role_id=None)
            elif manager_role is not None:
                new = replace(new, manager_role_id=manager_role)
            new = _with_default_house_rule(new, house_option, house_value, clear_house_rules)
            display = _display(raw)
            switched = CardDisplay(
                display.card_emojis if card_emojis is None else card_emojis,
                display.board_picture if board_picture is None else board_picture,
                display.language if language is None else (None if language == AUTO_LANGUAGE else language),
            )
            return new, raw if switched == display else _display_value(switched)

        saved, raw = await self._store.change_guild_settings(guild_id, _display_key(guild_id), change)
        _log_left_out(guild_id, left_out, saved)
        return server_settings(saved), _display(raw)

    async def card_display(self, guild_id: int) -> CardDisplay:
        """The server's card emojis and board picture switches (both on by default)."""
        return _display(await self._store.get_meta(_display_key(guild_id)))

    async def update_card_display(
        self,
        guild_id: int,
        *,
        card_emojis: bool | None = None,
        board_picture: bool | None = None,
        language: str | None = None,
    ) -> CardDisplay:
        """Change the switches given (``change_settings`` without the table settings) and return them as
        saved."""
        _settings, display = await self.change_settings(
            guild_id, card_emojis=card_emojis, board_picture=board_picture, language=language
        )
        return display

    async def forget(self, user_id: int) -> int:
        """Delete the user's statistics in every guild and every copy of their id and name in past games
        (the same store code as ``python -m bot forget-user``).

        Everywhere rather than per guild: this is the user's own data-deletion request, and honouring it in
        one server while keeping their records in the others would not be deleting their data. Returns the
        number of rows the store changed.
        """
        return await self._store.forget_user(user_id, None)


def _display_key(guild_id: int) -> str:
    # Two switches per server, kept in the meta table rather than a new column of guild_settings: no
    # migration (the schema's next numbers are taken by work in flight), and a missing key is the default.
    return f"card_display:{guild_id}"


def _display(raw: str | None) -> CardDisplay:
    """The switches a server's meta value says: the defaults when it has none, or a damaged one (until an
    admin saves again)."""
    if raw is None:
        return CardDisplay()
    try:
        data = json.loads(raw)
        language = data.get("language")
        return CardDisplay(
            bool(data["card_emojis"]), bool(data["board_picture"]), language if language in LOCALES else None
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return CardDisplay()


def _display_value(display: CardDisplay) -> str:
    value: dict[str, object] = {"card_emojis": display.card_emojis, "board_picture": display.board_picture}
    if display.language is not None:
        value["language"] = display.language
    return json.dumps(value, sort_keys=True)


def _gone(settings: GuildSettings, exists: ChannelCheck | None) -> frozenset[int]:
    """The listed channels ``exists`` says the server no longer has (None: not known, none)."""
    if exists is None:
        return frozenset()
    return frozenset(c for c in settings.allowed_channel_ids if not exists(c))


def _without_channels(settings: GuildSettings, gone: Collection[int]) -> GuildSettings:
    left = tuple(c for c in settings.allowed_channel_ids if c not in gone)
    return settings if left == settings.allowed_channel_ids else replace(settings, allowed_channel_ids=left)


def _log_left_out(guild_id: int, left_out: Sequence[int], saved: GuildSettings) -> None:
    if left_out:
        left = saved.allowed_channel_ids
        log.info(
            "guild %s: deleted channels %s left the table channels (%s)",
            guild_id,
            list(left_out),
            list(left) if left else "none left: any channel",
        )


def _channels(
    channels: tuple[int, ...], allow: int | None, disallow: int | None, clear: bool
) -> tuple[int, ...]:
    """The list of table channels changed as asked (``clear`` first), or the reason it can't be."""
    if clear:
        channels = ()
    if disallow is not None:
        if disallow not in channels:
            raise ServiceError("not-allowed-channel", _("That channel is not on the list of table channels."))
        channels = tuple(c for c in channels if c != disallow)
    if allow is not None and allow not in channels:
        if len(channels) >= MAX_ALLOWED_CHANNELS:
            raise ServiceError(
                "too-many-channels",
                _(
                    "Tables may be limited to at most {max_allowed_channels} channels.",
                    max_allowed_channels=MAX_ALLOWED_CHANNELS,
                ),
            )
        channels = (*channels, allow)
    return channels


def _with_default_house_rule(
    settings: GuildSettings, option: str | None, value: str | None, clear: bool
) -> GuildSettings:
    rules = {} if clear else dict(settings.default_house_rules)
    if option is None or value is None:  # both or neither (``change_settings`` checked)
        return replace(settings, default_house_rules=rules)
    base = _house_rules_base(settings.default_preset, rules)
    try:
        ruleset = rule_options.change(rule_options.with_house_rules(base, rules), option, value)
    except RulesetError as exc:
        raise ServiceError("bad-house-rule", _("That house rule can't be used: {exc}.", exc=exc)) from None
    changed = rule_options.house_rules(ruleset)
    # A rule the base preset happens to have (set while another default was read) still counts for the
    # other presets: kept unless this change gave it another value.
    now = ruleset.to_json()
    kept = {key: held for key, held in rules.items() if key not in changed and now.get(key) == held}
    return replace(settings, default_house_rules={**changed, **kept})
