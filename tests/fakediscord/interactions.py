"""Interactions the fake has sent to the bot, and the handle a test awaits the bot's answer with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .model import FakeChannel, FakeGuild, FakeMessage, FakeUser

if TYPE_CHECKING:
    from .server import FakeDiscord

# Interaction types.
PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

# Callback (interaction response) types.
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9

CALLBACKS_ALLOWED = {
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
    MESSAGE_COMPONENT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
        MODAL,
    },
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE},
}


class InvalidInteraction(ValueError):
    """The test asked for what Discord's client would not let a user do (bad options, hidden button...)."""


@dataclass(eq=False)
class InteractionRecord:
    """Everything the fake knows about one interaction: what was sent and how the bot answered."""

    id: int
    token: str
    type: int
    user: FakeUser
    guild: FakeGuild
    channel: FakeChannel
    data: dict[str, Any]
    created_at: float  # loop time
    # The message a component was used on (and the message a modal was opened from, if any).
    message: FakeMessage | None = None
    # For autocomplete: the focused option's type, to check the choices against.
    focused_type: int | None = None
    callback_type: int | None = None
    callback_data: dict[str, Any] | None = None
    callback_at: float | None = None
    original: FakeMessage | None = None
    # Edits of the original response made through this interaction's webhook (PATCH .../@original).
    original_edits: int = 0
    followups: list[FakeMessage] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    # Rules the bot broke while answering this interaction.
    errors: list[str] = field(default_factory=list)


class InteractionHandle:
    """What ``invoke``/``click``/``select``/``submit_modal`` return: await the bot's answer through it.

    ``await handle.reply()`` gives the message the callback produced or changed (see ``reply``); ``content``,
    ``embeds``, ``components`` and ``ephemeral`` read that message once it is there.
    """

    def __init__(self, fake: FakeDiscord, record: InteractionRecord) -> None:
        self._fake = fake
        self.record = record

    def __repr__(self) -> str:
        return (
            f"<InteractionHandle id={self.record.id} type={self.record.type} callback={self.callback_type}>"
        )

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def callback_type(self) -> int | None:
        return self.record.callback_type

    @property
    def followups(self) -> list[FakeMessage]:
        return list(self.record.followups)

    @property
    def modal(self) -> dict[str, Any] | None:
        """The modal the bot opened (callback type 9), as sent."""
        return self.record.modal

    def _check(self) -> None:
        if self.record.errors:
            raise AssertionError(
                f"interaction {self.record.id}: the bot broke Discord's rules: {self.record.errors}"
            )

    async def _wait(self, predicate: Callable[[], Any], what: str, timeout: float | None) -> Any:
        def checked() -> Any:
            self._check()
            return predicate()

        return await self._fake.wait_for(
            checked, timeout=timeout, what=f"{what} of interaction {self.record.id}"
        )

    async def callback(self, timeout: float | None = None) -> int:
        """Wait for the bot's interaction callback; returns its type (4 message, 5 defer, 6, 7, 8, 9)."""
        result: int = await self._wait(lambda: self.record.callback_type, "the callback", timeout)
        return result

    async def reply(self, timeout: float | None = None) -> FakeMessage:
        """Wait for the callback and return the message it produced or changed.

        Type 4: the new message. Type 5 (deferred): the original response once the bot has filled it (by
        editing it or by its first follow-up). Type 7: the updated component message. Type 6: the component
        message, once the bot has edited it through the original-response webhook. Types 8 and 9 have no
        message.
        """
        record = self.record

        def ready() -> FakeMessage | None:
            kind = record.callback_type
            if kind is None:
                return None
            if kind in (AUTOCOMPLETE_RESULT, MODAL):
                raise AssertionError(f"interaction {record.id} was answered with type {kind}, not a message")
            if kind in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
                return record.original
            if kind == DEFERRED_CHANNEL_MESSAGE:
                original = record.original
                return original if original is not None and not original.loading else None
            # Deferred update: wait for the bot's edit of the message through this interaction's webhook.
            return record.original if record.original_edits else None

        message: FakeMessage = await self._wait(ready, "the reply", timeout)
        return message

    async def followup(self, index: int = 0, timeout: float | None = None) -> FakeMessage:
        """Wait for the bot's follow-up number ``index`` (0 = first) and return it."""
        message: FakeMessage = await self._wait(
            lambda: self.record.followups[index] if len(self.record.followups) > index else None,
            f"follow-up {index}",
            timeout,
        )
        return message

    def _message(self) -> FakeMessage:
        self._check()
        if self.record.original is None:
            raise AssertionError(
                f"interaction {self.record.id} has no response message yet: await reply() first"
            )
        return self.record.original

    @property
    def message(self) -> FakeMessage:
        """The response message (after ``await reply()``)."""
        return self._message()

    @property
    def content(self) -> str:
        return self._message().content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self._message().embeds

    @property
    def components(self) -> list[dict[str, Any]]:
        return self._message().components

    @property
    def ephemeral(self) -> bool:
        return self._message().ephemeral
