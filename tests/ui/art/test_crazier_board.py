"""The Crazier Eights board picture: what it shows (sampled pixels), its words for screen readers, the same
bytes for the same board, each part drawn once, and the renderer's cache and thread."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat

from bot.engine.crazier.deck import DECK, row_of
from bot.i18n import _, use_locale
from bot.ui.art import crazier_board
from bot.ui.art.board import BoardRenderer
from bot.ui.art.cards import draw_centered_text, font
from bot.ui.art.crazier import COLOUR_INKS
from bot.ui.art.crazier_board import (
    GOLD,
    HEADER,
    IN_PLAY_AT,
    MAX_ALT_TEXT,
    NAME_PLATE,
    ROW,
    WIDTH,
    CrazierBoard,
    CrazierSeat,
    crazier_alt_text,
    height_for,
    render_crazier_async,
    render_crazier_board,
    render_crazier_cached,
)

ROOT = Path(__file__).resolve().parents[3]
TOP_CARD_LEFT, TOP_CARD_TOP = 195, 19  # the top card's corner (110 × 154, centred at 250, 96)


def board(**changes: object) -> CrazierBoard:
    values: dict[str, object] = {
        "top_card": "9B",
        "draw_pile": 23,
        "discard_pile": 6,
        "seats": (
            CrazierSeat(0, "Ana", 5, ("6G", "5B"), to_act=True),
            CrazierSeat(1, "Ben", 12, ("JP",)),
            CrazierSeat(2, "Cleo", 3),
        ),
    }
    values.update(changes)
    return CrazierBoard(**values)  # type: ignore[arg-type]


def image_of(picture_board: CrazierBoard) -> Image.Image:
    return Image.open(io.BytesIO(render_crazier_board(picture_board).png)).convert("RGB")


def near(pixel: object, expected: tuple[int, int, int], tolerance: int = 12) -> bool:
    assert isinstance(pixel, tuple)
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, expected, strict=True))


def row_middle(index: int) -> int:
    return round(HEADER + ROW * index + (ROW - 6) / 2)


def test_a_png_whose_height_follows_the_players() -> None:
    for players in (2, 4, 6):
        seats = tuple(CrazierSeat(i, f"P{i}", 7) for i in range(players))
        picture = render_crazier_board(board(seats=seats))
        image = Image.open(io.BytesIO(picture.png))
        assert image.format == "PNG" and image.size == (WIDTH, height_for(players))
        assert picture.filename.endswith(".png")


def test_the_top_card_is_shown_in_its_colour() -> None:
    for card, colour in (("9B", "B"), ("KO", "O"), ("3P", "P")):
        image = image_of(board(top_card=card))
        assert near(image.getpixel((TOP_CARD_LEFT + 18, TOP_CARD_TOP + 70)), COLOUR_INKS[colour]), card
    # An Ace shows both its colours: its own top left, the next bottom right.
    ace = image_of(board(top_card="AP"))
    assert near(ace.getpixel((TOP_CARD_LEFT + 10, TOP_CARD_TOP + 85)), COLOUR_INKS["P"])
    assert near(ace.getpixel((TOP_CARD_LEFT + 100, TOP_CARD_TOP + 70)), COLOUR_INKS["B"])


def test_the_colour_to_follow_is_the_top_cards_or_the_named_one() -> None:
    badge = (380, 86)  # the badge's middle, where one colour is to follow

    def badge_ring(image: Image.Image) -> tuple[int, int, int]:
        pixel = image.getpixel((badge[0] - 19, badge[1]))  # inside the disc, left of the symbol
        assert isinstance(pixel, tuple)
        return pixel

    assert near(badge_ring(image_of(board(top_card="9B"))), COLOUR_INKS["B"])
    named = image_of(board(top_card="8B", named_colour="O"))
    assert near(badge_ring(named), COLOUR_INKS["O"])
    assert board(top_card="8B", named_colour="O").follow == ("O",)
    assert board(top_card="AP").follow == ("P", "B")


def test_each_players_cards_in_play_are_shown_with_their_colour() -> None:
    image = image_of(board())
    mini = (IN_PLAY_AT + 3 + 4, row_middle(0))  # the first chip's small face, left edge
    assert near(image.getpixel(mini), COLOUR_INKS["G"])  # Ana's Castle (6G)
    assert near(image.getpixel((IN_PLAY_AT + 7, row_middle(1))), COLOUR_INKS["P"])  # Ben's Devious Dragon
    # Cleo controls nothing: her row is empty there.
    assert not near(image.getpixel((IN_PLAY_AT + 7, row_middle(2))), COLOUR_INKS["G"], 60)
    # Taking a card changes the picture where it lies.
    taken = image_of(board(seats=(*board().seats[:2], CrazierSeat(2, "Cleo", 3, ("KB",)))))
    assert near(taken.getpixel((IN_PLAY_AT + 7, row_middle(2))), COLOUR_INKS["B"])


def test_whose_turn_is_lit_in_gold() -> None:
    image = image_of(board())
    plate = (NAME_PLATE[0] + 10, row_middle(0) - 12)
    assert near(image.getpixel(plate), GOLD)
    assert not near(image.getpixel((plate[0], row_middle(1) - 12)), GOLD, 60)
    # A team's turn lights every member; a game over lights nobody.
    both = board(seats=tuple(replace(seat, to_act=True) for seat in board().seats))
    assert all(near(image_of(both).getpixel((plate[0], row_middle(i) - 12)), GOLD) for i in range(3))
    over = image_of(replace(board(), game_over=True))
    assert not near(over.getpixel(plate), GOLD, 60)


def test_every_public_fact_changes_the_picture() -> None:
    base = render_crazier_board(board()).png
    changes = [
        board(top_card="9G"),
        board(named_colour="G", top_card="8B"),
        board(draw_pile=22),
        board(discard_pile=7),
        board(game_number=2),
        board(game_over=True),
        board(seats=(replace(board().seats[0], hand_size=4), *board().seats[1:])),
        board(seats=(replace(board().seats[0], name="Anabel"), *board().seats[1:])),
        board(seats=(board().seats[0], replace(board().seats[1], out=True), board().seats[2])),
        board(seats=(board().seats[0], replace(board().seats[1], team=2), board().seats[2])),
        board(seats=(replace(board().seats[0], in_play=("5B", "6G")), *board().seats[1:])),
    ]
    pictures = [render_crazier_board(changed).png for changed in changes]
    assert base not in pictures and len(set(pictures)) == len(pictures)


def test_the_alt_text_says_everything_the_picture_shows() -> None:
    seats = (
        CrazierSeat(0, "Ana", 5, ("6G", "5B"), to_act=True, team=1),
        CrazierSeat(1, "Ben", 12, ("JP",), team=2),
        CrazierSeat(2, "Cleo", 0, (), team=1, won=False),
        CrazierSeat(3, "Dan", 9, (), out=True, team=2),
    )
    text = crazier_alt_text(board(top_card="AB", seats=seats))
    assert text.startswith("Crazier Eights table, game 1.")
    assert "Top card: Ace, A, blue moon and green ankh." in text
    assert "Colour to follow: blue or green." in text
    assert "Draw pile: 23 cards. Discard pile: 6 cards." in text
    assert "1. Ana (team 1), 5 cards in hand, to move, in play: Castle (6G), Angel of Hope (5B);" in text
    assert "2. Ben (team 2), 12 cards in hand, in play: Devious Dragon (JP);" in text
    assert "3. Cleo (team 1), 0 cards in hand;" in text
    assert "4. Dan (team 2), out." in text
    named = crazier_alt_text(board(top_card="8G", named_colour="P"))
    assert "Top card: Eight, 8, green ankh, wild." in named and "Colour to follow: purple." in named
    won = crazier_alt_text(
        board(game_over=True, seats=(CrazierSeat(0, "Ana", 0, won=True), CrazierSeat(1, "Ben", 4)))
    )
    assert "The game is over." in won and "1. Ana, 0 cards in hand, won;" in won and "to move" not in won


def test_a_long_alt_text_names_the_cards_in_play_by_code_to_fit_discords_limit() -> None:
    seats = tuple(
        CrazierSeat(i, "a rather long display name " + str(i), 20, ("4B", "5G", "6O", "JP", "QB", "KG"))
        for i in range(6)
    )
    text = crazier_alt_text(board(seats=seats))
    assert len(text) <= MAX_ALT_TEXT and "in play: 4B, 5G, 6O, JP, QB, KG." in text and "(4B)" not in text


def test_names_the_font_cannot_write_are_still_drawn() -> None:
    # The picture writes "Seat 2" for a name in a script the bundled font lacks; the alt text has the name.
    seats = (CrazierSeat(0, "Zoë", 3), CrazierSeat(1, "李小龍", 4))
    picture = render_crazier_board(board(seats=seats))
    assert "李小龍" in picture.alt_text and "Zoë" in picture.alt_text
    written = (CrazierSeat(0, "Zoe", 3), CrazierSeat(1, "Seat 2", 4))
    assert picture.png == render_crazier_board(board(seats=written)).png


def test_same_board_same_bytes_in_another_process() -> None:
    first = render_crazier_board(board())
    assert render_crazier_board(board()).png == first.png
    script = (
        "import sys; from tests.ui.art.test_crazier_board import board;"
        " from bot.ui.art.crazier_board import render_crazier_board;"
        " sys.stdout.buffer.write(render_crazier_board(board()).png)"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, check=True).stdout
    assert out == first.png


def test_each_part_is_drawn_once() -> None:
    for part in (
        crazier_board._face,
        crazier_board._chip,
        crazier_board._background,
        crazier_board._mapped_background,
        crazier_board._badge,
    ):
        part.cache_clear()
    crazier_board.forget()
    render_crazier_board(board())
    faces = crazier_board._face.cache_info()
    # The top card (large) and three cards in play (small): four faces, each drawn once.
    assert faces.misses == 4 and faces.currsize == 4
    render_crazier_board(board(draw_pile=10, discard_pile=19))
    render_crazier_board(board(seats=(*board().seats[:2], CrazierSeat(2, "Cleo", 3, ("6G",)))))
    assert crazier_board._face.cache_info().misses == 4  # Cleo's Castle is Ana's: drawn already
    assert crazier_board._background.cache_info().misses == 1  # three players: one empty picture
    assert crazier_board._chip.cache_info().misses == 3


def test_the_renderer_draws_each_board_once() -> None:
    renderer = BoardRenderer(cache_size=2)
    first = render_crazier_cached(renderer, board())
    assert render_crazier_cached(renderer, board()) is first  # an equal board: the same picture
    assert renderer.drawn == 1
    render_crazier_cached(renderer, board(draw_pile=3))
    assert renderer.drawn == 2 and first.key != render_crazier_cached(renderer, board(draw_pile=3)).key


async def test_render_async_draws_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    loop_thread = threading.get_ident()
    drawn_in: list[int] = []
    original = crazier_board.render_crazier_board

    def spy(drawn: CrazierBoard) -> object:
        drawn_in.append(threading.get_ident())
        return original(drawn)

    monkeypatch.setattr(crazier_board, "render_crazier_board", spy)
    renderer = BoardRenderer()
    picture = await render_crazier_async(renderer, board())
    assert drawn_in and drawn_in[0] != loop_thread
    assert picture.alt_text == crazier_alt_text(board())
    drawn_in.clear()
    assert await render_crazier_async(renderer, board()) is picture
    assert drawn_in == []


@pytest.mark.parametrize("anchor", [None, "lm", "mm", "rm"])
@pytest.mark.parametrize("point", [(100, 50), (100.5, 50), (99.25, 50.5), (12, 9)])
def test_kept_words_are_the_pixels_of_writing_them(anchor: str | None, point: tuple[float, float]) -> None:
    ground = crazier_board.FELT
    written = Image.new("RGB", (200, 100), ground)
    draw = ImageDraw.Draw(written)
    if anchor is None:
        draw_centered_text(draw, "discard pile 27", point, size=13, fill=crazier_board.WHITE, bold=0)
    else:
        draw.text(point, "discard pile 27", font=font(13), fill=crazier_board.WHITE, anchor=anchor)
    kept = Image.new("RGB", (200, 100), ground)
    crazier_board._write(
        kept, point, "discard pile 27", size=13, fill=crazier_board.WHITE, ground=ground, anchor=anchor
    )
    assert ImageChops.difference(written, kept).getbbox() is None


def test_a_move_draws_only_the_rows_it_changed() -> None:
    crazier_board.forget()
    render_crazier_board(board())
    assert len(crazier_board._rows) == 3
    seats = board().seats
    moved = (replace(seats[0], hand_size=4, to_act=False), replace(seats[1], to_act=True), seats[2])
    render_crazier_board(board(seats=moved))
    assert len(crazier_board._rows) == 5  # Ana's and Ben's rows again; Cleo's kept


@pytest.mark.parametrize(
    "shown",
    [
        board(),
        board(draw_pile=0, top_card="8G", named_colour="P", game_number=3),
        board(top_card="AB"),  # two colours to follow
        board(
            seats=(
                CrazierSeat(0, "Ana", 0, ("6G", "5B", "JP", "9O", "2G", "QB"), won=True, team=1),
                CrazierSeat(1, "Ben", 12, ("JP",), out=True, team=2),
                CrazierSeat(2, "Cleo", 3, team=1),
                CrazierSeat(3, "A name far too long for its plate, cut", 7, team=2),
            ),
            game_over=True,
        ),
        board(
            seats=(
                CrazierSeat(0, "Ana", 5, to_act=True, team=1),
                CrazierSeat(1, "Ben", 2, to_act=True, team=1),
            )
        ),
    ],
)
def test_the_pieced_picture_is_the_drawn_one_mapped_pixel_for_pixel(shown: CrazierBoard) -> None:
    """The header and the rows are pieced from parts mapped once (flattened on their ground): the same
    pixels as drawing the board in full colour and mapping it whole, parts seen before or not."""
    crazier_board.forget()
    expected = crazier_board._mapped(crazier_board.draw_crazier_board(shown)).tobytes()
    assert crazier_board.compose_crazier_board(shown).tobytes() == expected  # every part new
    crazier_board._rows.clear()
    assert crazier_board.compose_crazier_board(shown).tobytes() == expected  # every part kept


def test_the_png_shows_the_composed_picture_exactly() -> None:
    """The PNG is written from the picture composed framed (a column of filter bytes on its left): every
    pixel of the picture and nothing of the frame."""
    shown = Image.open(io.BytesIO(render_crazier_board(board()).png))
    composed = crazier_board.compose_crazier_board(board())
    assert shown.size == composed.size == (WIDTH, height_for(3))
    assert shown.tobytes() == composed.tobytes() and shown.getpalette() == composed.getpalette()


def test_a_move_maps_only_the_header_parts_not_seen_before() -> None:
    crazier_board.forget()
    render_crazier_board(board())
    parts = len(crazier_board._parts)
    # The same top card, piles and player to move at another table: nothing new to map in its header.
    render_crazier_board(board(seats=(*board().seats[:2], CrazierSeat(2, "Dan", 3))))
    assert len(crazier_board._parts) == parts + 1  # Dan's name only
    # A new top card and draw pile size: the card, its colour's badge and name, and the pile's size only.
    render_crazier_board(board(top_card="6G", draw_pile=22))
    assert len(crazier_board._parts) == parts + 1 + 4


def test_the_palette_picture_is_the_full_colour_one() -> None:
    full = crazier_board.draw_crazier_board(board())
    sent = image_of(board())
    error = ImageStat.Stat(ImageChops.difference(full, sent)).mean
    assert max(error) < 2.0  # levels of 255, per channel, on average


@pytest.mark.parametrize(
    ("locale", "word"),
    # As drawn: the font has no accented letter, so "más" is written "mas" (``drawable_text``).
    [("en", "more"), ("de", "weitere"), ("fr", "autres"), ("es", "mas"), ("pt_BR", "mais")],
)
def test_cards_in_play_beyond_the_row_are_counted_in_the_players_language(
    locale: str, word: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.engine.crazier.deck import DECK
    from bot.i18n import use_locale

    in_play = DECK[:16]  # more than a row holds
    written: list[tuple[float, str]] = []
    real_write = crazier_board._write

    def write(image: Image.Image, point: tuple[float, float], text: str, **kwargs: object) -> None:
        written.append((point[0], text))
        real_write(image, point, text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(crazier_board, "_write", write)
    with use_locale(locale):
        crazier_board.draw_crazier_board(board(seats=(replace(board().seats[0], in_play=in_play),)))
    labels = [(x, text) for x, text in written if text.startswith("+")]
    assert len(labels) == 1, written
    x, label = labels[0]
    count = int(label.split()[0][1:])
    assert label == f"+{count} {word}"
    assert 1 < count < len(in_play)
    # The label fits in the row, whatever its language's length.
    assert x + font(14).getlength(label) <= WIDTH - 12


def test_a_crazier_lobby_has_the_palette_chosen_before_its_first_board() -> None:
    # In a process of its own: the palette is chosen once a process. The lobby's board has no picture; asking
    # for it starts choosing the palette in the renderer's thread, so the first board (at Start) finds it.
    script = """
