"""Bad input gets a short private answer and changes nothing: malformed cards and suits, moves out of turn,
illegal passes, buttons of an old round or a finished table, commands outside a table's channel."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine import card_code
from bot.engine.cards import STANDARD_DECK
from bot.exts._group import STORE_FAILED
from bot.service import EXPIRED
from bot.store import DamagedDatabaseError
from tests.e2e.conftest import World
from tests.e2e.test_lobby import public_state
from tests.fakediscord import FakeMessage, FakeUser


async def start_two(world: World) -> FakeMessage:
    board = await world.run(world.alice, "new", target=1000)  # no match ends after one round
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    return hand


async def assert_refused(world: World, user: FakeUser, command: str, words: str, **options: object) -> None:
    before_public = public_state(world)
    before_moves = len(await world.bot.store.moves(await world.table_id())) if world.bot else 0
    answer = await world.run(user, command, **options)
    assert answer.ephemeral, answer.content
    assert words in answer.content, answer.content
    assert len(answer.content) < 200  # short, and no traceback
    await world.settle()
    assert public_state(world) == before_public
    assert world.bot is not None
    assert len(await world.bot.store.moves(await world.table_id())) == before_moves


async def test_malformed_cards_and_suits(world: World) -> None:
    await start_two(world)
    for text in ("zz", "11H", "K", "hearts", "8♥♥", "0S"):
        await assert_refused(world, world.alice, "play", "Unknown card. (903)", card=text)
    await assert_refused(world, world.alice, "suit", "Unknown suit. (906)", suit="purple")
    hand = await world.service.hand(await world.table_id(), world.alice.id)
    held = {c.code for c in hand.cards}
    missing = next(card_code(c) for c in STANDARD_DECK if card_code(c) not in held and card_code(c)[0] != "8")
    await assert_refused(world, world.alice, "play", "(902)", card=missing)
    await assert_refused(world, world.alice, "suit", "(905)", suit="hearts")  # no wild was played


async def test_moves_out_of_turn_and_illegal_passes(world: World) -> None:
    await start_two(world)
    bob_hand = await world.service.hand(await world.table_id(), world.bob.id)
    await assert_refused(world, world.bob, "play", "It's not your turn. (901)", card=bob_hand.cards[0].code)
    await assert_refused(world, world.bob, "draw", "It's not your turn. (901)")
    await assert_refused(world, world.carol, "draw", "not seated")
    # alice holds a legal play: passing is refused.
    await assert_refused(world, world.alice, "pass", "(915)")


async def test_old_round_and_finished_table_buttons_have_expired(world: World) -> None:
    await start_two(world)
    # bob opens his hand twice on his turn: the first message keeps round 1's buttons, as the second is the
    # one refreshed from then on.
    while (user := await world.human_to_act()) is world.alice:
        await world.play_by_buttons(world.alice)
    assert user is world.bob
    old = await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    assert old.buttons
    await world.play_round_by_buttons()
    await (await world.fake.click(world.alice, world.board(), label="Next round")).reply()
    await world.settle()
    assert (await world.snapshot()).round_number == 2

    before = public_state(world)
    expired = await (await world.fake.click(world.bob, old, old.buttons[0]["custom_id"])).reply()
    assert expired.ephemeral and expired.content == EXPIRED and expired.id != old.id
    await world.settle()
    assert public_state(world) == before

    # The table ends: every button of its hands has expired, and the board has none left.
    user = await world.human_to_act()
    assert user is not None
    hand = await world.hand_message(user)
    assert hand.buttons
    stale = str(hand.buttons[0]["custom_id"])
    await world.run(world.alice, "end")
    await world.settle()
    assert world.board().buttons == []
    assert hand.buttons == []  # the hand message says the table is closed; a client may still show them
    before = public_state(world)
    pressed = await world.fake.craft_component(user, world.channel, hand, stale)
    answer = await pressed.reply()
    assert answer.ephemeral and answer.content == EXPIRED
    assert public_state(world) == before
    status = await world.run(world.alice, "status")
    assert status.ephemeral and "no open table" in status.content


async def test_a_board_button_of_a_finished_table_has_expired(world: World) -> None:
    first_board = await world.run(world.alice, "new")
    # The table ends and its board loses its buttons; a client that still shows the old buttons (Discord
    # clients refresh lazily) clicks "Join" while a new table is open in the channel.
    await world.run(world.alice, "end")
    await world.settle()
    await world.run(world.alice, "new")
    await world.settle()
    stale = FakeMessage(
        id=first_board.id,
        channel_id=world.channel.id,
        guild_id=world.guild.id,
        author=world.fake.bot_user,
        components=first_board.versions[0].components,
    )
    world.fake.messages[stale.id] = stale
    before = public_state(world)
    answer = await (await world.fake.click(world.bob, stale, label="Join")).reply()
    assert answer.ephemeral and "expired" in answer.content
    assert public_state(world) == before


async def test_a_database_failing_mid_game_answers_briefly_and_applies_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database file found damaged while the bot runs (the store raises DamagedDatabaseError from the
    commit, as tests/store/test_damaged_file.py shows it does): the player is told in one short private line,
    the hand, the board and the move log stay as they were, and once the database is back the same button
    acts."""
    # A deal where Alice leads with a card she could play: with none, the referee draws for her at the start
    # (up to a playable card), and her hand would show no Draw button and not seven cards.
    world.service.seed_deals(1)
    hand = await start_two(world)
    assert world.bot is not None
    store = world.bot.store
    table_id = await world.table_id()
    commit = store.commit_move

    async def damaged(*args: Any, **kwargs: Any) -> int:
        raise DamagedDatabaseError("data/eights.sqlite3")

    monkeypatch.setattr(store, "commit_move", damaged)
    before_public, before_moves = public_state(world), len(await store.moves(table_id))
    before_hand = hand.content
    draw = hand.buttons[[b["label"] for b in hand.buttons].index("Draw")]["custom_id"]
    click = await world.fake.click(world.alice, hand, draw)
    answer = await click.reply()
    assert answer.ephemeral and answer.content.startswith(STORE_FAILED), answer.content
    assert len(answer.content) < 120 and "Traceback" not in answer.content
    await world.settle()
    assert public_state(world) == before_public and hand.content == before_hand
    assert len(await store.moves(table_id)) == before_moves
    assert (await world.snapshot()).seats[0].card_count == 7

    monkeypatch.setattr(store, "commit_move", commit)
    again = await world.fake.click(world.alice, hand, draw)
    await again.callback()
    await world.settle()
    assert (await world.snapshot()).seats[0].card_count == 8
    assert len(await store.moves(table_id)) == before_moves + 1
