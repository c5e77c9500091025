"""A table whose host left: the host role must stay with someone who is at the table. When everybody had
left (CPUs play every seat) and a person takes their seat back, that person is the only one present; the
role must not stay with a person whose seat a CPU plays (seats.pass_host's own reason: "An absent host
would leave nobody but managers able to end the table")."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from tests.service.support import ALICE, BOB, open_with


async def test_a_person_taking_back_a_seat_at_a_table_whose_host_left_can_end_it(
    service: TableService, clock: FakeClock
) -> None:
    table_id = await open_with(service, ALICE, BOB, turn_timeout=60)
    await service.leave(table_id, ALICE)  # the host leaves: the role passes to Bob
    assert (await service.snapshot(table_id)).host_id == BOB.user_id
    await service.leave(table_id, BOB)  # Bob leaves too: CPUs play both seats, Bob stays "host"
    outcome = await service.join(table_id, ALICE)  # Alice takes her seat back mid-match
    snap = outcome.snapshot
    assert not snap.seats[0].is_cpu and snap.seats[1].is_cpu
    # Alice is the only person playing; the host is Bob, whose seat a CPU plays and who left.
    assert snap.host_id == ALICE.user_id, (
        f"host is still {snap.host_id} (Bob, gone); Alice, the only person at the table, cannot end it"
    )
    await service.end(table_id, ALICE)
