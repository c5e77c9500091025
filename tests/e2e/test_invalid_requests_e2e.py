"""What users can do must not drive up the bot's invalid requests.

Discord, "Rate Limits" / "Invalid Request Limit": "IP addresses that make too many invalid HTTP requests are
automatically and temporarily restricted from accessing the Discord API. Currently, this limit is 10,000 per
10 minutes. An invalid request is one that results in 401, 403, or 429 statuses"; "403 responses are avoided
by inspecting role or channel permissions and by not making requests on resources that are not visible".
README, *Discord's rate limits*: refusals that would only repeat (403: a permission was removed) are logged
and not retried, so they cannot pile up towards the ban.

- A channel that refuses the bot is tried again when Discord says its permissions may have changed, only if
  the bot's permissions there (discord.py's cache) allow it now and changed: an edit that changes nothing
  for the bot (a role's colour, another channel's topic) buys no request, however often it is made
  (``bot.exts.tables._channels``, ``ChannelRefusals.judge``).
- A public answer the watchdog deferred privately goes through the channel (``answers.answer_publicly``):
  it is not sent where the interaction's permissions or the channel's last refusal say the bot may not post,
  a refusal it meets is recorded, and its asker gets a short private answer, not "Something went wrong".
- Interactions that reach the bot after Discord's 3 s cost no invalid request either.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
import pytest

from tests.e2e.conftest import World
from tests.e2e.test_channel_refusals_e2e import ChannelCalls, boards, cpu_table, next_rounds
from tests.fakediscord import FakeMessage
from tests.fakediscord.interactions import InteractionHandle
from tests.fakediscord.ratelimits import DiscordLimits

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
VIEW_CHANNEL = discord.Permissions(view_channel=True).value
SEND_MESSAGES = discord.Permissions(send_messages=True).value
EDITS = 6
SLOW = 2.3  # past the watchdog's 2 s, within Discord's 3 s
CANNOT_POST = "I can't run a table in this channel: I'm missing the permission"


# --- refused channels and the events that do not concern them ---------------------------------------------


def _overwrites(world: World, deny: int) -> dict[str, Any]:
    """The table channel as Discord sends it with an overwrite for the bot's member denying ``deny``."""
    member = {"id": str(world.fake.bot_user.id), "type": 1, "allow": "0", "deny": str(deny)}
    return {**world.channel.payload(), "permission_overwrites": [member] if deny else []}


async def _refusing_table(world: World) -> ChannelCalls:
    """A CPU table whose channel denies the bot View Channel (an overwrite discord.py's cache holds too), the
    refusal met once, the players' tokens spent (only the channel's routes are left)."""
    fake = world.fake
    await cpu_table(world)
    calls = ChannelCalls(world)
    fake.token_lifetime = 0.0
    calls.refuse = 50001
    fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", _overwrites(world, VIEW_CHANNEL))  # the moderator
    await world.settle()
    await next_rounds(world, 1)
    assert calls.total() >= 1  # the refusal was met
    return calls


def _role_update(world: World, payload: dict[str, Any]) -> None:
    world.fake._dispatch_guild(
        world.guild, "GUILD_ROLE_UPDATE", {"guild_id": str(world.guild.id), "role": payload}
    )


