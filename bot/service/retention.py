"""Retention of the move logs of closed matches (MOVE_LOG_RETENTION_DAYS): a task of the service deletes
the moves of tables closed longer ago than the setting, in small batches (each one short transaction, with
a pause between them so that play goes first), then asks the store to give the space back. Results,
rankings and statistics are kept forever; the store remembers which tables' logs are gone."""

from __future__ import annotations

import asyncio
import logging

from bot.service.clock import Clock, Timer
from bot.service.outage import StoreOutage
from bot.store.base import Store, StoreUnavailableError

log = logging.getLogger(__name__)

PRUNE_BATCH = 500  # moves per transaction: a few milliseconds of the write lock
PRUNE_PAUSE = 0.2  # seconds between batches while there is a backlog
PRUNE_INTERVAL = 3600.0  # seconds between passes once nothing is left to prune
FIRST_PASS_DELAY = 60.0  # after start-up, when restoring tables and catching up boards come first


class MoveLogRetention:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        keep: float,
        outage: StoreOutage,
        *,
        batch: int = PRUNE_BATCH,
        pause: float = PRUNE_PAUSE,
        interval: float = PRUNE_INTERVAL,
    ) -> None:
        self._store = store
        self._clock = clock
        self._keep = keep
        self._outage = outage
        self._batch = batch
        self._pause = pause
        self._interval = interval
        self._timer: Timer | None = None
        self._running: asyncio.Task[None] | None = None
        self._closed = False
        self._in_pass = 0  # moves deleted in the pass under way
        self.pruned = 0  # moves deleted since the start

    def start(self, delay: float = FIRST_PASS_DELAY) -> None:
        if self._timer is None and not self._closed:
            self._later(delay)

    def _later(self, delay: float) -> None:
        if not self._closed:
            self._timer = self._clock.call_later(delay, self._step)

    async def _step(self) -> None:
        self._running = asyncio.current_task()
        try:
            now = self._clock.now()
            try:
                deleted = await self._store.prune_closed_moves(now - self._keep, self._batch, now)
                if deleted < self._batch and self._in_pass + deleted > 0:
                    await self._store.reclaim_space()
            except StoreUnavailableError as error:
                self._outage.noticed(error)  # one line per outage; the next pass tries again
                self._later(self._interval)
                return
            except Exception:
                log.exception("pruning old move logs failed; trying again in %.0f s", self._interval)
                self._later(self._interval)
                return
            self._in_pass += deleted
            self.pruned += deleted
            if deleted >= self._batch:
                self._later(self._pause)
                return
            if self._in_pass:
                days = self._keep / 86400
                log.info("deleted %d moves of matches closed over %g days ago", self._in_pass, days)
            self._in_pass = 0
            self._later(self._interval)
        finally:
            self._running = None

    async def close(self) -> None:
        """No further batch; waits for the one under way."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        running = self._running
        if running is not None and running is not asyncio.current_task():
            await asyncio.gather(running, return_exceptions=True)
