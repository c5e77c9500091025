"""The database failing under a running bot, end to end through the fake Discord (issue 26), each fault on
its backend: the SQLite file held by another process past the busy timeout, SQLite writes failing as on a
full disk, the PostgreSQL server stopped and started again (a server of the test's own), cut off behind a
TCP proxy for a while, restarted with `pg_ctl restart -m fast` mid-click, and every connection of the bot
terminated at the moment of each click.

What each outage checks: a person's click during it gets the short private "could not save" line and
changes nothing (channel, hand, move log); the turn timeout that falls due during it happens once the
database is back, then the CPU's turn, each once and in order; a CPU turn falling due during a second outage
happens once it is back; the bot recovers by itself within seconds; every card played after it is in the
channel exactly once; ``python -m bot health`` fails during the outage and passes after; the failed commits
are counted in the metrics; one log line when the outage starts and one when it ends, no traceback. The
outages last OUTAGE seconds (the issue says 30 s; 7 s shows the same behaviour and keeps each test near 16 s).

The shard claim on PostgreSQL (bot/store/claims.py): lost with its connection (a restart), it is taken
again by itself and play resumes; when another process took the shards meanwhile, the bot refuses every
move and stops.

/eights new whose create was stored while its answer was lost is opened and shown, as a move would be; one
left in doubt is shown once the database answers. The autocompletes answer with no choices while the
database is away, with no traceback."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.client import EightsBot
from bot.config import Config
from bot.engine import card_label, parse_card
from bot.exts._group import STORE_FAILED, STORE_IN_DOUBT
from bot.service import lobby, registry
from bot.service.scheduler import STORE_RETRY_MAX
from bot.shards import ShardSet
from bot.store import ShardClaim, ShardsClaimedError, claim_shards
from bot.store.base import MoveRecord, StoreTimedOutError, StoreUnavailableError
from bot.store.sqlite import SqliteStore
from tests.e2e.conftest import PrivacyObserver, World
from tests.e2e.test_bad_input import start_two
from tests.e2e.test_lobby import public_state
from tests.fakediscord import FakeDiscord, FakeMessage, fast_bot_options, running_bot
from tests.service.db_faults import OwnPostgres, SqliteDiskFull, SqliteLockHolder, TcpProxy
from tests.test_cli import bot as run_cli

# Seconds the database is away: EIGHTS_TEST_OUTAGE=30 runs the 30 s (the same checks, only slower).
OUTAGE = float(os.environ.get("EIGHTS_TEST_OUTAGE", "7"))
TURN = 5.0  # seconds of a turn: Alice's turn times out during the outage (and not again before the checks)
CPU_DELAY = 2.0  # seconds a CPU waits: the second outage starts before the CPU's move
RECOVERY = STORE_RETRY_MAX + 6.0  # seconds allowed, after the database's return, for the due moves


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_sqlite_locked_by_another_process_mid_game(world: World) -> None:
    world.service.seed_deals(1)  # Alice leads with a card she could play: her hand offers Draw
    hand = await start_two(world)
    assert world.bot is not None and isinstance(world.bot.store, SqliteStore)
    store = world.bot.store
    table_id = await world.table_id()
    before_public, before_hand = public_state(world), hand.content
    before_moves = len(await store.moves(table_id))
    draw = hand.buttons[[b["label"] for b in hand.buttons].index("Draw")]["custom_id"]

    holder = SqliteLockHolder(Path(store.path))
    try:
        click = await world.fake.click(world.alice, hand, draw)
        # The commit waits out the busy timeout (5 s): the answer comes after a deferral, as a follow-up.
        kind = await click.callback(timeout=30.0)
        answer = await (click.followup(0, timeout=30.0) if kind == 6 else click.reply(timeout=30.0))
        code, out = await health(world)
        assert code == 1 and out.startswith("unhealthy"), out
    finally:
        holder.release()
    assert answer.ephemeral and answer.content.startswith(STORE_FAILED), answer.content
    assert len(answer.content) < 120 and "Traceback" not in answer.content
    await world.settle()
    assert public_state(world) == before_public and hand.content == before_hand
    assert len(await store.moves(table_id)) == before_moves

    again = await world.fake.click(world.alice, hand, draw)
    await again.callback()
    await world.settle()
    assert (await world.snapshot()).seats[0].card_count == 8
    assert len(await store.moves(table_id)) == before_moves + 1
    code, out = await health(world)
    assert code == 0 and out.startswith("healthy"), out


# --- the shared scenario -----------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def short_turns_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobby, "MIN_TURN_TIMEOUT", 1.0)


async def health(world: World) -> tuple[int, str]:
    """``python -m bot health`` on the world's database, in a thread (the fake and the proxies run on this
    loop meanwhile)."""
    url = world.database_url
    done = await asyncio.to_thread(run_cli, world.tmp_path, "health", env={"DATABASE_URL": url})
    return done.returncode, (done.stdout + done.stderr).strip()


def failed_commits(world: World) -> float:
    assert world.bot is not None
    return float(world.bot.metrics.failed_commits._value.get())


def short_turns(world: World, turn: float) -> None:
    """Tables opened from now on give ``turn`` seconds a turn (below what /eights new accepts, to keep the
    test short); everything else goes the commands' way."""
    service = world.service
    open_table = service.open_table

    async def opened(*args: Any, **kwargs: Any) -> Any:
        kwargs["turn_timeout"] = turn
        return await open_table(*args, **kwargs)

    service.open_table = opened  # type: ignore[method-assign]


