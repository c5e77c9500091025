"""Card emojis and the board picture end to end: uploaded once, on buttons and in text, the picture on the
board message and kept current, the server's switches, and a text game when the emojis cannot be uploaded."""

from __future__ import annotations

import asyncio
import io
import logging
import re

import pytest
from PIL import Image

from bot.i18n import _ as translate
from bot.i18n import ngettext, use_locale
from bot.ui.art.emoji_set import all_keys, emoji_name
from tests.e2e.conftest import World
from tests.e2e.crazier_play import open_table
from tests.e2e.test_round import open_and_start
from tests.fakediscord import FakeMessage

EMOJI_MARKUP = re.compile(r"<:(e8f\d+_\w+):(\d+)>")


async def play_moves(world: World, moves: int) -> None:
    """``moves`` moves by whoever is to act, each shown before the next."""
    for _ in range(moves):
        user = await world.human_to_act()
        assert user is not None
        await world.play_by_buttons(user)
        await world.settle()


async def emojis_ready(world: World) -> None:
    assert world.bot is not None
    assert await world.bot.card_emojis.wait(), world.bot.card_emojis.error


def board_picture(world: World, board: FakeMessage | None = None) -> dict[str, object] | None:
    board = board or world.board()
    pictures = [a for a in board.attachments if str(a.get("filename", "")).endswith(".png")]
    assert len(pictures) <= 1
    return pictures[0] if pictures else None


async def test_emojis_are_created_once_across_a_restart(world: World) -> None:
    await emojis_ready(world)
    names = {emoji_name(key) for key in all_keys()}
    assert world.fake.emojis.names() == names
    assert sorted(world.fake.emojis.created) == sorted(names)
    for name in names:
        emoji = world.fake.emojis.by_name(name)
        assert emoji is not None
        image = Image.open(io.BytesIO(world.fake.emojis.images[int(str(emoji["id"]))]))
        assert image.size == (128, 128) and image.format == "PNG"
    await world.restart()
    await emojis_ready(world)
    assert len(world.fake.emojis.created) == len(names)  # nothing uploaded again
    assert world.bot is not None and world.bot.card_emojis.uploaded == 0
    # One that went missing (deleted in the developer portal) is uploaded again, alone.
    gone = world.fake.emojis.by_name(emoji_name("QS"))
    assert gone is not None
    del world.fake.emojis.items[int(str(gone["id"]))]
    await world.restart()
    await emojis_ready(world)
    assert world.fake.emojis.created[len(names) :] == [emoji_name("QS")]
    world.fake.assert_clean()


async def test_hand_buttons_and_texts_carry_the_card_emojis(world: World) -> None:
    await emojis_ready(world)
    await open_and_start(world)
    user = await world.human_to_act()
    assert user is not None
    hand = await world.hand_message(user)
    plays = [b for b in hand.buttons if ":play:" in str(b.get("custom_id"))]
    assert plays or hand.selects
    for button in plays:
        code = str(button["custom_id"]).rsplit(":", 1)[1]
        emoji = button.get("emoji")
        assert emoji is not None, button
        assert emoji["name"] == emoji_name(code)
        assert world.fake.emojis.items[int(emoji["id"])]["name"] == emoji_name(code)
        assert button["label"]  # the text stays beside the emoji
    for select in hand.selects:
        for option in select["options"]:
            assert option["emoji"]["name"] == emoji_name(option["value"])
    # The hand text shows every card with its emoji, each one an emoji of the app.
    markup = EMOJI_MARKUP.findall(hand.content)
    assert markup and not world.fake.emojis.unknown_in(hand.content)
    # A move: the public line and the board's target show the played card's emoji.
    played = await world.play_by_buttons(user)
    await world.settle()
    line = next(text for text in reversed(world.public_texts()) if "played" in text)
    assert EMOJI_MARKUP.search(line), line
    target = next(f["value"] for f in world.board().embeds[0]["fields"] if f["name"] == "Target")
    assert EMOJI_MARKUP.search(target), target
    assert not world.fake.emojis.unknown_in(world.board().text())
    assert played


async def test_the_board_carries_a_picture_that_follows_the_target(world: World) -> None:
    await open_and_start(world)
    board = world.board()
    first = board_picture(world)
    assert first is not None
    assert first["content_type"] == "image/png"
    assert (first["width"], first["height"]) == (800, 450)
    description = str(first["description"])
    snapshot = await world.snapshot()
    assert snapshot.target_card is not None
    assert "Target card:" in description and "Seats:" in description and "alice" in description
    before = world.fake.files.content(first)
    target_before = snapshot.target_card
    for _ in range(6):
        user = await world.human_to_act()
        assert user is not None
        await world.play_by_buttons(user)
        await world.settle()
        if (await world.snapshot()).target_card != target_before:
            break
    after = board_picture(world)
    assert after is not None and after["id"] != first["id"]
    assert world.fake.files.content(after) != before
    assert after["description"] != description
    # The same message, edited; the text board stays beside the picture.
    assert world.board().id == board.id and world.board().embeds
    assert any(version.attachments for version in world.board().versions[:-1])


