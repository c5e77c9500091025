"""Several tables at once, and tables one after another: each channel's commands and controls act on that
channel's table only, what each table shows stays its own, a person seated at two tables plays both, a
timeout, a takeover or a kick at one leaves the other alone, each server's table and standings are that
server's, and a table that follows another in the same channel is told apart from it.

README: "A control acts only on the table of the channel it is in."; "/eights join: take a seat at the table
in this channel"; "/eights new ...: open a table in this channel"; "/eights hand": "show your hand";
"/eights play": "play a card"; "/eights leave": "leave the table (during a game a CPU takes over your
seat)"; "/eights status": "show the board again"; "/eights scores": "the scores of this channel's match so
far (private)"; "A button acts on the hand as you saw it when you pressed it: ... after the hand changed, it
answers "That move is no longer possible." privately and changes nothing"; "/eights kick member: remove a
player; a CPU takes over their seat ... they no longer see that hand"; "after three timeouts in a row a CPU
player takes the seat"; "/eights leaderboard: this server's best players"; "/eights stats [member]: a
player's statistics and rating in this server"; "/eights forget: delete your own statistics everywhere" ("A
match you are playing right now still counts when it ends"); and of a follow-up met by a 5xx: "a second later
the bot reads the channel's history after the line before it, as after a restart, and sends only what is not
there" (a "your turn" mention is never lost, nor shown twice).

Two tables deal two decks: the privacy observer checks each message against the tables of its own channel
(``tests/e2e/conftest.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import pytest

from bot.service import EXPIRED
from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread
from tests.e2e.several_tables import (
    act_once,
    board_in,
    fire_at,
    open_and_start,
    play_match_in,
    play_round,
    table_in,
    tables_named,
    tables_named_in_versions,
)
from tests.e2e.test_followup_5xx_e2e import FollowupFault
from tests.fakediscord import FakeChannel, FakeMessage

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


def play_ids(message: FakeMessage) -> list[str]:
    return [str(b["custom_id"]) for b in message.buttons if ":play:" in str(b["custom_id"])]


def first_move(message: FakeMessage) -> str:
    """The custom id of the hand message's first move: a suit, a card, else Draw or Pass."""
    for kind in (":suit:", ":play:"):
        for button in message.buttons:
            if kind in button["custom_id"]:
                return str(button["custom_id"])
    found = [str(b["custom_id"]) for b in message.buttons if b["label"] in ("Draw", "Pass")]
    assert found, (message.content, message.buttons)
    return found[0]


def everything(world: World) -> list[tuple[int, int]]:
    """Every message of the world's two channels, with how many versions it had."""
    return [
        (m.id, len(m.versions))
        for channel in (world.channel, world.other_channel)
        for m in world.fake.channel_messages(channel, include_deleted=True)
    ]


async def two_tables(world: World) -> tuple[int, int]:
    """Table A in world.channel (alice hosts, bob), table B in world.other_channel (carol hosts, alice)."""
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    b = await open_and_start(world, world.other_channel, world.carol, world.alice, target=1000)
    assert a != b
    return a, b


def second_server(world: World) -> FakeChannel:
    """Another server with a channel, where alice is "Alicia" (and "Ally" in the world's server)."""
    guild = world.fake.create_guild("Other Cards")
    channel = world.fake.create_channel(guild, "cards")
    world.fake.add_member(guild, world.alice, nick="Alicia")
    world.fake.add_member(guild, world.carol)
    world.guild.members[world.alice.id].nick = "Ally"
    return channel


# --- tables one after another in one channel ----------------------------------------------------------------


async def start_in_the_channel(world: World) -> int:
    board = await world.run(world.alice, "new", target=1000)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    return await table_in(world, world.channel)


