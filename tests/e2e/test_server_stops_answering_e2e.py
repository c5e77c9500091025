"""A PostgreSQL server that stops answering in the middle of a move (its processes SIGSTOPped, as a hung VM
or a stalled disk does) and answers again later, end to end through the fake Discord.

The statement Alice's click sent is in the server's socket when it freezes: the bot gives it up after its
command timeout (COMMAND_TIMEOUT, 60 s; scaled here to 5 s so that the test lasts seconds, not minutes: a
130 s freeze under the real 60 s does the same), and when the server thaws it runs that statement: the move
is stored. README, "When the database falters": she is told the bot cannot tell yet whether it was saved
(not "nothing changed", which she was told before), and the bot asks again until it knows: the stored move
is told in the channel and shown in her hand once the database is back, with nobody clicking (it waited
for someone to click before, or for her turn timer, minutes later). Every committed play is told once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

import bot.store.postgres as postgres_store
from bot.exts._group import STORE_FAILED, STORE_IN_DOUBT
from bot.service import lobby
from bot.service.scheduler import STORE_RETRY_MAX
from tests.e2e.test_database_faults_e2e import alice_against_a_cpu, assert_each_move_once, world_on
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.service.db_faults import OwnPostgres

COMMAND_TIMEOUT = 5.0  # the store's 60 s, scaled
FROZEN_FOR = 20.0  # longer than the command timeout, its cancel request's and the in-doubt wait (3 s)
RECOVERY = STORE_RETRY_MAX + 6.0  # as tests/e2e/test_database_faults_e2e.py allows after the return


@pytest.fixture(autouse=True)
def short_turns_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobby, "MIN_TURN_TIMEOUT", 1.0)


@pytest.fixture(autouse=True)
def scaled_command_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_store, "COMMAND_TIMEOUT", COMMAND_TIMEOUT)


async def draw_while_frozen(world: Any, own_postgres: OwnPostgres) -> tuple[int, list[Any], FakeMessage]:
    """alice (against a CPU, no timer of hers running out meanwhile) presses Draw as the server freezes; the
    server thaws FROZEN_FOR seconds later. Returns the table, its moves before, and her answer."""
    hand = await alice_against_a_cpu(world, turn=600.0)
    table_id = await world.table_id()
    await world.settle()
    before = await world.bot.store.moves(table_id)
    frozen = Frozen(own_postgres)
    try:
        started = time.monotonic()
        click = await world.fake.click(world.alice, hand, label="Draw")
        kind = await click.callback(timeout=30.0)
        assert time.monotonic() - started < 3.0  # deferred in time: Discord's 3 s are kept
        answer = await (click.followup(0, timeout=60.0) if kind == 6 else click.reply(timeout=60.0))
        await asyncio.sleep(max(0.0, started + FROZEN_FOR - time.monotonic()))
    finally:
        frozen.thaw()
    return table_id, before, answer


async def stored_in_time(store: Any, table_id: int, before: int) -> bool:
    """Whether the move the frozen server held is stored within a minute of its waking (a busy machine is
    slow to run it)."""
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        try:
            if len(await store.moves(table_id)) > before:
                return True
        except Exception:  # the pool's connections are new again: a first one may still fail
            pass
        await asyncio.sleep(0.5)
    return False


def server_pids(server: OwnPostgres) -> list[int]:
    """The test's own server: its postmaster and every process it started (never the shared server)."""
    data: Path = server._data
    postmaster = int((data / "postmaster.pid").read_text().split()[0])
    pids = [postmaster]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == postmaster:
            pids.append(int(entry))
    return pids


class Frozen:
    def __init__(self, server: OwnPostgres) -> None:
        self.pids = server_pids(server)
        for pid in self.pids:
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        for pid in self.pids:
            os.kill(pid, signal.SIGCONT)
        self.pids = []


async def test_a_move_whose_server_stopped_answering_is_not_told_nothing_changed_and_is_told_once_back(
    fake: FakeDiscord, tmp_path: Path, own_postgres: OwnPostgres
) -> None:
    async with world_on(fake, tmp_path, own_postgres.url) as world:
        assert world.bot is not None
        store = world.bot.store
        table_id, before, answer = await draw_while_frozen(world, own_postgres)

        # The database is back. The statement it held ran when it woke, or the bot's cancel request, sent
        # when its command timed out and held as well, reached it first: either may be (a busy machine
        # decides), and the answer must hold for both.
        was_stored = await stored_in_time(store, table_id, len(before))
        moves = await store.moves(table_id)
        assert_each_move_once(moves)
        if was_stored:
            assert len(moves) == len(before) + 1 and moves[-1].actor_id == world.alice.id  # her draw stood
        assert answer.ephemeral
        assert answer.content != STORE_FAILED, (
            "she was told 'nothing changed' while her draw could still be stored: " + answer.content
        )
        assert answer.content == STORE_IN_DOUBT, answer.content


async def test_a_move_stored_after_the_server_stopped_answering_reaches_the_channel_once_it_is_back(
    fake: FakeDiscord, tmp_path: Path, own_postgres: OwnPostgres
) -> None:
    async with world_on(fake, tmp_path, own_postgres.url) as world:
        assert world.bot is not None
        store = world.bot.store
        table_id, before, _answer = await draw_while_frozen(world, own_postgres)

        was_stored = await stored_in_time(store, table_id, len(before))

        def told() -> bool:
            lines = "\n".join(m.content or "" for m in world.fake.channel_messages(world.channel))
            return lines.count("alice drew 1 card") == 1

        if not was_stored:  # the cancel won: nothing to tell, and nothing is told
            await asyncio.sleep(RECOVERY)
            assert not told() and (await world.snapshot()).seats[0].card_count == 7
            return
        # Within the README's recovery time, without anyone clicking: the channel tells her draw once, and her
        # hand message shows the drawn card (8 cards).

        async def caught_up() -> bool:
            return told()

        try:
            await world.until(caught_up, "the stored draw told in the channel", timeout=RECOVERY)
        except (AssertionError, TimeoutError) as missed:
            raise AssertionError(
                f"{RECOVERY:.0f} s after the database is back, the channel still does not tell "
                "alice's stored "
                "draw (the table is held as before it until someone clicks or her turn times out)"
            ) from missed
        assert (await world.snapshot()).seats[0].card_count == 8
