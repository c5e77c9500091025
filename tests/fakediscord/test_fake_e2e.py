"""The fake Discord server driven by the real discord.py client: a tiny throwaway bot, end to end."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.delivery.endpoints import apply_endpoints
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUser,
    InvalidInteraction,
    fast_bot_options,
    running_bot,
)

AnyBot = commands.Bot | commands.AutoShardedBot
CARDS = ["king of hearts", "king of spades", "knave of clubs", "eight of diamonds", "two of hearts"]


class TableView(discord.ui.View):
    """A public table message: a Join button (updates the message) and a preset select."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.joined: list[str] = []

    @discord.ui.button(label="Join", custom_id="table:join", style=discord.ButtonStyle.primary)
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[TableView]) -> None:
        self.joined.append(interaction.user.name)
        await interaction.response.edit_message(content=f"Table: {', '.join(self.joined)}", view=self)

    @discord.ui.button(label="Peek", custom_id="table:peek")
    async def peek(self, interaction: discord.Interaction, button: discord.ui.Button[TableView]) -> None:
        await interaction.response.send_message(f"only you, {interaction.user.name}", ephemeral=True)

    @discord.ui.button(label="Refresh", custom_id="table:refresh")
    async def refresh(self, interaction: discord.Interaction, button: discord.ui.Button[TableView]) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="refreshed")

    @discord.ui.button(label="Rename", custom_id="table:rename")
    async def rename(self, interaction: discord.Interaction, button: discord.ui.Button[TableView]) -> None:
        await interaction.response.send_modal(RenameModal())

    @discord.ui.select(
        custom_id="table:preset",
        options=[discord.SelectOption(label=p.title(), value=p) for p in ("classic", "quick", "party")],
        max_values=2,
    )
    async def preset(self, interaction: discord.Interaction, select: discord.ui.Select[TableView]) -> None:
        await interaction.response.send_message(f"presets: {'+'.join(select.values)}")


