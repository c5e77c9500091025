"""Turns for the tables' public updates, handed out oldest first (the publisher uses one slot: one table at
a time waits for the global budget's next turn).

The global budget lets about 50 requests a second through; when the tables want more, the rest must wait
somewhere. They wait here, not in the budget: a table waiting for its turn keeps gathering its news (its
board is edited with the state it has when its turn comes, not the one it had when it queued), and the table
that has waited longest goes next, so that a busy table cannot starve a quiet one.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from collections.abc import AsyncIterator


class FairTurns:
    """At most ``slots`` holders at once; waiters are served by the time they give (oldest first), then in
    arrival order."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("at least one slot")
        self.slots = slots
        self._free = slots
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @property
    def waiting(self) -> int:
        return sum(1 for _, _, future in self._waiting if not future.done())

    @property
    def busy(self) -> int:
        return self.slots - self._free

    @contextlib.asynccontextmanager
    async def turn(self, since: float) -> AsyncIterator[None]:
        """Hold one slot for the block. ``since``: when the work first became due (smaller goes first)."""
        if self._free > 0 and not self._waiting:
            self._free -= 1
        else:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (since, next(self._order), future))
            try:
                await future
            except asyncio.CancelledError:
                if future.done() and not future.cancelled():
                    self._release()  # the slot was handed over just as the waiter was cancelled
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            _, _, future = heapq.heappop(self._waiting)
            if not future.done():
                future.set_result(None)  # the slot passes to it
                return
        self._free += 1
