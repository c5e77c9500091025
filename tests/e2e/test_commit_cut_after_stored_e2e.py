"""A move whose COMMIT reached PostgreSQL and was stored, but whose answer never came back: the connection is
cut right then, and the server stays out of reach (a network partition, a failover) for longer than the
bot's look at it (registry.IN_DOUBT_WAIT, 3 s), end to end through the fake Discord.

README "When the database falters": a move the bot cannot tell was saved is answered "The database did not
answer: the bot cannot tell yet whether this was saved. The table will show it in a moment.", and the bot
asks again until it knows; a move that was stored is then told in the channel. "The bot could not save this,
so nothing changed" is said only of what was not stored.

The bot cannot know either way here, so the answer is "in doubt" whatever broke (bot/service/registry.py
``_not_stored``). It used to be "in doubt" only for a server that stopped answering (StoreTimedOutError),
taking a cut connection for a rolled-back one: Alice was told nothing changed, and moments later the channel
showed her move."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.exts._group import STORE_FAILED, STORE_IN_DOUBT
from bot.service import registry
from tests.e2e.test_database_faults_e2e import (
    alice_against_a_cpu,
    assert_each_move_once,
    short_turns_allowed,  # noqa: F401  (autouse: 1 s turns allowed)
    world_on,
)
from tests.fakediscord import FakeDiscord


class SilencingProxy:
    """127.0.0.1:<port> forwarded to the server of ``url`` (as tests/service/db_faults.py's TcpProxy). With
    ``silent`` set, what the server sends is dropped (its answers are lost on the way); ``cut`` closes every
    connection and refuses new ones; ``restore`` listens again."""

    def __init__(self, url: str) -> None:
        self._url = urlsplit(url)
        self._target = (self._url.hostname or "127.0.0.1", self._url.port or 5432)
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self.silent = False
        self.port = 0

    @property
    def url(self) -> str:
        netloc = self._url.netloc.rsplit("@", 1)
        user = netloc[0] + "@" if len(netloc) == 2 else ""
        return urlunsplit(self._url._replace(netloc=f"{user}127.0.0.1:{self.port}"))

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._open.update((writer, up_writer))

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter, down: bool) -> None:
            try:
                while data := await source.read(65536):
                    if down and self.silent:
                        continue  # the server's answer, lost
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.transport.abort()
                self._open.discard(sink)

        await asyncio.gather(pipe(reader, up_writer, False), pipe(up_reader, writer, True))

    async def cut(self) -> None:
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()
        if self._server is not None:
            self._server.close()
            self._server = None
        await asyncio.sleep(0.05)

    async def restore(self) -> None:
        self.silent = False
        await self.start()


async def test_a_move_stored_while_its_answer_was_lost_is_told_in_doubt_then_shown(
    fake: FakeDiscord, tmp_path: Path, pg_url: str
) -> None:
    """The bot reaches the server through a proxy. Alice clicks Draw; the proxy drops the server's answers, so
    the server stores her move (seen on a connection of the test's own) while the bot hears nothing; then
    every connection is cut and the proxy refuses new ones until she has her answer and IN_DOUBT_WAIT + 1 s
    more. Her answer is the "in doubt" line, not "nothing changed"; once the proxy is back her move is shown
    (8 cards in her hand), and stored once."""
    proxy = SilencingProxy(pg_url)
    await proxy.start()
    watcher = await asyncpg.connect(pg_url)  # the test's own look at the server, not through the proxy
    try:
        async with world_on(fake, tmp_path, proxy.url) as world:
            assert world.bot is not None
            hand = await alice_against_a_cpu(world, turn=60.0)
            table_id = await world.table_id()
            await world.settle()
            version = await watcher.fetchval("SELECT version FROM game_state WHERE table_id = $1", table_id)

            proxy.silent = True
            click = await world.fake.click(world.alice, hand, label="Draw")
            for _ in range(200):  # the server stores her move; its answer goes nowhere
                stored = await watcher.fetchval(
                    "SELECT version FROM game_state WHERE table_id = $1", table_id
                )
                if stored == version + 1:
                    break
                await asyncio.sleep(0.02)
            assert stored == version + 1, "the server did not store the move"
            await proxy.cut()  # ... and the connection goes, the server out of reach for a while
            try:
                kind = await click.callback(timeout=30.0)
                answer = await (click.followup(0, timeout=30.0) if kind == 6 else click.reply(timeout=30.0))
                await asyncio.sleep(registry.IN_DOUBT_WAIT + 1.0)
            finally:
                await proxy.restore()
            assert answer.ephemeral
            assert answer.content != STORE_FAILED, (
                "Alice is told 'nothing changed' of a move the database stored (it shows up in the channel "
                "moments later)"
            )
            assert answer.content == STORE_IN_DOUBT, answer.content

            async def shown() -> bool:
                return (await world.snapshot()).seats[0].card_count == 8

            await world.until(shown, "the stored move shown", timeout=40.0)
            assert_each_move_once(await world.bot.store.moves(table_id))
    finally:
        await watcher.close()
        await proxy.cut()