async def test_settings_switch_emojis_and_picture_off_and_on(world: World) -> None:
    await emojis_ready(world)
    await open_and_start(world)
    admin = world.fake.owner
    off = await world.run(admin, "settings", card_emojis=False, board_picture=False)
    assert off.ephemeral
    fields = {f["name"]: f["value"] for f in off.embeds[0]["fields"]}
    assert fields["Card emojis"].startswith("off") and fields["Board picture"].startswith("off")
    user = await world.human_to_act()
    assert user is not None
    await world.play_by_buttons(user)
    await world.settle()
    assert board_picture(world) is None
    assert not EMOJI_MARKUP.search(world.board().text())
    user = await world.human_to_act()
    assert user is not None
    hand = await world.hand_message(user)
    assert not EMOJI_MARKUP.search(hand.content)
    assert all("emoji" not in button for button in hand.buttons)
    # And on again: the next update brings both back.
    on = await world.run(admin, "settings", card_emojis=True, board_picture=True)
    assert {f["name"]: f["value"] for f in on.embeds[0]["fields"]}["Board picture"] == "on"
    await world.play_by_buttons(user)
    await world.settle()
    assert board_picture(world) is not None
    assert EMOJI_MARKUP.search(world.board().text())
    # The switches are the server's settings: they survive a restart.
    await world.run(admin, "settings", board_picture=False)
    await world.restart()
    user = await world.human_to_act()
    assert user is not None
    await world.play_by_buttons(user)
    await world.settle()
    assert board_picture(world) is None


