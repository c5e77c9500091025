"""A data-deletion request forgets every copy of the person: after real play on each backend (hosting, a
finished match, a kick during a match, a lobby left, a kick in a lobby, a table ended as a manager), forget
through /eights forget's use case or ``python -m bot forget-user`` leaves no row of any table (listed from the
database's own catalogue) holding the person's id or name, and everyone else's standings as they were."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot import cli
from bot.service import Actor, FakeClock, ServiceError, TableService
from bot.service.server import ServerService
from bot.service.standings import StandingsService
from bot.store import Store
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.service.support import GUILD, next_timer, take_turn

# Discord-sized ids, so that finding one in a row's text cannot be a coincidence of small numbers.
ZED = Actor(712345678901234567, "Zed Forgetme")
ANN = Actor(812345678901234568, "Ann Keeper")
BEA = Actor(912345678901234569, "Bea Keeper")
MOD = Actor(612345678901234566, "Mod", can_manage=True)
ZED_AS_MANAGER = Actor(ZED.user_id, ZED.display_name, can_manage=True)
PEOPLE = {a.user_id: a for a in (ZED, ANN, BEA)}
TARGET = 30


async def play_out(service: TableService, clock: FakeClock, table_id: int) -> None:
    """The people click their turns and the timers run the rest, until the table closes."""
    for _ in range(5000):
        try:
            snap = await service.snapshot(table_id)
        except ServiceError:
            return
        seat = snap.seats[snap.to_act] if snap.phase == "playing" and snap.to_act is not None else None
        if seat is not None and not seat.is_cpu and seat.user_id is not None:
            await take_turn(service, table_id, PEOPLE[seat.user_id])
        elif not await next_timer(clock):
            raise AssertionError("nothing left to happen")
    raise AssertionError("the table never closed")


async def fill(service: TableService, clock: FakeClock) -> None:
    """Zed at every kind of table, each closed at the end."""
    # 1. Zed hosts and plays a match to its end.
    first = (await service.open_table(GUILD, 1, ZED, target=TARGET)).table_id
    await service.join(first, ANN)
    await service.add_cpu(first, ZED, "easy")
    await service.start(first, ZED)
    await play_out(service, clock, first)
    # 2. Zed is kicked during a match: a CPU plays the seat to the end.
    second = (await service.open_table(GUILD, 2, ANN, target=TARGET)).table_id
    await service.join(second, ZED)
    await service.join(second, BEA)
    await service.start(second, ANN)
    await service.kick(second, ANN, ZED.user_id)
    await play_out(service, clock, second)
    # 3. Zed joins a lobby and leaves it; its host ends the table.
    third = (await service.open_table(GUILD, 3, ANN)).table_id
    await service.join(third, ZED)
    await service.leave(third, ZED)
    await service.end(third, ANN)
    # 4. Zed is kicked from a lobby; a manager who is not seated ends the table.
    fourth = (await service.open_table(GUILD, 4, BEA)).table_id
    await service.join(fourth, ZED)
    await service.kick(fourth, BEA, ZED.user_id)
    await service.end(fourth, MOD)
    # 5. Zed opens a lobby and leaves it to Ann, who ends it.
    fifth = (await service.open_table(GUILD, 5, ZED)).table_id
    await service.join(fifth, ANN)
    await service.leave(fifth, ZED)
    await service.end(fifth, ANN)
    # 6. Zed, a manager, ends a table where he has no seat.
    sixth = (await service.open_table(GUILD, 6, BEA)).table_id
    await service.end(sixth, ZED_AS_MANAGER)
    # Others play on without Zed.
    seventh = (await service.open_table(GUILD, 7, ANN, target=TARGET)).table_id
    await service.join(seventh, BEA)
    await service.start(seventh, ANN)
    await play_out(service, clock, seventh)


async def every_row(store: Store) -> dict[str, list[str]]:
    """Every row of every table the database's catalogue lists, each as the text of its values."""
    if isinstance(store, SqliteStore):

        def read(conn: Any) -> dict[str, list[str]]:
            names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {
                name: [repr(tuple(row)) for row in conn.execute(f'SELECT * FROM "{name}"')] for name in names
            }

        return await store.run_in_connection(read)
    assert isinstance(store, PostgresStore)

    async def fetch(conn: asyncpg.Connection) -> dict[str, list[str]]:
        names = [
            r[0]
            for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        ]
        return {
            name: [repr(tuple(row)) for row in await conn.fetch(f'SELECT * FROM "{name}"')] for name in names
        }

    return await store.run_in_connection(fetch)


def holding(rows: dict[str, list[str]], *needles: str) -> dict[str, list[str]]:
    return {
        table: found
        for table, texts in rows.items()
        if (found := [text for text in texts if any(needle in text for needle in needles)])
    }


async def standings(store: Store) -> dict[str, Any]:
    """What the others see of their standings: the leaderboard, each one's statistics, the history."""
    service = StandingsService(store)
    board = await service.leaderboard(GUILD, viewer_id=ANN.user_id, sort="wins")
    history = await service.history(GUILD)
    return {
        "board": [(row.user_id, row.matches_played, row.matches_won, row.points) for row in board.rows],
        "stats": [await service.stats(GUILD, person.user_id) for person in (ANN, BEA)],
        "history": [
            [(p.position, p.user_id, p.display_name, p.place, p.total) for p in match.ranking]
            for match in history
        ],
    }


def without_zed(seen: dict[str, Any]) -> dict[str, Any]:
    return {
        **seen,
        "board": [row for row in seen["board"] if row[0] != ZED.user_id],
        "history": [
            [
                (position, None, "Deleted player", place, total) if user == ZED.user_id else entry
                for entry in ranking
                for position, user, _, place, total in [entry]
            ]
            for ranking in seen["history"]
        ],
    }


@pytest.mark.parametrize("via", ["service", "cli"])
async def test_forget_leaves_no_copy_of_the_person(
    via: str,
    service: TableService,
    store: Store,
    clock: FakeClock,
    backend_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await fill(service, clock)
    assert await store.open_tables_of_user(ZED.user_id) == []
    needles = (str(ZED.user_id), ZED.display_name)
    before = holding(await every_row(store), *needles)
    # Zed is everywhere before: the check below can see him.
    assert {"seats", "moves", "game_state", "game_tables", "match_rankings", "player_stats"} <= set(before)
    seen = await standings(store)
    assert any(row[0] == ZED.user_id for row in seen["board"])

    if via == "service":
        assert await ServerService(store).forget(ZED.user_id) > 0
    else:
        monkeypatch.chdir(tmp_path)
        for name, value in {"DISCORD_TOKEN": "x" * 59, "DATABASE_URL": backend_url}.items():
            monkeypatch.setenv(name, value)
        assert await asyncio.to_thread(cli.main, ["forget-user", str(ZED.user_id)]) == 0

    assert holding(await every_row(store), *needles) == {}
    assert await standings(store) == without_zed(seen)
