"""The command line facing a database it cannot use (issue 13): a file that is not an SQLite database, a
truncated one, one from a newer bot. Every command that opens the database answers in one line naming the
file, what is wrong and what to do, exits with the documented status (1: the command failed), shows no
traceback, and leaves the file byte for byte as it was."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.service import Actor, FakeClock, Intent, TableService
from bot.store import open_store
from tests.test_cli import TOKEN, bot

DAMAGED = "is not an SQLite database or is damaged: restore it from a backup, see README 'Backups'"
# run gets a token and an API nobody listens on: had it reached Discord, the answer would be about Discord.
RUN_ENV = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10"}
# command line, where its one line goes
COMMANDS: list[tuple[tuple[str, ...], str]] = [
    (("run",), "stderr"),
    (("migrate",), "stderr"),
    (("backup", "copy.sqlite3"), "stderr"),
    (("forget-user", "1234"), "stderr"),
    (("check",), "stdout"),
    (("health",), "stdout"),
    (("copy-db", "--from", "{database}", "--to", "sqlite:///copy.sqlite3"), "stderr"),
]


async def _played_database(path: Path) -> None:
    """A real database of a few dozen pages: migrated, with tables played through the service."""
    store = await open_store(f"sqlite:///{path}")
    await store.migrate()
    service = TableService(store, clock=FakeClock(), cpu_delay=0, batch_window=0, rng=random.Random(5))
    ana, bo = Actor(1, "Ana"), Actor(2, "Bo")
    for channel in range(12):
        table_id = (await service.open_table(1, 100 + channel, ana)).table_id
        await service.join(table_id, bo)
        await service.start(table_id, ana)
        for _ in range(15):
            snap = await service.snapshot(table_id)
            if snap.phase != "playing" or snap.to_act is None:
                break
            who = ana if snap.to_act == 0 else bo
            hand = await service.hand(table_id, who.user_id)
            playable = [card for card in hand.cards if card.playable]
            if hand.must_name_suit:
                await service.act(table_id, who, Intent.name_suit("S"))
            elif playable:
                card = playable[0]
                await service.act(table_id, who, Intent.play(card.code, "S" if card.wild else None))
            elif hand.can_draw:
                await service.act(table_id, who, Intent.draw())
            else:
                await service.act(table_id, who, Intent.pass_())
    await service.close()
    await store.close()


@pytest.fixture(scope="module")
def good_database(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("good") / "eights.sqlite3"
    asyncio.run(_played_database(path))
    data = path.read_bytes()
    assert data.startswith(b"SQLite format 3\x00")
    return data


def _page_size(data: bytes) -> int:
    size = int.from_bytes(data[16:18], "big")
    return 65536 if size == 1 else size


def _damaged(kind: str, good: bytes) -> bytes:
    page = _page_size(good)
    pages = len(good) // page
    assert pages >= 8, "the sample database is too small to cut meaningfully"
    half = (pages // 2) * page
    return {
        "not-sqlite": b"not a database",
        "truncated-100": good[:100],
        "half-at-page-boundary": good[:half],
        "half-plus-a-few-bytes": good[: half + 7],
        "last-page-missing": good[: (pages - 1) * page],
    }[kind]


@pytest.mark.parametrize(
    "kind",
    ["not-sqlite", "truncated-100", "half-at-page-boundary", "half-plus-a-few-bytes", "last-page-missing"],
)
def test_every_command_names_a_damaged_file_in_one_line_and_leaves_it_alone(
    tmp_path: Path, good_database: bytes, kind: str
) -> None:
    damaged = _damaged(kind, good_database)

    def run(index: int) -> None:
        args, stream = COMMANDS[index]
        folder = tmp_path / f"cmd{index}"
        folder.mkdir()
        database = folder / "broken.sqlite3"
        database.write_bytes(damaged)
        url = f"sqlite:///{database}"
        env = {"DATABASE_URL": url, **(RUN_ENV if args[0] == "run" else {})}
        result = bot(folder, *(url if arg == "{database}" else arg for arg in args), env=env)
        where = " ".join(args)
        assert result.returncode == 1, (where, result.stdout, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr, where
        lines = [line for line in (result.stdout + result.stderr).splitlines() if DAMAGED in line]
        assert len(lines) == 1 and str(database) in lines[0], (where, result.stdout, result.stderr)
        if stream == "stderr":
            assert result.stderr.strip().splitlines() == lines, where
        else:
            assert result.stderr == "" and lines[0] in result.stdout, where
        assert database.read_bytes() == damaged, f"{where} changed the file"
        assert sorted(p.name for p in folder.iterdir()) == ["broken.sqlite3"], f"{where} left files behind"

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(run, range(len(COMMANDS))))


def test_a_database_from_a_newer_bot_exits_1_in_one_line(tmp_path: Path) -> None:
    """README's table of exit codes: 1 for a database the command cannot use (migrations/README.md agrees)."""
    assert bot(tmp_path, "migrate").returncode == 0
    database = tmp_path / "data" / "eights.sqlite3"
    conn = sqlite3.connect(database)
    with conn:
        conn.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (999, ?, 'x', 0)",
            ("0999_from_the_future.sql",),
        )
    conn.close()
    before = database.read_bytes()
    for args, env in ((("migrate",), {}), (("run",), RUN_ENV), (("forget-user", "1234"), {})):
        result = bot(tmp_path, *args, env=env)
        assert result.returncode == 1, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "0999_from_the_future.sql" in lines[0], (args, result.stderr)
        assert "Traceback" not in result.stderr
    checked = bot(tmp_path, "check")
    assert checked.returncode == 1 and "newer than this bot's" in checked.stdout
    assert database.read_bytes() == before
