"""The rating board's page asks the store for each thing once: its two lists' sizes, the page of each list
that reaches this page, and the viewer's rating with their rank. Each size is a count of the guild's ratings
(on SQLite a read of the guild's statistics rows: migrations/0013), so one more is one more such read per
page. Both backends."""

from __future__ import annotations

from collections import Counter

from bot.service.standings import StandingsService
from bot.store.base import Store
from tests.service.test_standings import GUILD, CountingStore, record_match


async def _rated(store: Store) -> None:
    """Two ranked players (1 and 2: five matches) and four provisional ones (3 to 6: one match)."""
    for n in range(5):
        await record_match(store, guild_id=GUILD, ranking=[(1, "a", 1, 0), (2, "b", 2, 9)], now=1e9 + n)
    await record_match(store, guild_id=GUILD, ranking=[(3, "c", 1, 0), (4, "d", 2, 9)], now=2e9)
    await record_match(store, guild_id=GUILD, ranking=[(5, "e", 1, 0), (6, "f", 2, 9)], now=2e9 + 1)


async def test_the_default_board_counts_the_rating_lists_once(store: Store) -> None:
    """No sort given: the two sizes that choose the rating board are those it pages by, not counted again
    (it counted both lists twice, then the ranked list once more with the viewer's rank)."""
    await _rated(store)
    counting = CountingStore(store)
    board = await StandingsService(counting, page_size=2).leaderboard(GUILD, viewer_id=2)  # type: ignore[arg-type]
    assert board.sort == "rating" and (board.player_count, board.provisional_count) == (2, 4)
    assert counting.calls == Counter({"rating_board_size": 2, "rating_board": 2, "player_rating": 1})
    assert board.viewer_rating is not None
    assert (board.viewer_rating.rank, board.viewer_rating.ranked_count) == (2, 2)


async def test_a_rating_page_past_the_end_of_one_list_does_not_read_it(store: Store) -> None:
    """Page 2 of two ranked players two to a page: the ranked list has no row there and is not read; the
    provisional list's share of the page is."""
    await _rated(store)
    counting = CountingStore(store)
    board = await StandingsService(counting, page_size=2).leaderboard(  # type: ignore[arg-type]
        GUILD, viewer_id=2, sort="rating", page=2
    )
    assert board.rated == [] and {row.user_id for row in board.provisional} <= {3, 4, 5, 6}
    assert len(board.provisional) == 2
    assert counting.calls == Counter({"rating_board_size": 2, "rating_board": 1, "player_rating": 1})
