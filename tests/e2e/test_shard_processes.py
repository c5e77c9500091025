"""Two bot processes, one per shard (SHARD_COUNT=2, SHARD_IDS=0 and 1), on one PostgreSQL database, against
the fake Discord, which routes each guild's events and interactions to its shard's connection.

In each guild a match with CPU seats plays to the end; the process of shard 0 is SIGKILLed mid-game and
restarted with the same SHARD_IDS. It resumes its table; the other process never touches that table (not
while shard 0 is down, not after). Then each guild's match is recorded once, the leaderboard and the stats say
so in both guilds (each answered by its own process), no public line was posted twice and no move was applied
twice. Last, /eights forget asked in one guild forgets the player in both."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections import Counter
from pathlib import Path

from bot.store import Store, open_store
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage
from tests.test_cli import TOKEN, env_against

REPO = Path(__file__).resolve().parents[2]


class ShardProcess:
    """``python -m bot run`` for one shard, its log in a file."""

    def __init__(self, shard: int, env: dict[str, str], folder: Path) -> None:
        self.shard = shard
        self.env = {**env, "SHARD_IDS": str(shard)}
        self.folder = folder
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0

    async def start(self) -> None:
        self.starts += 1
        log = (self.folder / f"shard{self.shard}-{self.starts}.log").open("w")
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=self.folder, env=self.env, stdout=log, stderr=log
        )
        log.close()

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)

    async def stop(self) -> int:
        if self.process is None or self.process.returncode is not None:
            return 0 if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), 30)

    def log(self) -> str:
        return "".join(path.read_text() for path in sorted(self.folder.glob(f"shard{self.shard}-*.log")))


def guild_on_shard(fake: FakeDiscord, shard: int, name: str) -> FakeGuild:
    """A guild whose id puts it on ``shard`` of 2 (the fake's ids carry the current millisecond)."""
    while True:
        guild = fake.create_guild(name)
        if (guild.id >> 22) % 2 == shard:
            return guild
        fake.guilds.pop(guild.id)  # never connected yet: no process has seen it
        time.sleep(0.001)


def public_lines(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    return [m for m in fake.channel_messages(channel) if not m.ephemeral and m.content and not m.embeds]


async def table_in(store: Store, channel: FakeChannel) -> int:
    table = await store.open_table_in_channel(channel.id)
    assert table is not None
    return table.id


async def test_two_shard_processes_share_one_database_and_never_both_act_on_a_table(
    tmp_path: Path, pg_url: str
) -> None:
    async with FakeDiscord(token=TOKEN) as fake:
        guilds = [guild_on_shard(fake, shard, f"Shard {shard} server") for shard in (0, 1)]
        channels = [fake.create_channel(guild, "eights") for guild in guilds]
        alice = fake.create_user("alice")
        for guild in guilds:
            fake.add_member(guild, alice)
        env = env_against(
            fake,
            DATABASE_URL=pg_url,
            SHARD_COUNT="2",
            EIGHTS_CPU_DELAY="0.25",  # a round of three CPU players lasts long enough to restart both
            PYTHONPATH=str(REPO),
        )
        processes = [ShardProcess(shard, env, tmp_path) for shard in (0, 1)]
        store = await open_store(pg_url)
        try:
            for process in processes:
                await process.start()
            await fake.wait_for(
                lambda: {(0, 2), (1, 2)} <= set(fake.identifies) and fake.synced_commands(),
                what="both shards connected and the commands synced",
                timeout=60,
            )

            # In each guild: a table of alice and two CPU players; alice leaves once it is dealt, so that a
            # CPU player takes her seat and the match plays itself to the end (her seat keeps her statistics).
            for channel in channels:
                board = await (await fake.invoke(alice, channel, "eights new", target=1)).reply(timeout=20)
                assert board.embeds, board.content
                for _ in range(2):
                    await (await fake.invoke(alice, channel, "eights cpu", level="easy")).reply(timeout=20)
                assert (
                    "Your hand"
                    in (await (await fake.invoke(alice, channel, "eights start")).reply(20)).content
                )
                await (await fake.invoke(alice, channel, "eights leave")).reply(timeout=20)
            tables = [await table_in(store, channel) for channel in channels]

            async def status(table_id: int) -> str:
                table = await store.get_table(table_id)
                assert table is not None
                return table.status

            async def until_finished(table_id: int, what: str) -> None:
                # Alone on a slow machine the restarted shard's match took 59 s to finish, 29 s of it
                # uploading the card emojis its killed process had not; under three test workers, over 90.
                deadline = time.monotonic() + 240
                while await status(table_id) != "finished":
                    assert time.monotonic() < deadline, what
                    await asyncio.sleep(0.1)

            async def restart(process: ShardProcess) -> None:
                before = fake.identifies.count((process.shard, 2))
                await process.start()
                await fake.wait_for(
                    lambda: fake.identifies.count((process.shard, 2)) > before, what="reconnected", timeout=60
                )

            # Shard 0's process dies mid-game.
            await asyncio.sleep(0.5)
            processes[0].kill()
            await processes[0].process.wait()  # type: ignore[union-attr]
            killed_at = await store.get_state(tables[0])
            assert killed_at is not None and await status(tables[0]) == "playing"

            # While it is down, shard 1's process restarts (it restores its own table only) and plays on;
            # shard 0's table does not move: no timer, no CPU turn, no timeout of its absent players.
            assert await processes[1].stop() == 0
            await restart(processes[1])
            await asyncio.sleep(1.5)  # past the CPU delay and a restored turn's grace
            assert await store.get_state(tables[0]) == killed_at

            # Restarted with the same SHARD_IDS while shard 1's match is still going, shard 0's process
            # resumes its own table and leaves shard 1's alone; both play to the end.
            assert await status(tables[1]) == "playing", "shard 1's match ended too soon for this test"
            await restart(processes[0])
            await until_finished(tables[0], "shard 0's match did not finish after the restart")
            await until_finished(tables[1], "shard 1's match did not finish")
            assert (await store.get_state(tables[0])).version > killed_at.version  # type: ignore[union-attr]

            # Each match counted once, in its own guild; the same figures whichever process answers.
            for guild, table_id in zip(guilds, tables, strict=True):
                stats = await store.player_stats(guild.id, alice.id)
                assert stats is not None and stats.matches_played == 1, stats
                assert len(await store.match_ranking(table_id)) == 3
                assert [row.user_id for row in await store.leaderboard(guild.id, min_matches=1)] == [alice.id]
            for channel in channels:
                reply = await (await fake.invoke(alice, channel, "eights stats")).reply(timeout=20)
                text = reply.content + " ".join(str(e) for e in reply.embeds)
                assert alice.mention in text and "1 played" in text, text
                board = await (await fake.invoke(alice, channel, "eights leaderboard")).reply(timeout=20)
                shown = board.content + " ".join(str(e) for e in board.embeds)
                assert alice.mention in shown or "alice" in shown, shown

            # No move applied twice: each table's log is one move per state version, in order.
            for table_id in tables:
                moves = await store.moves(table_id)
                state = await store.get_state(table_id)
                assert state is not None
                assert [(m.seq, m.version) for m in moves] == [(v, v) for v in range(1, state.version + 1)]
            # No public line posted twice (a line names the move it shows; two processes would post it twice).
            for channel in channels:
                lines = [m.content for m in public_lines(fake, channel)]
                assert lines, "no public line"
                repeated = [line for line, count in Counter(lines).items() if count > 1]
                assert repeated == [], repeated

            # /eights forget works from any process: asked in shard 1's guild, it forgets alice in both.
            question = await (await fake.invoke(alice, channels[1], "eights forget")).reply(timeout=20)
            await (await fake.click(alice, question, label="Delete my statistics")).callback(timeout=20)
            deadline = time.monotonic() + 20
            while any([await store.player_stats(guild.id, alice.id) for guild in guilds]):
                assert time.monotonic() < deadline, "alice's statistics were not forgotten in both guilds"
                await asyncio.sleep(0.1)
        finally:
            codes = [await process.stop() for process in processes]
            await store.close()
        assert codes == [0, 0], [process.log()[-3000:] for process in processes]
        for process in processes:
            log = process.log()
            assert "Traceback" not in log and TOKEN not in log, log[-3000:]
            assert "version moved on" not in log  # no process raced another for a table
        fake.assert_clean()
