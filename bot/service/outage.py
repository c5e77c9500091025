"""Whether the database is failing, as this process's commits see it: one log line when commits start
failing, one when a commit succeeds again (never a traceback per attempt), and a count of the failed
commits for the admins' metrics."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.service.clock import Clock
from bot.store.base import StoreError

log = logging.getLogger(__name__)


class StoreOutage:
    """Told of every commit's result by the registry (and of automatic moves that could not even read)."""

    def __init__(self, clock: Clock, on_failed_commit: Callable[[], None] | None = None) -> None:
        self._clock = clock
        self.since: float | None = None  # when the current outage began; None while the database works
        self.failed_commits = 0  # since the process started
        self._failed_in_outage = 0
        # Called once per failed commit (the admins' metrics counter).
        self.on_failed_commit = on_failed_commit

    @property
    def active(self) -> bool:
        return self.since is not None

    def commit_failed(self, error: StoreError) -> None:
        self.failed_commits += 1
        self._failed_in_outage += 1
        if self.on_failed_commit is not None:
            self.on_failed_commit()
        self.noticed(error)

    def noticed(self, error: StoreError) -> None:
        """The database failed (unavailable, or a damaged file): log it if it is the first failure of an
        outage."""
        if self.since is None:
            self.since = self._clock.now()
            log.warning(
                "the database is unavailable (%s): moves are refused, timed moves retried until it is back",
                error,
            )

    def succeeded(self) -> None:
        if self.since is None:
            return
        lasted = max(0.0, self._clock.now() - self.since)
        log.warning(
            "the database is back after %.0f s; %d commit(s) failed meanwhile", lasted, self._failed_in_outage
        )
        self.since = None
        self._failed_in_outage = 0
