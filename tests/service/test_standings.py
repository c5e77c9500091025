"""The standings use cases against the real SQLite store, with results recorded the way the game records them
(``commit_move`` with a ``MatchResult`` on a table made by ``create_table``)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from bot.service.errors import ServiceError
from bot.service.server import ServerService
from bot.service.standings import StandingsService
from bot.store.base import MatchResult, MoveCommit, RankingEntry, SeatRecord, Store

GUILD = 1_000
OTHER_GUILD = 2_000
_channels = itertools.count(10_000)

# One finished seat: (user id or None for a CPU, display name, place, total).
Finisher = tuple[int | None, str, int, int]


async def record_match(
    store: Store,
    *,
    guild_id: int,
    ranking: Sequence[Finisher],
    preset: str = "classic",
    rounds: int = 1,
    now: float = 1_700_000_000.0,
    round_points: dict[int, int] | None = None,
    channel_id: int | None = None,
) -> int:
    """Open a table and finish it with the given ranking in one move, as the service does at the end of a
    match. The winners (place 1) are credited with every round. Returns the table id."""
    host = next(f for f in ranking if f[0] is not None)
    table = await store.create_table(
        guild_id=guild_id,
        channel_id=channel_id if channel_id is not None else next(_channels),
        host=SeatRecord(position=0, user_id=host[0], display_name=host[1]),
        ruleset={"name": preset},
        options={"preset": preset},
        turn_timeout=90.0,
        state={},
        deadline=None,
        now=now,
    )
    entries = [
        RankingEntry(position=i, user_id=user, display_name=name, place=place, total=total)
        for i, (user, name, place, total) in enumerate(ranking)
    ]
    await store.commit_move(
        MoveCommit(
            table.id,
            0,
            actor_id=None,
            action={"kind": "end"},
            events=[],
            new_state={},
            deadline=None,
            now=now,
            status="finished",
            match_result=MatchResult(
                preset=preset,
                rounds_played=rounds,
                ranking=entries,
                round_wins={e.position: rounds for e in entries if e.place == 1},
                round_points=round_points or {e.position: e.total for e in entries},
            ),
        )
    )
    return table.id


async def win_against_cpu(
    store: Store, guild_id: int, user_id: int, *, times: int = 1, lose: int = 0
) -> None:
    for _ in range(times):
        await record_match(
            store, guild_id=guild_id, ranking=[(user_id, f"p{user_id}", 1, 0), (None, "CPU", 2, 30)]
        )
    for _ in range(lose):
        await record_match(
            store, guild_id=guild_id, ranking=[(None, "CPU", 1, 0), (user_id, f"p{user_id}", 2, 30)]
        )


class CountingStore:
    """The real store, counting the calls made to it, to hold the leaderboard to a few queries per page."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if not callable(attribute):
            return attribute

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return await attribute(*args, **kwargs)

        return counted


@pytest.fixture
async def twelve_players(store: Store) -> Store:
    """Players 1..12 in GUILD: player k has won k matches and lost one."""
    for user in range(1, 13):
        await win_against_cpu(store, GUILD, user, times=user, lose=1)
    return store


async def test_leaderboard_pages_through_the_board_by_wins(twelve_players: Store) -> None:
    service = StandingsService(twelve_players)
    first = await service.leaderboard(GUILD, viewer_id=12, sort="wins", page=1)
    assert [r.user_id for r in first.rows] == list(range(12, 2, -1))
    assert [r.rank for r in first.rows] == list(range(1, 11))
    assert (first.page, first.page_count, first.player_count) == (1, 2, 12)
    assert (first.has_previous, first.has_next) == (False, True)
    assert first.viewer is not None and first.viewer.rank == 1
    second = await service.leaderboard(GUILD, viewer_id=12, sort="wins", page=2)
    assert [(r.rank, r.user_id) for r in second.rows] == [(11, 2), (12, 1)]
    assert (second.has_previous, second.has_next) == (True, False)


