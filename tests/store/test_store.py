"""The store's behaviour through its public methods, on each backend (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.shards import ShardSet
from bot.store import (
    ConflictError,
    GuildSettings,
    Heartbeat,
    MatchResult,
    MoveCommit,
    RankingEntry,
    RoundResult,
    SeatRecord,
    Store,
    StoreError,
    TableExistsError,
    UnsupportedDatabaseError,
    mask_password,
    open_store,
    parse_database_url,
)
from bot.store.migrations import DEFAULT_MIGRATIONS_DIR, discover
from bot.store.sqlite import SqliteStore
from bot.store.urls import for_libpq, without_password
from tests.backends import integrity_error, raw_execute
from tests.store.conftest import CHANNEL, GUILD, HOST, host_seat, new_table

LATEST = discover(DEFAULT_MIGRATIONS_DIR)[-1].version

# --- database URLs ------------------------------------------------------------------------------------------


def test_database_urls_name_relative_absolute_and_memory_paths() -> None:
    assert parse_database_url("sqlite:///data/bot.sqlite3").path == "data/bot.sqlite3"
    assert parse_database_url("sqlite:////var/lib/bot.db").path == "/var/lib/bot.db"
    assert parse_database_url("sqlite:///:memory:").is_memory
    # A query string is not part of the file name.
    assert parse_database_url("sqlite:///q.db?cache=shared").path == "q.db"


@pytest.mark.parametrize(
    "url", ["postgresql://u:s3cret@db.example:5432/eights", "postgres://u:s3cret@db.example/eights"]
)
def test_postgres_urls_select_postgres_and_mask_the_password(url: str) -> None:
    target = parse_database_url(url)
    assert target.backend == "postgresql" and target.password == "s3cret"
    assert "s3cret" not in target.shown and "u:***@db.example" in target.shown
    assert target.scrub(f"failed for {url} with s3cret") == f"failed for {target.shown} with ***"


@pytest.mark.parametrize("url", ["postgresql://u:secret@host/", "postgresql://u:secret@/db"])
def test_postgres_urls_without_host_or_database_are_refused(url: str) -> None:
    with pytest.raises(UnsupportedDatabaseError) as raised:
        parse_database_url(url)
    assert "secret" not in str(raised.value)


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u:secret@host/db",
        "postgresql:/u:secret@host/db",  # a slash short of a URL: still credentials before the @
        "sqlite://",
        "sqlite:///",
        "sqlite:///?cache=shared",
        "bot.sqlite3",
        "",
    ],
)
def test_other_urls_are_refused_without_leaking_passwords(url: str) -> None:
    with pytest.raises(UnsupportedDatabaseError) as raised:
        parse_database_url(url)
    assert "secret" not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u@db/eights?password=s3cret", "postgresql://u@db/eights?password=***"),
        (
            "postgresql://u@db/eights?sslmode=require&sslpassword=s3cret",
            "postgresql://u@db/eights?sslmode=require&sslpassword=***",
        ),
        ("postgresql://u:pa/s3cret@db/eights", "postgresql://u:***@db/eights"),
        ("postgresql://u:pa#s3cret@db/eights", "postgresql://u:***@db/eights"),
        ("postgresql://u:pa?s3cret@db/eights", "postgresql://u:***@db/eights"),
        ("postgresql://u:p@s3cret@db/eights", "postgresql://u:***@db/eights"),
        ("host=db user=u password=s3cret dbname=eights", "host=db user=u password=*** dbname=eights"),
        ("host=db password = 'a \\' s3cret' dbname=eights", "host=db password = '***' dbname=eights"),
    ],
)
def test_a_password_is_masked_wherever_the_url_holds_it(url: str, shown: str) -> None:
    """urlsplit misses a password= parameter, the keyword form, and cuts an unencoded / # ? @ wrongly."""
    assert mask_password(url) == shown


def test_a_password_parameter_is_a_secret_that_scrub_and_the_logs_remove() -> None:
    """The query's password is the one asyncpg sends when the URL has no user:password@."""
    target = parse_database_url("postgresql://u@db.example/eights?password=s%2F3cret&sslmode=require")
    assert target.password == "s/3cret"
    assert {"s/3cret", "s%2F3cret"} <= set(target.secrets)
    assert target.scrub("no s/3cret, nor s%2F3cret") == "no ***, nor ***"


