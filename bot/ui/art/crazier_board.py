"""The board picture of a ``crazier-abilities`` table, drawn from plain public data (``CrazierBoard``).

What it shows: at the top, the draw pile with its size, the top card large with its whole name, the colour (or
colours) the next discard must share, the discard pile's size and whose turn it is; below, one row per player
in seat order: the name (lit in gold while it is their turn; a team game names the team), the number of cards
in hand, and every card they control in play, each as a small face with its name written beside it.
``crazier_alt_text`` says the same in words, for screen readers.

The input holds no hand (only its size), so no hand can reach the picture. What does not change is drawn once:
the empty picture per number of players, each card's small and large face, the badges, the draw pile; a board
is those pasted together and its text written. ``CrazierBoard`` is frozen and hashable: equal boards are equal
pictures, which is what ``BoardRenderer`` caches by (``render_crazier_cached`` and ``render_crazier_async``:
an unchanged board is not drawn again, and a new one is drawn in the renderer's thread, off the event loop).
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Protocol

from PIL import Image, ImageDraw

from bot.engine.crazier.deck import COLOUR_NAMES, COLOURS, DECK, colours_of, rank_of, row_of
from bot.i18n import _, current_locale, ngettext, npgettext, pgettext
from bot.ui.art import png_bands
from bot.ui.art.board import BoardPicture, BoardRenderer, drawable_name, fit_text
from bot.ui.art.cards import INK, SUPERSAMPLE, Colour, Point, back_image, drawable_text, font
from bot.ui.art.crazier import SYMBOL_NAMES, colour_badge, crazier_card_image
from bot.ui.art.kept import Kept
from bot.ui.names import plain_name, visible_or_seat

WIDTH = 800
HEADER = 200  # the top band: piles, top card, colour to follow, whose turn
ROW = 62  # one player's row
MARGIN = 12
MAX_ALT_TEXT = 1024  # Discord's limit on an attachment's description

BACKGROUND = (43, 45, 49)
FELT = (27, 104, 68)
FELT_DARK = (20, 80, 52)
ROW_FILL = (54, 57, 63)
GOLD = (240, 178, 50)
PLATE = (22, 24, 27)
WHITE = (255, 255, 255)
MUTED = (150, 154, 160)

TOP_CARD = (110, 154)
PILE_CARD = (70, 98)
MINI_CARD = (30, 42)
HAND_BACK = (24, 34)
BADGE = 50

NAME_PLATE = (MARGIN, 196)  # x from, x to
HAND_AT = 206  # where the hand's back and count start
IN_PLAY_AT = 272  # where the cards in play start
CHIP_GAP = 8


@dataclass(frozen=True, slots=True)
class CrazierSeat:
    """One player as the board shows them: public facts only."""

    position: int  # the seat, from 0
    name: str
    hand_size: int
    in_play: tuple[str, ...] = ()  # the cards they control, canonical codes ("6G", "KB"), in play order
    to_act: bool = False  # it is their turn (in a team game, several players at once)
    out: bool = False  # lost: left the game
    won: bool = False
    team: int | None = None  # 1 or 2 in a team game


@dataclass(frozen=True, slots=True)
class CrazierBoard:
    """A ``crazier-abilities`` table, as the table side fills it from its snapshot."""

    top_card: str  # the discard pile's top card
    draw_pile: int
    discard_pile: int  # cards in the discard pile, the top card included
    seats: tuple[CrazierSeat, ...]
    named_colour: str | None = None  # the colour named for an 8 on top ("B", "G", "O", "P")
    game_number: int = 1
    game_over: bool = False

    @property
    def follow(self) -> tuple[str, ...]:
        """The colours the next discard may share with the top card (besides its rank, or an 8)."""
        if self.named_colour is not None:
            return (self.named_colour,)
        return colours_of(self.top_card)


def height_for(players: int) -> int:
    return HEADER + ROW * players + MARGIN


# --- parts drawn once ---------------------------------------------------------------------------------------


@functools.cache
def _face(card: str, width: int, height: int, detail: str, language: str = "") -> Image.Image:
    """A card's face; a ``full`` one (the top card) names it in ``language``, the language in force."""
    return crazier_card_image(card, width=width, height=height, detail="full" if detail == "full" else "mini")