import asyncio, dataclasses, sys
from bot.ui.appearance import Appearance
from bot.ui.art import crazier_board
from bot.ui.art.board import BoardRenderer
from tests.ui.snapshots import snapshot

async def main():
    renderer = BoardRenderer()
    appearance = Appearance(pictures=renderer)
    classic = await appearance.picture(dataclasses.replace(snapshot(), phase="lobby", status="lobby"))
    before = crazier_board._palette.cache_info().currsize
    lobby = dataclasses.replace(snapshot(), phase="lobby", status="lobby", preset="crazier-abilities")
    shown = await appearance.picture(lobby)
    await appearance.picture(lobby)  # asked once
    renderer._executor.shutdown(wait=True)
    info = crazier_board._palette.cache_info()
    print(classic, shown, before, info.currsize, info.misses, renderer.drawn)

asyncio.run(main())
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["None", "None", "0", "1", "1", "0"], run.stdout + run.stderr


# A display name as long as Discord allows (32 characters).
LONG_NAME = "abcdefghijklmnopqrstuvwxyz012345"


def _six_player_team_board() -> CrazierBoard:
    """A crazier-abilities team game of six, mid-game: 22 assets in play (nobody with King Arthur holds
    four or more, so nobody has won), seat 6 to move."""
    others = [c for c in DECK if row_of(c).kind == "asset" and row_of(c).name != "King Arthur"]
    arthurs = [c for c in DECK if row_of(c).name == "King Arthur"]
    plays = [others[0:4], others[4:8], others[8:12], others[12:16], others[16:18] + arthurs[0:1],
             others[18:20] + arthurs[1:2]]  # fmt: skip
    seats = tuple(
        CrazierSeat(
            position=i, name=LONG_NAME, hand_size=6, in_play=tuple(p), to_act=(i == 5), team=i % 2 + 1
        )
        for i, p in enumerate(plays)
    )
    return CrazierBoard(top_card="9B", draw_pile=4, discard_pile=10, seats=seats)


def test_a_long_crazier_picture_description_keeps_whose_turn_and_every_card_in_play() -> None:
    """The picture's description (for screen readers, at most Discord's 1,024 characters) of a German
    server's six-player team game with 22 assets in play and long names still says whose turn it is and
    every card in play (by code when their names do not fit), the last seat's included."""
    board = _six_player_team_board()
    with use_locale("de"):
        text = crazier_alt_text(board)
        to_move = _(", to move")
    assert len(text) <= MAX_ALT_TEXT
    last_seat = text.rsplit(";", 1)[-1]
    assert to_move.strip(", ") in last_seat, f"whose turn is cut off: …{text[-160:]!r}"
    assert all(code in last_seat for code in board.seats[-1].in_play), f"cards cut off: …{text[-160:]!r}"