@pytest.mark.parametrize("password", ["pa/s3cret", "pa#s3cret", "pa?s3cret", "p@s3cret"])
def test_an_unencoded_reserved_character_in_a_password_is_refused_saying_how_to_encode_it(
    password: str,
) -> None:
    """asyncpg would take such a password for the path, the fragment, the query or the host."""
    with pytest.raises(UnsupportedDatabaseError) as raised:
        parse_database_url(f"postgresql://u:{password}@db.example:5432/eights")
    assert "s3cret" not in str(raised.value) and "%2F" in str(raised.value)
    assert raised.value.expected is not None and "%40" in raised.value.expected


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:s3cret@db:99999/eights",
        "postgresql://u:s3cret@db:0/eights",
        "postgresql://u:s3cret@h1:5432,h2:70000/eights",
        "postgresql://u:s3cret@[::1]:65536/eights",
        "postgresql://u:s3cret@db:54x2/eights",
        "postgresql://u:s3cret@db/eights?port=99999",
    ],
)
def test_a_port_out_of_range_is_refused(url: str) -> None:
    """asyncpg raised OverflowError for it, outside the errors the store turns into one line."""
    with pytest.raises(UnsupportedDatabaseError, match="1 to 65535") as raised:
        parse_database_url(url)
    assert "s3cret" not in str(raised.value)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:p@h1:5432,h2:5433/db",
        "postgresql://u:p%2F%23%3F%40@[::1]:5432/db",
        "postgresql://u@db.example:5432/db?application_name=a@b",  # an @ in the query is no password
        "postgresql:///db?host=/run/postgresql&port=5433",
    ],
)
def test_multi_host_ipv6_and_socket_urls_are_accepted(url: str) -> None:
    assert parse_database_url(url).backend == "postgresql"


def test_the_url_without_its_password_keeps_the_user_hosts_and_options() -> None:
    """For pg_dump with PGPASSWORD: a password in the URL, even a masked one, would be sent instead."""
    url = "postgresql://eights:s3cret@h1:5432,h2:5433/eights?sslmode=require&password=s3cret&sslpassword=k"
    assert without_password(url) == "postgresql://eights@h1:5432,h2:5433/eights?sslmode=require"
    assert without_password("postgresql://eights:p%40ss@db/eights") == "postgresql://eights@db/eights"
    assert without_password("postgresql://db/eights") == "postgresql://db/eights"


def test_the_url_for_pg_dump_keeps_only_what_libpq_takes() -> None:
    """asyncpg sends a parameter it does not know to the server as a setting (README suggests
    ?synchronous_commit=on); libpq refuses the whole URL for one ("invalid URI query parameter")."""
    url = "postgresql://eights:s3cret@h1,h2:5433/eights?synchronous_commit=on&sslmode=require&search_path=x"
    assert for_libpq(url) == "postgresql://eights@h1,h2:5433/eights?sslmode=require"
    url = "postgresql:///eights?host=/run/postgresql&port=5433&application_name=a&password=s3cret"
    assert for_libpq(url) == "postgresql:///eights?host=/run/postgresql&port=5433&application_name=a"
    assert for_libpq("postgresql://db/eights?synchronous_commit=on") == "postgresql://db/eights"


async def test_sqlite_url_with_a_query_opens_the_named_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = await open_store("sqlite:///q.db?cache=shared")
    try:
        await store.migrate()
    finally:
        await store.close()
    assert (tmp_path / "q.db").is_file()
    assert not any("?" in path.name for path in tmp_path.iterdir())


async def test_postgres_connection_errors_never_show_the_password(pg_database: str) -> None:
    wrong = pg_database.replace("postgresql://", "postgresql://nobody_here:hunter2secret@").replace(
        "@postgres@", "@"
    )
    wrong = wrong.replace("127.0.0.1:5432", "127.0.0.1:1")  # nothing listens there
    with pytest.raises(StoreError) as raised:
        await open_store(wrong)
    assert "hunter2secret" not in str(raised.value) and "***" in str(raised.value)


