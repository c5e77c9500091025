"""The board as a picture: a card table seen from above, drawn from the public ``TableSnapshot`` only.

What it shows: the target card large in the middle, the suit a wild named beside it, the stock as a pile with
its count, arrows round the middle for the direction of play, and every seat round the table with its name,
a fan of card backs (one back per card, up to ``FAN_MAX``) and its card count; the seat to move is lit in
gold. ``alt_text`` says the same in words, for the attachment's description (screen readers).

Only public fields of the snapshot are read (``board_key`` lists them), so a hand can never reach the
picture; identical boards give identical bytes and are served from a small cache (``BoardRenderer``) instead
of being drawn again. A board whose sprites are all drawn already (every board of a table after its first,
nearly) is a few pastes and a PNG, under a millisecond: ``BoardRenderer.render_async`` makes it on the event
loop. One that needs a sprite drawn first (a new name, the reversed table: up to a tenth of a second) is drawn
in the renderer's thread so the event loop never waits on it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import math
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

from PIL import Image, ImageDraw, _imaging

from bot.engine import (
    SUITS,
    card_code,
    card_label,
    card_name,
    make_card,
    parse_card,
    parse_suit,
    suit_name,
)
from bot.i18n import _, current_locale, ngettext, pgettext
from bot.service.models import TableSnapshot
from bot.ui.art import png_bands
from bot.ui.art.cards import (
    FOUR_COLOUR,
    INK,
    SUPERSAMPLE,
    Colour,
    Palette,
    back_image,
    card_image,
    draw_centered_text,
    drawable_text,
    font,
    suit_badge,
)
from bot.ui.art.kept import Kept
from bot.ui.names import plain_name, seat_words, visible_or_seat

T = TypeVar("T")

WIDTH, HEIGHT = 800, 450
CENTRE = (WIDTH / 2, HEIGHT / 2)
TABLE_RADII = (372, 208)  # the felt
SEAT_RADII = (318, 165)  # where the seats sit
FAN_MAX = 12  # backs drawn in one seat's fan; the count says the rest
MAX_ALT_TEXT = 1024  # Discord's limit on an attachment's description
CACHE_SIZE = 64
RENDER_THREADS = 1  # a picture takes about 5 ms: one thread keeps up, and contends least for the GIL
# Image memory Pillow keeps for reuse once freed (its default is none): a busy renderer makes and drops the
# same few images (the board's copy) many times a second, and reuses their memory instead of asking for it
# afresh (with the pixels read in one piece, png_bands: the pictures' thread 3% cheaper at 300 busy tables).
PILLOW_BLOCKS = 8

BACKGROUND = (43, 45, 49)
FELT = (27, 104, 68)
FELT_DARK = (20, 80, 52)
RIM = (92, 60, 36)
GOLD = (240, 178, 50)
PLATE = (22, 24, 27)
WHITE = (255, 255, 255)
ALERT = (218, 55, 60)

TARGET_SIZE = (100, 140)
STOCK_SIZE = (74, 104)
FAN_CARD = (26, 36)
BADGE = 46
# A board is composed framed: one more column on its left, all palette index 0, which is PNG's filter byte
# (none) at the start of each row, so the picture's pixels are the PNG's rows as they are
# (``png_bands.framed_png``).
FRAME = png_bands.FRAME


@dataclass(frozen=True, slots=True)
class BoardPicture:
    png: bytes
    alt_text: str
    key: Hashable  # the public content it was drawn from (equal keys, equal pictures)
    filename: str = "board.png"


def has_picture(snapshot: TableSnapshot) -> bool:
    """A picture is drawn while a round is on the table (playing, or between rounds)."""
    return snapshot.phase in ("playing", "between_rounds") and snapshot.target_card is not None


def board_key(snapshot: TableSnapshot, palette: Palette = FOUR_COLOUR) -> Hashable:
    """Everything the picture (and its alt text) shows: public fields, nothing else, and the language of its
    words (the language in force)."""
    return (
        current_locale(),
        palette.name,
        palette.version,
        snapshot.phase,
        snapshot.round_number,
        snapshot.target_card,
        snapshot.declared_suit,
        snapshot.direction,
        snapshot.stock_size,
        snapshot.pending_draw,
        snapshot.to_act if snapshot.phase == "playing" else None,
        tuple((seat.position, seat.name, seat.card_count) for seat in snapshot.seats),
    )


# --- sprites (drawn once per size) -------------------------------------------------------------------------


@functools.cache
def _card(code: str, width: int, height: int, palette: Palette) -> Image.Image:
    return card_image(code, width=width, height=height, palette=palette)


@functools.cache
def _back(width: int, height: int) -> Image.Image:
    return back_image(width=width, height=height)


@functools.cache
def _fan_back(angle: int) -> Image.Image:
    return _back(*FAN_CARD).rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)


FAN_SIZE = (180, 90)
FAN_ANCHOR = (90, 50)  # the seat's centre, in the fan's picture


@functools.cache
def _fan(shown: int) -> Image.Image:
    """``shown`` card backs spread as a hand of cards is held (one picture per count, drawn once)."""
    fan = Image.new("RGBA", FAN_SIZE, (0, 0, 0, 0))
    spread = min(64.0, 8.0 * (shown - 1))  # degrees across the fan
    for i in range(shown):
        angle = -spread / 2 + (spread * i / (shown - 1) if shown > 1 else 0)
        radians = math.radians(angle)
        # Cards pivot round a point below the fan.
        sprite = _fan_back(round(-angle))
        cx = FAN_ANCHOR[0] + 46 * math.sin(radians)
        cy = FAN_ANCHOR[1] - 22 - 46 * (math.cos(radians) - 1)
        fan.alpha_composite(sprite, (round(cx - sprite.width / 2), round(cy - sprite.height / 2)))
    return fan


@functools.cache
def _badge(suit: int, size: int, palette: Palette) -> Image.Image:
    return suit_badge(suit, size=size, palette=palette)


@functools.cache
def _table() -> Image.Image:
    """The empty table, drawn large and scaled down once for smooth edges."""
    s = SUPERSAMPLE
    image = Image.new("RGB", (WIDTH * s, HEIGHT * s), BACKGROUND)
    draw = ImageDraw.Draw(image)
    cx, cy = CENTRE[0] * s, CENTRE[1] * s
    rx, ry = TABLE_RADII[0] * s, TABLE_RADII[1] * s
    draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=RIM)
    rim = 9 * s
    draw.ellipse((cx - rx + rim, cy - ry + rim, cx + rx - rim, cy + ry - rim), fill=FELT)
    inner = 0.62
    draw.ellipse(
        (cx - rx * inner, cy - ry * inner, cx + rx * inner, cy + ry * inner), outline=FELT_DARK, width=3 * s
    )
    return image.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


@functools.cache
def _direction_arrows(direction: int) -> Image.Image:
    """Two curved arrows on the inner ring, turning clockwise (seat order) or anticlockwise (reversed)."""
    s = SUPERSAMPLE
    layer = Image.new("RGBA", (WIDTH * s, HEIGHT * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    cx, cy = CENTRE[0] * s, CENTRE[1] * s
    rx, ry = TABLE_RADII[0] * 0.62 * s, TABLE_RADII[1] * 0.62 * s
    colour = (*GOLD, 235)
    for start in (200.0, 20.0):  # one arc over the top, one under the bottom (degrees, y down)
        span = 140.0
        steps = 40
        points = [
            (
                cx + rx * math.cos(math.radians(start + span * i / steps)),
                cy + ry * math.sin(math.radians(start + span * i / steps)),
            )
            for i in range(steps + 1)
        ]
        draw.line(points, fill=colour, width=5 * s, joint="curve")
        # The head sits at the end the play moves towards.
        tip, before = (points[-1], points[-4]) if direction >= 0 else (points[0], points[3])
        angle = math.atan2(tip[1] - before[1], tip[0] - before[0])
        size = 16 * s
        head = [
            (tip[0] + math.cos(angle) * size * 0.6, tip[1] + math.sin(angle) * size * 0.6),
            (tip[0] + math.cos(angle + 2.4) * size, tip[1] + math.sin(angle + 2.4) * size),
            (tip[0] + math.cos(angle - 2.4) * size, tip[1] + math.sin(angle - 2.4) * size),
        ]
        draw.polygon(head, fill=colour)
    return layer.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


@functools.cache
def _background(direction: int) -> Image.Image:
    """The table with the direction arrows on it: the same for every board that plays this way round."""
    image = _table().copy()
    arrows = _direction_arrows(direction)
    image.paste(arrows, (0, 0), arrows)
    return image


# --- names -------------------------------------------------------------------------------------------------


def drawable_name(name: str, position: int) -> str:
    """The name as the picture can write it (``drawable_text``: "Zoë" -> "Zoe", and "Jürgen" -> "Juergen"
    on a German server), and a name that would be mostly question marks as its seat instead, in the
    language in force ("Seat 3", "Platz 3"; the alt text has the real name, unless nothing of it shows:
    ``visible_or_seat``)."""
    cleaned = drawable_text(name.strip())
    if not cleaned or cleaned.count("?") * 2 > len(cleaned):
        return drawable_text(seat_words(position))  # on a name plate: capitalised as a name is
    return cleaned


def fit_text(draw: ImageDraw.ImageDraw, text: str, size: int, width: float) -> str:
    """``text`` at ``size`` cut to ``width`` pixels, with an ellipsis when cut."""
    face = font(size)
    if draw.textlength(text, font=face) <= width:
        return text
    while text and draw.textlength(text + "…", font=face) > width:
        text = text[:-1]
    return text + "…"


# --- drawing -----------------------------------------------------------------------------------------------
#
# A board is the table (drawn once per direction) with sprites pasted on it: the stock, the target card, the
# named suit, the texts, and each seat's fan, plate, name and count. Every sprite is drawn once, flattened
# onto the felt it sits on (its soft edges blended as they would be there) with a mask of its pixels, and
# kept mapped to the board palette; a board is then one copy of the table in that palette and a few pastes of
# palette pixels, with no drawing, text shaping or colour mapping per board (bench/art.py: about 0.3 ms
# instead of 5). ``draw_board`` pastes the same sprites before mapping (what the picture shows, in colour).

Sprite = tuple[Image.Image, Image.Image]  # (RGB pixels flattened on their ground, "1" mask of its pixels)
PLATE_WIDTH = 156
TEXT_BOX = (240, 40)  # a text on the felt, centred in it
COUNT_ROOM = 24  # the count's room on a plate: two digits, so a name is cut the same whatever the count


def _seat_centres(count: int) -> list[tuple[int, int]]:
    """Seats round the table in seat order, clockwise on screen, seat 1 at the bottom (whole pixels, so
    that a seat's sprites look the same wherever it sits)."""
    centres = []
    for i in range(count):
        angle = math.radians(90 + 360 * i / count)
        centres.append(
            (
                round(CENTRE[0] + SEAT_RADII[0] * math.cos(angle)),
                round(CENTRE[1] + SEAT_RADII[1] * math.sin(angle)),
            )
        )
    return centres


def _flatten(layer: Image.Image, ground: tuple[int, int, int] = FELT) -> Sprite:
    """An RGBA layer on ``ground``, with the mask of the pixels it covers."""
    flat = Image.new("RGB", layer.size, ground)
    flat.paste(layer, (0, 0), layer)
    return flat, layer.getchannel("A").point(lambda alpha: 255 if alpha else 0, mode="1")


def _text_sprite(
    text: str,
    size: int,
    fill: tuple[int, int, int],
    ground: tuple[int, int, int],
    bold: float,
    box: tuple[int, int],
) -> tuple[Image.Image, Image.Image]:
    """``text`` centred in a ``box`` tile of ``ground`` colour (as ``draw_centered_text`` writes it), and
    the mask of the pixels the text touches."""
    tile = Image.new("RGB", box, ground)
    coverage = Image.new("L", box, 0)
    centre = (box[0] / 2, box[1] / 2)
    draw_centered_text(ImageDraw.Draw(tile), text, centre, size=size, fill=fill, bold=bold)
    draw_centered_text(ImageDraw.Draw(coverage), text, centre, size=size, fill=255, bold=bold)  # type: ignore[arg-type]
    return tile, coverage.point(lambda value: 255 if value else 0, mode="1")


@functools.lru_cache(maxsize=256)
def _felt_text(text: str, size: int, fill: tuple[int, int, int], bold: float) -> Sprite:
    """A text written on the felt (the stock's count, "named", the pending draw, the round's end)."""
    return _text_sprite(text, size, fill, FELT, bold, TEXT_BOX)


@functools.lru_cache(maxsize=8)
def _stock(layers: int) -> Sprite:
    """The stock: ``layers`` backs stacked (each 2 px left and 3 px up), or an empty place when 0. The
    sprite's (0, 0) is 4 px left and 6 px above the bottom back's corner."""
    w, h = STOCK_SIZE
    layer = Image.new("RGBA", (w + 4, h + 6), (0, 0, 0, 0))
    if layers:
        back = _back(w, h)
        for i in range(layers):
            layer.alpha_composite(back, (4 - 2 * i, 6 - 3 * i))
    else:
        ImageDraw.Draw(layer).rounded_rectangle((4, 6, 4 + w, 6 + h), radius=8, outline=FELT_DARK, width=3)
    return _flatten(layer)


@functools.lru_cache(maxsize=64)
def _flat_card(code: str, palette: Palette) -> Sprite:
    return _flatten(_card(code, *TARGET_SIZE, palette))


@functools.lru_cache(maxsize=16)
def _flat_badge(suit: int, palette: Palette) -> Sprite:
    return _flatten(_badge(suit, BADGE, palette))


@functools.lru_cache(maxsize=FAN_MAX + 1)
def _flat_fan(shown: int) -> Sprite:
    return _flatten(_fan(shown))


PLATE_BOX = (180, 34)  # a plate's sprite; the seat's centre is at PLATE_ORIGIN from its (0, 0)
PLATE_ORIGIN = (96, -8)


@functools.lru_cache(maxsize=2)
def _plate(to_act: bool) -> Sprite:
    """A seat's plate without its texts: gold with a pointer for the seat to move, dark otherwise."""
    layer = Image.new("RGBA", PLATE_BOX, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    x, y = PLATE_ORIGIN
    plate = (x - PLATE_WIDTH / 2, y + 12, x + PLATE_WIDTH / 2, y + 38)
    if to_act:
        draw.rounded_rectangle((plate[0] - 3, plate[1] - 3, plate[2] + 3, plate[3] + 3), radius=10, fill=GOLD)
        draw.polygon([(plate[0] - 16, y + 17), (plate[0] - 16, y + 33), (plate[0] - 6, y + 25)], fill=GOLD)
    draw.rounded_rectangle(plate, radius=8, fill=GOLD if to_act else PLATE)
    return _flatten(layer)


LABEL_BOX = (PLATE_WIDTH - COUNT_ROOM - 14, 24)  # a name's sprite, its left edge 8 px into the plate
COUNT_BOX = (COUNT_ROOM + 4, 24)  # a count's sprite, its right edge 8 px before the plate's


def _label(name: str, to_act: bool) -> Sprite:
    """A seat's name on its plate, cut to the room beside a two-digit count."""
    ground, ink = (GOLD, INK) if to_act else (PLATE, WHITE)
    tile = Image.new("RGB", LABEL_BOX, ground)
    coverage = Image.new("L", LABEL_BOX, 0)
    draw = ImageDraw.Draw(tile)
    text = fit_text(draw, name, 15, LABEL_BOX[0])
    draw.text((0, LABEL_BOX[1] / 2), text, font=font(15), fill=ink, anchor="lm")
    ImageDraw.Draw(coverage).text((0, LABEL_BOX[1] / 2), text, font=font(15), fill=255, anchor="lm")
    return tile, coverage.point(lambda value: 255 if value else 0, mode="1")


def _count(count: int, to_act: bool) -> Sprite:
    ground, ink = (GOLD, INK) if to_act else (PLATE, WHITE)
    tile = Image.new("RGB", COUNT_BOX, ground)
    coverage = Image.new("L", COUNT_BOX, 0)
    anchor = (COUNT_BOX[0], COUNT_BOX[1] / 2)
    ImageDraw.Draw(tile).text(anchor, str(count), font=font(17), fill=ink, anchor="rm")
    ImageDraw.Draw(coverage).text(anchor, str(count), font=font(17), fill=255, anchor="rm")
    return tile, coverage.point(lambda value: 255 if value else 0, mode="1")


Part = tuple[Callable[[], Sprite], Hashable, tuple[int, int]]  # (how to draw it, its key, where it goes)


def _paste(image: Image.Image, sprite: Image.Image, centre: tuple[float, float]) -> None:
    image.paste(sprite, _at_centre(sprite.size, centre), sprite)


def _at_centre(size: tuple[int, int], centre: tuple[float, float]) -> tuple[int, int]:
    return round(centre[0] - size[0] / 2), round(centre[1] - size[1] / 2)


def _parts(snapshot: TableSnapshot, palette: Palette) -> list[Part]:
    """The sprites of a board and where they go, bottom first."""
    parts: list[Part] = []
    cx, cy = CENTRE

    def text(words: str, centre: tuple[float, float], size: int, fill: Colour, bold: float) -> None:
        words = drawable_text(words)  # and kept by the text drawn (the language's, as its font writes it)
        draw = functools.partial(_felt_text, words, size, fill, bold)
        parts.append((draw, ("text", words, size, fill, bold), _at_centre(TEXT_BOX, centre)))

    # The stock: a small pile of backs with its count, left of the target.
    stock_centre = (cx - 112, cy - 8)
    layers = min(3, max(1, (snapshot.stock_size + 9) // 10)) if snapshot.stock_size else 0
    left, top = _at_centre(STOCK_SIZE, stock_centre)
    parts.append((functools.partial(_stock, layers), ("stock", layers), (left - 4, top - 6)))
    text(pgettext("picture", "stock {n}", n=snapshot.stock_size), (stock_centre[0], cy + 62), 16, WHITE, 0)
    # The target card, large.
    if snapshot.target_card is not None:
        target = snapshot.target_card
        where = _at_centre(TARGET_SIZE, (cx, cy - 8))
        parts.append((functools.partial(_flat_card, target, palette), ("card", target), where))
    # The named suit.
    if snapshot.declared_suit:
        suit = parse_suit(snapshot.declared_suit)
        badge_centre = (cx + 104, cy - 22)
        where = _at_centre((BADGE, BADGE), badge_centre)
        parts.append((functools.partial(_flat_badge, suit, palette), ("badge", suit), where))
        text(pgettext("picture", "named"), (badge_centre[0], badge_centre[1] + 38), 15, WHITE, 0)
    if snapshot.pending_draw:
        text(pgettext("picture", "+{n} to draw", n=snapshot.pending_draw), (cx, cy + 76), 17, ALERT, 0.06)
    elif snapshot.phase == "between_rounds":
        text(
            pgettext("picture", "round {number} over", number=snapshot.round_number),
            (cx, cy + 76),
            17,
            GOLD,
            0.06,
        )
    seats = sorted(snapshot.seats, key=lambda seat: seat.position)
    for seat, (x, y) in zip(seats, _seat_centres(len(seats)), strict=True):
        to_act = snapshot.phase == "playing" and snapshot.to_act == seat.position
        if seat.card_count:
            shown = min(seat.card_count, FAN_MAX)
            where = (x - FAN_ANCHOR[0], y - FAN_ANCHOR[1])
            parts.append((functools.partial(_flat_fan, shown), ("fan", shown), where))
        where = (x - PLATE_ORIGIN[0], y - PLATE_ORIGIN[1])
        parts.append((functools.partial(_plate, to_act), ("plate", to_act), where))
        name = drawable_name(seat.name, seat.position)
        where = (x - PLATE_WIDTH // 2 + 8, y + 25 - LABEL_BOX[1] // 2)
        parts.append((functools.partial(_label, name, to_act), ("label", name, to_act), where))
        if seat.card_count is not None:
            count = seat.card_count
            where = (x + PLATE_WIDTH // 2 - 8 - COUNT_BOX[0], y + 25 - COUNT_BOX[1] // 2)
            parts.append((functools.partial(_count, count, to_act), ("count", count, to_act), where))
    return parts


def draw_board(snapshot: TableSnapshot, palette: Palette = FOUR_COLOUR) -> Image.Image:
    """The picture of a board with a round on it (see ``has_picture``), in colour: the sprites pasted on
    the table as drawn, before they are mapped to the board palette (``compose_board``)."""
    image = _background(1 if snapshot.direction >= 0 else -1).copy()
    for draw, _key, where in _parts(snapshot, palette):
        pixels, mask = draw()
        image.paste(pixels, where, mask)
    return image


MAPPED_SPRITES = 4096  # sprites kept in the board palette: names on plates are most of them (~3 kB each)
_mapped_sprites: Kept[Hashable, Sprite] = Kept(MAPPED_SPRITES)


def _mapped(key: Hashable, palette: Palette, draw: Callable[[], Sprite]) -> Sprite:
    """The sprite ``key`` names, in the board palette: drawn and mapped once, then kept (the least recently
    used go first)."""

    def mapped() -> Sprite:
        pixels, mask = draw()
        return pixels.quantize(palette=_board_palette(palette), dither=Image.Dither.NONE), mask

    return _mapped_sprites.get_or_make((key, palette.name), mapped)


_mapped_backgrounds: Kept[tuple[int, str], Image.Image] = Kept(4)


def _mapped_background(direction: int, palette: Palette) -> Image.Image:
    """The table in the board palette, framed (see ``FRAME``)."""

    def mapped() -> Image.Image:
        table = _background(direction).quantize(palette=_board_palette(palette), dither=Image.Dither.NONE)
        return png_bands.framed(table)

    return _mapped_backgrounds.get_or_make((direction, palette.name), mapped)


def _cards(count: int) -> str:
    return ngettext("{n} card", "{n} cards", count)


def alt_text(snapshot: TableSnapshot) -> str:
    """The picture in words (the attachment's description), in the language in force (the server's). A seat
    whose name shows nothing (``visible_or_seat``) is named as the picture's plate names it ("Seat 4")."""
    parts = [_("Crazy Eights table, round {number}.", number=snapshot.round_number)]
    if snapshot.phase == "between_rounds":
        parts.append(_("The round is over."))
    if snapshot.target_card is not None:
        card = parse_card(snapshot.target_card)
        parts.append(_("Target card: {name} ({label}).", name=card_name(card), label=card_label(card)))
    if snapshot.declared_suit:
        parts.append(_("Suit named: {suit}.", suit=suit_name(parse_suit(snapshot.declared_suit))))
    if snapshot.pending_draw:
        parts.append(
            ngettext(
                "Next player draws {n} card unless they answer.",
                "Next player draws {n} cards unless they answer.",
                snapshot.pending_draw,
            )
        )
    parts.append(
        _("Play goes in seat order.") if snapshot.direction >= 0 else _("Play goes in reverse seat order.")
    )
    parts.append(_("Stock: {cards}.", cards=_cards(snapshot.stock_size)))
    seats = []
    for seat in sorted(snapshot.seats, key=lambda seat: seat.position):
        text = f"{seat.position + 1}. {plain_name(visible_or_seat(seat.name, seat.position))}"
        if seat.card_count is not None:
            text += f", {_cards(seat.card_count)}"
        if snapshot.phase == "playing" and snapshot.to_act == seat.position:
            text += _(", to move")
        seats.append(text)
    parts.append(_("Seats: {seats}.", seats="; ".join(seats)))
    text = " ".join(parts)
    return text if len(text) <= MAX_ALT_TEXT else text[: MAX_ALT_TEXT - 1] + "…"


@functools.cache
def _board_palette(palette: Palette) -> Image.Image:
    """One palette of 255 colours for every board of this card palette, chosen once from a sample of all
    a board can show (both tables, every card face, the badges, fans, plates and texts, on the felt and
    the background, edges blended as on a board). Mapping a board to a fixed palette costs a quarter of
    choosing a palette per board (0.6 ms against 2.5 ms here, bench/art.py), and the colours stay steady."""
    card_w, card_h = TARGET_SIZE
    faces = [card_code(make_card(rank, suit)) for suit in SUITS for rank in range(1, 14)]
    columns = 13
    rows = (len(faces) + columns - 1) // columns
    sprites = Image.new("RGB", (max(WIDTH, columns * card_w), rows * card_h + 2 * FAN_SIZE[1]), FELT)
    for index, code in enumerate(faces):
        _paste(
            sprites,
            _card(code, *TARGET_SIZE, palette),
            ((index % columns + 0.5) * card_w, (index // columns + 0.5) * card_h),
        )
    draw = ImageDraw.Draw(sprites)
    y = rows * card_h
    for index, suit in enumerate(SUITS):
        _paste(sprites, _badge(suit, BADGE, palette), (40 + index * 60, y + 40))
    _paste(sprites, _back(*STOCK_SIZE), (300, y + 60))
    fan = _fan(FAN_MAX)
    sprites.paste(fan, (360, y), fan)
    sprites.paste(fan, (360, y + FAN_SIZE[1]), fan)
    for index, (fill, ink) in enumerate(((GOLD, INK), (PLATE, WHITE))):
        x = 560 + index * 170
        draw.rounded_rectangle((x, y + 12, x + 156, y + 38), radius=8, fill=fill)
        draw.text((x + 8, y + 25), "Sample name 12", font=font(15), fill=ink, anchor="lm")
    draw_centered_text(draw, "+2 to draw", (640, y + 120), size=17, fill=ALERT, bold=0.06)
    draw_centered_text(draw, "round 1 over stock 9", (640, y + 150), size=17, fill=GOLD, bold=0.06)
    sample = Image.new("RGB", (sprites.width, 2 * HEIGHT + sprites.height), BACKGROUND)
    sample.paste(_background(1), (0, 0))
    sample.paste(_background(-1), (0, HEIGHT))
    sample.paste(sprites, (0, 2 * HEIGHT))
    return sample.quantize(colors=255, method=Image.Quantize.FASTOCTREE)


def compose_board(snapshot: TableSnapshot, palette: Palette = FOUR_COLOUR) -> Image.Image:
    """The picture of a board with a round on it, in the board palette: the table and the sprites as
    ``draw_board`` pastes them, each mapped to the palette once (the picture's pixels are the same as
    mapping ``draw_board``'s)."""
    return png_bands.unframed(compose_framed(snapshot, palette))


def compose_framed(snapshot: TableSnapshot, palette: Palette = FOUR_COLOUR) -> Image.Image:
    """``compose_board``'s picture framed (see ``FRAME``), as ``png_bands.framed_png`` takes it."""
    background = _mapped_background(1 if snapshot.direction >= 0 else -1, palette)
    placed = [(_mapped(key, palette, draw), where) for draw, key, where in _parts(snapshot, palette)]
    return _pasted(background, placed)


def compose_drawn(snapshot: TableSnapshot, palette: Palette = FOUR_COLOUR) -> Image.Image | None:
    """``compose_board`` if every sprite it needs is drawn and mapped already (then it is pastes only, well
    under a millisecond); None, with nothing drawn, if one is missing."""
    framed = _framed_drawn(snapshot, palette)
    return None if framed is None else png_bands.unframed(framed)


def _framed_drawn(snapshot: TableSnapshot, palette: Palette) -> Image.Image | None:
    background = _mapped_backgrounds.get((1 if snapshot.direction >= 0 else -1, palette.name))
    if background is None:
        return None
    placed: list[tuple[Sprite, tuple[int, int]]] = []
    for _draw, key, where in _parts(snapshot, palette):
        sprite = _mapped_sprites.get((key, palette.name))
        if sprite is None:
            return None
        placed.append((sprite, where))
    return _pasted(background, placed)


def _pasted(background: Image.Image, placed: list[tuple[Sprite, tuple[int, int]]]) -> Image.Image:
    """The sprites on a copy of the framed ``background``, each at its place in the picture."""
    image = background.copy()
    for (pixels, mask), (x, y) in placed:
        image.paste(pixels, (x + FRAME, y), mask)
    png_bands.clear_frame(image)  # a sprite past the left edge must not write over a filter byte
    return image


# zlib's effort: level 1 takes about half the time of level 6 for 15% more bytes (31 kB against 27), and
# level 3 or run-length matching only (Z_RLE) gain nothing on it here (bench/art.py).
PNG_LEVEL = png_bands.LEVEL


def render_board(snapshot: TableSnapshot, palette: Palette = FOUR_COLOUR) -> BoardPicture:
    """Draw now (no cache)."""
    # A palette of 255 colours, fixed per card palette: the picture is flat colours and text, and the PNG
    # is four times smaller and five times faster to encode than in full colour. Written band by band, the
    # bands a move left alone served compressed from a cache (``png_bands``): about half the PNG's time.
    return _picture(snapshot, palette, compose_framed(snapshot, palette))


def render_drawn(snapshot: TableSnapshot, palette: Palette = FOUR_COLOUR) -> BoardPicture | None:
    """``render_board`` from sprites drawn already (see ``compose_drawn``), or None."""
    framed = _framed_drawn(snapshot, palette)
    return None if framed is None else _picture(snapshot, palette, framed)


def _picture(snapshot: TableSnapshot, palette: Palette, framed: Image.Image) -> BoardPicture:
    return BoardPicture(
        png=png_bands.framed_png(framed), alt_text=alt_text(snapshot), key=board_key(snapshot, palette)
    )


def _warm_sprites() -> None:
    # Seat order only: every round starts that way (the reversed table, ~0.13 s, is drawn when first needed,
    # so that a board asked for meanwhile waits no longer than it would have without this).
    _mapped_background(1, FOUR_COLOUR)  # draws the table and chooses the palette
    for shown in range(1, FAN_MAX + 1):
        _mapped(("fan", shown), FOUR_COLOUR, functools.partial(_flat_fan, shown))


class BoardRenderer:
    """Board pictures with a cache keyed by the public content: an unchanged board is not drawn again."""

    def __init__(self, palette: Palette = FOUR_COLOUR, *, cache_size: int = CACHE_SIZE) -> None:
        self.palette = palette
        self.drawn = 0  # pictures actually drawn (the rest came from the cache)
        self._cache: Kept[Hashable, BoardPicture] = Kept(cache_size)
        self._lock = threading.Lock()  # for ``drawn``
        # Threads of their own: a board edit waits for its picture while holding its turn of Discord's
        # global budget, so the picture must not queue behind CPU players' decisions in the default executor.
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=RENDER_THREADS, thread_name_prefix="board-picture"
        )
        _imaging.set_blocks_max(max(_imaging.get_blocks_max(), PILLOW_BLOCKS))

    def warm(self) -> concurrent.futures.Future[None]:
        """Draw what every picture shares (the table and its arrows: about 0.45 s, most of a first picture's
        time) in the renderer's thread, at start-up: otherwise the first board of a process waits for it
        (bench/art.py --first-start: Start → board about 0.4 s)."""
        return self.prepare(_warm_sprites)

    def prepare(self, work: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Run ``work`` (something a coming picture will need) in the renderer's thread now."""
        return self._executor.submit(work)

    def cached(self, snapshot: TableSnapshot) -> BoardPicture | None:
        return self._cached(board_key(snapshot, self.palette))

    def _cached(self, key: Hashable) -> BoardPicture | None:
        return self._cache.get(key)

    def render(self, snapshot: TableSnapshot) -> BoardPicture | None:
        """The picture of this board (None when the table has no round to show)."""
        if not has_picture(snapshot):
            return None
        return self.picture(board_key(snapshot, self.palette), lambda: render_board(snapshot, self.palette))

    def picture(self, key: Hashable, draw: Callable[[], BoardPicture]) -> BoardPicture:
        """The picture cached under ``key``, or ``draw()`` cached under it: for any board picture (the
        Crazier Eights board goes through here, see ``crazier_board.render_crazier_cached``)."""
        picture = self._cached(key)
        if picture is not None:
            return picture
        picture = draw()
        self._drew(key, picture)
        return picture

    def _drew(self, key: Hashable, picture: BoardPicture) -> None:
        with self._lock:
            self.drawn += 1
        self._cache.put(key, picture)

    async def picture_async(self, key: Hashable, draw: Callable[[], BoardPicture]) -> BoardPicture:
        """``picture`` in one of the renderer's threads unless it is cached."""
        picture = self._cached(key)
        if picture is not None:
            return picture
        # In the caller's context: the picture's words are in the language in force there.
        run = contextvars.copy_context().run
        return await asyncio.get_running_loop().run_in_executor(self._executor, run, self.picture, key, draw)

    async def render_async(self, snapshot: TableSnapshot) -> BoardPicture | None:
        """``render``: the cached picture, or one made here from sprites drawn already (under a millisecond:
        a hop to a thread and back costs more, in the interpreter lock's hand-overs, than it spares), or
        else drawn in one of the renderer's threads."""
        if not has_picture(snapshot):
            return None
        key = board_key(snapshot, self.palette)
        picture = self._cached(key)
        if picture is not None:
            return picture
        picture = render_drawn(snapshot, self.palette)
        if picture is not None:
            self._drew(key, picture)
            return picture
        run = contextvars.copy_context().run  # the caller's language (see ``picture_async``)
        return await asyncio.get_running_loop().run_in_executor(self._executor, run, self.render, snapshot)