@SQLITE_ONLY
@pytest.mark.parametrize("taken", [False, True], ids=["not_posted", "posted"])
async def test_the_next_tables_start_line_met_by_a_502_is_told_once(world: World, taken: bool) -> None:
    """Table A (alice and bob) starts: "… ▶ @alice, your turn." is posted. alice ends it and, within the
    minute, opens table B with bob, dealt alike. B's start line, a follow-up of alice's Start, is answered
    502, before Discord posted it or after. The bot looks for it in the channel's history after B's own board
    (or the interaction it follows up), not a minute back: A's line, the same words, is not B's. Not posted:
    it is sent again; posted: it is not. Either way B's start line, and its ping, shows once."""
    world.service.seed_deals(1)
    a = await start_in_the_channel(world)
    mention = f"<@{world.alice.id}>"
    first_lines = [m.content for m in world.fake.channel_messages(world.channel) if mention in m.content]
    assert first_lines, "table A's start line pings alice"
    await world.run(world.alice, "end")
    await world.settle()
    world.service.seed_deals(1)
    fault = FollowupFault(world, taken=taken)
    fault.mention = mention
    try:
        before = len(world.fake.channel_messages(world.channel))
        b = await start_in_the_channel(world)
        assert b != a
        assert fault.left == 0 and fault.posts >= 1, "B's start line met the 502"

        # The line in doubt is looked for a second or so later (retry_delay(1)).
        async def told() -> bool:
            return any(mention in m.content for m in world.fake.channel_messages(world.channel)[before:])

        with contextlib.suppress(AssertionError):
            await world.until(told, "table B's start line", timeout=8.0)
    finally:
        fault.remove()
    await world.settle()
    new = [m.content for m in world.fake.channel_messages(world.channel)[before:] if not m.embeds]
    pinged = [text for text in new if mention in text]
    assert len(pinged) == 1, (
        f"table B's start line (pinging alice to move) was shown {len(pinged)} times; "
        f"A's: {first_lines!r}; after B opened: {new!r}"
    )


async def test_an_old_tables_hand_button_does_not_act_on_the_next_table_in_the_channel(world: World) -> None:
    """Table A ends; table B opens in the same channel with alice seated and to move, dealt alike. A card
    button of A's hand message (a client that kept the old message: its edit to "closed" never reached it)
    answers shortly and privately that it has expired, and changes nothing at B."""
    world.service.seed_deals(1)  # alice leads with a playable card
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    hand_a = await world.run(world.alice, "hand")
    old_buttons = play_ids(hand_a)
    assert old_buttons, hand_a.content
    ended = await world.run(world.alice, "end")
    assert ended.ephemeral
    await world.settle()
    world.service.seed_deals(1)  # the same deal: alice leads with the same cards at B
    b = await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    assert b != a
    assert world.bot is not None
    moves = len(await world.bot.store.moves(b))
    before = everything(world)
    started = time.monotonic()
    pressed = await world.fake.craft_component(world.alice, world.channel, hand_a, old_buttons[0])
    answer = await pressed.reply()
    assert time.monotonic() - started < 3.0
    assert answer.ephemeral and len(answer.content) < 200, answer.content
    assert answer.content == EXPIRED, answer.content
    await world.settle()
    assert len(await world.bot.store.moves(b)) == moves
    assert everything(world) == before


# --- one person at two tables (two channels of one server) --------------------------------------------------


async def test_hand_command_in_each_channel_shows_that_tables_hand(world: World) -> None:
    """/eights hand in each channel shows the hand at that channel's table, with controls of that table
    only."""
    a, b = await two_tables(world)
    for channel, table in ((world.channel, a), (world.other_channel, b)):
        answer = await world.run(world.alice, "hand", channel=channel)
        assert answer.ephemeral and "Your hand" in answer.content, answer.content
        held = await world.service.hand(table, world.alice.id)
        count = len(held.cards)
        assert f"({count} card" in answer.content, (answer.content, count)
        assert tables_named(answer) <= {table}, (tables_named(answer), table)


async def test_a_move_in_one_channel_changes_only_that_table(world: World) -> None:
    """A move typed in one channel is made at the table of that channel; the other table is untouched."""
    a, b = await two_tables(world)
    assert world.bot is not None
    store = world.bot.store
    snap_b = await world.service.snapshot(b)
    moves_a = len(await store.moves(a))
    moves_b = len(await store.moves(b))
    if snap_b.to_act is not None and snap_b.seats[snap_b.to_act].user_id == world.alice.id:
        answer = await world.run(world.alice, "draw", channel=world.other_channel)
    else:
        # carol acts first at B, then alice
        await world.run(world.carol, "draw", channel=world.other_channel)
        await world.settle()
        answer = await world.run(world.alice, "draw", channel=world.other_channel)
    await world.settle()
    assert answer.ephemeral, answer.content
    assert len(await store.moves(a)) == moves_a
    assert len(await store.moves(b)) > moves_b


