"""Migration 0009 on both backends: a database made by real play before ratings existed (schema 8) gets the
ratings of its stored matches, rated in the order they were played; migrating again changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.engine.ratings import OPENSKILL
from bot.service import FakeClock, TableService
from bot.store import Store
from bot.store.base import Rating
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.backends import BACKENDS
from tests.service.support import ALICE, BOB, CAROL, GUILD, Recorder, drive, make_service, open_with
from tests.store.test_partnership_places_migration import open_at
from tests.store.test_ratings import ratings_of

BEFORE = 8  # the last schema without ratings


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    if request.param == "sqlite":
        return "sqlite", None
    return "postgresql", str(request.getfixturevalue("pg_schema_url"))


async def play(service: TableService, clock: FakeClock, table_id: int) -> None:
    assert await drive(service, clock, table_id, until=lambda snapshot: False, max_steps=20_000) is None


async def play_three_matches(store: Store) -> dict[int, dict[int, str]]:
    """A free-for-all with a CPU, one of three people, and a partnership with two CPUs; returns each table's
    CPU seats' levels by position."""
    clock = FakeClock()
    service = make_service(store, clock, Recorder())
    levels: dict[int, dict[int, str]] = {}
    first = await open_with(service, ALICE, BOB, cpus=("easy",), target=30)
    await play(service, clock, first)
    levels[first] = {2: "easy"}
    second = await open_with(service, ALICE, BOB, CAROL, target=30)
    await play(service, clock, second)
    levels[second] = {}
    third = await open_with(service, ALICE, BOB, start=False, target=30)
    await service.set_house_rule(third, ALICE, "partnership", "on")
    await service.add_cpu(third, ALICE, "normal")
    await service.add_cpu(third, ALICE, "normal")
    await service.start(third, ALICE)
    await play(service, clock, third)
    levels[third] = {2: "normal", 3: "normal"}
    await service.close()
    return levels


async def expected_ratings(store: Store, levels: dict[int, dict[int, str]]) -> dict[object, object]:
    """The ratings the stored results make, replayed here in the order the matches finished (then by table
    id: two matches may finish in the same second)."""
    held: dict[tuple[int | None, str | None], tuple[Rating, int]] = {}
    for match in sorted(
        await store.recent_matches(GUILD, limit=10), key=lambda m: (m.finished_at, m.table_id)
    ):
        keys = {
            entry.position: (entry.user_id, None)
            if entry.user_id is not None
            else (None, levels[match.table_id][entry.position])
            for entry in match.ranking
        }
        places = {entry.position: entry.place for entry in match.ranking}
        positions = sorted(keys)
        sides = [[0, 2], [1, 3]] if match.house_rules.get("partnership") else [[p] for p in positions]
        before = [[held.get(keys[p], (Rating(*OPENSKILL.initial), 0))[0] for p in side] for side in sides]
        after = OPENSKILL.rate(before, [places[side[0]] for side in sides])
        seen: dict[tuple[int | None, str | None], list[tuple[float, float]]] = {}
        for side, news in zip(sides, after, strict=True):
            for position, new in zip(side, news, strict=True):
                seen.setdefault(keys[position], []).append(new)
        # A CPU level at several seats of a match takes the mean of their new ratings.
        for key, found in seen.items():
            mean = Rating(sum(r[0] for r in found) / len(found), sum(r[1] for r in found) / len(found))
            held[key] = (mean, held.get(key, (None, 0))[1] + 1)
    return dict(held)


async def assert_ratings_replayed(
    store: Store, levels: dict[int, dict[int, str]]
) -> tuple[dict[object, object], dict[tuple[int | None, str | None], Any]]:
    """The stored ratings (and their counts of matches) are those that ``expected_ratings`` replays; returns
    both."""
    expected = await expected_ratings(store, levels)
    found = await ratings_of(store, GUILD)
    assert found.keys() == expected.keys()
    for key, (rating, matches) in expected.items():
        assert found[key][1] == matches
        assert tuple(found[key][0]) == pytest.approx(tuple(rating), abs=1e-9)
    return expected, found


async def test_the_backfill_rates_the_matches_played_before_ratings(
    database: tuple[str, str | None], tmp_path: Path
) -> None:
    backend, pg = database
    old = await open_at(backend, tmp_path, pg, BEFORE)
    try:
        levels = await play_three_matches(old)
        assert len(await old.recent_matches(GUILD)) == 3
    finally:
        await old.close()
    store = await open_at(backend, tmp_path, pg, None)
    try:
        expected, found = await assert_ratings_replayed(store, levels)
        assert set(expected) == {
            (ALICE.user_id, None),
            (BOB.user_id, None),
            (CAROL.user_id, None),
            (None, "easy"),
            (None, "normal"),
        }
        alice = await store.player_rating(GUILD, ALICE.user_id)
        assert alice is not None and len(alice.history) == 3

        # Migrating again (another process starting, a restart) rates nothing twice.
        assert await store.migrate() >= 9
        assert await ratings_of(store, GUILD) == found
    finally:
        await store.close()


FOLDED = 13  # people's ratings moved into player_stats


async def count_ratings(store: Store) -> int:
    """The rows of the ratings table, read on the store's own connection (whatever its schema version)."""
    if isinstance(store, SqliteStore):
        return int(
            await store.run_in_connection(lambda c: c.execute("SELECT COUNT(*) FROM ratings").fetchone()[0])
        )
    assert isinstance(store, PostgresStore)

    async def count(conn: Any) -> int:
        return int(await conn.fetchval("SELECT COUNT(*) FROM ratings"))

    return await store.run_in_connection(count)


async def test_ratings_rated_before_0013_carry_over_into_the_statistics_rows(
    database: tuple[str, str | None], tmp_path: Path
) -> None:
    backend, pg = database
    old = await open_at(backend, tmp_path, pg, FOLDED - 1)
    try:
        levels = await play_three_matches(old)  # rated as they end, into the ratings table
        # Counted alone: row_counts counts every table of this bot's schema, some not made yet at 12.
        assert await count_ratings(old) == 5  # three people and two CPU levels
    finally:
        await old.close()
    store = await open_at(backend, tmp_path, pg, None)
    try:
        _, found = await assert_ratings_replayed(store, levels)
        alice = await store.player_rating(GUILD, ALICE.user_id)
        assert alice is not None and alice.matches == 3 and len(alice.history) == 3
        # The people's rows left the ratings table; their statistics are as they were.
        assert (await store.row_counts())["ratings"] == 2
        stats = await store.player_stats(GUILD, ALICE.user_id)
        assert stats is not None and stats.matches_played == 3

        # Migrating again changes nothing; the next match starts from the carried ratings.
        await store.migrate()
        assert await ratings_of(store, GUILD) == found
        await play_three_matches(store)
        again = await store.player_rating(GUILD, ALICE.user_id)
        assert again is not None and again.matches == 6 and again.history[:3] == alice.history
    finally:
        await store.close()
