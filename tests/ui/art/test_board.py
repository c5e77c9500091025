"""The board picture: drawn from public data only, deterministic, cached by content, described in words."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from bot.service.models import HandCard, HandView, TableSnapshot
from bot.ui.art import board, png_bands
from bot.ui.art.board import (
    HEIGHT,
    MAX_ALT_TEXT,
    WIDTH,
    BoardPicture,
    BoardRenderer,
    alt_text,
    board_key,
    drawable_name,
    has_picture,
    render_board,
)
from tests.ui.snapshots import hand, seat, snapshot, to_act

ROOT = Path(__file__).resolve().parents[3]
TEN_MIB = 10 * 1024 * 1024


def pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


def test_the_picture_is_a_png_discord_accepts() -> None:
    picture = render_board(snapshot())
    image = Image.open(io.BytesIO(picture.png))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
    assert len(picture.png) < TEN_MIB  # Discord's default upload limit
    assert picture.filename.endswith(".png")


def test_same_board_same_bytes_and_same_bytes_in_another_process() -> None:
    board = snapshot()
    first, second = render_board(board), render_board(board)
    assert first.png == second.png
    script = (
        "import sys; from tests.ui.snapshots import snapshot; from bot.ui.art.board import render_board;"
        " sys.stdout.buffer.write(render_board(snapshot()).png)"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, check=True).stdout
    assert out == first.png


def test_hidden_hands_do_not_change_the_picture() -> None:
    # Two tables that differ only in what is private: the hands (as the service's hand views hold them),
    # the deadline, the buttons' round token, the recent events. The picture and its alt text are the same.
    board = snapshot()
    other = replace(
        board, deadline=board.deadline + 30 if board.deadline else 5.0, round_token="7:9", recent=()
    )
    mine: HandView = hand(["KH", "8C", "2D"], {"KH"}, board)
    theirs: HandView = hand(["AS", "3S", "9D", "QC", "JH"], {"AS"}, other)
    assert mine.cards != theirs.cards
    first, second = render_board(mine.snapshot), render_board(theirs.snapshot)
    assert first.png == second.png
    assert first.alt_text == second.alt_text
    assert first.key == second.key
    # No card of either hand is named in the description (the target, 9♠, is in neither hand).
    for card in (*mine.cards, *theirs.cards):
        assert isinstance(card, HandCard)
        assert card.name not in first.alt_text


def test_what_the_picture_shows_changes_its_pixels() -> None:
    board = snapshot()
    base = pixels(render_board(board).png)
    changes: list[TableSnapshot] = [
        replace(board, target_card="KH"),
        replace(board, target_card="8H", declared_suit="C"),
        replace(board, direction=-1),
        replace(board, stock_size=3),
        replace(board, pending_draw=2),
        to_act(board, 1),
        replace(board, seats=(replace(board.seats[0], card_count=9), *board.seats[1:])),
        replace(board, seats=(*board.seats[:2], replace(board.seats[2], name="robot"))),
    ]
    seen = {base}
    for changed in changes:
        picture = pixels(render_board(changed).png)
        assert picture not in seen, changed
        seen.add(picture)


def test_the_key_holds_public_fields_only() -> None:
    board = snapshot()
    assert board_key(board) == board_key(replace(board, deadline=1.0, recent=(), round_token="x"))
    assert board_key(board) != board_key(replace(board, target_card="2C"))


def test_alt_text_describes_the_board() -> None:
    board = to_act(replace(snapshot(), target_card="8H", declared_suit="C", direction=-1, pending_draw=2), 1)
    text = alt_text(board)
    for words in (
        "Eight of Hearts",
        "Suit named: Clubs",
        "reverse seat order",
        "Stock: 30 cards",
        "1. alice, 5 cards",
        "2. bob, 5 cards, to move",
        "3. CPU 1, 5 cards",
        "draws 2 cards",
    ):
        assert words in text, words
    long = replace(board, seats=tuple(seat(i, "x" * 200, 1000 + i) for i in range(7)))
    assert len(alt_text(long)) <= MAX_ALT_TEXT


def test_names_the_font_cannot_write() -> None:
    assert drawable_name("Zoë", 0) == "Zoe"
    assert drawable_name("José María", 0) == "Jose Maria"
    assert drawable_name("李小龍", 3) == "Seat 4"
    assert drawable_name("bob 🎲", 1) == "bob ?"


def test_no_picture_without_a_round() -> None:
    renderer = BoardRenderer()
    for phase in ("lobby", "finished", "abandoned"):
        board = replace(snapshot(), phase=phase, target_card=None if phase == "lobby" else "9S")
        assert not has_picture(board)
        assert renderer.render(board) is None
    assert has_picture(replace(snapshot(), phase="between_rounds"))


def test_the_renderer_draws_each_board_once() -> None:
    renderer = BoardRenderer(cache_size=2)
    a, b, c = snapshot(), replace(snapshot(), target_card="KH"), replace(snapshot(), target_card="QH")
    first = renderer.render(a)
    assert renderer.render(replace(a, deadline=12.0)) is first  # private change: the same picture object
    assert renderer.drawn == 1
    renderer.render(b)
    renderer.render(c)  # a is evicted (cache of two)
    assert renderer.drawn == 3
    renderer.render(a)
    assert renderer.drawn == 4


async def test_a_board_that_needs_a_sprite_drawn_is_drawn_off_the_event_loop() -> None:
    board._mapped_sprites.clear()  # as in a fresh process: every sprite still to draw
    renderer = BoardRenderer()
    drawn_in: list[int] = []
    original = renderer.render

    def spy(snap: TableSnapshot) -> BoardPicture | None:
        drawn_in.append(threading.get_ident())
        return original(snap)

    renderer.render = spy  # type: ignore[method-assign]
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    picture = await renderer.render_async(snapshot())
    task.cancel()
    assert picture is not None
    assert drawn_in and drawn_in[0] != threading.get_ident()
    assert ticks > 0  # the loop ran while the picture was drawn
    # A cached picture comes straight back, without a thread.
    drawn_in.clear()
    assert await renderer.render_async(snapshot()) is picture
    assert drawn_in == [] and renderer.drawn == 1


async def test_a_board_of_sprites_drawn_already_is_made_on_the_event_loop_the_same() -> None:
    """Pastes and a PNG (under a millisecond): cheaper than the hop to a thread and back."""
    first = to_act(snapshot(), 1)
    drawn_ahead = BoardRenderer()
    assert drawn_ahead.render(first) is not None  # draws every sprite this board needs
    renderer = BoardRenderer()  # a cache of its own: the picture is made, not found
    renderer.render = lambda snap: pytest.fail("sent to the renderer's thread")  # type: ignore[method-assign]
    picture = await renderer.render_async(first)
    assert picture is not None and renderer.drawn == 1
    assert picture.png == render_board(first).png
    assert picture.alt_text == alt_text(first) and picture.key == board_key(first)
    assert await renderer.render_async(first) is picture  # and cached
    # A sprite still to draw (this seat's name never shown before) sends the board to the thread instead.
    renamed = replace(first, seats=(replace(first.seats[0], name="Nobody seen before"), *first.seats[1:]))
    sprites = len(board._mapped_sprites)
    assert board.compose_drawn(renamed) is None
    assert len(board._mapped_sprites) == sprites  # and nothing drawn on the loop meanwhile


def test_the_shared_parts_are_drawn_ahead_in_the_renderers_thread() -> None:
    """The table and its arrows are most of a process's first picture (about 0.45 s): ``warm`` draws them at
    start-up, in the renderer's thread, so the first board does not wait for them."""
    board._background.cache_clear()
    board._table.cache_clear()
    board._direction_arrows.cache_clear()
    board._mapped_backgrounds.clear()
    renderer = BoardRenderer()
    renderer.warm().result(timeout=30)
    # Seat order: every round starts that way.
    assert len(board._mapped_backgrounds) == 1
    tables_drawn = board._background.cache_info().misses
    renderer.render(snapshot())
    assert board._background.cache_info().misses == tables_drawn  # the first picture drew no table