async def test_a_failed_emoji_upload_leaves_a_playable_text_game(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    world.fake.emojis.fail_creates = 403  # a refusal: final until the next start (a 5xx is tried again)
    caplog.set_level(logging.WARNING, logger="bot.delivery.emojis")
    await world.restart()
    assert world.bot is not None
    assert await world.bot.card_emojis.wait() is False
    warnings = [r for r in caplog.records if r.name == "bot.delivery.emojis"]
    assert len(warnings) == 1
    assert "cards are shown as text" in warnings[0].getMessage()
    # (The first bot of the test may have uploaded a few before the outage began: never the whole set.)
    assert len(world.fake.emojis.items) < len(all_keys())
    await open_and_start(world, cpu=True)
    moves = await world.play_round_by_buttons()
    assert moves > 0
    assert (await world.snapshot()).phase == "between_rounds"
    for message in [*world.fake.channel_messages(world.channel), world.board()]:
        assert not EMOJI_MARKUP.search(message.text())
    for user in (world.alice, world.bob):
        for message in world.fake.ephemeral_messages(user):
            assert all("emoji" not in c for c in message.iter_components())
    # The board picture needs no emoji: it is still there.
    assert board_picture(world) is not None
    assert len([r for r in caplog.records if r.name == "bot.delivery.emojis"]) == 1


async def test_without_attach_files_the_board_rides_the_interactions_with_its_picture(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    attach_files = 1 << 15
    for role in world.guild.roles.values():
        role.permissions &= ~attach_files
    caplog.set_level(logging.WARNING, logger="bot.delivery.publisher")
    await open_and_start(world)
    await play_moves(world, 3)
    board = world.board()
    # The board is the answer to /eights new, edited through that interaction's token: an interaction's
    # messages need no channel permission, so the picture is there and nothing was refused.
    assert board_picture(world) is not None and "Target" in board.text()
    assert not [r for r in caplog.records if "board picture was refused" in r.getMessage()]
    assert world.fake.take_violations() == []


async def test_status_posts_the_board_with_its_picture(world: World) -> None:
    await open_and_start(world)
    old = world.board()
    answer = await world.run(world.bob, "status")
    assert not answer.ephemeral
    await world.settle()
    board = world.board()
    assert board.id != old.id
    picture = board_picture(world, board)
    assert picture is not None and "Target card" in str(picture["description"])
    assert Image.open(io.BytesIO(world.fake.files.content(picture))).size == (800, 450)


async def test_an_unchanged_picture_is_not_uploaded_again_after_a_restart(world: World) -> None:
    await open_and_start(world)
    await play_moves(world, 1)
    board = world.board()
    first = board_picture(world)
    assert first is not None
    await world.restart()
    await world.settle()
    # The restarted bot checked the board (and may have edited its text), but the picture is the one it had.
    assert world.board().id == board.id
    after = board_picture(world)
    assert after is not None and after["id"] == first["id"]
    # What it shows changes: the picture follows, as before the restart.
    target = (await world.snapshot()).target_card
    for _ in range(6):
        await play_moves(world, 1)
        if (await world.snapshot()).target_card != target:
            break
    changed = board_picture(world)
    assert changed is not None and changed["id"] != first["id"]
    # What the picture shows is recorded when a board is posted and when the bot shuts down, not at every
    # move: after a second restart the changed picture is not uploaded again either.
    table_id = await world.table_id()
    await world.restart()
    await world.settle()
    assert await world.service.board_picture(table_id) is not None
    kept = board_picture(world)
    assert kept is not None and kept["id"] == changed["id"]
    # The record goes with the table.
    await world.run(world.alice, "end")
    await world.settle()
    assert await world.service.board_picture(table_id) is None


async def test_without_attach_files_a_board_sent_through_the_channel_goes_on_as_text(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """A moderator deletes the board in a channel where the bot lacks Attach Files: the bot posts it again
    through the channel, which refuses the picture once (said once in the log) and takes the board as
    text; boards go on, and the next player's move carries the board (posted as its follow-up, which
    needs no channel permission) with its picture again."""
    attach_files = 1 << 15
    for role in world.guild.roles.values():
        role.permissions &= ~attach_files
    caplog.set_level(logging.WARNING, logger="bot.delivery.board")
    await open_and_start(world)
    await play_moves(world, 1)
    assert board_picture(world) is not None
    for user in (world.alice, world.bob):
        await world.hand_message(user)  # both play from their hand messages from now on
    world.fake._delete_message(world.board())  # a moderator's doing
    await play_moves(world, 4)
    refusals = [r for r in caplog.records if "board picture was refused" in r.getMessage()]
    assert len(refusals) == 1
    # The board reposted through the channel went without its picture, and was replaced since by one
    # riding a player's interaction, with the picture; every board showed its state.
    boards = [
        m
        for m in world.fake.channel_messages(world.channel, include_deleted=True)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
    ]
    assert any(not m.attachments for m in boards)
    board = world.board()
    assert board_picture(world, board) is not None and not board.deleted
    snapshot = await world.snapshot()
    assert f"Round {snapshot.round_number}" in board.text() or str(snapshot.stock_size) in board.text()
    # What the fake saw refused: the one upload, and the edit that found the board deleted.
    refused = world.fake.take_violations()
    assert all("Attach Files" in v or "was deleted" in v for v in refused) and len(refused) <= 2


async def test_crazier_text_board_tells_the_discard_pile_the_picture_shows(world: World) -> None:
    """The text board, all a player without the picture has (the picture off, or no Attach Files), tells
    the discard pile's count as the crazier picture and its description do."""
    await open_table(world, [world.alice, world.bob], ("normal",))
    await world.settle()
    board = world.board()
    picture = board_picture(world, board)
    assert picture is not None
    description = str(picture["description"])
    assert "Discard pile:" in description  # the picture shows it
    snapshot = await world.snapshot()
    assert snapshot.crazier is not None
    text = board.text()
    assert "Discard pile" in text or "discard pile" in text, text


def _board(world: World) -> FakeMessage:
    """The table's board in any language: the channel's latest message with a board button."""
    boards = [
        m
        for m in world.fake.channel_messages(world.channel)
        if any(str(b["custom_id"]).endswith((":hand", ":join")) for b in m.buttons)
    ]
    assert boards, "no board in the channel"
    return boards[-1]


async def test_board_picture_description_is_in_the_servers_language_after_a_foreign_players_move(
    world: World,
) -> None:
    """README Languages: "the tables' public messages (boards, …, the board picture and its description
    …) are in the server's language"; each player's own messages in their client's."""
    world.guild.locale = "es-ES"
    world.alice.locale, world.bob.locale = "de", "fr"
    assert world.bot is not None
    await asyncio.wrap_future(world.bot.board_pictures.warm())
    board = await world.run(world.alice, "new", target=1000)
    await (await world.fake.click(world.bob, board, "e8:1::join")).callback()
    await world.settle()
    await (await world.fake.click(world.alice, board, "e8:1::start")).reply()
    await world.settle()
    for _move in range(3):
        user = await world.human_to_act()
        assert user is not None
        board = _board(world)
        hand_id = next(b["custom_id"] for b in board.buttons if b["custom_id"].endswith(":hand"))
        hand = await (await world.fake.click(user, board, hand_id)).reply()
        ids = [str(b["custom_id"]) for b in hand.buttons]
        chosen = next(i for i in ids if any(f":{a}" in i for a in ("suit", "play", "draw", "pass")))
        await (await world.fake.click(user, hand, chosen)).reply()
        await world.settle()
    snapshot = await world.snapshot()
    picture = board_picture(world, _board(world))
    assert picture is not None
    description = str(picture["description"])
    with use_locale("es"):
        spanish = translate("Crazy Eights table, round {number}.", number=snapshot.round_number)
        stock = translate("Stock: {cards}.", cards=ngettext("{n} card", "{n} cards", snapshot.stock_size))
    assert description.startswith(spanish), description
    assert stock in description, description