@functools.cache
def _back(width: int, height: int) -> Image.Image:
    return back_image(width=width, height=height)


@functools.cache
def _badge(colour: str) -> Image.Image:
    return colour_badge(colour, size=BADGE)


def _chip_name(card: str) -> str:
    """A card in play's name as its chip writes it: in the language in force, as the font can write it."""
    return drawable_text(_(row_of(card).name))


@functools.cache
def _chip(card: str, name: str) -> Image.Image:
    return _draw_chip(card, _face(card, *MINI_CARD, "mini"), name)


def _draw_chip(card: str, face: Image.Image, name: str) -> Image.Image:
    """A card in play: its small face and its ``name`` (``_chip_name``), on a dark plate."""
    text_width = round(ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength(name, font=font(14)))
    width = MINI_CARD[0] + text_width + 20
    chip = Image.new("RGBA", (width, MINI_CARD[1] + 6), (0, 0, 0, 0))
    draw = ImageDraw.Draw(chip)
    draw.rounded_rectangle((0, 0, width - 1, chip.height - 1), radius=8, fill=PLATE)
    chip.alpha_composite(face, (3, 3))
    draw.text((MINI_CARD[0] + 10, chip.height / 2), name, font=font(14), fill=WHITE, anchor="lm")
    return chip


@functools.cache
def _background(players: int) -> Image.Image:
    return _draw_background(players)


