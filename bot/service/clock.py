"""Time for the service: the current time and timers, behind a protocol so tests never sleep.

Deadlines are stored as Unix seconds, so production uses the wall clock (``time.time``) for ``now`` and the
event loop for waiting. ``FakeClock`` is a clock tests drive by hand: ``await clock.advance(30)`` moves time
on and runs, in order, every timer that falls due on the way (including timers those timers set).

Both also offer what the delivery part (``bot.delivery``) paces its lanes with: ``monotonic()`` (seconds that
never jump), ``sleep(delay)`` and ``wait(event, timeout)``, so that its tests run on the fake clock too."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

TimerCallback = Callable[[], Awaitable[None]]


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Unix seconds."""
        ...

    def call_later(self, delay: float, callback: TimerCallback) -> Timer:
        """Run ``await callback()`` after ``delay`` seconds (at once for delay <= 0, but never inline)."""
        ...

    def monotonic(self) -> float:
        """Seconds that never jump (what ``call_later`` counts in)."""
        ...


class _LoopTimer:
    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None
        self.cancelled = False

    def cancel(self) -> None:
        # Only the wait is cancelled: a callback already running is left to finish its move.
        self.cancelled = True
        if self._handle is not None:
            self._handle.cancel()


class SystemClock:
    """Wall-clock time and the running event loop's timers."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)

    async def wait(self, event: asyncio.Event, timeout: float) -> bool:
        """Wait for ``event`` at most ``timeout`` seconds; whether it is set."""
        if event.is_set():
            return True
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def in_flight(self) -> int:
        """How many timer callbacks are running or about to run."""
        return len(self._tasks)

    def call_later(self, delay: float, callback: TimerCallback) -> Timer:
        loop = asyncio.get_running_loop()
        timer = _LoopTimer()

        def fire() -> None:
            # The handle (which holds this function, which holds the timer) is spent: dropped, so that the
            # timer and its callback are freed without the cyclic garbage collector.
            timer._handle = None
            if timer.cancelled:
                return
            task = loop.create_task(_run(callback))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        timer._handle = loop.call_later(max(0.0, delay), fire)
        return timer


async def _run(callback: TimerCallback) -> None:
    await callback()


class _FakeTimer:
    def __init__(self, when: float) -> None:
        self.when = when
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock for tests: time moves only when ``advance`` is awaited, which runs the timers that fall due."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._wall_offset = 0.0  # ``set_wall``: the wall clock set apart from the time that passed
        self._queue: list[tuple[float, int, _FakeTimer, TimerCallback]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self._now + self._wall_offset

    def monotonic(self) -> float:
        return self._now

    def set_wall(self, seconds: float) -> None:
        """The wall clock is set ``seconds`` on (or back), as NTP or a resumed VM does: no time passes, no
        timer falls due."""
        self._wall_offset += seconds

    async def sleep(self, delay: float) -> None:
        """Return once ``advance`` has moved time ``delay`` seconds on (at once for 0 or less)."""
        if delay <= 0:
            await asyncio.sleep(0)
            return
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        timer = self.call_later(delay, _waker(woken))
        try:
            await woken
        finally:
            timer.cancel()

    async def wait(self, event: asyncio.Event, timeout: float) -> bool:
        """Wait for ``event`` until ``advance`` has moved time ``timeout`` seconds on; whether it is set."""
        if event.is_set():
            return True
        if timeout <= 0:
            return False
        loop = asyncio.get_running_loop()
        waiter = loop.create_task(event.wait())
        timed_out: asyncio.Future[None] = loop.create_future()
        timer = self.call_later(timeout, _waker(timed_out))
        try:
            waiting: set[asyncio.Future[Any]] = {waiter, timed_out}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
            waiter.cancel()
        return event.is_set()

    def call_later(self, delay: float, callback: TimerCallback) -> Timer:
        timer = _FakeTimer(self._now + max(0.0, delay))
        heapq.heappush(self._queue, (timer.when, next(self._seq), timer, callback))
        return timer

    def pending(self) -> list[float]:
        """The due times of the timers still waiting, earliest first."""
        return sorted(t.when for _, _, t, _ in self._queue if not t.cancelled)

    async def advance(self, seconds: float = 0.0) -> None:
        """Move time on by ``seconds``, running every timer due by then in order of due time."""
        target = self._now + max(0.0, seconds)
        while self._queue and self._queue[0][0] <= target:
            when, _, timer, callback = heapq.heappop(self._queue)
            if timer.cancelled:
                continue
            self._now = max(self._now, when)
            await callback()
            await asyncio.sleep(0)
        self._now = target


def _waker(future: asyncio.Future[None]) -> TimerCallback:
    async def wake() -> None:
        if not future.done():
            future.set_result(None)

    return wake
