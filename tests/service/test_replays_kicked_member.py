"""Review of the kicked member's privacy (e8b0ad1) in replays."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.service.replays import ReplayService
from bot.store import Store
from tests.service.support import ALICE, BOB, CAROL, GUILD, Recorder, drive, make_service, open_with


async def test_a_kicked_member_replaying_the_match_sees_no_cards_of_their_old_seat_after_the_kick(
    store: Store,
) -> None:
    """The host kicks bob during the match; the CPU plays his old seat to the end. Live, bob is shown none
    of the CPU's cards (``was_kicked``: "cards that are no longer theirs"). His replay of the match must not
    show them either: from the kick on, his hand is None, as a non-player's. The replay takes the viewer's
    seat by user id (the seat keeps it) and shows that seat's hand at every step, the CPU's included."""
    clock = FakeClock()
    service: TableService = make_service(store, clock, Recorder(), seed=11)
    table_id = await open_with(service, ALICE, BOB, CAROL, target=30)
    await service.kick(table_id, ALICE, BOB.user_id)
    assert await drive(service, clock, table_id, until=lambda s: False, max_steps=20_000) is None
    await service.close()

    replays = ReplayService(store)
    first = await replays.step(GUILD, table_id, BOB.user_id, 0)
    kicked_at = None
    shown_after_kick = []
    for index in range(first.count):
        step = await replays.step(GUILD, table_id, BOB.user_id, index)
        if kicked_at is None and any(line.kind == "taken_over" for line in step.lines):
            kicked_at = index
            continue
        if kicked_at is not None and step.hand:
            shown_after_kick.append((index, step.hand))
    assert kicked_at is not None
    assert shown_after_kick == [], f"bob sees the CPU's cards of his old seat: {shown_after_kick[:2]}"
