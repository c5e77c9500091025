"""Ratings in the store, on each backend: a finished match rates its seated people and CPU levels once, in
the result's transaction; the rating leaderboard's two lists; a player's rating, rank, change and history."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine.ratings import OPENSKILL
from bot.store import MatchResult, MoveCommit, RankingEntry, RoundResult, SeatRecord, Store
from bot.store.base import RATED_TO_RANK, Rating
from tests.store.conftest import GUILD, new_table

Seat = tuple[int | None, str | None, int]  # (user_id, CPU level, place) per seat position


def seat_records(seats: list[Seat]) -> list[SeatRecord]:
    return [
        SeatRecord(position, user, f"P{user}" if user else f"CPU {position}", cpu_level=level, joined_at=1.0)
        for position, (user, level, _) in enumerate(seats)
    ]


def match_result(seats: list[Seat], house_rules: dict[str, Any] | None = None) -> MatchResult:
    entries = [
        RankingEntry(position, user, f"P{user}" if user else f"CPU {position}", place, place * 10)
        for position, (user, _, place) in enumerate(seats)
    ]
    return MatchResult("classic", 1, entries, house_rules=house_rules or {})


async def finish(
    store: Store,
    channel_id: int,
    seats: list[Seat],
    *,
    now: float,
    house_rules: dict[str, Any] | None = None,
    guild_id: int = GUILD,
) -> int:
    records = seat_records(seats)
    host = next(record for record in records if record.user_id is not None)
    table_id = await new_table(store, guild_id=guild_id, channel_id=channel_id, host=host, now=now)
    await commit_result(store, table_id, 0, seats, now=now, house_rules=house_rules)
    return table_id


async def commit_result(
    store: Store,
    table_id: int,
    version: int,
    seats: list[Seat],
    *,
    now: float,
    house_rules: dict[str, Any] | None = None,
) -> None:
    await store.commit_move(
        MoveCommit(
            table_id,
            version,
            actor_id=None,
            action={"kind": "play"},
            events=[],
            new_state={"over": True},
            deadline=None,
            now=now,
            seats=seat_records(seats),
            status="finished",
            round_result=RoundResult(1, [place for *_, place in seats], [0]),
            match_result=match_result(seats, house_rules),
        )
    )


async def ratings_of(store: Store, guild_id: int = GUILD) -> dict[tuple[int | None, str | None], Any]:
    rows = [
        *await store.rating_board(guild_id, ranked=True, limit=100),
        *await store.rating_board(guild_id, ranked=False, limit=100),
    ]
    return {(row.user_id, row.cpu_level): (row.rating, row.matches) for row in rows}


async def test_a_match_rates_its_people_and_cpu_levels(store: Store) -> None:
    await finish(store, 1, [(11, None, 2), (None, "hard", 1), (12, None, 3)], now=10.0)
    expected = [
        [Rating(*pair) for pair in side] for side in OPENSKILL.rate([[OPENSKILL.initial]] * 3, [2, 1, 3])
    ]
    assert await ratings_of(store) == {
        (11, None): (expected[0][0], 1),
        (None, "hard"): (expected[1][0], 1),
        (12, None): (expected[2][0], 1),
    }
    # The next match starts from those ratings; the CPU level's rating is shared by every hard seat.
    await finish(store, 2, [(None, "hard", 1), (11, None, 2)], now=20.0)
    again = [
        [Rating(*pair) for pair in side]
        for side in OPENSKILL.rate([[expected[1][0]], [expected[0][0]]], [1, 2])
    ]
    found = await ratings_of(store)
    assert found[(None, "hard")] == (again[0][0], 2) and found[(11, None)] == (again[1][0], 2)


async def test_a_seat_the_cpu_took_over_rates_its_person(store: Store) -> None:
    await finish(store, 1, [(11, "normal", 1), (12, None, 2)], now=10.0)
    assert set(await ratings_of(store)) == {(11, None), (12, None)}


async def test_a_partnership_rates_the_sides_as_teams(store: Store) -> None:
    await finish(
        store,
        1,
        [(11, None, 2), (12, None, 1), (13, None, 2), (None, "easy", 1)],
        now=10.0,
        house_rules={"partnership": True},
    )
    new = OPENSKILL.initial
    losers, winners = [
        [Rating(*p) for p in side] for side in OPENSKILL.rate([[new, new], [new, new]], [2, 1])
    ]
    found = await ratings_of(store)
    assert found[(11, None)][0] == losers[0] and found[(13, None)][0] == losers[1]
    assert found[(12, None)][0] == winners[0] and found[(None, "easy")][0] == winners[1]


async def test_a_repeated_result_rates_nothing_twice(store: Store) -> None:
    seats: list[Seat] = [(11, None, 1), (12, None, 2)]
    table_id = await finish(store, 1, seats, now=10.0)
    before = await ratings_of(store)
    # The same result committed again (a caller repeating itself after a crash) is skipped.
    await commit_result(store, table_id, 1, seats, now=11.0)
    assert await ratings_of(store) == before
    rating = await store.player_rating(GUILD, 11)
    assert rating is not None and rating.matches == 1 and len(rating.history) == 1


async def test_provisional_list_is_in_skill_order_and_pages(store: Store) -> None:
    # Its index holds only who is provisional (migration 0012): the order comes from sorting when read.
    await finish(store, 1, [(21, None, 1), (22, None, 2), (23, None, 3), (None, "hard", 4)], now=1.0)
    await finish(store, 2, [(21, None, 1), (24, None, 2)], now=2.0)
    listed = await store.rating_board(GUILD, ranked=False, limit=10)
    skills = [row.rating.skill for row in listed]
    assert len(listed) == 5 and skills == sorted(skills, reverse=True) and len(set(skills)) > 1
    assert [row.rank for row in listed] == [1, 2, 3, 4, 5]
    assert listed[0].user_id == 21 and any(row.cpu_level == "hard" for row in listed)
    page = await store.rating_board(GUILD, ranked=False, offset=2, limit=2)
    assert [(row.rank, row.user_id, row.cpu_level) for row in page] == [
        (row.rank, row.user_id, row.cpu_level) for row in listed[2:4]
    ]
    assert await store.rating_board_size(GUILD, ranked=False) == 5


async def test_board_lists_ranked_and_provisional_apart_and_player_rating(store: Store) -> None:
    # 11 beats 12 five times (both ranked); 13 plays once.
    for n in range(RATED_TO_RANK):
        await finish(store, 10 + n, [(11, None, 1), (12, None, 2)], now=100.0 + n)
    await finish(store, 99, [(13, None, 1), (14, None, 2)], now=200.0, guild_id=GUILD + 1)
    await finish(store, 98, [(13, None, 1), (12, None, 2)], now=201.0)
    ranked = await store.rating_board(GUILD, ranked=True)
    provisional = await store.rating_board(GUILD, ranked=False)
    assert [(row.rank, row.user_id) for row in ranked] == [(1, 11), (2, 12)]
    assert [(row.rank, row.user_id, row.matches) for row in provisional] == [(1, 13, 1)]
    assert ranked[0].rating.skill > ranked[1].rating.skill
    assert (
        await store.rating_board_size(GUILD) == 2 and await store.rating_board_size(GUILD, ranked=False) == 1
    )
    assert [row.user_id for row in await store.rating_board(GUILD, offset=1, limit=1)] == [12]

    mine = await store.player_rating(GUILD, 12, history=3)
    assert mine is not None and (mine.rank, mine.ranked_count, mine.matches) == (2, 2, RATED_TO_RANK + 1)
    assert len(mine.history) == 3 and mine.history[-1] == pytest.approx(mine.rating.skill)
    assert mine.change == pytest.approx(mine.history[-1] - mine.history[-2])
    assert mine.change < 0  # lost the last match
    provisional_player = await store.player_rating(GUILD, 13)
    assert provisional_player is not None and provisional_player.rank is None
    assert provisional_player.history == (pytest.approx(provisional_player.rating.skill),)
    first = provisional_player.change
    assert first == pytest.approx(provisional_player.rating.skill - Rating(25.0, 25.0 / 3).skill)
    assert await store.player_rating(GUILD, 99) is None


async def test_a_history_asked_longer_than_the_matches_played_gives_them_all(store: Store) -> None:
    # 12 matches, 20 asked: all 12 skills, oldest first (a negative slice start once gave the last 8 only).
    for n in range(12):
        await finish(store, 10 + n, [(11, None, 1), (12, None, 2)], now=100.0 + n)
    mine = await store.player_rating(GUILD, 11, history=20)
    assert mine is not None and mine.matches == 12
    assert len(mine.history) == 12
    assert list(mine.history) == sorted(mine.history)  # a player who won every match climbed every time
    assert mine.history[-1] == pytest.approx(mine.rating.skill)
    shorter = await store.player_rating(GUILD, 11, history=5)
    assert shorter is not None and shorter.history == mine.history[-5:]


def test_the_usual_matchs_ratings_are_rate_seats_ratings_bit_for_bit() -> None:
    # SQLite rates a free-for-all of people each at one seat by ratings.rate_people_alone: the same rows as
    # the general rate_seats (which the backfill and other matches use), on random matches with ties, people
    # new and rated, histories empty to full.
    import random

    from bot.store import ratings

    rng = random.Random(27)
    for _ in range(300):
        count = rng.randrange(1, 8)
        places = [rng.randrange(1, count + 1) for _ in range(count)]
        held: list[tuple[Any, ...]] = []
        for _ in range(count):
            if rng.random() < 0.3:
                held.append((None, None, None, None))
            else:
                recent = [rng.uniform(-5.0, 40.0) for _ in range(rng.randrange(1, ratings.RECENT + 1))]
                text = "[" + ",".join(repr(skill) for skill in recent) + "]"
                held.append((rng.uniform(10.0, 40.0), rng.uniform(0.5, 8.4), len(recent), text))
        seats = [(i, places[i], 100 + i, f"P{i}", None, *held[i]) for i in range(count)]
        general = [row[3:] for row in ratings.rate_seats(OPENSKILL, seats, False)]
        assert ratings.rate_people_alone(OPENSKILL, held, places) == general


async def test_equal_skills_keep_one_order_across_pages_and_in_each_rank(any_store: Store) -> None:
    """23 people with identical results (identical skills): every page continues the last one's ranks, no
    one twice or missing, and each person's rank (as /eights stats shows it) is their line on the board."""
    channel = 1
    for user in range(100, 123):
        for _ in range(RATED_TO_RANK):
            await finish(any_store, channel, [(user, None, 1), (user + 1000, None, 2)], now=float(channel))
            channel += 1
    size = await any_store.rating_board_size(GUILD)
    rows = []
    for offset in range(0, size, 10):
        rows += await any_store.rating_board(GUILD, offset=offset, limit=10)
    assert [row.rank for row in rows] == list(range(1, size + 1))
    assert len({(row.user_id, row.cpu_level) for row in rows}) == size
    for row in rows:
        assert row.user_id is not None
        mine = await any_store.player_rating(GUILD, row.user_id)
        assert mine is not None and mine.rank == row.rank


async def test_a_cpu_level_tied_with_people_ranks_alike_on_the_board_and_in_stats(any_store: Store) -> None:
    """A person and a CPU level that tie every match hold the same skill: the board and the person's rank
    agree on who is ahead."""
    channel = 1
    for _ in range(RATED_TO_RANK):
        await finish(any_store, channel, [(50, None, 1), (None, "hard", 1)], now=float(channel))
        await finish(any_store, channel + 1, [(40, None, 1), (None, "easy", 1)], now=float(channel + 1))
        channel += 2
    rows = await any_store.rating_board(GUILD, limit=10)
    assert len({row.rating.skill for row in rows}) == 1 and len(rows) == 4
    for row in rows:
        if row.user_id is not None:
            mine = await any_store.player_rating(GUILD, row.user_id)
            assert mine is not None and mine.rank == row.rank