async def test_viewer_off_the_page_still_gets_their_rank(twelve_players: Store) -> None:
    counting = CountingStore(twelve_players)
    service = StandingsService(counting)  # type: ignore[arg-type]
    board = await service.leaderboard(GUILD, viewer_id=1, sort="wins", page=1)
    assert all(r.user_id != 1 for r in board.rows)
    assert board.viewer is not None
    assert (board.viewer.rank, board.viewer.matches_won, board.viewer.matches_played) == (12, 1, 2)
    assert sum(counting.calls.values()) == 3  # size, page, rank


async def test_viewer_on_the_page_costs_no_extra_query(twelve_players: Store) -> None:
    counting = CountingStore(twelve_players)
    board = await StandingsService(counting).leaderboard(GUILD, viewer_id=5, sort="wins")  # type: ignore[arg-type]
    assert board.viewer is not None and board.viewer.rank == 8
    assert counting.calls == Counter({"leaderboard_size": 1, "leaderboard": 1})


async def test_viewer_who_never_played_has_no_row(twelve_players: Store) -> None:
    board = await StandingsService(twelve_players).leaderboard(GUILD, viewer_id=999, sort="wins")
    assert board.viewer is None
    assert board.viewer_id == 999


async def test_a_page_past_the_end_is_refused_unless_clamped(twelve_players: Store) -> None:
    service = StandingsService(twelve_players)
    with pytest.raises(ServiceError) as refused:
        await service.leaderboard(GUILD, viewer_id=1, sort="wins", page=3)
    assert refused.value.code == "page-out-of-range"
    assert refused.value.message == "The leaderboard has only 2 pages."
    clamped = await service.leaderboard(GUILD, viewer_id=1, sort="wins", page=7, clamp=True)
    assert clamped.page == 2
    assert [r.user_id for r in clamped.rows] == [2, 1]
    low = await service.leaderboard(GUILD, viewer_id=1, sort="wins", page=0, clamp=True)
    assert low.page == 1
    with pytest.raises(ServiceError, match="Pages start at 1"):
        await service.leaderboard(GUILD, viewer_id=1, sort="wins", page=0)


async def test_win_rate_board_needs_five_matches(store: Store) -> None:
    await win_against_cpu(store, GUILD, 1, times=4, lose=1)  # 80% of 5
    await win_against_cpu(store, GUILD, 2, times=3, lose=3)  # 50% of 6
    await win_against_cpu(store, GUILD, 3, times=3)  # 100% of 3: too few matches
    service = StandingsService(store)
    board = await service.leaderboard(GUILD, viewer_id=3, sort="winrate")
    assert [(r.user_id, r.win_rate) for r in board.rows] == [(1, 0.8), (2, 0.5)]
    assert board.player_count == 2
    assert board.viewer is None  # not ranked by win rate yet
    wins = await service.leaderboard(GUILD, viewer_id=3, sort="wins")
    assert [r.user_id for r in wins.rows] == [1, 2, 3]


async def test_points_count_opponents_beaten(store: Store) -> None:
    four = [(1, "a", 1, 0), (2, "b", 2, 10), (3, "c", 3, 20), (4, "d", 4, 30)]
    await record_match(store, guild_id=GUILD, ranking=four)
    await record_match(store, guild_id=GUILD, ranking=[(3, "c", 1, 0), (2, "b", 2, 5)])
    await record_match(store, guild_id=GUILD, ranking=[(3, "c", 1, 0), (1, "a", 2, 5)])
    board = await StandingsService(store).leaderboard(GUILD, viewer_id=1, sort="points")
    # Players 1 and 3 both beat three opponents; the tie goes to more wins (3 won twice, 1 once).
    assert [(r.user_id, r.points) for r in board.rows] == [(3, 3), (1, 3), (2, 2), (4, 0)]


async def test_empty_boards_are_refused_with_a_reason(store: Store) -> None:
    service = StandingsService(store)
    with pytest.raises(ServiceError, match="Nobody has finished a match"):
        await service.leaderboard(GUILD, viewer_id=1, sort="wins")
    await win_against_cpu(store, OTHER_GUILD, 1, times=6)
    with pytest.raises(
        ServiceError, match="Nobody has finished a match"
    ):  # another server's results don't count
        await service.leaderboard(GUILD, viewer_id=1, sort="wins")
    await win_against_cpu(store, GUILD, 1, times=2)
    with pytest.raises(ServiceError, match="finished 5 matches"):
        await service.leaderboard(GUILD, viewer_id=1, sort="winrate")


