"""``python -m bot forget-user`` for a person who joined a lobby and left it (or was removed from it) while
that table is still open.

forget-user leaves open tables alone (their game needs them) and names, in its note, every open table that
holds the person: a seat, or a lobby they left or were removed from, whose state and moves name them as
well. Run again once such a table has finished, it leaves no copy of the person there. Both backends."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot import cli
from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import GUILD, clock, recorder, service, store
from tests.service.test_forget import ANN, BEA, ZED, every_row, holding, play_out

__all__ = ["clock", "recorder", "service", "store"]  # the table-service fixtures, over each backend


async def forget_user(user_id: int) -> None:
    """``python -m bot forget-user USER_ID`` (in a thread: the command runs an event loop of its own)."""
    assert await asyncio.to_thread(cli.main, ["forget-user", str(user_id)]) == 0


@pytest.mark.parametrize("how", ["left", "kicked"])
async def test_forget_user_names_an_open_lobby_the_person_left_and_forgets_them_there_once_it_finished(
    how: str,
    service: TableService,
    store: Store,
    clock: FakeClock,
    backend_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Zed joins Ann's lobby and leaves it (or Ann removes him); the admin runs forget-user for Zed while the
    lobby is open: its note names that table ("run this again after they finish"), which keeps Zed's id and
    name meanwhile. Ann and Bea play the table's match to its end; forget-user run again then leaves no row
    holding Zed's id or name, and no note."""
    table = (await service.open_table(GUILD, 1, ANN, target=30)).table_id
    await service.join(table, ZED)
    if how == "left":
        await service.leave(table, ZED)
    else:
        await service.kick(table, ANN, ZED.user_id)
    await service.join(table, BEA)
    assert await store.open_tables_of_user(ZED.user_id) == [table]
    monkeypatch.chdir(tmp_path)
    for name, value in {"DISCORD_TOKEN": "x" * 59, "DATABASE_URL": backend_url}.items():
        monkeypatch.setenv(name, value)

    await forget_user(ZED.user_id)
    said = capsys.readouterr().out
    assert f"note: open table(s) {table} still hold the user" in said, said
    assert "run this again after they finish" in said, said

    await service.start(table, ANN)
    await play_out(service, clock, table)
    assert (await store.get_table(table)).status == "finished"  # type: ignore[union-attr]
    assert holding(await every_row(store), str(ZED.user_id), ZED.display_name)  # the note was right
    assert await store.open_tables_of_user(ZED.user_id) == []

    await forget_user(ZED.user_id)
    assert "note:" not in capsys.readouterr().out
    left = holding(await every_row(store), str(ZED.user_id), ZED.display_name)
    assert left == {}, f"after forget-user, rows still hold Zed's id or name: {sorted(left)}"
