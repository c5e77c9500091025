"""A table's channel that refuses the bot or is gone: the bot loses access to it (a moderator removes its View
Channel, Send Messages or Attach Files), the channel or thread is deleted, or the bot is removed from the
server, while the table plays on by itself (CPU seats; the players' interaction tokens spent, as after 15
minutes: the fake's ``token_lifetime`` set to 0). Refusals must not pile up towards Discord's ban (README,
*Discord's rate limits*), a missing Attach Files is not taken for anything else, a table whose channel
is gone is closed instead of calling it at every move, and a board replaced while the channel refused the
bot is removed once the channel lets it in again (one board per table)."""

from __future__ import annotations

import collections
import logging
from typing import Any

import pytest

from bot.delivery import channel_refusals
from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread
from tests.e2e.test_hand_messages_e2e import fire
from tests.fakediscord import FakeMessage
from tests.fakediscord.model import iso_now
from tests.fakediscord.server import _Reject

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


async def cpu_table(world: World) -> None:
    """alice opens a table with two CPU seats, deals, and leaves: a CPU plays her seat, the match goes on."""
    fake = world.fake
    world.service.seed_deals(1)
    board = await world.run(world.alice, "new", target=1000)
    for _ in range(2):
        await (await fake.click(world.alice, board, label="Add CPU")).callback()
    await world.settle()
    await (await fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    await world.run(world.alice, "leave")
    await world.settle()


class ChannelCalls:
    """Requests to the table channel's own routes, counted by method; answered 403 while ``refuse`` is set
    (``code``: 50001 Missing Access, 50013 Missing Permissions) or only when ``files`` and the request
    carries a file."""

    def __init__(self, world: World) -> None:
        self.channel_id = world.channel.id
        self.refuse: int | None = None
        self.files_refused = False
        self.count: collections.Counter[str] = collections.Counter()
        original = world.fake._channel

        def channel(request: Any) -> Any:
            if int(request.match_info["channel"]) == self.channel_id:
                self.count[request.method] += 1
                if self.refuse is not None:
                    raise _Reject(403, self.refuse, "Missing Access", violation=False)
                if self.files_refused and "multipart" in (request.content_type or ""):
                    raise _Reject(403, 50013, "Missing Permissions", violation=False)
            return original(request)

        world.fake._channel = channel  # type: ignore[method-assign]

    def total(self) -> int:
        return sum(self.count.values())


async def next_rounds(world: World, rounds: int) -> None:
    """Let the CPU seats play ``rounds`` more rounds (the pause between rounds cut short)."""
    for _ in range(rounds):
        snap = await world.snapshot()
        assert snap.phase == "between_rounds", snap.phase
        await fire(world, "_on_pause_over")
        await world.settle()


async def closed(world: World) -> bool:
    await world.settle()
    return await world.service.table_in_channel(world.channel.id) is None


@SQLITE_ONLY
@pytest.mark.parametrize("code", [50001, 50013])
async def test_a_channel_that_refuses_the_bot_is_left_alone_not_called_at_every_move(
    world: World, code: int, caplog: pytest.LogCaptureFixture
) -> None:
    await cpu_table(world)
    calls = ChannelCalls(world)
    calls.refuse = code
    world.fake.token_lifetime = 0.0  # the players' tokens are spent: the channel routes are all that is left
    with caplog.at_level(logging.WARNING):
        await next_rounds(world, 1)
        after_first = calls.total()
        assert after_first >= 1  # the loss was met ...
        await next_rounds(world, 4)
    world.fake.take_violations()  # the spent tokens the bot tried: what is checked is the channel's 403s
    # ... and not met again at every line and board edit of the rounds that followed, nor logged again.
    assert calls.total() == after_first, dict(calls.count)
    refused = [r for r in caplog.records if "refuses the bot" in r.getMessage()]
    assert len(refused) == 1, [r.getMessage() for r in caplog.records]
    assert (await world.snapshot()).open  # the table itself plays on

    # Its permissions given back (Discord says the channel changed): the board is shown again.
    calls.refuse = None
    world.fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", world.channel.payload())
    await world.settle()
    await next_rounds(world, 1)
    world.fake.take_violations()
    assert calls.count["PATCH"] >= 1, dict(calls.count)


@SQLITE_ONLY
async def test_missing_access_is_not_taken_for_missing_attach_files(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    await cpu_table(world)
    calls = ChannelCalls(world)
    world.fake.token_lifetime = 0.0
    calls.refuse = 50001  # View Channel removed for a moment (Attach Files never is)
    with caplog.at_level(logging.INFO):
        await next_rounds(world, 1)
    calls.refuse = None  # given back
    world.fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", world.channel.payload())
    await world.settle()
    await next_rounds(world, 1)
    world.fake.take_violations()
    assert world.board().attachments, "the board lost its picture though Attach Files was never removed"
    assert not [r for r in caplog.records if "Attach Files missing?" in r.getMessage()]


@SQLITE_ONLY
async def test_without_attach_files_the_board_goes_on_as_text(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    await cpu_table(world)
    calls = ChannelCalls(world)
    world.fake.token_lifetime = 0.0
    calls.files_refused = True
    with caplog.at_level(logging.INFO):
        await next_rounds(world, 2)
    world.fake.take_violations()
    board = world.board()
    assert not board.attachments and board.embeds  # the board, as text
    assert len([r for r in caplog.records if "Attach Files missing?" in r.getMessage()]) == 1


@SQLITE_ONLY
@pytest.mark.parametrize("told", [True, False], ids=["channel_delete_event", "unknown_channel_404"])
async def test_a_table_whose_channel_was_deleted_is_closed(world: World, told: bool) -> None:
    fake = world.fake
    await cpu_table(world)
    fake.token_lifetime = 0.0  # the channel's own routes: what the deleted channel answers 404 to
    calls = ChannelCalls(world)
    channel = world.channel
    table_id = await world.table_id()
    del fake.channels[channel.id]
    world.guild.channels.pop(channel.id, None)
    if told:  # Discord tells the bot at once
        fake._dispatch_guild(world.guild, "CHANNEL_DELETE", channel.payload())
    else:  # the bot was away when it happened: its next request meets 404 Unknown Channel
        await fire(world, "_on_pause_over")
    for _ in range(100):
        if await closed(world):
            break
    fake.take_violations()
    assert await closed(world)
    record = await world.bot.service._registry.store.get_table(table_id)  # type: ignore[union-attr]
    assert record is not None and record.status == "abandoned"
    before = calls.total()
    assert before <= (0 if told else 3), dict(calls.count)
    # Nothing is sent to the channel any more.
    await world.settle()
    assert calls.total() == before


@SQLITE_ONLY
async def test_the_tables_of_a_server_the_bot_was_removed_from_are_closed(world: World) -> None:
    fake = world.fake
    await cpu_table(world)
    fake.token_lifetime = 0.0
    calls = ChannelCalls(world)
    fake._dispatch_guild(world.guild, "GUILD_DELETE", {"id": str(world.guild.id)})
    for _ in range(100):
        if await closed(world):
            break
    fake.take_violations()
    assert await closed(world)
    assert calls.total() == 0, dict(calls.count)


@SQLITE_ONLY
async def test_a_channel_is_tried_again_when_the_role_that_shut_the_bot_out_is_deleted(world: World) -> None:
    """A "No bots" role with a deny overwrite on the channel, given to the bot, then deleted: Discord says
    so with GUILD_ROLE_DELETE only (the bot's member and the channel are not sent again), and the channel is
    tried again at once, not at the end of its pause (README: "until Discord says its permissions (or the
    server's roles) changed")."""
    fake = world.fake
    muted = fake.create_role(world.guild, "No bots")
    member = world.guild.members[fake.bot_user.id]
    member.roles.append(muted)
    await cpu_table(world)
    calls = ChannelCalls(world)
    fake.token_lifetime = 0.0  # the players' tokens spent: the channel's routes are what is left
    calls.refuse = 50001  # the role's overwrite denies View Channel
    await next_rounds(world, 1)
    assert calls.total() >= 1  # the refusal was met
    # The role is deleted: its overwrite goes with it, the bot sees the channel again.
    calls.refuse = None
    member.roles.remove(muted)
    world.guild.roles.pop(muted.id, None)
    fake._dispatch_guild(
        world.guild, "GUILD_ROLE_DELETE", {"guild_id": str(world.guild.id), "role_id": str(muted.id)}
    )
    await world.settle()
    calls.count.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert calls.count["PATCH"] + calls.count["POST"] >= 1, (
        "the role was deleted, yet the channel is still left alone: " + repr(dict(calls.count))
    )


@SQLITE_ONLY
async def test_a_private_thread_is_tried_again_when_the_bot_is_added_to_it(world: World) -> None:
    """A table in a private thread the bot was not added to plays through its players' interactions; once
    they are spent (CPU seats play on), the thread answers 50001 Missing Access and is left alone. A player
    adds the bot to the thread: Discord says so with THREAD_MEMBERS_UPDATE naming it (discord.py's
    ``on_thread_join``), and the thread is tried again at once, not at the end of its pause."""
    fake = world.fake
    parent = world.channel
    thread = make_thread(fake, world.guild, parent, "secret", type=12, owner=world.alice)
    world.channel = thread
    await cpu_table(world)
    calls = ChannelCalls(world)  # the thread's routes
    fake.token_lifetime = 0.0
    calls.refuse = 50001  # not a member of the private thread
    await next_rounds(world, 1)
    assert calls.total() >= 1  # the refusal was met
    calls.refuse = None  # the bot is added to the thread
    fake._dispatch_guild(
        world.guild,
        "THREAD_MEMBERS_UPDATE",
        {
            "id": str(thread.id),
            "guild_id": str(world.guild.id),
            "member_count": 2,
            "added_members": [
                {
                    "id": str(thread.id),
                    "user_id": str(fake.bot_user.id),
                    "join_timestamp": iso_now(),
                    "flags": 0,
                }
            ],
        },
    )
    await world.settle()
    calls.count.clear()
    await next_rounds(world, 1)
    fake.take_violations()
    assert calls.count["PATCH"] + calls.count["POST"] >= 1, (
        "the bot was added to the thread, yet it is still left alone: " + repr(dict(calls.count))
    )


def expire_tokens(world: World) -> None:
    """Every interaction token issued so far is past Discord's 15 minutes (new ones are fresh)."""
    for record in world.fake.interactions.values():
        record.created_at -= 3600.0


def boards(world: World) -> list[FakeMessage]:
    """The table's board messages still in the channel (public messages with the board's buttons)."""
    return [
        message
        for message in world.fake.channel_messages(world.channel)
        if not message.deleted and message.embeds and message.buttons
    ]


async def status_while_refused(world: World) -> ChannelCalls:
    """A CPU table whose board's token has run out, in a channel that refuses the bot (View Channel
    removed): a member asks ``/eights status``, whose answer is the new board; the old one cannot be deleted
    meanwhile (its token is spent, the channel refuses), and is left in the channel for now."""
    await cpu_table(world)
    assert len(boards(world)) == 1
    expire_tokens(world)
    calls = ChannelCalls(world)
    calls.refuse = 50001
    await next_rounds(world, 1)
    assert calls.total() >= 1  # the channel refused the bot
    await world.run(world.bob, "status")
    await world.settle()
    assert len(boards(world)) == 2
    return calls


@SQLITE_ONLY
async def test_a_board_replaced_while_the_channel_refused_the_bot_is_removed_once_it_is_allowed_again(
    world: World,
) -> None:
    """The old board waits for its channel (no request while the channel refuses the bot: refusals count
    towards Discord's ban); once the access is given back (CHANNEL_UPDATE) it is deleted, and the table plays
    on with one board, the new one."""
    fake = world.fake
    calls = await status_while_refused(world)
    assert calls.count["DELETE"] == 0, dict(calls.count)  # left alone during the channel's pause
    new_board = boards(world)[-1]
    calls.refuse = None
    fake._dispatch_guild(world.guild, "CHANNEL_UPDATE", world.channel.payload())
    await world.settle()
    await next_rounds(world, 2)
    fake.take_violations()
    left = boards(world)
    assert [message.id for message in left] == [new_board.id], f"{len(left)} boards left in the channel"


@SQLITE_ONLY
async def test_a_board_replaced_while_the_channel_refused_the_bot_is_removed_at_the_end_of_its_pause(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Access given back without a word from Discord: the old board is tried again when the channel's pause
    ends (its next allowed request; a refusal meanwhile doubles the pause), and deleted then."""
    monkeypatch.setattr(channel_refusals, "REFUSED_FOR", 0.3)
    fake = world.fake
    calls = await status_while_refused(world)
    calls.refuse = None  # no CHANNEL_UPDATE

    async def one_board() -> bool:
        return len(boards(world)) == 1

    await world.until(one_board, "the replaced board to be removed", timeout=10.0)
    fake.take_violations()
    assert calls.count["DELETE"] >= 1, dict(calls.count)
