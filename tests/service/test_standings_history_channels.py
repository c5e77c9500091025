"""/eights history over the channels a public answer may name (README, Replays: "`/eights history`, a public
answer, lists the matches of the channel it is asked in and of channels everyone in the server can read").

The service reads the server's matches newest first, a page after another, and lists those of channels
``readable`` lets through, until the page is full or the matches run out; it looks at ``HISTORY_SEARCHED``
matches at most for one answer. When it finds none of a readable channel it says so, never that no match
finished (some did), and tells nothing of the others. Both backends.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from bot.service import standings
from bot.service.errors import ServiceError
from bot.service.standings import StandingsService
from bot.store.base import Store
from tests.service.test_standings import GUILD, CountingStore, record_match

PUBLIC = 500
STAFF = 501
NO_MATCH_YET = "No match has finished in this server yet."
NONE_READABLE = (
    "No match has finished recently in this channel or in a channel everyone in this server can read."
)


class Channels:
    """``readable`` for the service: only PUBLIC's matches may be listed; counts the questions per channel."""

    def __init__(self) -> None:
        self.asked: Counter[int] = Counter()

    async def __call__(self, channel_id: int) -> bool:
        self.asked[channel_id] += 1
        return channel_id == PUBLIC


class ReadCounting(CountingStore):
    """Also counts the matches the store hands over."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.matches_read = 0

    def __getattr__(self, name: str) -> Any:
        call = super().__getattr__(name)
        if name != "recent_matches":
            return call

        async def counted(*args: Any, **kwargs: Any) -> Any:
            found = await call(*args, **kwargs)
            self.matches_read += len(found)
            return found

        return counted


async def _public(store: Store, now: float) -> int:
    return await record_match(
        store, guild_id=GUILD, ranking=[(1, "Ana", 1, 0), (2, "Ben", 2, 30)], channel_id=PUBLIC, now=now
    )


async def _staff(store: Store, count: int, since: float) -> None:
    for i in range(count):
        await record_match(
            store,
            guild_id=GUILD,
            ranking=[(3, "Staff", 1, 0), (None, "CPU 1", 2, 30)],
            channel_id=STAFF,
            now=since + i,
        )


async def test_history_lists_an_older_public_match_behind_many_staff_only_ones(store: Store) -> None:
    """The 40 newest matches were played in a staff-only channel: the public match before them is still
    listed. (The service looked at the last limit × SEARCHED_PER_SHOWN = 40 matches only, and told the member
    "No match has finished in this server yet.")"""
    public = await _public(store, 1_000.0)
    await _staff(store, 40, 2_000.0)
    channels = Channels()
    try:
        shown = await StandingsService(store).history(GUILD, readable=channels)
    except ServiceError as error:
        pytest.fail(f"history refused with {error.message!r} although a public match finished")
    assert [m.table_id for m in shown] == [public]
    assert channels.asked == Counter({STAFF: 1, PUBLIC: 1})  # once per channel, not per match


async def test_history_stops_at_its_bound_and_never_says_that_no_match_finished(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``HISTORY_SEARCHED`` matches looked at, the answer is what was found. None found: the refusal
    says that no recent match is of a readable channel, not that no match finished, and does not tell how
    many matches were looked at (the answer is public; those channels are not everyone's)."""
    monkeypatch.setattr(standings, "HISTORY_SEARCHED", 25)
    await _public(store, 1_000.0)  # beyond the bound
    await _staff(store, 30, 2_000.0)
    counting = ReadCounting(store)
    with pytest.raises(ServiceError) as refused:
        await StandingsService(counting).history(GUILD, readable=Channels())  # type: ignore[arg-type]
    assert refused.value.code == "no-matches"
    assert refused.value.message == NONE_READABLE
    assert counting.matches_read == 25


async def test_history_lists_the_matches_it_found_within_its_bound(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fewer readable matches than a page within the bound: those are listed (newest first), the rest of the
    page is not filled from beyond the bound."""
    monkeypatch.setattr(standings, "HISTORY_SEARCHED", 25)
    await _public(store, 1_000.0)  # beyond the bound
    await _staff(store, 20, 2_000.0)
    newer = [await _public(store, 3_000.0), await _public(store, 3_001.0)]
    await _staff(store, 3, 4_000.0)
    shown = await StandingsService(store).history(GUILD, readable=Channels())
    assert [m.table_id for m in shown] == newer[::-1]


async def test_history_of_staff_only_matches_does_not_say_that_none_finished(store: Store) -> None:
    """Every match of the server was played in a staff-only channel: the answer says none is of a channel
    everyone can read, not "No match has finished in this server yet." (false: some did)."""
    await _staff(store, 3, 2_000.0)
    with pytest.raises(ServiceError) as refused:
        await StandingsService(store).history(GUILD, readable=Channels())
    assert refused.value.message == NONE_READABLE
    with pytest.raises(ServiceError) as empty:
        await StandingsService(store).history(GUILD + 1, readable=Channels())
    assert empty.value.message == NO_MATCH_YET  # a server where none finished
