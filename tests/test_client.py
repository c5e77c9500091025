"""EightsBot against the fake Discord: command sync on change, heartbeat, and a clean shutdown.

The features are replaced by a small ``setup_all`` per test (a ``/eights`` group with a command or two, and
closers standing in for the service), so these tests are about the client's own wiring.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.cli import _serve
from bot.client import RESTARTING_MESSAGE, EightsBot, command_tree_hash_key, hash_command_payload
from bot.config import Config, Secret
from bot.delivery.endpoints import apply_endpoints
from bot.store import open_store
from tests.fakediscord import FakeDiscord, fast_bot_options, running_bot

SetupAll = Callable[[EightsBot], Awaitable[None]]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord; the test fails if the bot broke one of Discord's rules."""
    async with FakeDiscord() as server:
        yield server
        server.assert_clean()


@pytest.fixture(autouse=True)
def discord_endpoints_restored() -> Iterator[None]:
    yield
    apply_endpoints(None, None)


def make_config(fake: FakeDiscord, tmp_path: Path, **changes: object) -> Config:
    values: dict[str, object] = {
        "token": Secret(fake.token),
        "database_url": f"sqlite:///{tmp_path / 'eights.sqlite3'}",
        "api_base_url": fake.api_base_url,
        "gateway_url": fake.gateway_url,
        "cpu_delay": 0.0,
        **changes,
    }
    return Config(**values)  # type: ignore[arg-type]


def eights_group(
    *names: str, handler: Callable[[discord.Interaction], Awaitable[None]] | None = None
) -> app_commands.Group:
    group = app_commands.Group(name="eights", description="Crazy Eights")
    for name in names:

        async def callback(interaction: discord.Interaction) -> None:
            if handler is not None:
                await handler(interaction)
            else:
                await interaction.response.send_message(f"{interaction.command.name} ok", ephemeral=True)  # type: ignore[union-attr]

        group.add_command(
            app_commands.Command(name=name, description=f"The {name} command", callback=callback)
        )
    return group


def use_cogs(monkeypatch: pytest.MonkeyPatch, setup_all: SetupAll) -> None:
    # EightsBot.setup_hook builds the features in _build_features: the test's stand in for the real ones.
    async def build(client: EightsBot, store: object) -> None:
        await setup_all(client)

    monkeypatch.setattr(EightsBot, "_build_features", build)


def names(commands: list[dict[str, object]]) -> list[str]:
    return sorted(
        f"{command['name']} {option['name']}"  # type: ignore[index]
        for command in commands
        for option in command.get("options", [])  # type: ignore[union-attr, attr-defined]
    )


# --- without Discord ------------------------------------------------------------------------------------


def test_intents_are_guilds_only_and_shards_come_from_the_config() -> None:
    client = EightsBot(Config(shard_count=4, shard_ids=(1, 3)))
    assert client.intents.value == discord.Intents(guilds=True).value
    assert not (client.intents.members or client.intents.presences or client.intents.message_content)
    assert (client.shard_count, client.shard_ids) == (4, [1, 3])
    automatic = EightsBot(Config())
    assert (automatic.shard_count, automatic.shard_ids) == (None, None)


def test_the_command_hash_is_canonical() -> None:
    a = {"name": "a", "type": 1, "description": "A", "options": []}
    b = {"name": "b", "type": 1, "description": "B", "options": []}
    assert hash_command_payload(1, [a, b]) == hash_command_payload(1, [b, a])
    assert hash_command_payload(1, [a, b]) == hash_command_payload(1, [dict(reversed(a.items())), b])
    assert hash_command_payload(1, [a, b]) != hash_command_payload(2, [a, b])  # another application
    assert hash_command_payload(1, [a, b]) != hash_command_payload(1, [a, {**b, "description": "B!"}])
    assert command_tree_hash_key(None) != command_tree_hash_key(5) != command_tree_hash_key(6)


# --- against the fake Discord ---------------------------------------------------------------------------


