"""The clocks: the fake one runs due timers in order without sleeping; the system one uses the event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from bot.service import FakeClock, SystemClock


async def test_fake_clock_runs_due_timers_in_order_including_timers_they_set() -> None:
    clock = FakeClock(start=1000.0)
    ran: list[tuple[str, float]] = []

    def note(name: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            ran.append((name, clock.now()))
            if name == "b":
                clock.call_later(1.0, note("b+1"))

        return run

    clock.call_later(5.0, note("c"))
    clock.call_later(2.0, note("b"))
    cancelled = clock.call_later(1.0, note("a"))
    cancelled.cancel()
    assert clock.pending() == [1002.0, 1005.0]
    await clock.advance(4.0)
    assert ran == [("b", 1002.0), ("b+1", 1003.0)]
    assert clock.now() == 1004.0
    await clock.advance(1.0)
    assert ran[-1] == ("c", 1005.0)
    assert clock.pending() == []


async def test_system_clock_fires_once_and_cancel_stops_it() -> None:
    clock = SystemClock()
    fired = asyncio.Event()
    stopped: list[int] = []

    async def fire() -> None:
        fired.set()

    async def never() -> None:
        stopped.append(1)

    clock.call_later(0.0, fire)
    clock.call_later(0.01, never).cancel()
    await asyncio.wait_for(fired.wait(), timeout=2.0)
    await asyncio.sleep(0.03)
    assert stopped == []
    assert abs(clock.now() - time.time()) < 1.0
