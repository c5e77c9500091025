"""The clocks: the fake one runs due timers in order without sleeping; the system one uses the event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

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


async def test_the_fake_clock_sleeps_and_waits_only_as_it_is_moved_on() -> None:
    # What the publisher's lanes wait with (bot.delivery.publisher.LaneClock): nothing passes on its own.
    clock = FakeClock()
    start = clock.monotonic()
    sleeper = asyncio.create_task(clock.sleep(1.0))
    event = asyncio.Event()
    set_in_time = asyncio.create_task(clock.wait(event, 2.0))
    timed_out = asyncio.create_task(clock.wait(asyncio.Event(), 2.0))
    await asyncio.sleep(0)
    await clock.advance(0.5)
    assert not sleeper.done() and not set_in_time.done() and not timed_out.done()
    event.set()
    await clock.advance(0.6)
    await asyncio.sleep(0)
    assert sleeper.done() and await set_in_time is True and not timed_out.done()
    await clock.advance(1.0)
    assert await timed_out is False
    assert clock.monotonic() - start == pytest.approx(2.1)
    assert clock.pending() == []  # every timer of a wait that ended is cancelled


async def test_a_fired_timer_and_its_callback_are_freed_without_the_cyclic_collector() -> None:
    """The timer's handle holds the function that fires it, which holds the timer: once fired, the cycle is
    broken, so what the callback holds (a table's state) is freed as soon as nothing else holds it."""
    import gc
    import weakref

    clock = SystemClock()
    fired = asyncio.Event()

    class Owner:
        async def due(self) -> None:
            fired.set()

    owner = Owner()
    freed = weakref.ref(owner)
    gc.collect()
    gc.disable()
    try:
        timer = clock.call_later(0.0, owner.due)
        del owner
        await asyncio.wait_for(fired.wait(), 1.0)
        while clock.in_flight():
            await asyncio.sleep(0)
        del timer
        assert freed() is None
    finally:
        gc.enable()