async def test_status_and_scores_in_each_channel(world: World) -> None:
    """/eights status and /eights scores in each channel show that channel's table."""
    a, _b = await two_tables(world)
    status_b = await world.run(world.alice, "status", channel=world.other_channel)
    await world.settle()
    assert not status_b.ephemeral
    assert status_b.channel_id == world.other_channel.id
    text = status_b.text()
    assert "carol" in text and "bob" not in text, text
    await play_round(world, a, world.channel, [world.alice, world.bob])
    assert (await world.service.snapshot(a)).phase == "between_rounds"
    scores_a = await world.run(world.alice, "scores", channel=world.channel)
    assert scores_a.ephemeral and "bob" in scores_a.text() and "carol" not in scores_a.text(), scores_a.text()
    scores_b = await world.run(world.alice, "scores", channel=world.other_channel)
    assert scores_b.ephemeral and "No round has been scored yet" in scores_b.text(), scores_b.text()


async def test_leave_in_one_channel_leaves_only_that_table(world: World) -> None:
    """/eights leave typed in one channel leaves the table of that channel (a CPU takes the seat), not the
    other one, where alice still plays."""
    a, b = await two_tables(world)
    answer = await world.run(world.alice, "leave", channel=world.other_channel)
    await world.settle()
    assert answer.ephemeral, answer.content
    snap_a = await world.service.snapshot(a)
    snap_b = await world.service.snapshot(b)
    seat_a = next(s for s in snap_a.seats if s.user_id == world.alice.id)
    seat_b = next(s for s in snap_b.seats if s.user_id == world.alice.id)
    assert not seat_a.is_cpu
    assert seat_b.is_cpu
    hand = await world.run(world.alice, "hand", channel=world.channel)
    assert "Your hand" in hand.content and tables_named(hand) <= {a}


async def test_clicks_at_two_tables_at_once_and_the_other_tables_timer(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """alice moves at both tables at the same moment, then acts at B while her turn at A runs out: each move
    lands at its own table, each hand message keeps its own table's controls, and nobody sees "Something went
    wrong" (nothing is logged as an error)."""
    caplog.set_level(logging.ERROR)
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    b = await open_and_start(world, world.other_channel, world.alice, world.carol, target=1000)
    for table in (a, b):
        snap = await world.service.snapshot(table)
        assert snap.to_act is not None and snap.seats[snap.to_act].user_id == world.alice.id
    hand_a = await world.run(world.alice, "hand", channel=world.channel)
    hand_b = await world.run(world.alice, "hand", channel=world.other_channel)
    assert world.bot is not None
    store = world.bot.store
    moves_a, moves_b = len(await store.moves(a)), len(await store.moves(b))
    click_a = world.fake.click(world.alice, hand_a, first_move(hand_a))
    click_b = world.fake.click(world.alice, hand_b, first_move(hand_b))
    handles = await asyncio.gather(click_a, click_b)
    await asyncio.gather(*(h.reply() for h in handles))
    await world.settle()
    assert len(await store.moves(a)) > moves_a and len(await store.moves(b)) > moves_b
    # bob's turn at A now; alice to act at B again later. A's timer runs out while alice acts at B.
    await world.run(world.carol, "draw", channel=world.other_channel)
    await world.settle()
    snap_b = await world.service.snapshot(b)
    if snap_b.to_act is not None and snap_b.seats[snap_b.to_act].user_id == world.alice.id:
        pressed = world.fake.click(world.alice, hand_b, first_move(hand_b))
        await asyncio.gather(pressed, fire_at(world, a, "_on_turn_timeout"))
    else:
        await fire_at(world, a, "_on_turn_timeout")
    await world.settle()
    assert tables_named_in_versions(hand_a) <= {a}
    assert tables_named_in_versions(hand_b) <= {b}
    for message in world.fake.ephemeral_messages(world.alice):
        assert "Something went wrong" not in message.content, message.content
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_kicked_player_at_one_table_still_plays_the_other(world: World) -> None:
    """bob (host of A) kicks alice from A: a CPU takes her seat there; at B (carol's) alice still sees her
    hand and plays, and /eights hand in A's channel no longer shows her one."""
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.bob, world.alice, target=1000)
    b = await open_and_start(world, world.other_channel, world.carol, world.alice, target=1000)
    kicked = await world.run(world.bob, "kick", member=world.alice)
    assert kicked.ephemeral, kicked.content
    await world.settle()
    snap_a = await world.service.snapshot(a)
    assert next(s for s in snap_a.seats if s.user_id == world.alice.id).is_cpu
    answer = await world.run(world.alice, "hand", channel=world.other_channel)
    assert "Your hand" in answer.content, answer.content
    assert tables_named(answer) <= {b}
    refused = await world.run(world.alice, "hand", channel=world.channel)
    assert "Your hand" not in refused.content and refused.ephemeral