async def alice_against_a_cpu(world: World, turn: float = TURN) -> FakeMessage:
    """Alice and an easy CPU, Alice to lead with Draw on her hand; her hand message."""
    world.service.seed_deals(1)
    short_turns(world, turn)
    board = await world.run(world.alice, "new", target=1000)  # no match ends after one round
    await (await world.fake.click(world.alice, board, label="Add CPU")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    assert "Draw" in [b["label"] for b in hand.buttons]
    return hand


def public_lines(world: World) -> list[str]:
    """The table's public lines (not its board), in order."""
    return [
        m.content
        for m in world.fake.channel_messages(world.channel)
        if m.content and not (m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights"))
    ]


def assert_each_move_once(moves: list[MoveRecord]) -> None:
    """Versions 1, 2, 3 …: no move stored twice, none half (a move is one row with its state's version)."""
    assert [m.version for m in moves] == list(range(1, len(moves) + 1)), [m.version for m in moves]
    assert [m.seq for m in moves] == list(range(1, len(moves) + 1))


def assert_one_line_each_way(caplog: pytest.LogCaptureFixture) -> None:
    """The outage's two warnings and nothing else at WARNING or above (no line per attempt, no heartbeat
    line, no traceback)."""
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("the database is unavailable ("), warnings
    assert warnings[1].startswith("the database is back after "), warnings
    assert not [r for r in caplog.records if r.exc_info], "no traceback for a database fault"


@dataclass
class Fault:
    on: Callable[[], Awaitable[None]]
    off: Callable[[], Awaitable[None]]


async def survives_an_outage(world: World, fault: Fault, caplog: pytest.LogCaptureFixture) -> None:
    """The issue's checks around one outage of OUTAGE seconds that starts on Alice's turn."""
    hand = await alice_against_a_cpu(world)
    assert world.bot is not None
    store = world.bot.store
    table_id = await world.table_id()
    await world.settle()
    before = await world.snapshot()
    assert before.to_act == 0
    before_public, before_hand, before_lines = public_state(world), hand.content, public_lines(world)
    before_moves = await store.moves(table_id)
    failed_before = failed_commits(world)
    caplog.clear()
    caplog.set_level(logging.INFO)
    loop = asyncio.get_running_loop()

    started = loop.time()
    await fault.on()
    try:
        click = await world.fake.click(world.alice, hand, label="Draw")
        kind = await click.callback(timeout=30.0)
        answer = await (click.followup(0, timeout=30.0) if kind == 6 else click.reply(timeout=30.0))
        assert answer.ephemeral and answer.content == STORE_FAILED, answer.content
        code, out = await health(world)
        assert code == 1 and out.startswith("unhealthy") and len(out.splitlines()) == 1, out
        assert "Traceback" not in out
        # Her turn times out meanwhile: tried, not done.
        await asyncio.sleep(max(0.0, started + max(OUTAGE, TURN + 1.0) - loop.time()))
        assert public_state(world) == before_public and hand.content == before_hand
        assert await world.snapshot() == before
    finally:
        await fault.off()
    back = loop.time()

    # Back: the timeout happens at the next retry (within STORE_RETRY_MAX), then the CPU's turn, in order.
    async def moved_on() -> bool:
        return len(await store.moves(table_id)) >= len(before_moves) + 2

    await world.until(moved_on, "the due moves after the outage", timeout=RECOVERY)
    recovered_in = loop.time() - back
    await world.settle()
    moves = await store.moves(table_id)
    assert_each_move_once(moves)
    assert moves[: len(before_moves)] == before_moves  # nothing of the fault's time was stored
    timed_out, cpu = moves[len(before_moves)], moves[len(before_moves) + 1]
    assert timed_out.actor_id is None, timed_out
    assert any(e.get("kind") == "timed_out" for e in timed_out.events), timed_out
    assert cpu.actor_id is None and not any(e.get("kind") == "timed_out" for e in cpu.events)
    assert recovered_in < RECOVERY

    # The channel: what was there before, unchanged, then the lines of the moves made after the outage,
    # each once (the publisher's lines name the moves; nothing of the refused click).
    lines = public_lines(world)
    assert lines[: len(before_lines)] == before_lines
    new = lines[len(before_lines) :]
    assert new, "the moves after the outage were not told"
    told = "\n".join(new)
    assert told.count("alice ran out of time") == 1, new
    for move in moves[len(before_moves) :]:  # every card played since is in the channel once
        for event in move.events:
            if event["kind"] == "played":
                who = "alice" if event["seat"] == 0 else "CPU 1"
                label = card_label(parse_card(event["data"]["card"]))
                line = re.compile(rf"{who} played (?:<:\w+:\d+> )?{re.escape(label)}")  # its emoji, once up
                assert len(line.findall(told)) == 1, (line.pattern, new)

    # Health, metrics and the log.
    code, out = await health(world)
    assert code == 0 and out.startswith("healthy"), out
    assert failed_commits(world) - failed_before >= 2  # her click and the timeout, at least
    assert_one_line_each_way(caplog)

    # A person's move works again at once; and a CPU's turn that falls due during a second, shorter
    # outage (it waits CPU_DELAY after her move) happens once the database is back.
    assert await world.human_to_act() is world.alice
    count = len(await store.moves(table_id))
    caplog.clear()
    await world.play_by_buttons(world.alice)
    await fault.on()
    try:
        await asyncio.sleep(CPU_DELAY + 1.5)
        snap = await world.snapshot()
        assert snap.phase == "playing" and snap.to_act == 1, snap  # the CPU's move: tried, not done
    finally:
        await fault.off()

    async def cpu_moved() -> bool:
        return len(await store.moves(table_id)) >= count + 2

    await world.until(cpu_moved, "the CPU's move after the second outage", timeout=RECOVERY)
    # The commit is in the database a moment before the bot hears it and says the database is back.
    await world.settle()
    moves = await store.moves(table_id)
    assert_each_move_once(moves)
    assert moves[count].actor_id == world.alice.id and moves[count + 1].actor_id is None
    assert_one_line_each_way(caplog)


class ClaimedWorld(World):
    """A world whose bot holds its shard claim, as `python -m bot run` starts it."""

    claim: ShardClaim | None = None

    def config(self) -> Config:
        return dataclasses.replace(super().config(), cpu_delay=CPU_DELAY)

    async def start(self) -> EightsBot:
        bot = EightsBot(self.config(), claim=self.claim, **fast_bot_options())
        stack = AsyncExitStack()
        await stack.enter_async_context(running_bot(self.fake, bot, set_endpoints=False))
        self.bot, self._stack = bot, stack
        self.observer.bot = bot
        return bot


@contextlib.asynccontextmanager
async def world_on(
    fake: FakeDiscord, tmp_path: Path, url: str, claim: ShardClaim | None = None
) -> AsyncIterator[World]:
    observer = PrivacyObserver()
    fake.add_message_observer(observer)
    world = ClaimedWorld(fake, tmp_path, observer, url)
    world.claim = claim
    await world.start()
    try:
        yield world
    finally:
        await world.stop()


# --- SQLite ------------------------------------------------------------------------------------------------


async def test_sqlite_full_disk_mid_game(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "eights.sqlite3"
    full = SqliteDiskFull(path)  # the bot runs in this process: its commits fail
    try:
        async with world_on(fake, tmp_path, f"sqlite:///{path}") as world:
            await survives_an_outage(world, Fault(full.fill, full.free), caplog)
    finally:
        full.restore()


# --- PostgreSQL --------------------------------------------------------------------------------------------


async def test_postgresql_unreachable_for_a_while(
    fake: FakeDiscord, tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    proxy = TcpProxy(pg_url)
    await proxy.start()
    try:
        async with world_on(fake, tmp_path, proxy.url) as world:
            await survives_an_outage(world, Fault(proxy.cut, proxy.restore), caplog)
    finally:
        await proxy.close()


async def test_postgresql_stopped_and_started_under_the_bot(
    fake: FakeDiscord, tmp_path: Path, own_postgres: OwnPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    async with world_on(fake, tmp_path, own_postgres.url) as world:
        await survives_an_outage(world, Fault(own_postgres.stopped, own_postgres.started), caplog)


async def click_draw_or_play(world: World, hand: FakeMessage) -> FakeMessage:
    """Alice's first offered move on ``hand``; the bot's private answer."""
    control = next(b for b in hand.buttons if ":play:" in b["custom_id"] or b["label"] == "Draw")
    click = await world.fake.click(world.alice, hand, control["custom_id"])
    kind = await click.callback(timeout=30.0)
    return await (click.followup(0, timeout=30.0) if kind == 6 else click.reply(timeout=30.0))


async def test_postgresql_restarted_mid_game_and_the_shard_claim_taken_again(
    fake: FakeDiscord, tmp_path: Path, own_postgres: OwnPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    # pg_ctl restart -m fast under the running bot, while Alice clicks: her click is refused (nothing
    # changed) or goes through, never half; the pool and the shard claim come back by themselves.
    claim = await claim_shards(own_postgres.url, ShardSet(), watch_interval=2.0)
    try:
        async with world_on(fake, tmp_path, own_postgres.url, claim) as world:
            assert world.bot is not None
            store = world.bot.store
            hand = await alice_against_a_cpu(world, turn=60.0)
            table_id = await world.table_id()
            await world.settle()
            caplog.clear()
            caplog.set_level(logging.INFO)
            before = len(await store.moves(table_id))

            restart = asyncio.create_task(asyncio.to_thread(own_postgres.restart))
            await asyncio.sleep(0.2)  # pg_ctl is stopping the server
            answer = await click_draw_or_play(world, hand)
            await restart
            assert answer.ephemeral and len(answer.content) < 200, answer.content
            refused = answer.content == STORE_FAILED
            await world.until(_held(claim), "the shard claim taken again", timeout=15.0)
            with pytest.raises(ShardsClaimedError):  # held for real: another process is refused
                await (await claim_shards(own_postgres.url, ShardSet(), retry_for=0.0)).release()

            # Play goes on without a restart: Alice's next moves are taken (her refused click again).
            for _ in range(3):
                user = await world.human_to_act()
                assert user is world.alice
                count = len(await store.moves(table_id))
                await world.play_by_buttons(world.alice)
                await world.settle()
                assert len(await store.moves(table_id)) > count
            moves = await store.moves(table_id)
            assert_each_move_once(moves)
            assert len(moves) >= before + (3 if refused else 4)
            code, out = await health(world)
            assert code == 0 and out.startswith("healthy"), out
            lines = [r.getMessage() for r in caplog.records]
            assert sum("shard claim was lost" in m for m in lines) == 1, lines
            assert sum(m.startswith("the shards are claimed again") for m in lines) == 1, lines
            warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
            assert sum(m.startswith("the database is unavailable") for m in warnings) == 1, warnings
            assert sum(m.startswith("the database is back") for m in warnings) == 1, warnings
            assert not [r for r in caplog.records if r.exc_info], "no traceback for a database fault"
    finally:
        await claim.release()


def _held(claim: ShardClaim) -> Callable[[], Awaitable[bool]]:
    async def held() -> bool:
        return claim.held

    return held


async def test_a_bot_whose_shards_were_taken_while_its_claim_was_lost_stops_playing(
    fake: FakeDiscord, tmp_path: Path, pg_url: str
) -> None:
    # The bot reaches the server through a proxy that is cut: its claim's connection is gone, so another
    # process (straight to the server) can claim the shards. Once the proxy is back the bot's store works,
    # but it must not play: Alice's click is refused, nothing is stored, and the bot stops by itself.
    proxy = TcpProxy(pg_url)
    await proxy.start()
    other: ShardClaim | None = None
    try:
        claim = await claim_shards(proxy.url, ShardSet(), reclaim_for=2.0, watch_interval=1.0)
        try:
            async with world_on(fake, tmp_path, proxy.url, claim) as world:
                assert world.bot is not None
                bot = world.bot
                hand = await alice_against_a_cpu(world, turn=60.0)
                table_id = await world.table_id()
                await world.settle()
                before = await bot.store.moves(table_id)

                await proxy.cut()
                await world.until(_lost(claim), "the claim noticed lost", timeout=5.0)
                other = await claim_shards(pg_url, ShardSet(), retry_for=10.0)  # the server let it go
                await proxy.restore()
                answer = await click_draw_or_play(world, hand)
                assert answer.ephemeral and answer.content == STORE_FAILED, answer.content

                async def stopped() -> bool:
                    return bot.fatal is not None and bot.is_closed()

                await world.until(stopped, "the bot stopping", timeout=15.0)
                assert "another process already runs" in (bot.fatal or "")
        finally:
            await claim.release()
        # Stored meanwhile: nothing (read on a connection of the test's own).
        conn = await asyncpg.connect(pg_url)
        try:
            stored = await conn.fetchval("SELECT count(*) FROM moves WHERE table_id = $1", table_id)
        finally:
            await conn.close()
        assert stored == len(before)
    finally:
        if other is not None:
            await other.release()
        await proxy.close()


def _lost(claim: ShardClaim) -> Callable[[], Awaitable[bool]]:
    async def lost() -> bool:
        return not claim.held

    return lost


async def test_postgresql_connections_terminated_in_the_middle_of_moves(
    fake: FakeDiscord, tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # pg_terminate_backend on every connection of the bot (its pool and its shard claim) at the moment
    # Alice clicks, again and again: each click is refused (nothing changed) or taken once; the CPU's turns
    # in between are retried; the bot goes on by itself.
    database = pg_url.rsplit("/", 1)[1].split("?")[0]
    claim = await claim_shards(pg_url, ShardSet(), watch_interval=2.0)
    admin = await asyncpg.connect(pg_url)

    async def terminate() -> int:
        return int(
            await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = $1 AND application_name LIKE 'crazy-eights%' AND pid <> pg_backend_pid()",
                database,
            )
        )

    try:
        async with world_on(fake, tmp_path, pg_url, claim) as world:
            assert world.bot is not None
            store = world.bot.store
            await alice_against_a_cpu(world, turn=60.0)
            table_id = await world.table_id()
            failed_before = failed_commits(world)
            refused = taken = 0
            for _ in range(6):
                user = await world.human_to_act()
                if user is None:
                    break
                hand = await world.hand_message(world.alice)
                count = len(await store.moves(table_id))
                answer, killed = await asyncio.gather(click_draw_or_play(world, hand), terminate())
                assert killed >= 1
                assert answer.ephemeral and len(answer.content) < 200, answer.content
                await world.settle()
                await world.until(_held(claim), "the shard claim taken again", timeout=10.0)
                if answer.content == STORE_FAILED:
                    refused += 1
                    assert len(await store.moves(table_id)) == count
                else:
                    taken += 1
                    assert len(await store.moves(table_id)) > count
            assert refused + taken == 6
            moves = await store.moves(table_id)
            assert_each_move_once(moves)
            assert failed_commits(world) - failed_before >= refused
            code, out = await health(world)
            assert code == 0 and out.startswith("healthy"), out
            assert not [r for r in caplog.records if r.exc_info], "no traceback for a database fault"
    finally:
        await admin.close()
        await claim.release()


# --- /eights new whose answer was lost ----------------------------------------------------------------------

ALREADY_OPEN = "There is already a table open in this channel: join it with /eights join."


async def answer(world: World, user: Any, command: str, **options: Any) -> FakeMessage:
    """The bot's answer to ``/eights <command>``: its reply, or its follow-up once it deferred."""
    handle = await world.fake.invoke(user, world.channel, f"eights {command}", **options)
    kind = await handle.callback(timeout=30.0)
    return await (handle.followup(0, timeout=30.0) if kind == 5 else handle.reply(timeout=30.0))


def boards(world: World) -> list[FakeMessage]:
    return [
        m
        for m in world.fake.channel_messages(world.channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_new_table_stored_while_its_answer_was_lost_is_opened_and_shown(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/eights new whose create reached the database but whose answer was lost (the connection cut right
    after the server committed): the bot asks the database, as for a move, finds the lobby stored and opens
    it: her answer is its board and the lobby is held. (It used to say "nothing changed" of a lobby then
    shown nowhere, with no lobby timer, and refuse her next /eights new in a channel showing no table.) Asked
    again, /eights new is refused with the link to that board."""
    assert world.bot is not None
    store = world.bot.store
    create = store.create_table

    async def committed_then_cut(**table: Any) -> Any:
        await create(**table)  # the server committed it ...
        raise StoreUnavailableError("connection was closed in the middle of operation")  # ... the answer lost

    monkeypatch.setattr(store, "create_table", committed_then_cut)
    first = await answer(world, world.alice, "new")
    monkeypatch.setattr(store, "create_table", create)
    await world.settle()
    assert not first.ephemeral and first.content != STORE_FAILED, first.content
    shown = boards(world)
    assert [board.id for board in shown] == [first.id]
    stored = await store.open_table_in_channel(world.channel.id)
    assert stored is not None and world.service.open_table_ids() == [stored.id]

    again = await answer(world, world.alice, "new")
    await world.settle()
    assert again.ephemeral and again.content.startswith(ALREADY_OPEN), again.content
    assert str(first.id) in again.content  # the link to the board
    assert [board.id for board in boards(world)] == [first.id]


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_new_table_in_doubt_is_shown_once_the_database_answers(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/eights new on a server that stopped answering mid-create and does not answer for longer than the bot
    asks: she is told "The database did not answer … The table will show it in a moment."; once it answers,
    the bot finds the lobby stored and posts its board in the channel by itself (README "When the database
    falters"), and the lobby is held."""
    monkeypatch.setattr(registry, "IN_DOUBT_WAIT", 0.3)
    monkeypatch.setattr(registry, "IN_DOUBT_RECHECK", 0.5)
    assert world.bot is not None
    store = world.bot.store
    create, find = store.create_table, store.open_table_in_channel
    away = False

    async def stored_then_silent(**table: Any) -> Any:
        nonlocal away
        await create(**table)
        away = True
        raise StoreTimedOutError("the server did not answer in time")

    async def unless_away(channel_id: int) -> Any:
        if away:
            raise StoreUnavailableError("connection refused")
        return await find(channel_id)

    monkeypatch.setattr(store, "create_table", stored_then_silent)
    monkeypatch.setattr(store, "open_table_in_channel", unless_away)
    first = await answer(world, world.alice, "new")
    assert first.ephemeral and first.content == STORE_IN_DOUBT, first.content
    assert boards(world) == [] and world.service.open_table_count() == 0
    away = False

    async def board_shown() -> bool:
        return bool(boards(world))

    await world.until(board_shown, "the board of the table in doubt", timeout=10.0)
    await world.settle()
    stored = await find(world.channel.id)
    assert stored is not None and world.service.open_table_ids() == [stored.id]
    assert len(boards(world)) == 1


# --- autocompletes while the database is away --------------------------------------------------------------

# Every autocomplete that finds the channel's table (each answered by ``bot.exts.autocomplete``).
AUTOCOMPLETES_READING_THE_TABLE = (
    ("catch", "player"),
    ("house", "option"),
    ("house", "value"),
    ("effect", "card"),
    ("effect", "player"),
    ("effect", "target"),
    ("play", "suit"),
)


async def test_autocompletes_while_postgresql_is_away_answer_no_choices_and_log_no_traceback(
    fake: FakeDiscord, tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL cut off behind a proxy, in a channel whose table the bot does not hold (none there), so that
    finding the channel's table reads the database: the autocompletes of /eights catch, house, effect and
    play's suit answer with no choices, and nothing is logged with a traceback (they used to let the
    database's failure escape to discord.py: a traceback at every keystroke, and no answer, which Discord's
    client shows as "Loading options failed")."""
    proxy = TcpProxy(pg_url)
    await proxy.start()
    try:
        async with world_on(fake, tmp_path, proxy.url) as world:
            caplog.clear()
            caplog.set_level(logging.INFO)
            await proxy.cut()
            try:
                for command, option in AUTOCOMPLETES_READING_THE_TABLE:
                    choices = await world.fake.autocomplete(
                        world.alice, world.channel, f"eights {command}", option, "", timeout=3.0
                    )
                    assert choices == [], (command, option, choices)
            finally:
                await proxy.restore()
            tracebacks = [f"{r.levelname} {r.name}: {r.getMessage()}" for r in caplog.records if r.exc_info]
            assert not tracebacks, tracebacks
    finally:
        await proxy.close()