async def test_unknown_sort_is_refused(store: Store) -> None:
    with pytest.raises(ServiceError) as refused:
        await StandingsService(store).leaderboard(GUILD, viewer_id=1, sort="elo")
    assert refused.value.code == "unknown-sort"


async def test_stats_sum_up_a_players_matches(store: Store) -> None:
    await record_match(
        store,
        guild_id=GUILD,
        ranking=[(1, "a", 2, 40), (2, "b", 1, 10), (None, "CPU", 3, 70)],
        preset="switch",
        rounds=3,
        now=1_700_000_100.0,
        round_points={0: 40, 1: 10, 2: 70},
    )
    await record_match(
        store, guild_id=GUILD, ranking=[(1, "a", 1, 0), (2, "b", 2, 8)], rounds=2, now=1_700_000_200.0
    )
    await record_match(store, guild_id=GUILD, ranking=[(1, "a", 1, 0), (3, "c", 2, 8)], preset="switch")
    stats = await StandingsService(store).stats(GUILD, 1)
    assert (stats.matches_played, stats.matches_won) == (3, 2)
    assert (stats.rounds_played, stats.rounds_won) == (6, 3)
    assert stats.round_points == 40
    assert stats.best_place == 1
    assert stats.favourite_preset == "switch"
    assert stats.points == 1 + 1 + 1


async def test_stats_of_someone_who_never_played_are_refused(store: Store) -> None:
    await win_against_cpu(store, OTHER_GUILD, 1)
    service = StandingsService(store)
    with pytest.raises(ServiceError, match=r"^You haven't finished a match in this server yet\.$"):
        await service.stats(GUILD, 1)
    with pytest.raises(ServiceError, match=r"^That member hasn't"):
        await service.stats(GUILD, 1, own=False)


async def test_history_is_newest_first_with_rankings(store: Store) -> None:
    older = await record_match(store, guild_id=GUILD, ranking=[(1, "a", 1, 0), (2, "b", 2, 9)], now=100.0)
    newer = await record_match(
        store, guild_id=GUILD, ranking=[(2, "b", 1, 0), (None, "CPU", 2, 4), (1, "a", 3, 9)], now=200.0
    )
    await record_match(store, guild_id=OTHER_GUILD, ranking=[(1, "a", 1, 0), (2, "b", 2, 9)], now=300.0)
    matches = await StandingsService(store).history(GUILD)
    assert [m.table_id for m in matches] == [newer, older]
    assert [(e.user_id, e.place) for e in matches[0].ranking] == [(2, 1), (None, 2), (1, 3)]


async def test_history_without_matches_is_refused(store: Store) -> None:
    with pytest.raises(ServiceError) as refused:
        await StandingsService(store).history(GUILD)
    assert refused.value.code == "no-matches"


async def test_forget_deletes_statistics_in_every_server(store: Store) -> None:
    await record_match(store, guild_id=GUILD, ranking=[(1, "a", 1, 0), (2, "b", 2, 9)])
    await record_match(store, guild_id=OTHER_GUILD, ranking=[(1, "a", 1, 0), (2, "b", 2, 9)])
    service = StandingsService(store)
    assert await ServerService(store).forget(1) > 0
    for guild in (GUILD, OTHER_GUILD):
        with pytest.raises(ServiceError):
            await service.stats(guild, 1)
        board = await service.leaderboard(guild, viewer_id=1, sort="wins")
        assert [r.user_id for r in board.rows] == [2]
        assert board.viewer is None
        (match,) = await service.history(guild)
        assert [e.user_id for e in match.ranking] == [None, 2]
        assert "a" not in [e.display_name for e in match.ranking]
    assert (await service.stats(GUILD, 2)).matches_played == 1