async def test_a_timeout_takeover_at_one_table_leaves_the_other_seat_alone(world: World) -> None:
    """alice's turn at A runs out three times (a CPU takes her seat at A) while she plays B: her seat at B
    stays hers, her hand there works, and her hand message of B never shows A."""
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    b = await open_and_start(world, world.other_channel, world.carol, world.alice, target=1000)
    hand_b = await world.run(world.alice, "hand", channel=world.other_channel)
    for _ in range(200):
        snap = await world.service.snapshot(a)
        if next(s for s in snap.seats if s.user_id == world.alice.id).is_cpu:
            break
        if snap.phase == "between_rounds":
            await fire_at(world, a, "_on_pause_over")
        elif snap.to_act is not None and snap.seats[snap.to_act].user_id == world.alice.id:
            await fire_at(world, a, "_on_turn_timeout")
        else:
            await act_once(world, a, world.channel, [world.bob])
        await world.settle()
    snap_a = await world.service.snapshot(a)
    assert next(s for s in snap_a.seats if s.user_id == world.alice.id).is_cpu
    snap_b = await world.service.snapshot(b)
    assert not next(s for s in snap_b.seats if s.user_id == world.alice.id).is_cpu
    again = await world.run(world.alice, "hand", channel=world.other_channel)
    assert "Your hand" in again.content and "CPU" not in again.content, again.content
    assert tables_named_in_versions(hand_b) <= {b}
    assert all("CPU player is playing your seat" not in v.content for v in hand_b.versions)
    assert tables_named_in_versions(board_in(world, world.other_channel)) <= {b}


async def test_a_lobby_join_elsewhere_while_playing(world: World) -> None:
    """alice plays at A; carol's lobby in the other channel seats her with Join (nothing limits a person to
    one table), and her game at A goes on."""
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    board = await world.run(world.carol, "new", channel=world.other_channel)
    await world.settle()
    joined = await (await world.fake.click(world.alice, board, label="Join")).callback()
    await world.settle()
    b = await world.service.table_in_channel(world.other_channel.id)
    assert b is not None
    seats = [s.user_id for s in (await world.service.snapshot(b)).seats]
    assert world.alice.id in seats, joined
    hand = await world.run(world.alice, "hand", channel=world.channel)
    assert "Your hand" in hand.content and tables_named(hand) <= {a}


# --- a channel and its thread -------------------------------------------------------------------------------


