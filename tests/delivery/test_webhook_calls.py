"""bot.delivery.webhook_calls through the real discord.py client and the fake Discord: the same requests as
discord.py's own interaction-webhook calls (edits land, a follow-up's id is returned, a view is routed to
the edited message, another interaction's message is refused with ``discord.NotFound``), within the
per-token bucket that discord.py's adapter reads from the headers (no 429), off the global limit."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import discord
import pytest
from discord.ext import commands

from bot.delivery import webhook_calls
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, fast_bot_options, running_bot
from tests.fakediscord.ratelimits import DiscordLimits

EDITS = 6  # more than a token's bucket holds (5 per 2 s): the adapter has to wait for its reset


class Probe:
    """Something weakly referable that only a kept interaction holds (in its ``extras``)."""


@dataclass
class Holder:
    interaction: discord.Interaction | None = None


@dataclass
class Seen:
    holders: tuple[Holder, Holder] = field(default_factory=lambda: (Holder(), Holder()))
    probes: list[weakref.ref[Probe]] = field(default_factory=list)
    followup_ids: list[int] = field(default_factory=list)
    taps: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    responded: list[object] = field(default_factory=list)
    posted: dict[str, int] = field(default_factory=dict)


class TapView(discord.ui.View):
    def __init__(self, seen: Seen) -> None:
        super().__init__(timeout=None)
        self.seen = seen

    @discord.ui.button(label="Tap", custom_id="webhook-calls:tap")
    async def tap(self, interaction: discord.Interaction, button: discord.ui.Button[TapView]) -> None:
        self.seen.taps.append(interaction.user.name)
        await interaction.response.defer()


class CountView(discord.ui.View):
    """A private message whose button replaces it in place (as a hand's card buttons do)."""

    def __init__(self, seen: Seen, count: int) -> None:
        super().__init__(timeout=None)
        self.seen = seen
        self.count = count

    @discord.ui.button(label="Next", custom_id="webhook-calls:next")
    async def next(self, interaction: discord.Interaction, button: discord.ui.Button[CountView]) -> None:
        count = self.count + 1
        await webhook_calls.update_clicked(
            interaction, content=f"count {count}", view=CountView(self.seen, count)
        )
        self.seen.responded.append(interaction.response.type)


def make_bot(seen: Seen) -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), **fast_bot_options())

    @bot.tree.command(name="board", description="A board and a line edited through the token")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("board 0")
        line_id = await webhook_calls.send_followup(
            interaction, "line 0", allowed_mentions=discord.AllowedMentions.none()
        )
        assert line_id is not None
        seen.followup_ids.append(line_id)
        seen.posted["line"] = line_id
        for i in range(1, EDITS + 1):
            await webhook_calls.edit_original(interaction, content=f"board {i}")
            await webhook_calls.edit_followup(interaction, line_id, content=f"line {i}")
        # Last, a view: discord.py's dispatch must find it for the message it was sent to.
        await webhook_calls.edit_original(interaction, content="board with a button", view=TapView(seen))

    @bot.tree.command(name="count", description="A private message updated in place by its button")
    async def count(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("count 0", view=CountView(seen, 0), ephemeral=True)

    @bot.tree.command(name="keep", description="Answered, then kept by two holders (as a hand and a table)")
    async def keep(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("kept")
        probe = Probe()
        interaction.extras["probe"] = probe
        seen.probes.append(weakref.ref(probe))
        for holder in seen.holders:
            holder.interaction = interaction

    @bot.tree.command(name="foreign", description="Edits another interaction's follow-up")
    async def foreign(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("trying")
        try:
            await webhook_calls.edit_followup(interaction, seen.posted["line"], content="not mine")
        except discord.NotFound:
            seen.refused.append("line")

    return bot


@dataclass
class World:
    fake: FakeDiscord
    seen: Seen
    channel: FakeChannel
    alice: FakeUser


@pytest.fixture
async def world() -> AsyncIterator[World]:
    async with FakeDiscord(limits=DiscordLimits()) as fake:
        guild = fake.create_guild("Cards")
        channel = fake.create_channel(guild, "table-1")
        alice = fake.create_user("alice")
        fake.add_member(guild, alice)
        seen = Seen()
        bot = make_bot(seen)
        async with running_bot(fake, bot):
            await bot.tree.sync()
            yield World(fake, seen, channel, alice)


async def test_edits_and_a_followup_go_through_the_token_without_message_objects(world: World) -> None:
    fake, seen = world.fake, world.seen
    limits = fake.limits
    assert limits is not None
    offered = limits.counters.global_offered
    resp = await fake.invoke(world.alice, world.channel, "board")
    original = await resp.reply()
    line = await resp.followup(0)
    await fake.wait_for(lambda: original.content == "board with a button", what="the last edit", timeout=30)
    assert [v.content for v in original.versions] == [
        *(f"board {i}" for i in range(EDITS + 1)),
        "board with a button",
    ]
    assert [v.content for v in line.versions] == [f"line {i}" for i in range(EDITS + 1)]
    assert seen.followup_ids == [line.id]
    # Interaction webhooks: none counted in the global limit, and the token's bucket obeyed.
    assert limits.counters.global_offered == offered and limits.counters.route_429 == 0

    await fake.click(world.alice, original, label="Tap")
    await fake.wait_for(lambda: seen.taps, what="the button's callback", timeout=10)
    assert seen.taps == ["alice"]

    other = await fake.invoke(world.alice, world.channel, "foreign")
    await other.reply()
    await fake.wait_for(lambda: seen.refused, what="the refused edit", timeout=10)
    assert seen.refused == ["line"] and line.content == f"line {EDITS}"
    assert len(other.record.errors) == 1 and len(fake.take_violations()) == 1
    other.record.errors.clear()


async def test_a_click_answered_in_place_without_message_objects(world: World) -> None:
    """The click's answer replaces the message it was on; discord.py sees the response as done (a second
    answer would be refused) and routes the next click to the new view."""
    fake, seen = world.fake, world.seen
    resp = await fake.invoke(world.alice, world.channel, "count")
    message = await resp.reply()
    assert message.ephemeral
    for expected in (1, 2):
        click = await fake.click(world.alice, message, label="Next")
        await click.reply()
        assert message.content == f"count {expected}"
    await fake.wait_for(lambda: len(seen.responded) == 2, what="the second answer's return", timeout=10)
    assert seen.responded == [discord.InteractionResponseType.message_update] * 2


async def test_a_kept_interaction_is_freed_by_its_last_holder_without_the_cyclic_collector(
    world: World,
) -> None:
    """An answered interaction is a reference cycle (it and its response): left alone, it waits for the
    collector. ``let_go`` frees it when the holder letting go held the last reference, and leaves it whole
    while another still holds it."""
    fake, seen = world.fake, world.seen
    first, second = seen.holders
    gc.disable()
    try:
        resp = await fake.invoke(world.alice, world.channel, "keep")
        await resp.reply()
        await fake.wait_for(lambda: seen.probes, what="the command's end", timeout=10)
        await asyncio.sleep(0.05)  # the command's task is over
        kept = first.interaction
        assert kept is not None and kept.response.is_done()
        del kept
        webhook_calls.let_go(first, "interaction", None)
        # Still held by the other holder: untouched (its response still knows it answered).
        assert first.interaction is None and seen.probes[0]() is not None
        assert second.interaction is not None and second.interaction.response.is_done()
        webhook_calls.let_go(second, "interaction", None)
        assert seen.probes[0]() is None  # freed at once, the collector disabled
    finally:
        gc.enable()