async def test_the_board_is_by_rating_once_the_server_has_ratings(store: Store) -> None:
    service = StandingsService(store, page_size=2)
    for n in range(5):  # 1 and 2 play five matches: ranked; 3 plays one: provisional
        await record_match(store, guild_id=GUILD, ranking=[(1, "a", 1, 0), (2, "b", 2, 9)], now=1e9 + n)
    await record_match(store, guild_id=GUILD, ranking=[(3, "c", 1, 0), (4, "d", 2, 9)], now=2e9)
    await record_match(store, guild_id=GUILD, ranking=[(5, "e", 1, 0), (6, "f", 2, 9)], now=2e9 + 1)
    board = await service.leaderboard(GUILD, viewer_id=2)
    # Two ranked, four provisional: the provisional list is paged alike, so two pages.
    assert board.sort == "rating" and (board.page_count, board.player_count) == (2, 2)
    assert [(row.rank, row.user_id, row.matches) for row in board.rated] == [(1, 1, 5), (2, 2, 5)]
    assert board.rated[0].skill > board.rated[1].skill
    # Four provisional ratings, this page's share of them shown (two here), best first.
    assert board.provisional_count == 4 and len(board.provisional) == 2
    assert board.provisional[0].skill >= board.provisional[1].skill
    assert board.viewer_rating is not None and board.viewer_rating.rank == 2
    second = await service.leaderboard(GUILD, viewer_id=2, sort="rating", page=2)
    assert second.rated == [] and len(second.provisional) == 2 and second.provisional_offset == 2
    assert {row.user_id for row in board.provisional + second.provisional} == {3, 4, 5, 6}
    assert board.provisional[-1].skill >= second.provisional[0].skill
    with pytest.raises(ServiceError) as info:
        await service.leaderboard(GUILD, viewer_id=2, sort="rating", page=3)
    assert info.value.message == "The rating board has only 2 pages."
    assert (await service.leaderboard(GUILD, viewer_id=2, page=5, clamp=True)).page == 2
    # Another server without results: the default stays wins, and asking for ratings says why there are none.
    with pytest.raises(ServiceError) as none:
        await service.leaderboard(GUILD + 1, viewer_id=2, sort="rating")
    assert none.value.message == "Nobody has a rating in this server yet: finish a match first."


async def test_every_provisional_player_is_on_some_page_of_the_rating_board(store: Store) -> None:
    """README, Ratings: players with fewer than 5 rated matches are listed apart. With fifteen of them (a new
    server: nobody ranked yet) and pages of ten, page 1 lists ten ("… and 5 more") and page 2 the other
    five: every one of them is on a page, none twice."""
    for n in range(15):
        await record_match(
            store, guild_id=GUILD, ranking=[(100 + n, f"p{n}", 1, 0), (None, "CPU 1", 2, 9)], now=1e9 + n
        )
    service = StandingsService(store)
    first = await service.leaderboard(GUILD, viewer_id=100)
    assert first.sort == "rating" and first.provisional_count == 15 and first.page_count == 2
    second = await service.leaderboard(GUILD, viewer_id=100, sort="rating", page=2)
    assert (len(first.provisional), len(second.provisional)) == (10, 5) and not second.has_next
    listed = [row.user_id for row in first.provisional + second.provisional if row.user_id is not None]
    assert sorted(listed) == [100 + n for n in range(15)]


async def test_stats_carry_the_rating_with_its_rank_change_and_history(store: Store) -> None:
    service = StandingsService(store)
    for n in range(6):
        winner, loser = ((1, "a"), (2, "b")) if n < 5 else ((2, "b"), (1, "a"))
        await record_match(store, guild_id=GUILD, ranking=[(*winner, 1, 0), (*loser, 2, 9)], now=1e9 + n)
    stats = await service.stats(GUILD, 1)
    assert stats.rating is not None
    assert (stats.rating.matches, stats.rating.rank, stats.rating.ranked_count) == (6, 1, 2)
    assert len(stats.rating.history) == 6 and stats.rating.history[-1] == pytest.approx(stats.rating.skill)
    assert stats.rating.change < 0 and stats.rating.history[4] > stats.rating.history[-1]  # lost the last one