async def test_a_channel_and_its_threads_tables_are_kept_apart(world: World) -> None:
    """A table in a channel and another in one of its threads, alice at both, both played by buttons for a
    while: every version of every hand message alice was shown names the table of its own channel (or
    thread) only, and each board names its own table and its own players."""
    thread = make_thread(world.fake, world.guild, world.channel, "side game", type=11, owner=world.carol)
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    b = await open_and_start(world, thread, world.carol, world.alice, target=1000)
    assert a != b
    hand_a = await world.run(world.alice, "hand", channel=world.channel)
    hand_b = await world.run(world.alice, "hand", channel=thread)
    assert tables_named(hand_a) <= {a} and tables_named(hand_b) <= {b}
    for _ in range(12):
        await act_once(world, a, world.channel, [world.alice, world.bob])
        await act_once(world, b, thread, [world.alice, world.carol])
    for message in world.fake.ephemeral_messages(world.alice):
        named = tables_named_in_versions(message)
        if named:
            assert named == ({a} if message.channel_id == world.channel.id else {b}), (message, named)
    assert tables_named_in_versions(board_in(world, world.channel)) <= {a}
    assert tables_named_in_versions(board_in(world, thread)) <= {b}
    assert "carol" not in board_in(world, world.channel).text()
    assert "bob" not in board_in(world, thread).text()


# --- two servers --------------------------------------------------------------------------------------------


async def test_each_table_shows_that_servers_name(world: World) -> None:
    """alice is "Ally" in the first server and "Alicia" in the second: each board names her so."""
    elsewhere = second_server(world)
    world.service.seed_deals(1)
    await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    await open_and_start(world, elsewhere, world.carol, world.alice, target=1000)
    here_text = board_in(world, world.channel).text()
    there_text = board_in(world, elsewhere).text()
    assert "Ally" in here_text and "Alicia" not in here_text, here_text
    assert "Alicia" in there_text and "Ally" not in there_text, there_text


async def test_two_servers_standings_kept_apart(world: World) -> None:
    """A match in each server: each leaderboard lists alice once, with one match played; the first
    server's leaderboard knows nothing of carol (who played only elsewhere), and each server's /eights stats
    names alice as that server does."""
    elsewhere = second_server(world)
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1)
    b = await open_and_start(world, elsewhere, world.carol, world.alice, target=1)
    await play_match_in(world, a, world.channel, [world.alice, world.bob], world.alice)
    await play_match_in(world, b, elsewhere, [world.alice, world.carol], world.carol)
    here = await world.run(world.alice, "leaderboard", channel=world.channel)
    there = await world.run(world.alice, "leaderboard", channel=elsewhere)
    here_text, there_text = here.text(), there.text()
    alice, bob, carol = (f"<@{u.id}>" for u in (world.alice, world.bob, world.carol))
    assert f"{alice} — " in here_text and bob in here_text and carol not in here_text, here_text
    assert f"{alice} — " in there_text and carol in there_text and bob not in there_text, there_text
    for text in (here_text, there_text):
        assert all("· 1 match" in line for line in text.splitlines() if " — **" in line and "·" in line), text
    stats_here = await world.run(world.alice, "stats", channel=world.channel)
    stats_there = await world.run(world.alice, "stats", channel=elsewhere)
    assert "Alicia" not in stats_here.text(), stats_here.text()
    assert "Ally" not in stats_there.text(), stats_there.text()


async def test_forget_while_seated_at_two_tables(world: World) -> None:
    """alice confirms /eights forget while she plays a table in each server: both tables play on, and
    both matches still count when they end: each server's leaderboard lists her afterwards."""
    elsewhere = second_server(world)
    world.service.seed_deals(1)
    a = await open_and_start(world, world.channel, world.alice, world.bob, target=1)
    b = await open_and_start(world, elsewhere, world.carol, world.alice, target=1)
    question = await world.run(world.alice, "forget", channel=world.channel)
    done = await (await world.fake.click(world.alice, question, label="Delete my statistics")).reply()
    assert "deleted" in done.content, done.content
    await world.settle()
    for channel in (world.channel, elsewhere):
        hand = await world.run(world.alice, "hand", channel=channel)
        assert "Your hand" in hand.content, hand.content
    await play_match_in(world, a, world.channel, [world.alice, world.bob], world.alice)
    await play_match_in(world, b, elsewhere, [world.alice, world.carol], world.carol)
    here = await world.run(world.alice, "leaderboard", channel=world.channel)
    there = await world.run(world.alice, "leaderboard", channel=elsewhere)
    assert f"<@{world.alice.id}> — " in here.text(), here.text()
    assert f"<@{world.alice.id}> — " in there.text(), there.text()
    assert "Deleted player" not in here.text() + there.text()
