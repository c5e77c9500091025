"""The store's reads behind /eights history and the rating board's page, on both backends: the recent matches
paged by keyset (each page starts after the last match of the one before, whatever ties the finish times
have), and a rating read with the ranked list's size the caller has just counted."""

from __future__ import annotations

from bot.store import Store
from tests.store.conftest import GUILD
from tests.store.test_store import finish_match


async def test_recent_matches_page_on_after_the_last_one_seen(store: Store) -> None:
    """Pages of three, each ``before`` the last match of the previous one, list every match of the guild
    once, newest first (finish time, then table id: several matches end in the same second here)."""
    times = [1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 4.0, 5.0]
    ids = [await finish_match(store, 10 + i, [(11, 1, 0), (12, 2, 5)], now=at) for i, at in enumerate(times)]
    await finish_match(store, 99, [(11, 1, 0), (12, 2, 5)], now=2.0, guild_id=GUILD + 1)
    everything = await store.recent_matches(GUILD, limit=100)
    assert [m.table_id for m in everything] == sorted(
        ids, key=lambda i: (times[ids.index(i)], i), reverse=True
    )
    paged = []
    before = None
    while True:
        page = await store.recent_matches(GUILD, limit=3, before=before)
        paged += page
        if len(page) < 3:
            break
        before = (page[-1].finished_at, page[-1].table_id)
    assert [m.table_id for m in paged] == [m.table_id for m in everything]
    assert paged[0].ranking == everything[0].ranking and paged[-1].ranking == everything[-1].ranking


async def test_a_rating_read_takes_the_ranked_count_it_is_given(store: Store) -> None:
    """The rating board's page has just counted the ranked list: the viewer's rating carries that count
    instead of counting the list again; without it, the rating counts it."""
    for n in range(5):
        await finish_match(store, 10, [(11, 1, 0), (12, 2, 5)], now=float(n))
    counted = await store.player_rating(GUILD, 11)
    given = await store.player_rating(GUILD, 11, ranked_count=7)
    assert counted is not None and given is not None
    assert (counted.rank, counted.ranked_count) == (1, 2)
    assert (given.rank, given.ranked_count) == (1, 7)
