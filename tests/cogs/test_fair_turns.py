"""FairTurns: a limited number of holders, the longest-waiting work served first, cancellation safe."""

from __future__ import annotations

import asyncio

import pytest

from bot.cogs.fair_turns import FairTurns


async def test_turns_go_oldest_first_and_never_beyond_the_slots() -> None:
    turns = FairTurns(2)
    release = asyncio.Event()
    order: list[str] = []
    holding = 0
    most = 0

    async def work(name: str, since: float) -> None:
        nonlocal holding, most
        async with turns.turn(since):
            holding += 1
            most = max(most, holding)
            order.append(name)
            await release.wait()
            holding -= 1

    first = [asyncio.create_task(work(name, 0.0)) for name in ("a", "b")]
    await asyncio.sleep(0)
    # Queued in this order, but they became due at these times:
    later = [
        asyncio.create_task(work(name, since)) for name, since in (("new", 9.0), ("old", 1.0), ("mid", 5.0))
    ]
    await asyncio.sleep(0)
    assert order == ["a", "b"] and turns.waiting == 3 and turns.busy == 2
    release.set()
    await asyncio.gather(*first, *later)
    assert order == ["a", "b", "old", "mid", "new"]
    assert most == 2 and turns.busy == 0


async def test_a_cancelled_waiter_gives_its_place_away() -> None:
    turns = FairTurns(1)
    held = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        async with turns.turn(0.0):
            held.set()
            await release.wait()

    holder = asyncio.create_task(hold())
    await held.wait()
    waiter = asyncio.create_task(turns.turn(1.0).__aenter__())
    await asyncio.sleep(0)
    waiter.cancel()
    release.set()
    await holder
    with pytest.raises(asyncio.CancelledError):
        await waiter
    async with turns.turn(2.0):  # the slot is free again
        assert turns.busy == 1
    assert turns.busy == 0


def test_at_least_one_slot() -> None:
    with pytest.raises(ValueError):
        FairTurns(0)
