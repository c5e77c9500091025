"""Forget finds every closed table that names the person, also once retention has deleted its move log.

A person who joined a lobby and left it, or was removed from it, holds no seat there; once retention
(``MOVE_LOG_RETENTION_DAYS``) deleted the table's moves, nothing but the table's stored state (its "kicked"
list, the joined/left/kicked events of its recent plays) names them. Retention keeps who acted in the moves
it deletes (``pruned_actors``), so forget still finds such a table and anonymises it, and migration 0014 does
the same for the tables an older bot pruned. Each on both backends."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import FakeClock, TableService
from bot.service.server import ServerService
from bot.store import Store, parse_database_url
from bot.store.migrations import DEFAULT_MIGRATIONS_DIR, DEFAULT_POSTGRES_MIGRATIONS_DIR
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.backends import BACKENDS
from tests.service.support import GUILD, Recorder, make_service
from tests.service.test_forget import ANN, ZED, every_row, holding
from tests.store.test_migrations import copy_migrations

BEFORE_THE_NOTE = 13  # the last schema whose retention kept no note of who acted in what it deleted


async def prune_everything(store: Store, clock: FakeClock) -> None:
    """What the retention task does once the tables are old enough: every closed table's log deleted (in
    small batches, so that a table's log goes over several of them)."""
    while await store.prune_closed_moves(clock.now() + 10**9, 2, clock.now()):
        pass


async def left_lobby(service: TableService, how: str, channel: int = 1) -> int:
    """Zed joins Ann's lobby and leaves it (or Ann removes him); Ann ends the table."""
    table = (await service.open_table(GUILD, channel, ANN)).table_id
    await service.join(table, ZED)
    if how == "left":
        await service.leave(table, ZED)
    else:
        await service.kick(table, ANN, ZED.user_id)
    await service.end(table, ANN)
    return table


@pytest.mark.parametrize("how", ["left", "kicked"])
async def test_forget_after_retention_leaves_no_copy_of_a_person_who_left_the_lobby(
    how: str, service: TableService, store: Store, clock: FakeClock
) -> None:
    """Zed left Ann's lobby (or was removed from it); the table was ended and retention deleted its moves.
    Zed's request to be forgotten leaves no row of any table holding his id or name: the table's stored
    state and its untold lines are anonymised as at any table he played."""
    table = await left_lobby(service, how)
    await prune_everything(store, clock)
    assert await store.moves(table) == []
    assert await store.moves_pruned_at(table) is not None
    assert holding(await every_row(store), str(ZED.user_id), ZED.display_name)  # the state names him

    assert await ServerService(store).forget(ZED.user_id) > 0

    left = holding(await every_row(store), str(ZED.user_id), ZED.display_name)
    assert left == {}, f"after forget, rows still hold Zed's id or name: {left}"


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """The backend, and for PostgreSQL an empty schema of its own (migrated here from nothing)."""
    if request.param == "sqlite":
        return "sqlite", None
    return "postgresql", str(request.getfixturevalue("pg_schema_url"))


async def open_at(database: tuple[str, str | None], tmp_path: Path, upto: int | None) -> Store:
    backend, pg = database
    if backend == "sqlite":
        source = DEFAULT_MIGRATIONS_DIR
        folder = source if upto is None else copy_migrations(tmp_path / "old", upto, source)
        store: Store = await SqliteStore.open(str(tmp_path / "old.sqlite3"), migrations_dir=folder)
    else:
        assert pg is not None
        source = DEFAULT_POSTGRES_MIGRATIONS_DIR
        folder = source if upto is None else copy_migrations(tmp_path / "old_pg", upto, source)
        store = await PostgresStore.open(parse_database_url(pg), migrations_dir=folder)
    version = await store.migrate()
    assert upto is None or version == upto
    return store


@pytest.mark.parametrize("how", ["left", "kicked"])
async def test_forget_finds_the_tables_an_older_bot_pruned(
    how: str, database: tuple[str, str | None], tmp_path: Path
) -> None:
    """An older bot (schema 13) pruned the move log of a table whose lobby Zed left (or was removed from),
    keeping no note of who acted there. After the upgrade, Zed's request to be forgotten still leaves no row
    holding his id or name: migration 0014 noted the people such a table's stored state names."""
    clock = FakeClock()
    old = await open_at(database, tmp_path, BEFORE_THE_NOTE)
    try:
        service = make_service(old, clock, Recorder())
        table = await left_lobby(service, how)
        await service.close()
        await prune_everything(old, clock)
        assert await old.moves_pruned_at(table) is not None
    finally:
        await old.close()

    store = await open_at(database, tmp_path, None)
    try:
        assert holding(await every_row(store), str(ZED.user_id), ZED.display_name)
        assert await ServerService(store).forget(ZED.user_id) > 0
        left = holding(await every_row(store), str(ZED.user_id), ZED.display_name)
        assert left == {}, f"after forget, rows still hold Zed's id or name: {left}"
    finally:
        await store.close()


async def test_retention_notes_only_those_who_acted_and_forget_takes_the_person_out_of_the_note(
    service: TableService, store: Store, clock: FakeClock
) -> None:
    """Retention notes who acted in the moves it deleted (Ann, Zed), and nobody twice; forgetting Zed takes
    his row out of that note and leaves Ann's."""
    table = await left_lobby(service, "left")
    again = await left_lobby(service, "kicked", channel=2)
    await prune_everything(store, clock)
    noted = sorted(line for line in (await every_row(store))["pruned_actors"])
    assert noted == sorted(repr((person.user_id, t)) for person in (ANN, ZED) for t in (table, again)), noted

    await ServerService(store).forget(ZED.user_id)
    assert sorted((await every_row(store))["pruned_actors"]) == sorted(
        repr((ANN.user_id, t)) for t in (table, again)
    )
