"""Outcomes that happen on their own (CPU moves, timeouts, the next round, a lobby expiring, an idle table
abandoned) on their way to the Discord layer's ``TableListener``: quick automatic moves within the batch
window are gathered into one outcome, shown with the table as it is when the batch leaves."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from bot.service.clock import Clock
from bot.service.models import Outcome, TableEvent, TableListener, TableSnapshot

log = logging.getLogger(__name__)


class OutcomeFeed:
    """Batches automatic outcomes per table and hands them to the listener. ``current`` gives a table's
    board as it is now (None once the table is no longer held)."""

    def __init__(
        self,
        clock: Clock,
        batch_window: float,
        current: Callable[[int], TableSnapshot | None],
        listener: TableListener | None = None,
    ) -> None:
        self.listener = listener
        self._clock = clock
        self._batch_window = max(0.0, batch_window)
        self._current = current
        self._pending: dict[int, Outcome] = {}

    @property
    def waiting(self) -> bool:
        """Whether an outcome is gathered and not yet handed to the listener."""
        return bool(self._pending)

    def push(self, outcome: Outcome) -> None:
        if self.listener is None:
            return
        table_id = outcome.table_id
        pending = self._pending.get(table_id)
        if pending is None:
            self._pending[table_id] = outcome
            self._clock.call_later(self._batch_window, self._flusher(table_id))
            return
        private: dict[int, tuple[TableEvent, ...]] = dict(pending.private_events)
        for user, events in outcome.private_events.items():
            private[user] = private.get(user, ()) + events
        self._pending[table_id] = Outcome(
            outcome.snapshot,
            pending.public_events + outcome.public_events,
            private,
            max(pending.version, outcome.version),
        )

    async def flush(self, table_id: int) -> None:
        """Hand the table's gathered outcome to the listener now (nothing when none is gathered): before a
        person's move that came after it is shown, so that the table's news goes out in the order it was
        committed (a CPU's or a timeout's play told before the move that answered it)."""
        outcome = self._pending.pop(table_id, None)
        if outcome is None or self.listener is None:
            return
        now = self._current(table_id)
        if now is not None:
            # The board shows the table as it is now, not as it was when the first move was gathered.
            outcome = Outcome(now, outcome.public_events, outcome.private_events, outcome.version)
        try:
            await self.listener.on_outcome(outcome)
        except Exception:
            log.exception("table %s: listener failed", table_id)

    def _flusher(self, table_id: int) -> Callable[[], Any]:
        async def flush() -> None:
            await self.flush(table_id)

        return flush