async def test_open_store_creates_the_folder_and_does_not_migrate(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = await open_store("sqlite:///nested/dir/bot.sqlite3")
    try:
        assert (tmp_path / "nested" / "dir" / "bot.sqlite3").exists()
        assert await store.schema_version() == 0
        assert await store.migrate() == LATEST
    finally:
        await store.close()


async def test_memory_database_works() -> None:
    store = await open_store("sqlite:///:memory:")
    try:
        await store.migrate()
        table_id = await new_table(store)  # type: ignore[arg-type]
        assert (await store.get_state(table_id)) is not None
    finally:
        await store.close()


async def test_sqlite_connection_uses_wal(sqlite_store: SqliteStore) -> None:
    store = sqlite_store
    conn = sqlite3.connect(store.path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


async def test_the_schema_refuses_a_seat_at_no_table(store: Store) -> None:
    with pytest.raises(integrity_error(store), match=r"(?i)foreign key"):
        await raw_execute(
            store,
            "INSERT INTO seats (table_id, position, display_name, joined_at) VALUES (999999, 0, 'x', 0)",
        )


# --- tables and moves ---------------------------------------------------------------------------------------


async def test_create_table_seats_the_host_at_version_zero(store: Store) -> None:
    table_id = await new_table(store, options={"preset": "classic", "target": 50})
    table = await store.get_table(table_id)
    assert table is not None
    assert (table.guild_id, table.channel_id, table.host_id, table.status) == (GUILD, CHANNEL, HOST, "lobby")
    assert table.target == 50  # the option overrides the ruleset's 100
    assert table.ruleset == {"name": "classic", "target": 100}
    assert await store.list_seats(table_id) == [SeatRecord(0, HOST, "Host", joined_at=1.0)]
    state = await store.get_state(table_id)
    assert state is not None and state.version == 0 and state.state == {"phase": "lobby"}
    assert state.deadline == 700.0
    assert (await store.open_table_in_channel(CHANNEL)) == table


async def test_a_table_without_a_target_option_takes_the_rulesets(store: Store) -> None:
    table_id = await new_table(store, options={"preset": "classic"})
    table = await store.get_table(table_id)
    assert table is not None and table.target == 100


async def test_one_open_table_per_channel(store: Store) -> None:
    first = await new_table(store)
    with pytest.raises(TableExistsError) as raised:
        await new_table(store)
    assert raised.value.table_id == first
    # Another channel is fine; and once the first table finishes, its channel is free again.
    await new_table(store, channel_id=CHANNEL + 1)
    await store.commit_move(
        MoveCommit(
            first,
            0,
            actor_id=HOST,
            action={"end": True},
            events=[],
            new_state={},
            deadline=None,
            now=2.0,
            status="abandoned",
        )
    )
    assert await store.open_table_in_channel(CHANNEL) is None
    second = await new_table(store)
    assert second != first


async def test_the_database_itself_refuses_a_second_open_table(store: Store) -> None:
    await new_table(store)

    with pytest.raises(integrity_error(store)):
        await raw_execute(
            store,
            "INSERT INTO game_tables (guild_id, channel_id, host_id, status, ruleset, options, turn_timeout, "
            f"created_at, updated_at) VALUES (1, {CHANNEL}, 1, 'playing', '{{}}', '{{}}', 60, 0, 0)",
        )


async def test_commit_move_appends_the_log_and_replaces_state(store: Store) -> None:
    table_id = await new_table(store)
    version = await store.commit_move(
        MoveCommit(
            table_id,
            0,
            actor_id=HOST,
            action={"kind": "start"},
            events=[{"kind": "dealt", "visible_to": 0, "data": {"cards": ["KH"]}}],
            new_state={"phase": "playing", "turn": 1},
            deadline=250.0,
            now=200.0,
            status="playing",
            seats=[host_seat(), SeatRecord(1, None, "CPU 1", cpu_level="easy", joined_at=150.0)],
        )
    )
    assert version == 1
    version = await store.commit_move(
        MoveCommit(
            table_id,
            1,
            actor_id=None,
            action={"kind": "draw"},
            events=[],
            new_state={"turn": 2},
            deadline=None,
            now=210.0,
        )
    )
    assert version == 2
    state = await store.get_state(table_id)
    assert state is not None and (state.version, state.state, state.deadline) == (2, {"turn": 2}, None)
    moves = await store.moves(table_id)
    assert [(m.seq, m.version, m.actor_id, m.action["kind"]) for m in moves] == [
        (1, 1, HOST, "start"),
        (2, 2, None, "draw"),
    ]
    assert moves[0].events == [{"kind": "dealt", "visible_to": 0, "data": {"cards": ["KH"]}}]
    table = await store.get_table(table_id)
    assert table is not None and table.status == "playing" and table.updated_at == 210.0
    seats = await store.list_seats(table_id)
    assert [(s.position, s.user_id, s.cpu_level) for s in seats] == [(0, HOST, None), (1, None, "easy")]


async def test_a_stale_version_conflicts_and_writes_nothing(store: Store) -> None:
    table_id = await new_table(store)
    await store.commit_move(
        MoveCommit(
            table_id, 0, actor_id=HOST, action={"n": 1}, events=[], new_state={"n": 1}, deadline=None, now=1.0
        )
    )
    with pytest.raises(ConflictError) as raised:
        await store.commit_move(
            MoveCommit(
                table_id,
                0,
                actor_id=HOST,
                action={"n": 2},
                events=[],
                new_state={"n": 2},
                deadline=5.0,
                now=2.0,
                status="finished",
                match_result=MatchResult("classic", 1, [RankingEntry(0, HOST, "Host", 1, 0)]),
            )
        )
    assert (raised.value.expected_version, raised.value.actual_version) == (0, 1)
    state = await store.get_state(table_id)
    assert state is not None and state.state == {"n": 1} and state.version == 1
    assert len(await store.moves(table_id)) == 1
    assert (await store.get_table(table_id)).status == "lobby"  # type: ignore[union-attr]
    assert await store.player_stats(GUILD, HOST) is None
    with pytest.raises(ConflictError) as missing:
        await store.commit_move(
            MoveCommit(987654, 0, actor_id=None, action={}, events=[], new_state={}, deadline=None, now=1.0)
        )
    assert missing.value.actual_version is None


async def test_seat_list_replaces_the_seats(store: Store) -> None:
    table_id = await new_table(store)
    three = [host_seat(), SeatRecord(1, 11, "A", joined_at=2.0), SeatRecord(2, 12, "B", joined_at=3.0)]
    await store.commit_move(
        MoveCommit(
            table_id, 0, actor_id=11, action={}, events=[], new_state={}, deadline=None, now=3.0, seats=three
        )
    )
    taken_over = [
        host_seat(),
        SeatRecord(1, 11, "A", cpu_level="normal", cpu_takeover=True, joined_at=2.0, left_at=9.0),
    ]
    await store.commit_move(
        MoveCommit(
            table_id,
            1,
            actor_id=12,
            action={},
            events=[],
            new_state={},
            deadline=None,
            now=9.0,
            seats=taken_over,
        )
    )
    assert await store.list_seats(table_id) == taken_over


async def test_move_log_is_append_only(store: Store) -> None:
    table_id = await new_table(store)
    await store.commit_move(
        MoveCommit(
            table_id, 0, actor_id=HOST, action={"a": 1}, events=[], new_state={}, deadline=None, now=1.0
        )
    )
    for sql in ("UPDATE moves SET action = '{}'", "UPDATE moves SET events = '[]'", "DELETE FROM moves"):
        with pytest.raises(integrity_error(store), match="append-only"):
            await raw_execute(store, sql)


async def test_load_open_tables_returns_only_open_ones_with_seats_and_state(store: Store) -> None:
    lobby = await new_table(store, channel_id=1, state={"t": "lobby"})
    playing = await new_table(store, channel_id=2, state={"t": "playing"})
    closed = await new_table(store, channel_id=3)
    await store.commit_move(
        MoveCommit(
            playing,
            0,
            actor_id=HOST,
            action={},
            events=[],
            new_state={"t": "started"},
            deadline=42.0,
            now=5.0,
            status="playing",
            seats=[host_seat(), SeatRecord(1, None, "CPU", cpu_level="hard")],
        )
    )
    await store.commit_move(
        MoveCommit(
            closed,
            0,
            actor_id=HOST,
            action={},
            events=[],
            new_state={},
            deadline=None,
            now=5.0,
            status="finished",
        )
    )
    await store.set_board_message(playing, 555, now=6.0)
    loaded = {entry.table.id: entry for entry in await store.load_open_tables()}
    assert set(loaded) == {lobby, playing}
    assert loaded[playing].table.board_message_id == 555
    assert loaded[playing].state.state == {"t": "started"} and loaded[playing].state.deadline == 42.0
    assert loaded[playing].state.version == 1  # a board message id is not a move
    assert [seat.display_name for seat in loaded[playing].seats] == ["Host", "CPU"]
    assert loaded[lobby].state.version == 0


# --- results and standings ----------------------------------------------------------------------------------


async def finish_match(
    store: Store,
    channel_id: int,
    ranking: list[tuple[int | None, int, int]],  # (user_id, place, total) per seat position
    *,
    now: float,
    preset: str = "classic",
    guild_id: int = GUILD,
    round_wins: dict[int, int] | None = None,
    house_rules: dict[str, Any] | None = None,
) -> int:
    host = next(user for user, _, _ in ranking if user is not None)
    table_id = await new_table(store, guild_id=guild_id, channel_id=channel_id, host=host_seat(host), now=now)
    entries = [
        RankingEntry(position, user, f"P{user}", place, total)
        for position, (user, place, total) in enumerate(ranking)
    ]
    await store.commit_move(
        MoveCommit(
            table_id,
            0,
            actor_id=host,
            action={"kind": "play"},
            events=[],
            new_state={"over": True},
            deadline=None,
            now=now,
            status="finished",
            round_result=RoundResult(1, [total for _, _, total in ranking], [0]),
            match_result=MatchResult(
                preset,
                1,
                entries,
                round_wins=round_wins or {0: 1},
                round_points={p: t for p, (_, _, t) in enumerate(ranking)},
                house_rules=house_rules or {},
            ),
        )
    )
    return table_id


async def test_match_result_updates_statistics_once(store: Store) -> None:
    table_id = await finish_match(store, 1, [(11, 1, 0), (12, 2, 30), (None, 3, 50)], now=10.0)
    stats = await store.player_stats(GUILD, 11)
    assert stats is not None
    assert (stats.matches_played, stats.matches_won, stats.rounds_played, stats.rounds_won) == (1, 1, 1, 1)
    assert (stats.points, stats.best_place, stats.last_place, stats.last_played_at) == (2, 1, 1, 10.0)
    assert stats.favourite_preset == "classic"
    second = await store.player_stats(GUILD, 12)
    assert second is not None and (second.matches_won, second.points, second.round_points) == (0, 1, 30)
    # Committing the result again (a repeat after a crash) does not count the match twice.
    await store.commit_move(
        MoveCommit(
            table_id,
            1,
            actor_id=None,
            action={"again": True},
            events=[],
            new_state={},
            deadline=None,
            now=11.0,
            round_result=RoundResult(1, [99, 99, 99], [2]),
            match_result=MatchResult("classic", 1, [RankingEntry(0, 11, "P11", 1, 0)]),
        )
    )
    again = await store.player_stats(GUILD, 11)
    assert again is not None and again.matches_played == 1 and again.points == 2
    assert await store.round_results(table_id) == [RoundResult(1, [0, 30, 50], [0])]
    assert [entry.user_id for entry in await store.match_ranking(table_id)] == [11, 12, None]


async def test_statistics_accumulate_best_and_last_place(store: Store) -> None:
    await finish_match(store, 1, [(11, 1, 0), (12, 2, 10)], now=10.0)
    await finish_match(store, 2, [(11, 2, 40), (12, 1, 0), (13, 3, 90)], now=20.0, preset="switch")
    await finish_match(store, 3, [(11, 3, 50), (12, 1, 0), (13, 2, 9)], now=30.0, preset="switch")
    stats = await store.player_stats(GUILD, 11)
    assert stats is not None
    assert (stats.matches_played, stats.matches_won, stats.best_place, stats.last_place) == (3, 1, 1, 3)
    assert stats.points == 1 + 1 + 0
    assert stats.favourite_preset == "switch"
    assert await store.player_stats(GUILD + 1, 11) is None  # statistics are per guild


async def test_leaderboard_sorts_pages_and_ranks(store: Store) -> None:
    # Points = opponents finished ahead of: 11 gets 2 + 1, 12 gets 1 + 0 + 3, 13 gets 0 + 2.
    await finish_match(store, 1, [(11, 1, 0), (12, 2, 5), (13, 3, 9)], now=1.0)
    await finish_match(store, 2, [(11, 1, 0), (12, 2, 5)], now=2.0)
    await finish_match(store, 3, [(12, 1, 0), (13, 2, 5), (14, 3, 7), (15, 4, 9)], now=3.0)
    by_wins = await store.leaderboard(GUILD, sort="wins")
    assert [(row.rank, row.user_id, row.matches_won) for row in by_wins[:2]] == [(1, 11, 2), (2, 12, 1)]
    by_points = await store.leaderboard(GUILD, sort="points")
    assert [(row.user_id, row.points) for row in by_points[:3]] == [(12, 4), (11, 3), (13, 2)]
    # Win rate with a minimum of 2 matches: 11 (1.0), 12 (1/3), 13 (0/2); 14 and 15 played once.
    by_rate = await store.leaderboard(GUILD, sort="winrate", min_matches=2)
    assert [row.user_id for row in by_rate] == [11, 12, 13]
    assert by_rate[1].win_rate == pytest.approx(1 / 3)
    assert await store.leaderboard_size(GUILD, sort="winrate", min_matches=2) == 3
    assert await store.leaderboard_size(GUILD) == 5
    page2 = await store.leaderboard(GUILD, sort="wins", offset=2, limit=2)
    assert [row.rank for row in page2] == [3, 4]
    assert [row.user_id for row in page2] == [row.user_id for row in by_wins[2:4]]
    mine = await store.leaderboard_rank(GUILD, 13, sort="points")
    assert mine is not None and mine.rank == 3 and mine.points == 2
    assert await store.leaderboard_rank(GUILD, 14, sort="winrate", min_matches=2) is None
    assert await store.leaderboard(GUILD + 1) == []


async def test_own_rank_agrees_with_the_full_board_for_every_player_and_order(store: Store) -> None:
    rng = random.Random(7)
    for match in range(40):
        players = rng.sample(range(1, 13), rng.choice((2, 3, 4)))
        totals = [rng.choice((0, 10, 10, 30)) for _ in players]  # many ties
        places = [1 + sum(1 for other in totals if other < total) for total in totals]
        await finish_match(store, match, list(zip(players, places, totals, strict=True)), now=float(match))
    for sort in ("wins", "winrate", "points"):
        board = await store.leaderboard(GUILD, sort=sort, limit=100, min_matches=4)
        assert len(board) == await store.leaderboard_size(GUILD, sort=sort, min_matches=4)
        for row in board:
            assert await store.leaderboard_rank(GUILD, row.user_id, sort=sort, min_matches=4) == row
        pages = [row for offset in range(0, len(board), 5) for row in await store.leaderboard(
            GUILD, sort=sort, offset=offset, limit=5, min_matches=4)]  # fmt: skip
        assert pages == board


async def test_recent_matches_newest_first(store: Store) -> None:
    first = await finish_match(store, 1, [(11, 1, 0), (12, 2, 5)], now=1.0)
    second = await finish_match(store, 2, [(12, 1, 0), (11, 2, 5)], now=2.0, preset="party")
    await finish_match(store, 3, [(12, 1, 0), (11, 2, 5)], now=3.0, guild_id=GUILD + 1)
    recent = await store.recent_matches(GUILD)
    assert [match.table_id for match in recent] == [second, first]
    assert recent[0].preset == "party" and recent[0].finished_at == 2.0
    assert [entry.user_id for entry in recent[0].ranking] == [12, 11]
    assert len(await store.recent_matches(GUILD, limit=1)) == 1
    assert recent[0].house_rules == {} and recent[1].house_rules == {}


async def test_a_match_keeps_its_house_rules_for_history(store: Store) -> None:
    rules = {"partnership": True, "draw_limit": 3, "after_draw": "draw-up-to", "skip_ranks": [11, 4]}
    # Partners share a place: both are counted as winners (the leaderboard counts the match for each).
    await finish_match(
        store, 1, [(11, 1, 0), (12, 3, 20), (13, 1, 0), (14, 3, 20)], now=1.0, house_rules=rules
    )
    (match,) = await store.recent_matches(GUILD)
    assert match.house_rules == rules
    board = {row.user_id: row for row in await store.leaderboard(GUILD, sort="wins")}
    assert board[11].matches_won == board[13].matches_won == 1
    assert board[12].matches_won == board[14].matches_won == 0 and board[12].matches_played == 1


async def test_forget_user_deletes_statistics_and_anonymises_closed_tables(store: Store) -> None:
    table_id = await finish_match(store, 1, [(11, 1, 0), (12, 2, 5)], now=1.0)
    live = await new_table(store, channel_id=9, host=host_seat(11))
    changed = await store.forget_user(11)
    assert changed > 0
    assert await store.player_stats(GUILD, 11) is None
    assert await store.player_stats(GUILD, 12) is not None
    assert [entry.user_id for entry in await store.match_ranking(table_id)] == [None, 12]
    assert all(seat.user_id != 11 for seat in await store.list_seats(table_id))
    assert all(move.actor_id != 11 for move in await store.moves(table_id))
    assert (await store.get_table(table_id)).host_id != 11  # type: ignore[union-attr]
    # The live table keeps its seat: the game in progress needs it. The operator is told which tables.
    assert (await store.list_seats(live))[0].user_id == 11
    assert await store.open_tables_of_user(11) == [live]
    assert [row.user_id for row in await store.leaderboard(GUILD)] == [12]


async def test_forget_user_in_one_guild_only(store: Store) -> None:
    await finish_match(store, 1, [(11, 1, 0), (12, 2, 5)], now=1.0)
    await finish_match(store, 2, [(11, 1, 0), (12, 2, 5)], now=1.0, guild_id=GUILD + 1)
    await store.forget_user(11, guild_id=GUILD)
    assert await store.player_stats(GUILD, 11) is None
    assert await store.player_stats(GUILD + 1, 11) is not None


# --- settings, meta, backup ---------------------------------------------------------------------------------


async def test_guild_settings_default_and_round_trip(store: Store) -> None:
    assert await store.get_guild_settings(GUILD) == GuildSettings(GUILD)
    settings = GuildSettings(GUILD, "party", 45.0, (7, 5), 99)
    await store.save_guild_settings(settings)
    assert await store.get_guild_settings(GUILD) == GuildSettings(GUILD, "party", 45.0, (5, 7), 99)
    await store.save_guild_settings(GuildSettings(GUILD))
    assert await store.get_guild_settings(GUILD) == GuildSettings(GUILD)
    house = GuildSettings(GUILD, "switch", 60.0, (), None, {"partnership": True, "hand_size": 6})
    await store.save_guild_settings(house)
    assert await store.get_guild_settings(GUILD) == house


async def test_meta_and_heartbeat(store: Store) -> None:
    assert await store.get_meta("command_tree_hash") is None
    await store.set_meta("command_tree_hash", "abc")
    await store.set_meta("command_tree_hash", "def")
    assert await store.get_meta("command_tree_hash") == "def"
    await store.delete_meta("command_tree_hash")
    await store.delete_meta("command_tree_hash")  # nothing to delete: not an error
    assert await store.get_meta("command_tree_hash") is None
    assert await store.read_heartbeat() is None
    await store.write_heartbeat(1234.5)
    assert await store.read_heartbeat() == 1234.5
    # One row per process, keyed by its shards: each process's health reads its own.
    await store.write_heartbeat(1300.0, "1/2", pid=77, host="box-b")
    await store.write_heartbeat(1240.0, "0/2", pid=76, host="box-a")
    await store.write_heartbeat(1250.0, "0/2", pid=76, host="box-a")
    assert await store.read_heartbeat("0/2") == 1250.0 and await store.read_heartbeat("1/2") == 1300.0
    assert await store.read_heartbeat("2/3") is None
    assert await store.heartbeats() == [
        Heartbeat("all", 1234.5),
        Heartbeat("0/2", 1250.0, 76, "box-a"),
        Heartbeat("1/2", 1300.0, 77, "box-b"),
    ]


async def test_a_clean_stop_marks_the_process_stopped_until_its_next_beat(store: Store) -> None:
    await store.write_heartbeat(1000.0, "0/2", pid=76, host="box-a")
    await store.write_heartbeat(1001.0, "1/2", pid=77, host="box-b")
    assert await store.heartbeat("0/2") == Heartbeat("0/2", 1000.0, 76, "box-a")
    await store.mark_stopped("0/2", 1010.0)
    assert await store.heartbeat("0/2") == Heartbeat("0/2", 1000.0, 76, "box-a", stopped_at=1010.0)
    assert await store.heartbeat("1/2") == Heartbeat("1/2", 1001.0, 77, "box-b")  # only its own row
    # Started again, the process beats: it is running, not stopped.
    await store.write_heartbeat(1020.0, "0/2", pid=78, host="box-a")
    assert await store.heartbeat("0/2") == Heartbeat("0/2", 1020.0, 78, "box-a")
    assert await store.heartbeat("2/3") is None


async def test_backup_is_a_complete_standalone_copy(sqlite_store: SqliteStore, tmp_path: Path) -> None:
    store = sqlite_store
    table_id = await finish_match(store, 1, [(11, 1, 0), (12, 2, 5)], now=1.0)
    target = tmp_path / "backups" / "copy.sqlite3"
    await store.backup(str(target))
    assert not (tmp_path / "backups" / "copy.sqlite3-wal").exists()
    copy = await SqliteStore.open(str(target))
    try:
        assert await copy.integrity_check() == ["ok"]
        assert await copy.migrate() == LATEST  # nothing pending, checksums match
        assert await copy.moves(table_id) == await store.moves(table_id)
        assert await copy.player_stats(GUILD, 11) == await store.player_stats(GUILD, 11)
    finally:
        await copy.close()


async def test_postgres_backup_says_how_to_use_pg_dump(pg_url: str) -> None:
    store = await open_store(pg_url)
    try:
        with pytest.raises(StoreError, match=r"pg_dump --format=custom --file=out\.dump") as raised:
            await store.backup("out.dump")
        assert "pg_restore" in str(raised.value)
    finally:
        await store.close()


async def test_backup_refuses_to_overwrite_the_database(sqlite_store: SqliteStore) -> None:
    store = sqlite_store
    await new_table(store)
    with pytest.raises(StoreError, match="database itself"):
        await store.backup(store.path)
    assert await store.integrity_check() == ["ok"]
    assert await store.open_table_in_channel(CHANNEL) is not None


async def test_backup_while_moves_are_being_committed_is_consistent(
    sqlite_store: SqliteStore, tmp_path: Path
) -> None:
    store = sqlite_store
    tables = [await new_table(store, channel_id=channel) for channel in range(1, 4)]
    writer = await SqliteStore.open(store.path)  # another connection, as the running bot would be
    stop = asyncio.Event()

    async def keep_playing(table_id: int) -> int:
        version = 0
        while not stop.is_set():
            version = await writer.commit_move(
                MoveCommit(
                    table_id,
                    version,
                    actor_id=HOST,
                    action={"n": version},
                    events=[],
                    new_state={"n": version + 1},
                    deadline=None,
                    now=float(version),
                )
            )
        return version

    players = [asyncio.create_task(keep_playing(table_id)) for table_id in tables]
    try:
        await asyncio.sleep(0.05)
        target = tmp_path / "online.sqlite3"
        await store.backup(str(target))
        await asyncio.sleep(0.02)
    finally:
        stop.set()
        final = await asyncio.gather(*players)
        await writer.close()
    copy = await SqliteStore.open(str(target))
    try:
        assert await copy.integrity_check() == ["ok"]
        for table_id, last in zip(tables, final, strict=True):
            state = await copy.get_state(table_id)
            moves = await copy.moves(table_id)
            assert state is not None and 0 < state.version < last  # a snapshot taken mid-play
            assert len(moves) == state.version and state.state == {"n": state.version}
    finally:
        await copy.close()


async def test_close_still_closes_when_the_database_is_busy(tmp_path: Path) -> None:
    """Another process holding the database locked at shutdown must not make close() fail: the statistics
    refresh it runs first is skipped, and the connection is closed all the same."""
    store = await SqliteStore.open(str(tmp_path / "busy.sqlite3"))
    await store.migrate()
    # What a locked database does to the statistics refresh: an OperationalError. Here every statement on
    # the connection is interrupted from now on (SQLite's progress handler), which raises the same.
    await store.run_in_connection(lambda conn: conn.set_progress_handler(lambda: 1, 1))
    await store.close()
    with pytest.raises(ValueError):  # aiosqlite: "no active connection"
        await store.schema_version()


async def test_a_shard_process_loads_only_its_guilds_tables(store: Store) -> None:
    # Guild ids whose (id >> 22) % 3 is 0, 1, 2 and 0 again.
    guilds = [(5 << 22) * 3 + 1, ((7 * 3 + 1) << 22) + 99, (2 << 22) | 5, 3 << 30]
    tables = {g: await new_table(store, guild_id=g, channel_id=i + 1) for i, g in enumerate(guilds)}
    shard = {g: (g >> 22) % 3 for g in guilds}
    assert sorted(shard.values()) == [0, 0, 1, 2]
    for ids in ((0,), (1, 2), (2,)):
        loaded = await store.load_open_tables(ShardSet(3, ids))
        assert sorted(t.table.id for t in loaded) == sorted(tables[g] for g in guilds if shard[g] in ids)
        assert all(t.seats and t.state.version == 0 for t in loaded)
    assert len(await store.load_open_tables(ShardSet(3, (0, 1, 2)))) == 4
    assert len(await store.load_open_tables(ShardSet(3, None))) == 4
    assert len(await store.load_open_tables()) == 4
