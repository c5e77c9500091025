"""A database written by an earlier release, opened by this one: its finished matches must replay.

README, *Replays*: "It is rebuilt from the match's move log (the table's deal seed and the moves), so matches
played before replays existed replay too". The bot's own code at commit 87ba9d4 (schema version 4, before
house rules) plays and finishes a classic match in a database; the current code migrates that file (as
``run`` does) and is asked for the replay: it refuses, "Match #1 can't be replayed from its moves.", although
the log rebuilds the match exactly. The comparison with the stored final state is of the raw JSON, and the
current engine writes keys the old one did not (``out``, ``pass_when_no_draw``, ``partnership``, all at
their defaults)."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from bot.service import ServiceError
from bot.service.replays import ReplayService
from bot.store import open_store

REPO = Path(__file__).resolve().parents[2]
OLD_RELEASE = "87ba9d4"  # 2026-11-24: migrations up to 0004_heartbeats.sql

# Played with the old code's own service, as its bot would: one classic match to 25 points, to its end.
OLD_GAME = """
import asyncio, random, sys
from bot.service import Actor, FakeClock, Intent, TableService
from bot.store import open_store

async def main(path):
    store = await open_store(f"sqlite:///{path}")
    await store.migrate()
    service = TableService(store, clock=FakeClock(), cpu_delay=0, rng=random.Random(5))
    ana, bo = Actor(1, "Ana"), Actor(2, "Bo")
    table_id = (await service.open_table(1, 100, ana, target=25)).table_id
    await service.join(table_id, bo)
    await service.start(table_id, ana)
    for _ in range(2000):
        if (await store.get_table(table_id)).status == "finished":
            break
        snap = await service.snapshot(table_id)
        if snap.phase != "playing" or snap.to_act is None:
            await service.next_round(table_id, ana)
            continue
        who = ana if snap.to_act == 0 else bo
        hand = await service.hand(table_id, who.user_id)
        playable = [card for card in hand.cards if card.playable]
        if hand.must_name_suit:
            await service.act(table_id, who, Intent.name_suit("S"))
        elif playable:
            await service.act(table_id, who, Intent.play(playable[0].code, "S"))
        elif hand.can_draw:
            await service.act(table_id, who, Intent.draw())
        else:
            await service.act(table_id, who, Intent.pass_())
    print("status", (await store.get_table(table_id)).status, "version", await store.schema_version())
    await service.close()
    await store.close()

asyncio.run(main(sys.argv[1]))
"""


def _old_release(folder: Path) -> Path:
    """The repository's tree at OLD_RELEASE, unpacked into ``folder`` (git archive: the repository is only
    read)."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", OLD_RELEASE, "bot", "migrations"],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"the old release {OLD_RELEASE} is not in this checkout's history: {error}")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def test_a_match_finished_by_an_earlier_release_replays_after_the_upgrade(tmp_path: Path) -> None:
    old = _old_release(tmp_path / "old")
    database = tmp_path / "eights.sqlite3"
    played = subprocess.run(
        [sys.executable, "-c", OLD_GAME, str(database)],
        cwd=old,
        env={**os.environ, "PYTHONPATH": str(old)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr[-3000:]
    assert "status finished version 4" in played.stdout, played.stdout

    async def upgrade_and_replay() -> None:
        store = await open_store(f"sqlite:///{database}")
        try:
            assert await store.migrate() > 4  # what `run` does at its start
            table = await store.get_table(1)
            assert table is not None and table.status == "finished"
            assert await store.match_ranking(1)
            replays = ReplayService(store)
            try:
                step = await replays.step(1, 1, 1, 0)
            except ServiceError as error:
                pytest.fail(f"the old match cannot be replayed after the upgrade: {error}")
            assert step.table_id == 1 and step.count > 10
        finally:
            await store.close()

    asyncio.run(upgrade_and_replay())
