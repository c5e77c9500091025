"""Each CPU seat of a crazier-abilities table waits the CPU delay before it moves.

README, Configuration: "`EIGHTS_CPU_DELAY` | `1.0` | seconds a CPU player waits before moving". In the
standard game every CPU seat waits it (one person and three CPUs: CPU 1 moves, a delay later CPU 2, ...).
At a crazier-abilities table the scheduler played every CPU seat that may act in one go
(``TableScheduler._crazier_cpu``): after the first CPU's delay, all the CPUs' turns landed at once and the
person was to move again, the other CPUs having waited nothing.
"""

from __future__ import annotations

from bot.service import FakeClock, TableService
from tests.service.support import ALICE, CPU_DELAY, Recorder, open_with

MOVES = ("discarded", "played", "turn_ended")


def moved(recorder: Recorder, start: int) -> list[int]:
    """The seats that made a move (discard, effect, end of turn) in the outcomes from ``start`` on."""
    seats: list[int] = []
    for outcome in recorder.outcomes[start:]:
        for event in outcome.public_events:
            if event.kind in MOVES and event.seat is not None and event.seat not in seats:
                seats.append(event.seat)
    return seats


async def test_each_crazier_cpu_seat_waits_its_delay(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(
        service, ALICE, cpus=("normal", "normal", "normal"), preset="crazier-abilities"
    )
    snap = await service.snapshot(table_id)
    acting = [s.position for s in snap.seats if s.to_act]
    # The seeded deal (tests/service/support.make_service, seed 7) lets CPU 1 (seat 1) lead the first turn.
    assert acting == [1], acting
    start = len(recorder.outcomes)
    await clock.advance(CPU_DELAY)
    seats = moved(recorder, start)
    assert seats and seats[0] == 1, f"CPU 1 did not move after its delay: {seats}"
    assert seats == [1], (
        f"one CPU delay ({CPU_DELAY} s) after CPU 1's turn began, seats {seats} had all moved: CPU 2 and "
        "CPU 3 did not wait their delay"
    )