def test_every_board_is_mapped_to_one_palette_chosen_once() -> None:
    """Choosing a palette per picture was most of its cost (2.5 ms of 5): every board of a card palette maps
    to one chosen ahead, from a sample of all a board shows, and still shows every colour it drew."""
    first = to_act(snapshot(), 1)
    second = replace(to_act(snapshot(), 2), target_card="8D", declared_suit="S", pending_draw=2)
    images = [Image.open(io.BytesIO(render_board(each).png)) for each in (first, second)]
    assert all(image.mode == "P" for image in images)
    assert images[0].getpalette() == images[1].getpalette()
    # Mapped, not blurred: the drawn colours come out as drawn, but for a few blended edge pixels.
    drawn, shown = board.draw_board(second).tobytes(), images[1].convert("RGB").tobytes()
    errors = [abs(a - b) for a, b in zip(drawn, shown, strict=True)]
    assert sum(errors) / len(errors) < 2
    assert sum(1 for error in errors if error > 24) < len(errors) / 1000


def test_the_png_shows_the_composed_picture_exactly() -> None:
    """The PNG is written from the picture composed framed (a column of filter bytes on its left): it shows
    every pixel of the picture and nothing of the frame."""
    snap = to_act(snapshot(), 2)
    shown = Image.open(io.BytesIO(render_board(snap).png))
    composed = board.compose_board(snap)
    assert shown.size == composed.size == (WIDTH, HEIGHT)
    assert shown.tobytes() == composed.tobytes() and shown.getpalette() == composed.getpalette()