async def test_commands_are_synced_only_when_the_tree_changed(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guild = fake.create_guild("Cards")
    commands = ["join"]

    async def setup_all(client: EightsBot) -> None:
        client.tree.add_command(eights_group(*commands))

    use_cogs(monkeypatch, setup_all)

    async def start_once(**changes: object) -> EightsBot | None:
        client = EightsBot(make_config(fake, tmp_path, **changes), **fast_bot_options())
        async with running_bot(fake, client, set_endpoints=False):
            pass
        return client

    first = await start_once()
    assert first is not None and first.commands_synced is True
    assert names(fake.synced_commands()) == ["eights join"]

    second = await start_once()  # same tree: nothing sent
    assert second is not None and second.commands_synced is False

    commands.append("leave")
    third = await start_once()  # the tree changed: synced again
    assert third is not None and third.commands_synced is True
    assert names(fake.synced_commands()) == ["eights join", "eights leave"]

    # A development server is a target of its own: synced there, instantly, with the global commands copied.
    fourth = await start_once(dev_guild_id=guild.id)
    assert fourth is not None and fourth.commands_synced is True
    assert names(fake.synced_commands(guild)) == ["eights join", "eights leave"]
    fifth = await start_once(dev_guild_id=guild.id)
    assert fifth is not None and fifth.commands_synced is False


async def test_a_failed_sync_is_logged_and_the_bot_runs_on(
    fake: FakeDiscord,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:

    async def setup_all(client: EightsBot) -> None:
        client.tree.add_command(eights_group("join"))

    use_cogs(monkeypatch, setup_all)
    # A server the bot is not in: Discord answers 403 Missing Access.
    client = EightsBot(make_config(fake, tmp_path, dev_guild_id=987654321987654321), **fast_bot_options())
    with caplog.at_level(logging.ERROR, logger="bot.client"):
        async with running_bot(fake, client, set_endpoints=False):
            assert client.is_ready() and client.commands_synced is None
            assert await client.store.get_meta(command_tree_hash_key(987654321987654321)) is None
    assert any("applications.commands" in record.getMessage() for record in caplog.records)
    assert any("Missing Access" in violation for violation in fake.take_violations())  # provoked on purpose


async def test_heartbeat_is_written_at_start(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def setup_all(client: EightsBot) -> None:
        client.tree.add_command(eights_group("join"))

    use_cogs(monkeypatch, setup_all)
    client = EightsBot(make_config(fake, tmp_path), **fast_bot_options())
    before = time.time()
    async with running_bot(fake, client, set_endpoints=False):
        beat = await client.store.read_heartbeat()
    assert beat is not None and before - 1 <= beat <= time.time()


async def test_shutdown_turns_interactions_away_then_runs_closers_before_the_store_closes(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guild = fake.create_guild("Cards")
    channel = fake.create_channel(guild, "table")
    alice = fake.create_user("alice")
    fake.add_member(guild, alice)
    order: list[str] = []
    closing_started = asyncio.Event()
    release = asyncio.Event()

    async def setup_all(client: EightsBot) -> None:
        client.tree.add_command(eights_group("join"))

        async def registered_first() -> None:
            # Closers still have the database: the service writes its last move here.
            await client.store.set_meta("closer", "ran")
            order.append("first")

        async def registered_second() -> None:
            closing_started.set()
            await release.wait()
            order.append("second")

        client.closers.append(registered_first)
        client.closers.append(registered_second)

    use_cogs(monkeypatch, setup_all)
    client = EightsBot(make_config(fake, tmp_path), **fast_bot_options())
    async with running_bot(fake, client, set_endpoints=False):
        ok = await fake.invoke(alice, channel, "eights join")
        assert (await ok.reply()).content == "join ok"

        closing = asyncio.create_task(client.close())
        await asyncio.wait_for(closing_started.wait(), 5)
        # The gateway is still up, but new interactions are turned away.
        turned_away = await fake.invoke(alice, channel, "eights join")
        message = await turned_away.reply()
        assert message.content == RESTARTING_MESSAGE and message.ephemeral
        release.set()
        await asyncio.wait_for(closing, 9)
    assert order == ["second", "first"]  # last registered, first run
    assert client.is_closed()
    with pytest.raises(Exception):  # noqa: B017  (aiosqlite: no active connection)
        await client.store.get_meta("closer")

    store = await open_store(f"sqlite:///{tmp_path / 'eights.sqlite3'}")
    try:
        assert await store.get_meta("closer") == "ran"
    finally:
        await store.close()


async def test_sigterm_finishes_the_interaction_in_flight_and_exits_0_within_10_s(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guild = fake.create_guild("Cards")
    channel = fake.create_channel(guild, "table")
    alice = fake.create_user("alice")
    fake.add_member(guild, alice)
    in_flight = asyncio.Event()
    finished = asyncio.Event()

    async def slow_move(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        in_flight.set()
        await asyncio.sleep(0.5)  # the move being committed when SIGTERM arrives
        await interaction.followup.send("move done")
        finished.set()

    async def setup_all(client: EightsBot) -> None:
        client.tree.add_command(eights_group("play", handler=slow_move))

        async def finish_move_in_flight() -> None:  # what the service's closer does with its table locks
            await finished.wait()

        client.closers.append(finish_move_in_flight)

    use_cogs(monkeypatch, setup_all)
    client = EightsBot(make_config(fake, tmp_path), **fast_bot_options())
    client.before_identify_hook = _no_identify_delay  # type: ignore[method-assign]
    serving = asyncio.create_task(_serve(client, fake.token))
    await asyncio.wait_for(ready(client, serving), 10)

    move = await fake.invoke(alice, channel, "eights play")
    await asyncio.wait_for(in_flight.wait(), 5)
    signalled = time.monotonic()
    os.kill(os.getpid(), signal.SIGTERM)
    exit_code = await asyncio.wait_for(serving, 10)
    assert exit_code == 0
    assert time.monotonic() - signalled < 10
    assert finished.is_set()
    assert (await move.reply()).content == "move done"
    assert client.is_closed()


async def ready(client: EightsBot, serving: asyncio.Task[int]) -> None:
    while not client.is_ready():
        if serving.done():
            serving.result()  # why the bot stopped
            raise AssertionError("the bot stopped before it was ready")
        await asyncio.sleep(0.01)


async def _no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
    """discord.py waits 5 s before a non-first IDENTIFY; the fake has no such limit."""


async def test_automatic_sharding_and_resume_use_the_configured_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Discord names a gateway nobody listens on (port 9), for GET /gateway/bot and for resuming: the bot must
    # go to DISCORD_GATEWAY_URL for every connection anyway.
    async with FakeDiscord(recommended_shards=2, advertised_gateway_url="ws://127.0.0.1:9/") as server:
        for name in ("A", "B", "C", "D"):
            server.create_guild(name)

        async def setup_all(client: EightsBot) -> None:
            client.tree.add_command(eights_group("join"))

        use_cogs(monkeypatch, setup_all)
        client = EightsBot(make_config(server, tmp_path), **fast_bot_options())
        async with running_bot(server, client, set_endpoints=False):
            assert client.shard_count == 2
            assert sorted(server.identifies) == [(0, 2), (1, 2)]
            assert await server.drop_gateway() == 2
            await server.wait_for(lambda: len(server.resumes) == 2, what="both shards resuming", timeout=15)
            assert len(server.identifies) == 2  # resumed, not identified again
        server.assert_clean()


def test_tune_garbage_collector_freezes_start_up_objects_and_raises_thresholds() -> None:
    import gc

    from bot.client import GC_THRESHOLDS, tune_garbage_collector

    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_freeze_count() > 10_000  # modules, classes, functions of the whole bot
        assert gc.get_threshold() == GC_THRESHOLDS
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


async def test_a_heartbeat_failing_while_the_database_is_away_logs_one_line_not_a_traceback_each_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.store import StoreUnavailableError

    class Away:
        """A store whose database is away for the first three beats."""

        def __init__(self) -> None:
            self.calls = 0

        async def write_heartbeat(self, *args: object, **kwargs: object) -> None:
            self.calls += 1
            if self.calls <= 3:
                raise StoreUnavailableError("the database cannot be used now: connection refused")

    client = EightsBot(Config())
    client._store = Away()  # type: ignore[assignment]
    caplog.set_level(logging.INFO, logger="bot.client")
    for _ in range(5):
        await client._write_heartbeat()
    lines = [(r.levelno, r.getMessage(), r.exc_info) for r in caplog.records if r.name == "bot.client"]
    assert lines == [
        (
            logging.WARNING,
            "could not write the heartbeat: the database cannot be used now: connection refused",
            None,
        ),
        (logging.INFO, "the heartbeat is written again", None),
    ]


class _Claim:
    """A shard claim the test loses and hands to another process (bot.store.claims.ShardClaim)."""

    def __init__(self) -> None:
        self.held = True
        self.lost: Callable[[], None] | None = None
        self.back: Callable[[], None] | None = None
        self.taken: Callable[[str], None] | None = None

    def watch(
        self, on_lost: Callable[[], None], on_back: Callable[[], None], on_taken: Callable[[str], None]
    ) -> None:
        self.lost, self.back, self.taken = on_lost, on_back, on_taken

    async def release(self) -> None:
        return None


async def test_run_pauses_play_while_its_claim_is_lost_and_exits_1_when_the_shards_were_taken(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    claim = _Claim()
    client = EightsBot(make_config(fake, tmp_path), claim=claim, **fast_bot_options())
    serving = asyncio.create_task(_serve(client, fake.token))
    await asyncio.wait_for(ready(client, serving), 10)
    assert claim.lost is not None and claim.back is not None and claim.taken is not None
    registry = client.service._registry
    claim.lost()
    assert registry.paused is not None and "shard claim" in registry.paused
    claim.back()
    assert registry.paused is None
    claim.lost()
    claim.taken("another process already runs every shard on this database")
    assert await asyncio.wait_for(serving, 10) == 1
    assert client.is_closed() and client.fatal is not None