def _draw_background(players: int) -> Image.Image:
    """The empty picture for ``players`` rows: the felt band and the rows' panels, drawn large and scaled."""
    s = SUPERSAMPLE
    height = height_for(players)
    image = Image.new("RGB", (WIDTH * s, height * s), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(
        (MARGIN * s, MARGIN * s, (WIDTH - MARGIN) * s, (HEADER - 8) * s),
        radius=18 * s,
        fill=FELT,
        outline=FELT_DARK,
        width=3 * s,
    )
    for i in range(players):
        top = HEADER + ROW * i
        draw.rounded_rectangle(
            (MARGIN * s, top * s, (WIDTH - MARGIN) * s, (top + ROW - 6) * s), radius=10 * s, fill=ROW_FILL
        )
    return image.resize((WIDTH, height), Image.Resampling.LANCZOS)


@functools.cache
def _pile(layers: int) -> Image.Image:
    back = _back(*PILE_CARD)
    pile = Image.new("RGBA", (PILE_CARD[0] + 8, PILE_CARD[1] + 8), (0, 0, 0, 0))
    for i in range(layers):
        pile.alpha_composite(back, (6 - 3 * i, 6 - 3 * i))
    return pile


# --- drawing ------------------------------------------------------------------------------------------------


WORDS_KEPT = 1024  # texts kept drawn: counts, names, labels (a few kB each)


@functools.lru_cache(maxsize=WORDS_KEPT)
def _words(
    text: str,
    size: int,
    fill: tuple[int, int, int],
    ground: tuple[int, int, int],
    anchor: str | None,
    start: tuple[float, float],
) -> tuple[Image.Image, Image.Image, int, int]:
    """``text`` written on ``ground`` as ``ImageDraw.text`` writes it at a point whose fractions are
    ``start`` (``anchor`` None: its box centred there, as ``draw_centered_text`` without a stroke): the
    tile, the mask of the pixels it touches and the tile's corner from the point's whole part. Kept: a
    board's words are mostly the same from one move to the next (the piles' sizes, names, labels)."""
    face = font(size)
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    if anchor is None:
        left, top, right, bottom = probe.textbbox((0, 0), text, font=face)
        at = (start[0] - (left + right) / 2, start[1] - (top + bottom) / 2)
    else:
        at = start
    left, top, right, bottom = probe.textbbox(at, text, font=face, anchor=anchor)
    # The tile holds the point too: drawn at a negative point, Pillow would place the glyphs differently.
    corner = (math.floor(min(left, at[0])) - 1, math.floor(min(top, at[1])) - 1)
    box = (math.ceil(right) + 1 - corner[0], math.ceil(bottom) + 1 - corner[1])
    tile = Image.new("RGB", box, ground)
    cover = Image.new("L", box, 0)
    where = (at[0] - corner[0], at[1] - corner[1])
    ImageDraw.Draw(tile).text(where, text, font=face, fill=fill, anchor=anchor)
    ImageDraw.Draw(cover).text(where, text, font=face, fill=255, anchor=anchor)
    return tile, cover.point(lambda value: 255 if value else 0, mode="1"), corner[0], corner[1]


def _write(
    image: Image.Image,
    point: tuple[float, float],
    text: str,
    *,
    size: int,
    fill: tuple[int, int, int],
    ground: tuple[int, int, int],
    anchor: str | None = None,
) -> None:
    """``text`` at ``point`` (``anchor`` None: centred on it), from the kept ``_words``: where the ground
    under it is ``ground``, the same pixels as writing it there."""
    text = drawable_text(text)
    whole = (math.floor(point[0]), math.floor(point[1]))
    start = (point[0] - whole[0], point[1] - whole[1])
    tile, mask, left, top = _words(text, size, fill, ground, anchor, start)
    image.paste(tile, (whole[0] + left, whole[1] + top), mask)


@functools.lru_cache(maxsize=WORDS_KEPT)
def _fitted(text: str, size: int, width: float) -> str:
    return fit_text(ImageDraw.Draw(Image.new("L", (1, 1))), text, size, width)


def _paste(image: Image.Image, sprite: Image.Image, centre: tuple[float, float]) -> None:
    image.paste(sprite, (round(centre[0] - sprite.width / 2), round(centre[1] - sprite.height / 2)), sprite)


def _turn_text(board: CrazierBoard) -> str:
    """Whose turn, or who won, as written (it is cut to its box's width)."""
    return drawable_text(_turn_words(board))


def _turn_words(board: CrazierBoard) -> str:
    if board.game_over:
        winners = [drawable_name(seat.name, seat.position) for seat in board.seats if seat.won]
        if winners:
            return pgettext("picture", "{names} won", names=" & ".join(winners))
        return pgettext("picture", "game over")
    acting = [drawable_name(seat.name, seat.position) for seat in board.seats if seat.to_act]
    return pgettext("picture", "turn: {names}", names=" & ".join(acting)) if acting else ""


def draw_crazier_board(board: CrazierBoard) -> Image.Image:
    """The picture in full colour: the empty picture, the header and a row per player drawn on it
    (``compose_crazier_board`` is the same in the board palette)."""
    seats = sorted(board.seats, key=lambda seat: seat.position)
    image = _background(len(seats)).copy()
    draw = ImageDraw.Draw(image)
    _draw_header(_Drawn(image, draw), board)
    for i, seat in enumerate(seats):
        _draw_row(_Drawn(image, draw), seat, HEADER + ROW * i + (ROW - 6) / 2, lit=_lit(board, seat))
    return image


def _lit(board: CrazierBoard, seat: CrazierSeat) -> bool:
    return seat.to_act and not board.game_over


class _Canvas(Protocol):
    """Where the header and the rows are drawn: in full colour (``_Drawn``) or pieced from parts mapped to
    the board palette once (``_Pieced``). One layout (``_draw_header``, ``_draw_row``) for both, so that
    they show the same."""

    def sprite(self, key: Hashable, make: Callable[[], Image.Image], centre: Point) -> None:
        """An RGBA sprite (``make()``, which ``key`` names) centred at ``centre``, over its alpha."""

    def write(
        self, point: Point, text: str, *, size: int, fill: Colour, ground: Colour, anchor: str | None = None
    ) -> None:
        """``text`` as ``_write`` writes it."""

    def shape(self, key: Hashable, box: tuple[float, float, float, float], paint: Paint) -> None:
        """``paint(draw, box)``: a shape drawn within ``box`` (``key`` names the shape and its box)."""


Paint = Callable[[ImageDraw.ImageDraw, tuple[float, float, float, float]], None]


class _Drawn:
    """Drawing on a full-colour picture."""

    def __init__(self, image: Image.Image, draw: ImageDraw.ImageDraw) -> None:
        self.image, self.draw = image, draw

    def sprite(self, key: Hashable, make: Callable[[], Image.Image], centre: Point) -> None:
        _paste(self.image, make(), centre)

    def write(
        self, point: Point, text: str, *, size: int, fill: Colour, ground: Colour, anchor: str | None = None
    ) -> None:
        _write(self.image, point, text, size=size, fill=fill, ground=ground, anchor=anchor)

    def shape(self, key: Hashable, box: tuple[float, float, float, float], paint: Paint) -> None:
        paint(self.draw, box)


def _draw_header(canvas: _Canvas, board: CrazierBoard) -> None:
    """The top band: the piles, the top card, the colour to follow, whose turn, the game's number (all
    within ``HEADER`` pixels from the top, on the felt)."""
    middle = (MARGIN + HEADER - 8) / 2
    # The draw pile (an empty outline when there is none) and its size.
    if board.draw_pile:
        layers = min(3, (board.draw_pile + 9) // 10)
        canvas.sprite(("pile", layers), functools.partial(_pile, layers), (92, middle - 8))
    else:
        w, h = PILE_CARD
        canvas.shape(("pile", 0), (92 - w / 2, middle - 8 - h / 2, 92 + w / 2, middle - 8 + h / 2), _no_pile)
    draw_pile = pgettext("picture", "draw pile {count}", count=board.draw_pile)
    canvas.write((92, middle + 60), draw_pile, size=15, fill=WHITE, ground=FELT)
    # The top card, large, with the discard pile's size.
    language = current_locale()  # the face names the card
    top = functools.partial(_face, board.top_card, *TOP_CARD, "full", language)
    canvas.sprite(("top", board.top_card, language), top, (250, middle - 6))
    discard_pile = pgettext("picture", "discard pile {count}", count=board.discard_pile)
    canvas.write((250, middle + 82), discard_pile, size=13, fill=WHITE, ground=FELT)
    # The colour(s) to follow.
    follow = board.follow
    for i, colour in enumerate(follow):
        offset = (i - (len(follow) - 1) / 2) * (BADGE + 6)
        canvas.sprite(("badge", colour), functools.partial(_badge, colour), (380 + offset, middle - 16))
    label = _(" or ").join(_(COLOUR_NAMES[c]) for c in follow)
    canvas.write((380, middle + 24), pgettext("picture", "follow"), size=14, fill=WHITE, ground=FELT)
    canvas.write((380, middle + 42), label, size=15, fill=WHITE, ground=FELT)
    # Whose turn, or who won.
    turn = _turn_text(board)
    if turn:
        box = (470, middle - 20, WIDTH - MARGIN - 16, middle + 20)
        canvas.shape("turn", box, _turn_box)
        text = _fitted(turn, 17, box[2] - box[0] - 20)
        canvas.write(((box[0] + box[2]) / 2, middle), text, size=17, fill=INK, ground=GOLD, anchor="mm")
    title = pgettext("picture", "Crazier Eights · game {number}", number=board.game_number)
    canvas.write((620, MARGIN + 24), title, size=14, fill=WHITE, ground=FELT)


def _no_pile(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    draw.rounded_rectangle(box, radius=8, outline=FELT_DARK, width=3)


def _turn_box(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    draw.rounded_rectangle(box, radius=10, fill=GOLD)


def _draw_row(canvas: _Canvas, seat: CrazierSeat, y: float, *, lit: bool) -> None:
    """A player's row, its middle at ``y`` (on the row's panel)."""
    left, right = NAME_PLATE
    plate = (left + 6, y - 16, right, y + 16)
    if lit:
        canvas.shape("plate", plate, _lit_plate)
    ink = INK if lit else (MUTED if seat.out else WHITE)
    plate_ground = GOLD if lit else ROW_FILL
    # The team, and the win (in gold), at the plate's right end.
    team_label = pgettext("picture", "team {team}", team=seat.team) if seat.team is not None else ""
    team = drawable_text(
        " ".join(word for word in (team_label, pgettext("picture", "won") if seat.won else "") if word)
    )  # as written: the name is cut to the room it leaves
    team_width = _length(team, 12) + 8 if team else 0
    name = _fitted(drawable_name(seat.name, seat.position), 15, plate[2] - plate[0] - 16 - team_width)
    canvas.write((plate[0] + 8, y), name, size=15, fill=ink, ground=plate_ground, anchor="lm")
    if team:
        team_ink = GOLD if seat.won and not lit else ink
        canvas.write((plate[2] - 6, y), team, size=12, fill=team_ink, ground=plate_ground, anchor="rm")
    # The hand: a card back and the count, or what became of the player.
    if seat.out:
        out = pgettext("picture", "out")
        canvas.write((HAND_AT, y), out, size=15, fill=MUTED, ground=ROW_FILL, anchor="lm")
    else:
        back = functools.partial(_back, *HAND_BACK)
        canvas.sprite(("back", HAND_BACK), back, (HAND_AT + HAND_BACK[0] / 2, y))
        count = str(seat.hand_size)
        canvas.write(
            (HAND_AT + HAND_BACK[0] + 6, y), count, size=17, fill=WHITE, ground=ROW_FILL, anchor="lm"
        )
    # The cards in play, as many as fit; the count of the rest, in the language in force, with room kept for
    # its own width (languages differ: "+3 more", "+3 weitere").
    x = IN_PLAY_AT
    end = WIDTH - MARGIN - 8
    for shown, card in enumerate(seat.in_play):
        name = _chip_name(card)
        chip = _chip(card, name)
        rest = len(seat.in_play) - shown - 1
        more = _more(rest + 1)  # this card and the rest, should this one not fit
        room = end - (_length(more, 14) + CHIP_GAP if rest else 0)
        if x + chip.width > room:
            canvas.write((x, y), more, size=14, fill=WHITE, ground=ROW_FILL, anchor="lm")
            break
        # Centred where its corner is (x, y - height / 2, rounded): its place as pasted there.
        canvas.sprite(("chip", card, name), functools.partial(_chip, card, name), (x + chip.width / 2, y))
        x += chip.width + CHIP_GAP


def _lit_plate(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    draw.rounded_rectangle(box, radius=8, fill=GOLD)


@functools.lru_cache(maxsize=WORDS_KEPT)
def _length(text: str, size: int) -> float:
    """The advance of ``text`` as written on a full-colour picture (the layout's measure)."""
    return ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength(text, font=font(size))


def _more(count: int) -> str:
    """The cards in play that a row has no room to show (as written: its width is kept free)."""
    return drawable_text(npgettext("picture", "+{n} more", "+{n} more", count))


# --- in the board palette ----------------------------------------------------------------------------------
#
# What is sent is a palette picture, composed of pieces already mapped to one palette of 255 colours chosen
# once (``_palette``): the empty picture per number of players, the header (the piles' sizes, the top card
# and whose turn change at nearly every move) pieced from its parts, each mapped once and kept (``_Pieced``:
# drawing the header whole and mapping it at every move was a third of a board's time), and each player's
# row, pieced the same way and kept by what it shows (a move changes one or two rows). Choosing a palette
# per board (Pillow's octree) took about half of a board's time, and writing its PNG whole a fifth; the PNG
# is written band by band as the standard board's is (``png_bands``: an unchanged band is not compressed
# again). bench/art.py: "crazier board".

ROWS_KEPT = 256  # player rows kept in the board palette, 800 × 62 pixels (~50 kB) each: ~13 MB at most
SAMPLE_PLAYERS = 4  # the empty picture in the palette's sample: its colours are the same for any number
_rows: Kept[tuple[object, ...], Image.Image] = Kept(ROWS_KEPT)


def forget() -> None:
    """Drop the kept rows and parts (benchmarks, tests)."""
    _rows.clear()
    _parts.clear()


def _on(ground: tuple[int, int, int], sprites: list[Image.Image]) -> Image.Image:
    """RGBA ``sprites`` laid side by side, in lines ``WIDTH`` wide, on ``ground``: part of the sample."""
    lines: list[list[Image.Image]] = [[]]
    used = 0
    for sprite in sprites:
        if used + sprite.width > WIDTH and lines[-1]:
            lines.append([])
            used = 0
        lines[-1].append(sprite)
        used += sprite.width
    heights = [max(sprite.height for sprite in line) for line in lines]
    image = Image.new("RGB", (WIDTH, sum(heights)), ground)
    top = 0
    for line, height in zip(lines, heights, strict=True):
        left = 0
        for sprite in line:
            image.paste(sprite, (left, top), sprite)
            left += sprite.width
        top += height
    return image


def _written(ground: tuple[int, int, int], inks: tuple[tuple[int, int, int], ...]) -> Image.Image:
    """Words in each ink and size a board writes, on ``ground``: part of the sample."""
    image = Image.new("RGB", (WIDTH, 24 * len(inks) * 5), ground)
    draw = ImageDraw.Draw(image)
    y = 12
    for ink in inks:
        for size in (12, 13, 14, 15, 17):
            draw.text(
                (8, y), "Sample name 12 draw pile 40 +3 more won", font=font(size), fill=ink, anchor="lm"
            )
            y += 24
    return image


@functools.cache
def _palette() -> Image.Image:
    """One palette of 255 colours for every Crazier board, chosen once (Pillow's octree; about 0.5 s, in the
    renderer's thread, asked by a Crazier lobby: ``prepare_crazier``) from a sample of all a board can show:
    the empty picture, card faces on the felt and every card's chip on a row, the badges, the backs, and the
    texts in each of their inks on each of their grounds. Drawn without the kept parts (``_face``,
    ``_chip``...), which count what boards drew."""
    # Large faces of the two-coloured aces and the wild 8s only (a quarter of the time of all 52, the same
    # error: every ink and its blends are there, and on the small faces of all 52).
    faces = [
        crazier_card_image(card, width=TOP_CARD[0], height=TOP_CARD[1], detail="full")
        for card in DECK
        if rank_of(card) in ("A", "8")
    ]
    minis = [
        crazier_card_image(card, width=MINI_CARD[0], height=MINI_CARD[1], detail="mini") for card in DECK
    ]
    chips = [_draw_chip(card, mini, row_of(card).name) for card, mini in zip(DECK, minis, strict=True)]
    backs = [
        back_image(width=PILE_CARD[0], height=PILE_CARD[1]),
        back_image(width=HAND_BACK[0], height=HAND_BACK[1]),
    ]
    badges = [colour_badge(colour, size=BADGE) for colour in COLOURS]
    gold = Image.new("RGBA", (WIDTH // 2, 40), GOLD)
    parts = [
        _draw_background(SAMPLE_PLAYERS),
        _on(FELT, [*faces, *badges, *backs]),
        _on(ROW_FILL, [*chips, *backs, gold]),
        _written(FELT, (WHITE,)),
        _written(ROW_FILL, (WHITE, MUTED, GOLD)),
        _written(GOLD, (INK,)),
    ]
    sample = Image.new("RGB", (WIDTH, sum(part.height for part in parts)))
    top = 0
    for part in parts:
        sample.paste(part, (0, top))
        top += part.height
    return sample.quantize(colors=255, method=Image.Quantize.FASTOCTREE)


def _mapped(image: Image.Image) -> Image.Image:
    return image.quantize(palette=_palette(), dither=Image.Dither.NONE)


@functools.lru_cache(maxsize=8)
def _mapped_background(players: int) -> Image.Image:
    return _mapped(_background(players))


# The parts of headers and rows in the board palette, each with the mask of the pixels it covers: the top
# cards, piles, badges, card backs, cards in play, shapes and words (a few kB each).
PARTS_KEPT = 1024
_parts: Kept[tuple[object, ...], tuple[Image.Image, Image.Image]] = Kept(PARTS_KEPT)


class _Pieced:
    """The header or a row pieced on a picture in the board palette from parts mapped once: a move changes
    most of the header (the piles' sizes, the top card, whose turn) and one or two rows, but each part was
    mostly seen before. Every part lies on one ground (the felt, a row's panel): a sprite flattened on it
    and mapped is the same pixels as mapping the part drawn there in full colour."""

    def __init__(self, image: Image.Image, ground: Colour, left: int = 0) -> None:
        self.image, self.ground, self.left = image, ground, left  # ``left``: the picture's x 0 on the image

    def sprite(self, key: Hashable, make: Callable[[], Image.Image], centre: Point) -> None:
        tile, mask = _parts.get_or_make(("sprite", key, self.ground), lambda: _flat(make(), self.ground))
        corner = (self.left + round(centre[0] - tile.width / 2), round(centre[1] - tile.height / 2))
        self.image.paste(tile, corner, mask)

    def write(
        self, point: Point, text: str, *, size: int, fill: Colour, ground: Colour, anchor: str | None = None
    ) -> None:
        text = drawable_text(text)  # and kept by the text drawn
        whole = (math.floor(point[0]), math.floor(point[1]))
        start = (point[0] - whole[0], point[1] - whole[1])
        words, cover, left, top = _words(text, size, fill, ground, anchor, start)
        tile, mask = _parts.get_or_make(
            ("words", text, size, fill, ground, anchor, start), lambda: (_mapped(words), cover)
        )
        self.image.paste(tile, (self.left + whole[0] + left, whole[1] + top), mask)

    def shape(self, key: Hashable, box: tuple[float, float, float, float], paint: Paint) -> None:
        # Drawn on a layer moved by whole pixels: the same pixels as drawing it in place.
        corner = (math.floor(box[0]), math.floor(box[1]))

        def make() -> tuple[Image.Image, Image.Image]:
            size = (math.ceil(box[2]) - corner[0] + 2, math.ceil(box[3]) - corner[1] + 2)
            layer = Image.new("RGBA", size, (0, 0, 0, 0))
            moved = (box[0] - corner[0], box[1] - corner[1], box[2] - corner[0], box[3] - corner[1])
            paint(ImageDraw.Draw(layer), moved)
            return _flat(layer, self.ground)

        tile, mask = _parts.get_or_make(("shape", key, box, self.ground), make)
        self.image.paste(tile, (self.left + corner[0], corner[1]), mask)


def _flat(layer: Image.Image, ground: tuple[int, int, int]) -> tuple[Image.Image, Image.Image]:
    """An RGBA layer on ``ground``, in the board palette, with the mask of the pixels it covers."""
    flat = Image.new("RGB", layer.size, ground)
    flat.paste(layer, (0, 0), layer)
    return _mapped(flat), layer.getchannel("A").point(lambda alpha: 255 if alpha else 0, mode="1")


def _mapped_row(players: int, index: int, seat: CrazierSeat, lit: bool) -> Image.Image:
    """Row ``index`` of a board of ``players``, in the board palette: drawn once, then kept (the least
    recently used go first); its words are in the language in force."""
    top = HEADER + ROW * index

    def draw() -> Image.Image:
        tile = _mapped_background(players).crop((0, top, WIDTH, top + ROW))
        _draw_row(_Pieced(tile, ROW_FILL), seat, (ROW - 6) / 2, lit=lit)
        return tile

    return _rows.get_or_make((players, index, seat, lit, current_locale()), draw)


@functools.lru_cache(maxsize=8)
def _framed_background(players: int) -> Image.Image:
    """The empty picture in the board palette, framed as the standard board is (a column of PNG filter bytes
    on its left, for ``png_bands.framed_png``)."""
    return png_bands.framed(_mapped_background(players))


def compose_crazier_board(board: CrazierBoard) -> Image.Image:
    """``draw_crazier_board`` in the board palette, pieced together from mapped parts."""
    return png_bands.unframed(compose_crazier_framed(board))


def compose_crazier_framed(board: CrazierBoard) -> Image.Image:
    """``compose_crazier_board``'s picture framed, as ``png_bands.framed_png`` takes it."""
    seats = sorted(board.seats, key=lambda seat: seat.position)
    image = _framed_background(len(seats)).copy()
    _draw_header(_Pieced(image, FELT, png_bands.FRAME), board)
    for i, seat in enumerate(seats):
        image.paste(_mapped_row(len(seats), i, seat, _lit(board, seat)), (png_bands.FRAME, HEADER + ROW * i))
    png_bands.clear_frame(image)  # nothing written over a filter byte
    return image


# --- in words -----------------------------------------------------------------------------------------------


def _cards(count: int) -> str:
    return ngettext("{n} card", "{n} cards", count)


def _colour_words(colour: str) -> str:
    return _("{colour} {symbol}", colour=_(COLOUR_NAMES[colour]), symbol=_(SYMBOL_NAMES[colour]))


def card_words(card: str) -> str:
    """A card for a screen reader: "Death, 9, blue moon"; "Ace, A, blue moon and green ankh"."""
    row = row_of(card)
    colours = _(" and ").join(_colour_words(c) for c in colours_of(card))
    extra = _(", wild") if rank_of(card) == "8" else ""
    return f"{_(row.name)}, {rank_of(card)}, {colours}{extra}"


def _players(board: CrazierBoard, named: bool) -> list[str]:
    """Each seat in words; its cards in play by name and code ("Death (9B)"), or (not ``named``) by code. A
    seat whose name shows nothing is named as the picture's plate names it ("Seat 4": ``visible_or_seat``)."""
    players = []
    for seat in sorted(board.seats, key=lambda seat: seat.position):
        text = f"{seat.position + 1}. {plain_name(visible_or_seat(seat.name, seat.position))}"
        if seat.team is not None:
            text += " " + _("(team {team})", team=seat.team)
        text += _(", out") if seat.out else _(", {cards} in hand", cards=_cards(seat.hand_size))
        if seat.won:
            text += _(", won")
        if seat.to_act and not board.game_over:
            text += _(", to move")
        if seat.in_play:
            cards = (f"{_(row_of(card).name)} ({card})" if named else card for card in seat.in_play)
            text += _(", in play: {cards}", cards=", ".join(cards))
        players.append(text)
    return players


def crazier_alt_text(board: CrazierBoard) -> str:
    """The picture in words (the attachment's description), in the language in force (the server's)."""
    parts = [_("Crazier Eights table, game {number}.", number=board.game_number)]
    if board.game_over:
        parts.append(_("The game is over."))
    parts.append(_("Top card: {card}.", card=card_words(board.top_card)))
    follow = _(" or ").join(_(COLOUR_NAMES[c]) for c in board.follow)
    parts.append(_("Colour to follow: {colours}.", colours=follow))
    parts.append(
        _(
            "Draw pile: {draw}. Discard pile: {discard}.",
            draw=_cards(board.draw_pile),
            discard=_cards(board.discard_pile),
        )
    )
    # Too long for Discord's description (six long names, every asset in play, a long language): the cards
    # in play are named by code only ("9B"), so that whose turn and the last seats are not cut off.
    for named in (True, False):
        text = " ".join([*parts, _("Players: {players}.", players="; ".join(_players(board, named)))])
        if len(text) <= MAX_ALT_TEXT:
            return text
    return text[: MAX_ALT_TEXT - 1] + "…"


def crazier_board_key(board: CrazierBoard) -> tuple[str, str, CrazierBoard]:
    """The board, and the language of the picture's words (the language in force)."""
    return ("crazier", current_locale(), board)


_palette_asked = threading.Event()  # set once the palette has been asked of a renderer (see ``prepare``)


def prepare_crazier(renderer: BoardRenderer) -> None:
    """A Crazier table's lobby is up: choose the palette (about 0.5 s, once a process) in ``renderer``'s
    thread now, so that its first board, when the game starts, does not wait for it."""
    if not _palette_asked.is_set():
        _palette_asked.set()
        renderer.prepare(_palette)


def render_crazier_board(board: CrazierBoard) -> BoardPicture:
    """Draw now (no cache): a palette PNG, as the standard board is (flat colours and text)."""
    return BoardPicture(
        png=png_bands.framed_png(compose_crazier_framed(board)),
        alt_text=crazier_alt_text(board),
        key=crazier_board_key(board),
    )


def render_crazier_cached(renderer: BoardRenderer, board: CrazierBoard) -> BoardPicture:
    """The picture from ``renderer``'s cache, drawn now when it is not there."""
    return renderer.picture(crazier_board_key(board), functools.partial(render_crazier_board, board))


async def render_crazier_async(renderer: BoardRenderer, board: CrazierBoard) -> BoardPicture:
    """The picture from ``renderer``'s cache, or drawn in its thread."""
    return await renderer.picture_async(
        crazier_board_key(board), functools.partial(render_crazier_board, board)
    )
