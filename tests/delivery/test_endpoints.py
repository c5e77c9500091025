"""bot.delivery.endpoints: REST calls and gateway connections go to the configured URLs (sharded, resumed)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import discord
import pytest
import yarl
from discord import app_commands
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.config import ConfigError, load_config
from bot.delivery.endpoints import (
    DEFAULT_API_BASE_URL,
    DEFAULT_GATEWAY_URL,
    apply_endpoints,
    current_endpoints,
)
from tests.fakediscord import FakeDiscord, running_bot

# Named by the fake as Discord's own gateway (GET /gateway/bot, READY's resume_gateway_url). Nothing listens
# there: a client that went there instead of the configured gateway would never get ready or resume.
ELSEWHERE = "ws://127.0.0.1:9/elsewhere"


@pytest.fixture(autouse=True)
def restore_endpoints() -> Iterator[None]:
    yield
    apply_endpoints(None, None)


def test_apply_sets_rest_base_and_gateway_and_none_restores_discords() -> None:
    apply_endpoints("https://proxy.example/api/v10/", "wss://gw.example/path")
    assert Route.BASE == "https://proxy.example/api/v10"
    assert Route("POST", "/interactions/{id}/{token}/callback", id=1, token="t").url == (
        "https://proxy.example/api/v10/interactions/1/t/callback"
    )
    assert yarl.URL("wss://gw.example/path") == DiscordWebSocket.DEFAULT_GATEWAY
    assert current_endpoints() == ("https://proxy.example/api/v10", "wss://gw.example/path")
    apply_endpoints(None, None)
    assert current_endpoints() == (DEFAULT_API_BASE_URL, str(DEFAULT_GATEWAY_URL))
    assert DEFAULT_API_BASE_URL == "https://discord.com/api/v10"


@pytest.mark.parametrize(
    ("api", "gateway", "message"),
    [
        (None, "wss://gw.example/?v=10", "without a query string"),
        (None, "https://gw.example/", "ws:// or wss://"),
        ("ftp://proxy.example/api", None, "http"),
        ("https://proxy.example/api?x=1", None, "query string"),
    ],
)
def test_apply_rejects_malformed_urls(api: str | None, gateway: str | None, message: str) -> None:
    """A malformed URL is refused and changes nothing (whatever an earlier test of this worker, an
    end-to-end one say, left applied)."""
    before = current_endpoints()
    with pytest.raises(ValueError, match=message):
        apply_endpoints(api, gateway)
    assert current_endpoints() == before


def test_the_resume_gateway_is_replaced_only_while_a_gateway_is_configured() -> None:
    ws = DiscordWebSocket.__new__(DiscordWebSocket)
    apply_endpoints(None, "ws://configured.example/gw")
    ws.gateway = yarl.URL("wss://resume.discord.gg/")  # what READY's resume_gateway_url sets
    assert ws.gateway == yarl.URL("ws://configured.example/gw")
    apply_endpoints(None, None)
    ws.gateway = yarl.URL("wss://resume.discord.gg/")
    assert ws.gateway == yarl.URL("wss://resume.discord.gg/")


def _ping_bot(bot: commands.Bot | commands.AutoShardedBot) -> None:
    @bot.tree.command(name="ping", description="Pong")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        await interaction.edit_original_response(content="pong")
        await interaction.followup.send("again", ephemeral=True)

    del ping


async def _wait_resumed(fake: FakeDiscord, count: int) -> None:
    await fake.wait_for(lambda: len(fake.resumes) >= count, what=f"{count} resume(s)")


async def test_plain_bot_uses_the_configured_urls_for_rest_callbacks_webhooks_and_resume() -> None:
    async with FakeDiscord(advertised_gateway_url=ELSEWHERE) as fake:
        guild = fake.create_guild()
        channel = fake.create_channel(guild, "t")
        alice = fake.create_user("alice")
        fake.add_member(guild, alice)
        bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
        _ping_bot(bot)
        async with running_bot(fake, bot, ready_timeout=5):
            await bot.tree.sync()
            assert await fake.drop_gateway() == 1
            await _wait_resumed(fake, 1)
            resp = await fake.invoke(alice, channel, "ping")
            assert (await resp.reply()).content == "pong"
            assert (await resp.followup(0)).content == "again"
        assert fake.identifies == [(0, 1)]
        assert fake.gateway_connections == 2
        fake.assert_clean()


async def test_autosharded_bot_without_shard_count_ignores_the_gateway_named_by_the_api() -> None:
    async with FakeDiscord(recommended_shards=2, advertised_gateway_url=ELSEWHERE) as fake:
        guild = fake.create_guild()
        channel = fake.create_channel(guild, "t")
        alice = fake.create_user("alice")
        fake.add_member(guild, alice)
        bot = commands.AutoShardedBot(
            command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05
        )
        _ping_bot(bot)
        async with running_bot(fake, bot, ready_timeout=5):
            assert bot.shard_count == 2
            assert sorted(fake.identifies) == [(0, 2), (1, 2)]
            await bot.tree.sync()
            shard = (guild.id >> 22) % 2
            assert await fake.drop_gateway(shard) == 1
            await _wait_resumed(fake, 1)
            assert [s for s, _ in fake.resumes] == [shard]
            resp = await fake.invoke(alice, channel, "ping")
            assert (await resp.reply()).content == "pong"
        assert len(fake.identifies) == 2
        fake.assert_clean()


async def test_autosharded_bot_with_a_fixed_shard_count_connects_and_resumes_every_shard() -> None:
    async with FakeDiscord(advertised_gateway_url=ELSEWHERE) as fake:
        fake.create_guild()
        bot = commands.AutoShardedBot(
            command_prefix="!", intents=discord.Intents.default(), shard_count=3, guild_ready_timeout=0.05
        )
        async with running_bot(fake, bot, ready_timeout=5):
            assert sorted(fake.identifies) == [(0, 3), (1, 3), (2, 3)]
            assert await fake.drop_gateway() == 3
            await _wait_resumed(fake, 3)
            assert sorted(s for s, _ in fake.resumes) == [0, 1, 2]
            await asyncio.sleep(0)
            assert all(not shard.is_closed() for shard in bot.shards.values())
        assert len(fake.identifies) == 3
        fake.assert_clean()


async def test_after_an_invalid_session_the_client_identifies_again_on_the_configured_gateway() -> None:
    async with FakeDiscord(advertised_gateway_url=ELSEWHERE) as fake:
        guild = fake.create_guild()
        channel = fake.create_channel(guild, "t")
        alice = fake.create_user("alice")
        fake.add_member(guild, alice)
        bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
        _ping_bot(bot)
        async with running_bot(fake, bot, ready_timeout=5):
            await bot.tree.sync()
            assert await fake.drop_gateway(invalidate=True) == 1
            await fake.wait_for(lambda: len(fake.identifies) == 2, what="the second IDENTIFY")
            assert fake.refused_resumes == 1 and fake.resumes == []
            resp = await fake.invoke(alice, channel, "ping")
            assert (await resp.reply()).content == "pong"
        fake.assert_clean()


async def test_without_endpoints_applied_the_client_does_not_reach_the_fake() -> None:
    async with FakeDiscord() as fake:
        apply_endpoints(None, None)
        route = Route("GET", "/users/@me")
        assert route.url.startswith("https://discord.com/api/v10")
        assert not route.url.startswith(fake.api_base_url)
        assert fake.request_count == 0


async def test_app_command_tree_sync_goes_to_the_configured_api() -> None:
    async with FakeDiscord() as fake:
        bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)

        @app_commands.command(name="hello", description="Hi")
        async def hello(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("hi")

        bot.tree.add_command(hello)
        async with running_bot(fake, bot, ready_timeout=5):
            synced = await bot.tree.sync()
        assert [c.name for c in synced] == ["hello"]
        assert [c["name"] for c in fake.synced_commands()] == ["hello"]


ENDPOINT_URLS = [
    "https://proxy.example/api/v10",
    "http://127.0.0.1:8080/api/v10/",
    "https://proxy.example/api?",
    "https://proxy.example/api#part",
    "https://proxy.example/api?x=1",
    "ftp://proxy.example/api",
    "https://",
    "wss://gw.example/",
    "wss://gw.example/?",
    "wss://gw.example/?v=10",
    "ws://127.0.0.1:9/gw#x",
    "https://gw.example/",
]


@pytest.mark.parametrize("url", ENDPOINT_URLS)
def test_the_configuration_and_the_endpoints_accept_the_same_urls(url: str) -> None:
    # One check for both (bot.config.url_problem): a URL the configuration let through must not fail later
    # when the endpoints are applied, nor the other way round.
    for variable, applied in (
        ("DISCORD_API_BASE_URL", lambda: apply_endpoints(url, None)),
        ("DISCORD_GATEWAY_URL", lambda: apply_endpoints(None, url)),
    ):
        try:
            load_config({"DISCORD_TOKEN": "x" * 60, variable: url}, env_file=None)
            configured = True
        except ConfigError:
            configured = False
        try:
            applied()
            usable = True
        except ValueError:
            usable = False
        finally:
            apply_endpoints(None, None)
        assert configured == usable, (variable, url)
