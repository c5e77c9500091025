"""copy-db: a SQLite database moved to PostgreSQL (and back) keeps every table, game, result and statistic."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.store import MoveCommit, SeatRecord, Store, StoreError, open_store
from bot.store.copy import COPIED, copy_database
from tests.store.conftest import GUILD, host_seat, new_table
from tests.store.test_store import finish_match


async def fill(store: Store) -> tuple[int, int]:
    """Finished matches with statistics, a table in play with seats and moves, settings and meta."""
    await finish_match(store, 1, [(11, 1, 0), (12, 2, 5), (None, 3, 9)], now=10.0)
    await finish_match(store, 2, [(12, 1, 0), (11, 2, 7)], now=20.0, preset="party")
    live = await new_table(store, channel_id=3, host=host_seat(11), state={"phase": "lobby"})
    await store.commit_move(MoveCommit(
        live, 0, actor_id=11, action={"kind": "start"}, events=[{"kind": "dealt", "visible_to": 0}],
        new_state={"phase": "playing", "turn": 1}, deadline=1234.5, now=30.0, status="playing",
        seats=[host_seat(11), SeatRecord(1, None, "CPU", cpu_level="hard", cpu_takeover=True)],
    ))  # fmt: skip
    await store.set_board_message(live, 777, now=31.0)
    await store.set_meta("command_tree_hash:global", "abc")
    await store.write_heartbeat(40.0)
    from bot.store import GuildSettings

    await store.save_guild_settings(GuildSettings(GUILD, "party", 45.0, (5, 7), 99))
    return live, 2


async def snapshot(store: Store, tables: list[int]) -> dict[str, object]:
    return {
        "open": [(t.table, t.seats, t.state) for t in await store.load_open_tables()],
        "tables": [await store.get_table(t) for t in tables],
        "moves": [await store.moves(t) for t in tables],
        "rounds": [await store.round_results(t) for t in tables],
        "rankings": [await store.match_ranking(t) for t in tables],
        "board": await store.leaderboard(GUILD, min_matches=1),
        "stats": [await store.player_stats(GUILD, user) for user in (11, 12)],
        "recent": await store.recent_matches(GUILD),
        "settings": await store.get_guild_settings(GUILD),
        "meta": await store.get_meta("command_tree_hash:global"),
    }


async def test_sqlite_to_postgres_and_back_keeps_everything(tmp_path: Path, pg_schema_url: str) -> None:
    source_url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    source = await open_store(source_url)
    await source.migrate()
    live, _ = await fill(source)
    tables = list(range(1, live + 1))
    expected = await snapshot(source, tables)
    counts = await source.row_counts()
    await source.close()

    report = await copy_database(source_url, pg_schema_url)
    assert report.counts == {table: counts[table] for table in COPIED}
    assert report.open_tables == 1 and report.counts["game_tables"] == 3
    target = await open_store(pg_schema_url)
    try:
        assert await snapshot(target, tables) == expected
        assert await target.heartbeats() == []  # the old processes' heartbeats stay behind
    finally:
        await target.close()

    back_url = f"sqlite:///{tmp_path / 'back.sqlite3'}"
    await copy_database(pg_schema_url, back_url)
    for url in (pg_schema_url, back_url):
        copy = await open_store(url)
        try:
            assert await snapshot(copy, tables) == expected
            # New tables get new ids: an id in an old button never points at a new table.
            assert await new_table(copy, channel_id=99) == live + 1
        finally:
            await copy.close()


async def test_a_target_that_is_not_empty_is_refused_and_left_alone(tmp_path: Path, pg_url: str) -> None:
    source_url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    source = await open_store(source_url)
    await source.migrate()
    await fill(source)
    await source.close()
    target = await open_store(pg_url)
    try:
        await new_table(target, channel_id=5)
        with pytest.raises(StoreError, match="not empty"):
            await copy_database(source_url, pg_url)
        assert (await target.row_counts())["game_tables"] == 1
    finally:
        await target.close()


async def test_the_same_database_twice_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    with pytest.raises(StoreError, match="same database"):
        await copy_database(url, url)
