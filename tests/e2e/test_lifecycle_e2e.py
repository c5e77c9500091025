"""A table's life against Discord's events and adversarial timing, end to end through the fake Discord: a
player who left the server, a server that removed the bot while it was down, /eights status racing a move."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_channel_refusals_e2e import ChannelCalls, cpu_table
from tests.e2e.test_hand_messages_e2e import fire, two_people
from tests.fakediscord import FakeMessage


def boards(world: World) -> list[FakeMessage]:
    return [
        m
        for m in world.fake.channel_messages(world.channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]


async def test_the_host_can_kick_a_player_who_left_the_server(world: World) -> None:
    """A player leaves (or is kicked or banned from) the Discord server in the middle of a game. The bot has
    no members intent (README: "no privileged intent is needed"), so nothing tells it; the seat stays theirs
    and the game waits for their turn to run out. The README's remedy is ``/eights kick member``: "remove a
    player; a CPU takes over their seat (host, or a manager)".

    Discord's documented payload for a USER option names a user who is no longer a member in
    ``resolved.users`` only, without ``resolved.members`` (the fake does the same). ``/eights kick`` declares
    its option as ``discord.Member`` (bot/exts/tables/_lobby.py: kick), so discord.py's transformer refuses
    such a user and the host is told "I couldn't read one of the options.": the one person the host most needs
    to remove cannot be removed."""
    await two_people(world, target=1000)
    del world.guild.members[world.bob.id]  # bob left the server: no event reaches a bot without that intent

    answer = await world.run(world.alice, "kick", member=world.bob)
    await world.settle()

    assert answer.ephemeral
    assert "couldn't read" not in answer.content, answer.content
    assert answer.content == "bob was removed from the table.", answer.content
    seat = (await world.snapshot()).seats[1]
    assert seat.taken_over, "bob's seat is still his: nobody but his turn timer can move the game on"


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_server_that_removed_the_bot_while_it_was_down_gets_its_tables_closed(world: World) -> None:
    """README, *Discord's rate limits*: "A table whose channel or thread is deleted, or whose server removed
    the bot, is closed (no result recorded; its players' hand messages say so), and nothing is sent to the
    channel again." A server that removes the bot while it is restarting (an upgrade, a crash) sends no
    GUILD_DELETE: the next READY simply does not list it (Discord's Ready event lists the guilds the bot is
    in). The restarted bot restores the table anyway, its CPU seats play on into a channel that answers
    403 Missing Access (what Discord answers for a channel of a server the bot is not in), and the table
    stays open for up to a day (the 24-hour idle rule), its requests still going to the channel at every
    pause's end. Only ``on_guild_remove`` closes a server's tables (bot/exts/tables/_channels.py); nothing
    compares the restored tables with the guilds READY lists (bot/client.py, setup / _check_boards)."""
    fake = world.fake
    await cpu_table(world)  # alice left her seat to a CPU: the table plays on by itself
    table_id = await world.table_id()
    await world.stop()
    fake.guilds.pop(world.guild.id)  # removed from the server meanwhile: READY will not list it
    fake.token_lifetime = 0.0
    calls = ChannelCalls(world)
    calls.refuse = 50001  # a channel of a server the bot is not in: 403 Missing Access
    await world.start()
    await world.settle()
    for _ in range(3):  # let it play a little: rounds end, the next ones are dealt
        if await world.service.table_in_channel(world.channel.id) is None:
            break
        if (await world.service.snapshot(table_id)).phase == "between_rounds":
            await fire(world, "_on_pause_over")
        await world.settle()
    fake.take_violations()

    assert await world.service.table_in_channel(world.channel.id) is None, (
        "the table of a server the bot is no longer in is still open after the restart",
        dict(calls.count),
    )


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_status_racing_a_move_leaves_the_board_showing_the_move(world: World) -> None:
    """Bob types ``/eights status`` while Alice plays a card. README: "/eights status does the same at once:
    its answer is the board, and the old board is deleted"; "its board shows its latest state" ("Nothing
    dropped, only coalesced"). The status reads the table, then posts the board (a round trip to Discord);
    Alice's move lands in between: its board edit goes to the old board, which the status then deletes, and
    the new board keeps the state from before the move — "alice to move", her card not played — until some
    later move edits it (a person's turn may last up to 24 hours). Bob reads on the only board that it is
    still Alice's turn.

    Before: ``InformationCog.status`` (bot/exts/tables/_information.py) posted a snapshot read before the
    move, and ``TablePublisher.replace_board``/``remember_board`` (bot/delivery/publisher.py) adopt the new
    message without checking that the feed's latest snapshot is newer and editing it then (``/eights new``
    has ``board_coming`` for the same race). Without the gate below it fails in most runs too (7 of 8 here);
    the gate only makes the order certain: the status's answer reaches Discord after the move is shown."""
    hand = await two_people(world, target=1000)  # alice to move, with a playable card
    assert len(boards(world)) == 1

    gate = asyncio.Event()
    read = asyncio.Event()
    publisher = world.publisher
    original = publisher.board_message

    async def slow_board_message(snapshot: Any) -> dict[str, Any]:
        fields = await original(snapshot)
        read.set()
        await gate.wait()  # the round trip to Discord: the move lands meanwhile
        return fields

    publisher.board_message = slow_board_message  # type: ignore[method-assign]
    status = await world.fake.invoke(world.bob, world.channel, "eights status")
    await asyncio.wait_for(read.wait(), 5)
    card = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    played = await world.fake.click(world.alice, hand, card["custom_id"])
    await played.callback()
    await world.settle(handlers=False)  # (the status's handler waits at the gate)
    gate.set()
    await status.reply()
    await world.settle()
    await asyncio.sleep(1.0)  # anything still due to the board has had time
    await world.settle()
    world.fake.take_violations()

    snap = await world.snapshot()
    assert snap.to_act == 1  # bob's turn
    shown = boards(world)
    assert len(shown) == 1, "one board per table"
    text = shown[-1].text()
    assert "**bob** to move" in text, text[:300]
    assert "alice played" in text or "**alice** to move" not in text, text[:300]