class RenameModal(discord.ui.Modal, title="Rename the table"):
    name: discord.ui.TextInput[RenameModal] = discord.ui.TextInput(label="New name", custom_id="rename:name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"renamed to {self.name.value}")


def make_bot(*, sharded: bool = False, **options: Any) -> AnyBot:
    intents = discord.Intents.default()
    kwargs: dict[str, Any] = {**fast_bot_options(), **options}
    bot: AnyBot = (
        commands.AutoShardedBot(command_prefix="!", intents=intents, **kwargs)
        if sharded
        else commands.Bot(command_prefix="!", intents=intents, **kwargs)
    )
    group = app_commands.Group(name="eights", description="Crazy Eights")

    @group.command(name="new", description="Open a table")
    @app_commands.choices(
        preset=[
            app_commands.Choice(name="Classic", value="classic"),
            app_commands.Choice(name="Quick", value="quick"),
        ]
    )
    async def new(
        interaction: discord.Interaction, preset: str, seats: app_commands.Range[int, 2, 6] = 4
    ) -> None:
        await interaction.response.send_message(f"New {preset} table, {seats} seats", view=TableView())

    @group.command(name="hand", description="See your hand")
    async def hand(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send(f"{interaction.user.name}'s hand: 8♦ K♠", ephemeral=True)

    @group.command(name="play", description="Play a card")
    async def play(interaction: discord.Interaction, card: str) -> None:
        await interaction.response.send_message(f"{interaction.user.name} plays {card}")
        await interaction.followup.send("next player's turn")
        late = await interaction.followup.send("a note", ephemeral=True, wait=True)
        await late.edit(content="a note, edited")
        await interaction.edit_original_response(content=f"{interaction.user.name} played {card}")

    @play.autocomplete("card")
    async def play_card(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=c, value=c) for c in CARDS if c.startswith(current)]

    @bot.tree.command(name="kick", description="Remove a player")
    @app_commands.default_permissions(manage_guild=True)
    async def kick(interaction: discord.Interaction, player: discord.Member) -> None:
        await interaction.response.send_message(f"kicked {player.display_name}")

    @group.command(name="announce", description="Post and edit through the channel")
    async def announce(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("posting", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        message = await interaction.channel.send("Round 1")
        await message.edit(content="Round 1 (over)")
        gone = await interaction.channel.send("temporary")
        await gone.delete()

    @group.command(name="webhooks", description="Fetch, edit and delete through the interaction webhooks")
    async def webhooks(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("original")
        original = await interaction.original_response()  # GET .../messages/@original
        first = await interaction.followup.send("first follow-up", wait=True)
        second = await interaction.followup.send("second follow-up", wait=True)
        fetched = await interaction.followup.fetch_message(first.id)
        await interaction.followup.edit_message(fetched.id, content=f"{fetched.content}, edited")
        await interaction.followup.delete_message(second.id)
        secret = await interaction.followup.send("for your eyes", ephemeral=True, wait=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        public = await interaction.channel.fetch_message(original.id)
        try:
            await interaction.channel.fetch_message(secret.id)
        except discord.NotFound:
            hidden = "hidden"
        else:
            hidden = "visible"
        await interaction.edit_original_response(content=f"{public.content}: ephemeral via channel {hidden}")
        await interaction.delete_original_response()

    posted: dict[str, int] = {}  # what "eights board" posted, for "eights foreign"

    @group.command(name="board", description="A message edited often through its interaction's token")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("board 0")
        follow = await interaction.followup.send("board follow-up 0", wait=True)
        posted["original"] = (await interaction.original_response()).id
        posted["followup"] = follow.id
        for i in range(1, 7):  # more than the token's bucket holds: discord.py waits for its reset
            await interaction.edit_original_response(content=f"board {i}")
            await interaction.followup.edit_message(follow.id, content=f"board follow-up {i}")

    @group.command(name="foreign", description="Edits another interaction's messages with its own token")
    async def foreign(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("trying")
        refused = []
        for name in ("original", "followup"):
            try:
                await interaction.followup.edit_message(posted[name], content="not mine")
            except discord.NotFound:
                refused.append(name)
        await interaction.edit_original_response(content=f"refused: {', '.join(refused)}")

    @group.command(name="export", description="Sends a file")
    async def export(interaction: discord.Interaction) -> None:
        score = discord.File(io.BytesIO(b"alice,12\nbob,3\n"), filename="scores.csv")
        await interaction.response.send_message("scores attached", file=score)
        await interaction.followup.send(
            "and again", file=discord.File(io.BytesIO(b"x" * 10), filename="x.txt")
        )

    bot.tree.add_command(group)

    rules = app_commands.Group(name="bad", description="Commands that break Discord's rules")

    @rules.command(name="twice", description="Answers twice")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        # discord.py guards against a second callback itself; forget that, as a buggy bot might.
        interaction.response._response_type = None
        await interaction.response.send_message("two")

    @rules.command(name="slow", description="Answers too late")
    async def slow(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.3)
        await interaction.response.send_message("sorry I'm late")

    @rules.command(name="long", description="Too much text")
    async def long(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("x" * 2001)

    @rules.command(name="embed", description="Embed title too long")
    async def embed(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(embed=discord.Embed(title="t" * 257))

    @rules.command(name="select", description="A select with 30 options")
    async def select(interaction: discord.Interaction) -> None:
        view = discord.ui.View()
        options = [discord.SelectOption(label=f"card {i}") for i in range(30)]
        view.add_item(discord.ui.Select(custom_id="too-many", options=options))
        await interaction.response.send_message("pick a card", view=view)

    @rules.command(name="early", description="Follow-up before the callback")
    async def early(interaction: discord.Interaction) -> None:
        await interaction.followup.send("too early")

    @rules.command(name="stale", description="Edits after the interaction token expired")
    async def stale(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("soon stale")
        await asyncio.sleep(0.3)
        await interaction.edit_original_response(content="too late to edit")

    @rules.command(name="unknown", description="Calls an endpoint the fake does not know")
    async def unknown(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("fetching sticker packs")
        await interaction.client.fetch_premium_sticker_packs()

    bot.tree.add_command(rules)
    return bot


@dataclass
class World:
    fake: FakeDiscord
    bot: AnyBot
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser


@pytest.fixture
async def world(fake_discord: FakeDiscord) -> AsyncIterator[World]:
    fake = fake_discord
    guild = fake.create_guild("Card Room")
    channel = fake.create_channel(guild, "table-1")
    alice, bob = fake.create_user("alice"), fake.create_user("bob")
    fake.add_member(guild, alice)
    fake.add_member(guild, bob)
    bot = make_bot()
    async with running_bot(fake, bot):
        await bot.tree.sync()
        yield World(fake, bot, guild, channel, alice, bob)


async def test_login_ready_and_guild_create(world: World) -> None:
    bot, fake = world.bot, world.fake
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.application_id == fake.application_id
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.name == "Card Room"
    assert [c.name for c in guild.text_channels] == ["table-1"]
    assert bot.latency < 1.0  # the heartbeat sent at HELLO was acknowledged
    assert guild.member_count == 4 and guild.me is not None
    assert [m.name for m in guild.members] == [fake.bot_user.name]  # no members intent: only the bot's
    assert fake.identifies == [(0, 1)]


async def test_members_intent_bot_chunks_the_member_list(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    guild = fake.create_guild("Card Room")
    fake.add_member(guild, fake.create_user("alice"))
    intents = discord.Intents.default()
    intents.members = True
    bot = commands.Bot(command_prefix="!", intents=intents, guild_ready_timeout=0.05)
    async with running_bot(fake, bot):
        cached = bot.get_guild(guild.id)
        assert cached is not None and cached.chunked
        assert sorted(m.name for m in cached.members) == sorted(["alice", "app-owner", fake.bot_user.name])


async def test_sync_keeps_the_command_json_global_and_per_guild(world: World) -> None:
    fake, bot = world.fake, world.bot
    (group,) = [c for c in fake.synced_commands() if c["name"] == "eights"]
    new = next(o for o in group["options"] if o["name"] == "new")
    assert [c["value"] for c in new["options"][0]["choices"]] == ["classic", "quick"]
    assert fake.synced_commands(world.guild) == []

    @app_commands.command(name="local", description="Guild only")
    async def local(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("local reply")

    bot.tree.add_command(local, guild=discord.Object(world.guild.id))
    await bot.tree.sync(guild=discord.Object(world.guild.id))
    assert [c["name"] for c in fake.synced_commands(world.guild)] == ["local"]
    resp = await fake.invoke(world.alice, world.channel, "local")
    assert (await resp.reply()).content == "local reply"


async def test_invoke_public_reply_and_button_update_keep_edit_history(world: World) -> None:
    fake = world.fake
    resp = await fake.invoke(world.alice, world.channel, "eights new", preset="quick", seats=3)
    message = await resp.reply()
    assert resp.callback_type == 4 and not resp.ephemeral
    assert resp.content == "New quick table, 3 seats"
    assert [b["label"] for b in message.buttons] == ["Join", "Peek", "Refresh", "Rename"]

    await (await fake.click(world.alice, message, label="Join")).reply()
    click = await fake.click(world.bob, message, "table:join")
    assert await click.callback() == 7
    await click.reply()
    assert [v.content for v in message.versions] == [
        "New quick table, 3 seats",
        "Table: alice",
        "Table: alice, bob",
    ]
    assert fake.channel_messages(world.channel) == [message]


async def test_ephemeral_messages_reach_only_their_user(world: World) -> None:
    fake = world.fake
    table = await (await fake.invoke(world.alice, world.channel, "eights new", preset="classic")).reply()
    hand = await fake.invoke(world.alice, world.channel, "eights hand")
    assert await hand.callback() == 5
    reply = await hand.reply()
    assert reply.ephemeral and reply.recipient is world.alice and "alice's hand" in reply.content
    peek = await (await fake.click(world.bob, table, label="Peek")).reply()
    assert peek.ephemeral and peek.content == "only you, bob"

    assert fake.channel_messages(world.channel) == [table]
    assert fake.ephemeral_messages(world.alice) == [reply]
    assert fake.ephemeral_messages(world.bob) == [peek]
    with pytest.raises(InvalidInteraction, match="ephemeral to bob"):
        await fake.click(world.alice, peek, label="anything")


async def test_deferred_public_response_then_first_followup_replaces_the_thinking_message(
    fake_discord: FakeDiscord,
) -> None:
    fake = fake_discord
    guild = fake.create_guild()
    channel = fake.create_channel(guild, "t")
    alice = fake.create_user("alice")
    fake.add_member(guild, alice)
    bot = make_bot()

    @bot.tree.command(name="leaky", description="Defers publicly, then asks for an ephemeral follow-up")
    async def leaky(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.followup.send("secret hand", ephemeral=True)

    async with running_bot(fake, bot):
        await bot.tree.sync()
        resp = await fake.invoke(alice, channel, "leaky")
        reply = await resp.reply()
    # As on Discord: the follow-up took the defer's visibility, so the "ephemeral" text went public.
    assert not reply.ephemeral
    assert [m.content for m in fake.channel_messages(channel)] == ["secret hand"]
    assert fake.ephemeral_messages(alice) == []


async def test_followups_edits_and_channel_messages(world: World) -> None:
    fake = world.fake
    resp = await fake.invoke(world.bob, world.channel, "eights play", card="two of hearts")
    await resp.reply()
    note = await resp.followup(1)
    await fake.wait_for(lambda: resp.content == "bob played two of hearts", what="the edit of the original")
    assert note.ephemeral and note.content == "a note, edited" and len(note.versions) == 2
    assert [m.text() for m in fake.channel_messages(world.channel)] == [
        "bob played two of hearts",
        "next player's turn",
    ]
    assert fake.ephemeral_messages(world.bob) == [note]

    announce = await fake.invoke(world.alice, world.channel, "eights announce")
    await announce.reply()
    round_message = await fake.wait_for(
        lambda: next((m for m in fake.channel_messages(world.channel) if m.content.startswith("Round")), None)
    )
    await fake.wait_for(
        lambda: any(m.deleted for m in fake.channel_messages(world.channel, include_deleted=True))
    )
    assert [v.content for v in round_message.versions] == ["Round 1", "Round 1 (over)"]
    assert "temporary" not in [m.content for m in fake.channel_messages(world.channel)]


async def test_select_deferred_update_and_modal(world: World) -> None:
    fake = world.fake
    table = await (await fake.invoke(world.alice, world.channel, "eights new", preset="classic")).reply()
    picked = await (await fake.select(world.bob, table, "table:preset", ["quick", "party"])).reply()
    assert picked.content == "presets: quick+party" and not picked.ephemeral
    with pytest.raises(InvalidInteraction, match="no options"):
        await fake.select(world.bob, table, "table:preset", ["poker"])
    with pytest.raises(InvalidInteraction, match="takes 1 to 2 values"):
        await fake.select(world.bob, table, "table:preset", ["classic", "quick", "party"])

    refresh = await fake.click(world.alice, table, label="Refresh")
    assert await refresh.callback() == 6
    assert (await refresh.reply()) is table and table.content == "refreshed"

    rename = await fake.click(world.alice, table, label="Rename")
    assert await rename.callback() == 9
    assert rename.modal is not None and rename.modal["title"] == "Rename the table"
    submitted = await fake.submit_modal(world.alice, rename, **{"rename:name": "High Rollers"})
    assert (await submitted.reply()).content == "renamed to High Rollers"


async def test_autocomplete_returns_the_bots_choices(world: World) -> None:
    choices = await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", partial="k")
    assert [c["value"] for c in choices] == ["king of hearts", "king of spades", "knave of clubs"]
    assert await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", partial="z") == []


async def test_options_are_checked_against_the_synced_schema(world: World) -> None:
    fake, alice, channel = world.fake, world.alice, world.channel
    with pytest.raises(InvalidInteraction, match="not one of"):
        await fake.invoke(alice, channel, "eights new", preset="poker")
    with pytest.raises(InvalidInteraction, match="needs options"):
        await fake.invoke(alice, channel, "eights new")
    with pytest.raises(InvalidInteraction, match="above 6"):
        await fake.invoke(alice, channel, "eights new", preset="classic", seats=7)
    with pytest.raises(InvalidInteraction, match="cannot take"):
        await fake.invoke(alice, channel, "eights new", preset="classic", seats="3")
    with pytest.raises(InvalidInteraction, match="no option 'colour'"):
        await fake.invoke(alice, channel, "eights new", preset="classic", colour="red")
    with pytest.raises(InvalidInteraction, match="no subcommand"):
        await fake.invoke(alice, channel, "eights fold")
    with pytest.raises(InvalidInteraction, match="is a group"):
        await fake.invoke(alice, channel, "eights")
    # /kick needs Manage Server: hidden for alice, usable by a member whose role grants it.
    with pytest.raises(InvalidInteraction, match="lacks the permissions"):
        await fake.invoke(alice, channel, "kick", player=world.bob)
    mods = fake.create_role(world.guild, "mods", permissions=discord.Permissions(manage_guild=True).value)
    carol = fake.create_user("carol")
    fake.add_member(world.guild, carol, roles=[mods])
    kicked = await fake.invoke(carol, channel, "kick", player=world.bob)
    assert (await kicked.reply()).content == "kicked bob"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("bad twice", "already been acknowledged"),
        ("bad long", "2001 characters"),
        ("bad embed", "title has 257 characters"),
        ("bad select", "has 30 options (1 to 25)"),
        ("bad early", "follow-up before the interaction callback"),
    ],
)
async def test_rule_violations_are_refused_and_recorded(world: World, command: str, expected: str) -> None:
    fake = world.fake
    resp = await fake.invoke(world.alice, world.channel, command)
    await fake.wait_for(lambda: fake.violations, what="a violation")
    with pytest.raises(AssertionError, match="broke Discord's rules"):
        await resp.followup(5, timeout=1.0)
    (violation,) = fake.take_violations()
    assert expected in violation


async def test_a_callback_after_the_deadline_is_refused(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.callback_deadline = 0.2  # Discord's 3 s, scaled down so the test is quick
    guild = fake.create_guild()
    channel = fake.create_channel(guild, "t")
    alice = fake.create_user("alice")
    fake.add_member(guild, alice)
    bot = make_bot()
    async with running_bot(fake, bot):
        await bot.tree.sync()
        resp = await fake.invoke(alice, channel, "bad slow")
        with pytest.raises(AssertionError, match=r"first callback 0\.3\ds after the interaction"):
            await resp.reply()
    assert fake.channel_messages(channel) == []
    assert len(fake.take_violations()) == 1


async def test_unknown_endpoints_are_answered_404_and_recorded(world: World) -> None:
    fake = world.fake
    await (await fake.invoke(world.alice, world.channel, "bad unknown")).reply()
    await fake.wait_for(lambda: fake.unknown_requests, what="the unknown request")
    (request,) = fake.take_unknown_requests()
    assert (request.method, request.path) == ("GET", "/api/v10/sticker-packs")
    with pytest.raises(AssertionError, match="unknown endpoint"):
        fake.unknown_requests.append(request)
        fake.assert_clean()
    fake.take_unknown_requests()


async def test_message_observers_see_every_message_with_its_recipient(world: World) -> None:
    fake = world.fake
    seen: list[tuple[str, str | None]] = []

    def record(message: FakeMessage, recipient: FakeUser | None) -> None:
        seen.append((message.content, recipient.name if recipient else None))
        if recipient is None and "hand" in message.content:
            raise AssertionError("a hand in a public message")

    fake.add_message_observer(record)
    await (await fake.invoke(world.alice, world.channel, "eights hand")).reply()
    table = await (await fake.invoke(world.alice, world.channel, "eights new", preset="classic")).reply()
    await (await fake.click(world.bob, table, label="Join")).reply()
    assert seen == [
        ("", "alice"),  # the deferred "thinking" message
        ("alice's hand: 8♦ K♠", "alice"),
        ("New classic table, 4 seats", None),
        ("Table: bob", None),
    ]
    assert fake.violations == []

    leaky = make_leaky_message(fake, world)
    assert leaky.content == "bob's hand, for all" and fake.take_violations() == [
        f"message observer rejected message {leaky.id}: a hand in a public message"
    ]


def make_leaky_message(fake: FakeDiscord, world: World) -> FakeMessage:
    """A public message the observer must reject (posted as a user, through the same storage path)."""
    message = FakeMessage(
        fake.snowflake(), world.channel.id, world.guild.id, world.bob, content="bob's hand, for all"
    )
    return fake._store_message(message, recipient=None)


async def test_resume_after_the_connection_drops_replays_missed_events(world: World) -> None:
    fake, bot = world.fake, world.bot
    resumed = asyncio.Event()

    async def on_resumed() -> None:
        resumed.set()

    bot.add_listener(on_resumed)
    assert await fake.drop_gateway() == 1
    # Sent while the bot is disconnected: delivered when it resumes.
    resp = await fake.invoke(world.alice, world.channel, "eights new", preset="classic")
    assert (await resp.reply()).content.startswith("New classic table")
    await asyncio.wait_for(resumed.wait(), 5)
    assert fake.identifies == [(0, 1)]
    assert [shard for shard, _ in fake.resumes] == [0]
    assert fake.gateway_connections == 2


async def _guilds_on_every_shard(fake: FakeDiscord, shard_count: int) -> list[FakeGuild]:
    """Guilds until each shard holds one (a guild's shard comes from its id's timestamp part)."""
    by_shard: dict[int, FakeGuild] = {}
    while len(by_shard) < shard_count:
        guild = fake.create_guild(f"guild {len(fake.guilds)}")
        by_shard.setdefault((guild.id >> 22) % shard_count, guild)
        await asyncio.sleep(0.001)
    return [by_shard[i] for i in range(shard_count)]


async def test_autosharded_bot_gets_one_ready_per_shard_and_interactions_on_the_right_shard() -> None:
    async with FakeDiscord(recommended_shards=2) as fake:
        guilds = await _guilds_on_every_shard(fake, 2)
        alice = fake.create_user("alice")
        channels = []
        for guild in guilds:
            fake.add_member(guild, alice)
            channels.append(fake.create_channel(guild, "table"))
        bot = make_bot(sharded=True)
        ready_shards: list[int] = []

        async def on_shard_ready(shard_id: int) -> None:
            ready_shards.append(shard_id)

        bot.add_listener(on_shard_ready)
        async with running_bot(fake, bot):
            await bot.tree.sync()
            assert sorted(fake.identifies) == [(0, 2), (1, 2)]
            assert sorted(ready_shards) == [0, 1]
            assert {g.id for g in bot.guilds} == {g.id for g in fake.guilds.values()}
            for channel in channels:
                resp = await fake.invoke(alice, channel, "eights new", preset="classic")
                assert (await resp.reply()).content == "New classic table, 4 seats"
            guild0 = bot.get_guild(guilds[0].id)
            guild1 = bot.get_guild(guilds[1].id)
            assert guild0 is not None and guild0.shard_id == 0
            assert guild1 is not None and guild1.shard_id == 1
        fake.assert_clean()


async def test_interaction_webhooks_fetch_edit_and_delete(world: World) -> None:
    fake = world.fake
    resp = await fake.invoke(world.alice, world.channel, "eights webhooks")
    original = await resp.reply()
    await fake.wait_for(lambda: original.deleted, what="the original response's deletion")
    assert [v.content for v in original.versions] == ["original", "original: ephemeral via channel hidden"]
    first, second, secret = resp.followups
    assert [v.content for v in first.versions] == ["first follow-up", "first follow-up, edited"]
    assert second.deleted and not first.deleted
    assert secret.ephemeral and fake.ephemeral_messages(world.alice) == [secret]
    assert fake.channel_messages(world.channel) == [first]
    assert fake.channel_messages(world.channel, include_deleted=True) == [original, first, second]


@pytest.mark.discord_limits()
async def test_an_interactions_messages_are_edited_through_its_token_within_the_token_bucket(
    world: World,
) -> None:
    """Interaction webhooks are exempt from the global limit (none of the 14 edits counts in it) but have a
    bucket per token (5 per 2 s), whose headers discord.py obeys; a token edits only its own interaction's
    messages (the original response and its follow-ups)."""
    fake = world.fake
    limits = fake.limits
    assert limits is not None
    offered = limits.counters.global_offered
    resp = await fake.invoke(world.alice, world.channel, "eights board")
    original = await resp.reply()
    follow = await resp.followup(0)
    await fake.wait_for(lambda: follow.content == "board follow-up 6", what="the last edit", timeout=30)
    assert original.content == "board 6" and len(original.versions) == 7 and len(follow.versions) == 7
    assert limits.counters.global_offered == offered and limits.counters.route_429 == 0
    other = await fake.invoke(world.bob, world.channel, "eights foreign")
    await fake.wait_for(lambda: other.record.original_edits, what="the foreign edits' outcome", timeout=10)
    assert (
        other.record.original is not None and other.record.original.content == "refused: original, followup"
    )
    assert original.content == "board 6" and follow.content == "board follow-up 6"
    # The two refusals (404) were the point of the second command.
    assert len(other.record.errors) == 2 and len(fake.take_violations()) == 2
    other.record.errors.clear()


async def test_an_expired_interaction_token_is_refused(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.token_lifetime = 0.2  # Discord's 15 minutes, scaled down
    guild = fake.create_guild()
    channel = fake.create_channel(guild, "t")
    alice = fake.create_user("alice")
    fake.add_member(guild, alice)
    bot = make_bot()
    async with running_bot(fake, bot):
        await bot.tree.sync()
        resp = await fake.invoke(alice, channel, "bad stale")
        message = await resp.reply()
        await fake.wait_for(lambda: fake.violations, what="the refused edit")
    assert message.content == "soon stale" and message.versions == [message.snapshot()]
    (violation,) = fake.take_violations()
    assert "Invalid Webhook Token" in violation


async def test_json_is_answered_with_exactly_application_json_and_a_bad_token_fails_login(
    fake_discord: FakeDiscord,
) -> None:
    fake = fake_discord
    async with aiohttp.ClientSession() as session:
        headers = {"Authorization": f"Bot {fake.token}"}
        async with session.get(f"{fake.api_base_url}/users/@me", headers=headers) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == "application/json"
            assert (await response.json())["id"] == str(fake.bot_user.id)
        async with session.get(f"{fake.api_base_url}/users/@me") as response:
            assert response.status == 401
        async with session.post(f"{fake.api_base_url}/users/@me", headers=headers) as response:
            assert response.status == 404
        assert [(r.method, r.path) for r in fake.take_unknown_requests()] == [("POST", "/api/v10/users/@me")]
    bot = make_bot()
    apply_endpoints(fake.api_base_url, fake.gateway_url)
    try:
        with pytest.raises(discord.LoginFailure):
            await bot.login("not-the-token")
    finally:
        await bot.close()
        apply_endpoints(None, None)


async def test_files_are_uploaded_as_multipart_attachments(world: World) -> None:
    resp = await world.fake.invoke(world.alice, world.channel, "eights export")
    message = await resp.reply()
    assert message.content == "scores attached"
    assert [(a["filename"], a["size"]) for a in message.attachments] == [("scores.csv", 15)]
    again = await resp.followup(0)
    assert [(a["filename"], a["size"]) for a in again.attachments] == [("x.txt", 10)]


async def test_admin_only_commands_are_hidden_from_everyone_else(world: World) -> None:
    fake, bot = world.fake, world.bot

    @bot.tree.command(name="reset", description="Admins only")
    @app_commands.default_permissions()
    async def reset(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("reset done")

    await bot.tree.sync()
    assert (
        next(c for c in fake.synced_commands() if c["name"] == "reset")["default_member_permissions"] == "0"
    )
    with pytest.raises(InvalidInteraction, match="lacks the permissions"):
        await fake.invoke(world.alice, world.channel, "reset")
    admins = fake.create_role(
        world.guild, "admins", permissions=discord.Permissions(administrator=True).value
    )
    dave = fake.create_user("dave")
    fake.add_member(world.guild, dave, roles=[admins])
    assert (await (await fake.invoke(dave, world.channel, "reset")).reply()).content == "reset done"


async def test_guilds_channels_and_members_created_while_connected_reach_the_bot(world: World) -> None:
    fake, bot = world.fake, world.bot
    guild = fake.create_guild("Second Room")
    channel = fake.create_channel(guild, "table-2")
    extra = fake.create_channel(world.guild, "table-3")
    erin = fake.create_user("erin")
    fake.add_member(guild, erin)

    def arrived() -> bool:
        cached = bot.get_guild(guild.id)
        return (
            cached is not None
            and cached.get_channel(channel.id) is not None
            and bot.get_channel(extra.id) is not None
        )

    await fake.wait_for(arrived, what="GUILD_CREATE and CHANNEL_CREATE")
    resp = await fake.invoke(erin, channel, "eights new", preset="quick")
    assert (await resp.reply()).content == "New quick table, 4 seats"


async def test_a_message_created_again_with_its_nonce_is_the_first_one(world: World) -> None:
    """Create Message with ``enforce_nonce`` (discord.py sends it with every nonce): the same sender and
    nonce within a few minutes get the earlier message back, and no second one is posted."""
    fake, bot = world.fake, world.bot
    channel = bot.get_partial_messageable(world.channel.id, guild_id=world.guild.id)
    first = await channel.send("Ana played 4♥", nonce="e8-table-1-v3")
    again = await channel.send("Ana played 4♥ (told again)", nonce="e8-table-1-v3")
    other = await channel.send("Ben played 8♣", nonce="e8-table-1-v4")
    assert again.id == first.id and other.id != first.id
    assert [m.content for m in fake.channel_messages(world.channel)] == ["Ana played 4♥", "Ben played 8♣"]
    assert fake.nonce_repeats == 1


async def test_discord_py_gets_invalid_form_body_for_a_long_nonce_or_a_bad_embed(world: World) -> None:
    """The limits of limits.py reach the client as Discord's 400 with code 50035, and are recorded."""
    fake, bot = world.fake, world.bot
    channel = bot.get_partial_messageable(world.channel.id, guild_id=world.guild.id)
    with pytest.raises(discord.HTTPException) as nonce:
        await channel.send("Ana played 4♥", nonce="n" * 26)
    with pytest.raises(discord.HTTPException) as embed:
        await channel.send(embed=discord.Embed(title="t", url="ftp://example.com"))
    assert (nonce.value.status, nonce.value.code) == (400, 50035)
    assert (embed.value.status, embed.value.code) == (400, 50035)
    assert "nonce has 26 characters (at most 25)" in nonce.value.text
    assert len(fake.take_violations()) == 2
    assert fake.channel_messages(world.channel) == []