@SQLITE_ONLY
@pytest.mark.parametrize("event", ["role colour edited", "another channel's topic edited"])
async def test_unrelated_edits_do_not_buy_another_403_each(
    world: World, event: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An admin edits a role that has nothing to do with the bot (or another channel's topic) again and
    again while a table plays on in a channel that shuts the bot out. The bot's permissions there still deny
    View Channel, so nothing is sent there: no 403 after the first, and no new "refuses the bot" warning.
    (Each edit used to forgive every refused channel of the server: two more 403s per edit, board edit and
    line, without bound.)"""
    fake = world.fake
    calls = await _refusing_table(world)
    colours = fake.create_role(world.guild, "Colours")
    other = fake.create_channel(world.guild, "general")
    await world.settle()
    before, logged = calls.total(), len(caplog.records)
    with caplog.at_level(logging.WARNING):
        for i in range(EDITS):
            if event.startswith("role"):
                _role_update(world, {**colours.payload(), "color": 0x100000 + i})
            else:
                fake._dispatch_guild(
                    world.guild, "CHANNEL_UPDATE", {**other.payload(), "topic": f"topic {i}"}
                )
            await world.settle()
            await next_rounds(world, 1)
    fake.take_violations()
    extra = calls.total() - before
    assert extra == 0, (
        f"{EDITS} {event} events while the channel still denies the bot: {extra} more 403s "
        f"({dict(calls.count)}); each such edit buys one more invalid request per refused table"
    )
    assert not [r for r in caplog.records[logged:] if "refuses the bot" in r.getMessage()]


@SQLITE_ONLY
async def test_a_channel_is_tried_again_when_its_overwrite_is_removed_after_edits_that_kept_it_shut(
    world: World,
) -> None:
    """The judging keeps what matters: after edits of the channel that leave the bot shut out (its topic),
    the moderator removes the overwrite that denied it View Channel, and the table's board and lines are
    shown there again at its next news."""
    fake = world.fake
    calls = await _refusing_table(world)
    before = calls.total()
    for i in range(3):
        denied = {**_overwrites(world, VIEW_CHANNEL), "topic": f"topic {i}"}
        fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", denied)
        await world.settle()
        await next_rounds(world, 1)
    assert calls.total() == before, dict(calls.count)
    calls.refuse = None
    fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", _overwrites(world, 0))
    await world.settle()
    calls.count.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert calls.count["PATCH"] + calls.count["POST"] >= 1, "the bot was let in again, yet nothing is shown"


@SQLITE_ONLY
async def test_a_channel_is_tried_again_when_the_bots_role_gets_its_permission_back(world: World) -> None:
    """The bot sees the channel through its role only (@everyone has no View Channel), and a moderator takes
    View Channel off that role: the channel refuses the bot. Edits of the role that do not give it back (its
    colour) buy no request; giving it back (GUILD_ROLE_UPDATE, the role's permissions) tries the channel
    again at its next news."""
    fake = world.fake
    everyone = world.guild.everyone
    bot_role = next(role for role in world.guild.members[fake.bot_user.id].roles if role is not everyone)
    await cpu_table(world)
    calls = ChannelCalls(world)
    fake.token_lifetime = 0.0
    _role_update(world, {**everyone.payload(), "permissions": str(everyone.permissions & ~VIEW_CHANNEL)})
    _role_update(world, {**bot_role.payload(), "permissions": str(bot_role.permissions & ~VIEW_CHANNEL)})
    calls.refuse = 50001
    await world.settle()
    await next_rounds(world, 1)
    before = calls.total()
    assert before >= 1  # the refusal was met
    for i in range(3):  # the role's colour: still no View Channel
        _role_update(
            world,
            {**bot_role.payload(), "permissions": str(bot_role.permissions & ~VIEW_CHANNEL), "color": i},
        )
        await world.settle()
        await next_rounds(world, 1)
    assert calls.total() == before, dict(calls.count)
    calls.refuse = None
    _role_update(world, bot_role.payload())  # View Channel given back
    await world.settle()
    calls.count.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert calls.count["PATCH"] + calls.count["POST"] >= 1, "the role was given back, yet nothing is shown"


# --- a public answer deferred by the watchdog, in a channel the bot may not post in -------------------------


def _slow_service(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot answers past the watchdog's 2 s (a busy bot, a database waiting on a lock): the command is
    deferred privately, and its public answer (the board) goes through the channel."""
    service = world.service
    real = service.snapshot

    async def slow_snapshot(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW)
        return await real(*args, **kwargs)

    monkeypatch.setattr(service, "snapshot", slow_snapshot)


async def _status(world: World, times: int) -> list[FakeMessage]:
    answers: list[FakeMessage] = []
    for _ in range(times):
        handle = await world.fake.invoke(world.bob, world.channel, "eights status")
        answers.append(await handle.reply(timeout=10))
        await world.settle()
    return answers


@SQLITE_ONLY
async def test_status_spam_while_slow_in_a_channel_without_send_messages(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Anyone repeats ``/eights status`` in a table's channel where a moderator removed the bot's Send
    Messages (the interaction's permissions do not show it: the channel's overwrite), while the bot answers
    slowly. The first board sent through the channel meets a 403, which is recorded: the next ones are not
    tried. Each asker is told privately that the bot cannot post here; no "Something went wrong", no
    traceback, and the table is as it was (one board, the same). (Each used to cost a 403.)"""
    fake = world.fake
    await world.run(world.alice, "new")
    await world.settle()
    table_id = await world.table_id()
    before = await world.service.snapshot(table_id)
    board_ids = [message.id for message in boards(world)]
    _slow_service(world, monkeypatch)
    calls = ChannelCalls(world)
    calls.refuse = 50013  # Send Messages removed in the channel
    with caplog.at_level(logging.WARNING):
        answers = await _status(world, 4)
    fake.take_violations()
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
    assert calls.total() <= 1 and not tracebacks, (dict(calls.count), tracebacks)
    for answer in answers:
        assert answer.ephemeral and CANNOT_POST in answer.content and "Send Messages" in answer.content, (
            answer.content
        )
    monkeypatch.undo()
    assert await world.service.snapshot(table_id) == before
    assert [message.id for message in boards(world)] == board_ids


@SQLITE_ONLY
async def test_status_while_slow_where_the_interaction_says_the_bot_cannot_post(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The interaction's own permissions (Discord's ``app_permissions``) say the bot lacks Send Messages:
    the deferred board is not even tried (no 403 at all), and the asker is told so privately."""
    fake = world.fake
    await world.run(world.alice, "new")
    await world.settle()
    member = world.guild.members[fake.bot_user.id]
    member.permissions = world.guild.permissions_of(fake.bot_user.id) & ~SEND_MESSAGES
    board_ids = [message.id for message in boards(world)]
    _slow_service(world, monkeypatch)
    calls = ChannelCalls(world)
    with caplog.at_level(logging.WARNING):
        answers = await _status(world, 2)
    fake.take_violations()
    assert calls.total() == 0, dict(calls.count)
    assert not [r for r in caplog.records if r.exc_info]
    for answer in answers:
        assert answer.ephemeral and CANNOT_POST in answer.content and "Send Messages" in answer.content, (
            answer.content
        )
    assert [message.id for message in boards(world)] == board_ids


# --- interactions that come too late -----------------------------------------------------------------------


async def _until_answered_or_refused(handle: InteractionHandle) -> None:
    for _ in range(500):
        if handle.record.errors or handle.record.callback_type is not None:
            return
        await asyncio.sleep(0.01)


@SQLITE_ONLY
async def test_late_clicks_and_commands_leave_no_traceback_and_cost_no_invalid_request(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """Interactions that reach the bot after Discord's 3 s (their callback answered 404 10062 Unknown
    interaction) across a table's commands and buttons: My hand, /eights draw, status and scores. Each is
    logged without a traceback, sends nothing more through its token (a follow-up before a callback is a 404
    10015), and costs no 401/403/429. (A guard: the draw/status/hand paths after a 10062 are not covered
    elsewhere with Discord's limits on.)"""
    fake = world.fake
    limits = fake.enable_limits(DiscordLimits())
    world.service.seed_deals(1)
    board = await world.run(world.alice, "new", target=1000)
    await (await fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    caplog.set_level(logging.WARNING)
    fake.callback_deadline = 0.0
    handles = []
    try:
        user = await world.human_to_act()
        assert user is not None
        handles.append(await fake.click(user, world.board(), label="My hand"))
        handles.append(await fake.invoke(user, world.channel, "eights draw"))
        handles.append(await fake.invoke(world.bob, world.channel, "eights status"))
        handles.append(await fake.invoke(world.alice, world.channel, "eights scores"))
        for handle in handles:
            await _until_answered_or_refused(handle)
        await world.settle()
        await asyncio.sleep(1.5)
        await world.settle()
    finally:
        fake.callback_deadline = 3.0
    violations = fake.take_violations()
    other = [v for v in violations if "Unknown interaction" not in v]
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
    assert not tracebacks, tracebacks
    assert not other, other
    assert limits.invalid_recent() == 0, limits.summary()
