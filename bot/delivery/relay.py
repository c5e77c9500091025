"""The service's listener, built before the publisher: ``OutcomeRelay``.

The service needs its listener when it is built, and the publisher needs the service (for hands and boards):
the relay is handed to the service, and the publisher names itself as the relay's receiver when it is built.
What happens on its own (CPU moves, timeouts, a next round) then goes service → relay → publisher."""

from __future__ import annotations

from typing import Protocol

from bot.service import Outcome


class OutcomeReceiver(Protocol):
    async def on_outcome(self, outcome: Outcome) -> None: ...


class OutcomeRelay:
    """Implements the service's ``TableListener``. Until a receiver is named (nothing happens on its own
    before the tables are restored, after the publisher is built), outcomes have nowhere to go."""

    def __init__(self) -> None:
        self._receiver: OutcomeReceiver | None = None

    def deliver_to(self, receiver: OutcomeReceiver) -> None:
        if self._receiver is not None and self._receiver is not receiver:
            raise RuntimeError("the outcomes already go to another receiver")
        self._receiver = receiver

    async def on_outcome(self, outcome: Outcome) -> None:
        if self._receiver is not None:
            await self._receiver.on_outcome(outcome)
