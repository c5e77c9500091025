"""A member the host kicked out of a match is credited with the result the CPU then earns at their seat.

README, Commands: "/eights kick member | remove a player; a CPU takes over their seat" (and a kicked member
"can't join this table again": bot/service/lobby.py). README, Ratings: "Every finished match updates its
players' ratings ... each CPU level (easy, normal, hard) has a rating of its own in each server, updated like
anyone's". A member removed from the table at the first turn played none of the match: the win the CPU went
on to earn at that seat is not theirs, yet the standings give them the win, the points and a rating rise
(they top the server's wins board and the rating board), while the CPU level that played the match is not
rated for it.
"""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.service.standings import StandingsService
from bot.store import Store
from tests.service.support import ALICE, BOB, GUILD, drive, open_with


async def test_a_member_kicked_at_the_start_is_not_credited_with_the_cpus_win(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, cpus=("easy",), target=30)
    await service.kick(table_id, ALICE, BOB.user_id)  # before anyone has played a card
    closed = await drive(service, clock, table_id, until=lambda snap: False, max_steps=20_000)
    assert closed is None  # the match was played to its end (by Alice and the CPUs) and recorded

    (match,) = await store.recent_matches(GUILD)
    bob_seat = next(entry for entry in match.ranking if entry.position == 1)  # Bob joined second
    assert bob_seat.place == 1  # the seed makes the CPU playing Bob's old seat win the match

    standings = StandingsService(store)
    board = await standings.leaderboard(GUILD, viewer_id=ALICE.user_id, sort="wins")
    winners = [row.user_id for row in board.rows if row.matches_won > 0]
    # Bob was removed before playing a card: the CPU's win at his old seat must not be his.
    assert BOB.user_id not in winners, (
        f"kicked member credited: {[(r.rank, r.user_id, r.matches_won, r.points) for r in board.rows]}"
    )
