"""The standings' buttons (the leaderboard's Previous/Next, /eights forget's confirmation) when something goes
wrong under them: the database failing, or a custom id naming a number no database column holds. Bad input and
a failing database get a clear, short private answer and change nothing (a button has no command error
handler: left to discord.py's ``View.on_error``, the user would see Discord's "This interaction failed")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.exts._group import STORE_FAILED
from bot.store.base import DamagedDatabaseError
from bot.store.sqlite import SqliteStore
from bot.ui.standings import STANDINGS_COG
from tests.e2e.conftest import World
from tests.e2e.test_standings_e2e import seed, two_matches
from tests.fakediscord import FakeMessage
from tests.service.db_faults import SqliteDiskFull


async def twelve_players_board(world: World) -> tuple[FakeMessage, list[Any]]:
    """A two-page leaderboard (wins), asked for by the first of twelve players."""
    players = [world.fake.create_user(f"p{i}") for i in range(12)]
    for player in players:
        world.fake.add_member(world.guild, player)
    await seed(
        world,
        *(
            {"ranking": [(player.id, player.name, 1, 0), (None, "CPU", 2, 10)], "now": 1_700_000_000.0 + i}
            for i, player in enumerate(players)
        ),
    )
    board = await world.run(players[0], "leaderboard", sort="wins")
    assert not board.ephemeral and [b["label"] for b in board.buttons] == ["Previous", "Next"]
    return board, players


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_forget_confirmed_while_the_disk_is_full_gets_a_short_answer(world: World) -> None:
    await seed(world, *two_matches(world))
    question = await world.run(world.alice, "forget")
    assert question.ephemeral
    assert world.bot is not None and isinstance(world.bot.store, SqliteStore)
    full = SqliteDiskFull(Path(world.bot.store.path))
    await full.fill()
    try:
        click = await world.fake.click(world.alice, question, label="Delete my statistics")
        answer = await click.reply(timeout=8.0)
    finally:
        full.restore()
    assert answer.ephemeral
    assert STORE_FAILED in answer.content, answer.content
    assert len(answer.content) < 200 and "Traceback" not in answer.content
    # Nothing was deleted: alice's statistics are still there.
    stats = await world.run(world.bob, "stats", member=world.alice)
    assert not stats.ephemeral


async def test_leaderboard_page_while_the_database_is_damaged_gets_a_short_answer(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    board, players = await twelve_players_board(world)
    versions = len(board.versions)
    assert world.bot is not None
    store = world.bot.get_cog(STANDINGS_COG).standings._store  # type: ignore[attr-defined]

    async def damaged(*args: Any, **kwargs: Any) -> Any:
        raise DamagedDatabaseError("eights.sqlite3")  # what the store raises on a damaged page

    monkeypatch.setattr(store, "leaderboard_size", damaged)
    click = await world.fake.click(players[3], board, label="Next")
    answer = await click.reply(timeout=8.0)
    assert answer.ephemeral, answer.text()
    assert len(answer.content) < 200 and "Traceback" not in answer.content
    assert len(board.versions) == versions  # the public leaderboard is left as it was


async def test_a_leaderboard_button_naming_a_viewer_beyond_any_integer_gets_a_short_answer(
    world: World,
) -> None:
    """The page button's custom id carries the asker's id; a tampered client sends one past 2**63, which no
    database driver takes (SQLite: OverflowError): refused as an expired button."""
    board, players = await twelve_players_board(world)
    versions = len(board.versions)
    forged = f"eights-lb:{world.guild.id}:wins:2:{2**64}"
    click = await world.fake.craft_component(players[3], world.channel, board, forged)
    answer = await click.reply(timeout=8.0)
    assert answer.ephemeral, answer.text()
    assert len(answer.content) < 200 and "Traceback" not in answer.content
    assert len(board.versions) == versions