def test_a_sprite_past_the_left_edge_is_cut_there_and_leaves_the_frame_alone() -> None:
    background = board._mapped_background(1, board.FOUR_COLOUR)
    sprite = Image.new("P", (10, 10), 7), Image.new("1", (10, 10), 1)
    composed = board._pasted(background, [(sprite, (-4, 100))])
    assert all(composed.getpixel((0, y)) == 0 for y in range(HEIGHT))  # every row's filter byte: none
    shown = Image.open(io.BytesIO(png_bands.framed_png(composed)))
    assert shown.size == (WIDTH, HEIGHT)
    assert [shown.getpixel((x, 105)) for x in range(7)] == [7] * 6 + [background.getpixel((7, 105))]


def test_each_seat_name_and_count_sit_on_their_plate() -> None:
    # A plate spans 12–38 px below its seat's centre, the name and count at +25 (a sprite placed 16 px too
    # high once left the names hanging below their plates).
    snap = snapshot()
    picture = board.compose_board(snap).convert("RGB")
    centres = board._seat_centres(len(snap.seats))

    def near(pixel: tuple[int, ...], colour: tuple[int, int, int]) -> bool:
        return sum(abs(a - b) for a, b in zip(pixel, colour, strict=False)) < 40

    for seat_view, (x, y) in zip(sorted(snap.seats, key=lambda s: s.position), centres, strict=True):
        plate = board.GOLD if snap.to_act == seat_view.position else board.PLATE
        for dy in (14, 25, 36):  # the plate's top, its middle (left of the name), its bottom
            assert near(picture.getpixel((x - 74, y + dy)), plate), (seat_view.name, dy)
        assert not near(picture.getpixel((x - 74, y + 6)), plate), seat_view.name  # above the plate: the felt


def test_the_renderer_has_pillow_keep_freed_image_memory_for_reuse() -> None:
    from PIL import _imaging

    from bot.ui.art.board import PILLOW_BLOCKS

    before = _imaging.get_blocks_max()
    try:
        _imaging.set_blocks_max(0)  # Pillow's default: every image's memory freed at once
        BoardRenderer()
        assert _imaging.get_blocks_max() == PILLOW_BLOCKS
    finally:
        _imaging.set_blocks_max(before)
