"""Card faces, the card back and the suit badges, drawn with Pillow from vector shapes.

Suits are geometric outlines (a parametric heart, a rhombus, a heart turned over with a stem, three discs with
a stem), and ranks use the Aileron font that Pillow itself bundles (``ImageFont.load_default``), emboldened
with a stroke: no system font is read, so CI and every host draw the same pixels. Shapes are drawn at
``SUPERSAMPLE`` times the final size and scaled down once, which gives clean anti-aliased edges.

Two palettes: ``FOUR_COLOUR`` (the default) gives every suit its own hue — black spades, vermilion
hearts, blue diamonds, bluish green clubs — so that players who cannot tell red from black still tell the
suits apart at a glance; ``CLASSIC`` is the usual red and black. The four hues follow Okabe and Ito's
colour-blind safe set, adjusted so that, as red-blind and green-blind viewers see them (protanopia,
deuteranopia), no two suits come closer than the classic palette's red and black do for a red-blind viewer,
that blue-blind viewers (tritanopia, rarer) tell them apart too, and that every suit keeps a contrast of at
least 4:1 on the white card (tests/ui/art/test_palette.py). Every picture is a white card (or a white badge)
with a dark outline, so it reads on Discord's light and dark themes alike; no suit colour is drawn on the
board's felt.
"""

from __future__ import annotations

import functools
import io
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from bot.engine import card_code, parse_card, parse_suit, rank_of, suit_of
from bot.i18n import current_locale

SUPERSAMPLE = 4
EMOJI_SIZE = 128  # Discord's recommended emoji size (it accepts up to 256 KiB)

Colour = tuple[int, int, int]
Point = tuple[float, float]

INK = (32, 34, 37)  # outlines and the black suit: near-black, softer than pure black on white
PAPER = (255, 255, 255)
BACK_BLUE = (37, 70, 150)
BACK_LIGHT = (86, 122, 204)


@dataclass(frozen=True, slots=True)
class Palette:
    name: str
    suits: tuple[Colour, Colour, Colour, Colour]  # clubs, diamonds, hearts, spades (the engine's order)
    # The version of this palette's pictures, part of its emoji names and of its disk cache's folder
    # (``bot.ui.art.emoji_set``) and of what a board picture shows: bumped whenever the pictures change (its
    # colours, or the drawings of every palette), so that the bot uploads the new emojis once instead of
    # keeping the old ones by name, and redraws a board's picture instead of keeping an old one.
    version: int = 1

    def of(self, suit: int) -> Colour:
        return self.suits[suit]


# Version 2: bluish green clubs, blue diamonds and vermilion hearts in place of version 1's green
# (20, 128, 60), blue (22, 96, 196) and red (208, 32, 40), whose clubs and hearts red-green colour-blind
# viewers could not tell apart.
FOUR_COLOUR = Palette("four", ((0, 140, 108), (0, 80, 240), (210, 80, 10), INK), version=2)
CLASSIC = Palette("classic", (INK, (208, 32, 40), (208, 32, 40), INK))
PALETTES = {palette.name: palette for palette in (FOUR_COLOUR, CLASSIC)}


# --- suit shapes, as polygons in a unit box (0..1 both ways, y down) -------------------------------------


def _heart_points(steps: int = 96) -> list[Point]:
    # The classic parametric heart, normalised into the unit box.
    raw = []
    for i in range(steps):
        t = 2 * math.pi * i / steps
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        raw.append((x, -y))
    xs, ys = [p[0] for p in raw], [p[1] for p in raw]
    left, top, width, height = min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)
    return [((x - left) / width, (y - top) / height) for x, y in raw]


HEART = _heart_points()
DIAMOND = [(0.5, 0.0), (0.92, 0.5), (0.5, 1.0), (0.08, 0.5)]


def _scaled(points: Sequence[Point], box: tuple[float, float, float, float]) -> list[Point]:
    left, top, right, bottom = box
    return [(left + x * (right - left), top + y * (bottom - top)) for x, y in points]


def _stem(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], colour: Colour) -> None:
    left, top, right, bottom = box
    width, height = right - left, bottom - top
    cx = left + width / 2
    draw.polygon(
        [
            (cx - width * 0.04, top + height * 0.55),
            (cx + width * 0.04, top + height * 0.55),
            (cx + width * 0.18, bottom),
            (cx - width * 0.18, bottom),
        ],
        fill=colour,
    )


def draw_suit(
    draw: ImageDraw.ImageDraw, suit: int, box: tuple[float, float, float, float], colour: Colour
) -> None:
    """Draw a suit symbol filling ``box`` (left, top, right, bottom) in ``colour``."""
    left, top, right, bottom = box
    width, height = right - left, bottom - top
    if suit == 2:  # hearts
        draw.polygon(_scaled(HEART, box), fill=colour)
    elif suit == 1:  # diamonds
        draw.polygon(_scaled(DIAMOND, box), fill=colour)
    elif suit == 3:  # spades: a heart upside down, on a flared stem
        body = (left, top, right, top + height * 0.78)
        draw.polygon(_scaled([(x, 1 - y) for x, y in HEART], body), fill=colour)
        _stem(draw, box, colour)
    else:  # clubs: three discs and a stem
        r = width * 0.235
        cx = left + width / 2
        for x, y in ((cx, top + r), (left + r, top + height * 0.5), (right - r, top + height * 0.5)):
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
        draw.rectangle((cx - r * 0.6, top + r, cx + r * 0.6, top + height * 0.55), fill=colour)
        _stem(draw, box, colour)


# --- text ---------------------------------------------------------------------------------------------------


@functools.cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font (Aileron Regular) at ``size`` pixels. Needs Pillow built with FreeType, as its
    wheels are."""
    loaded = ImageFont.load_default(size)
    if not isinstance(loaded, ImageFont.FreeTypeFont):
        raise RuntimeError("Pillow was built without FreeType: the card art needs it")
    return loaded


@functools.cache
def _mask_bytes(char: str) -> tuple[tuple[int, int], bytes]:
    mask = font(16).getmask(char)
    return mask.size, Image.Image()._new(mask).tobytes()


@functools.cache
def drawable(char: str) -> bool:
    """The bundled font has a glyph for ``char`` (ASCII and a few Latin-1 signs: no accented letter)."""
    if char == " ":
        return True
    return not char.isspace() and _mask_bytes(char) != _mask_bytes("\U0010fffd")


#: Letters a language writes otherwise without its accents, by convention (German: "Koenig", "gruen").
TRANSLITERATIONS: dict[str, dict[str, str]] = {
    "de": {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "ẞ": "SS"},
}
#: Letters and signs with no accent to strip, written as their usual ASCII stand-ins in any language.
STAND_INS = {
    "ß": "ss",
    "ẞ": "SS",
    "œ": "oe",
    "Œ": "OE",
    "æ": "ae",
    "Æ": "AE",
    "ø": "o",
    "Ø": "O",
    "ł": "l",
    "Ł": "L",
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "Ð": "D",
    "þ": "th",
    "Þ": "Th",
    "ı": "i",
    "‐": "-",
    "–": "-",
    "—": "-",
    "−": "-",
    "‘": "'",
    "’": "'",
    "‚": "'",
    "‹": "'",
    "›": "'",
    "“": '"',
    "”": '"',
    "„": '"',
    "«": '"',
    "»": '"',
    "•": "·",
    "×": "x",
    "→": "->",
    "←": "<-",
}


@functools.lru_cache(maxsize=4096)
def _drawable_in(text: str, language: str) -> str:
    own = TRANSLITERATIONS.get(language.split("_")[0], {})
    out = []
    # Composed first: a letter typed as "e" + U+0301 (macOS, some keyboards) is then the "é" handled below.
    for char in unicodedata.normalize("NFC", text):
        if drawable(char):
            out.append(char)
        elif char in own:
            out.append(own[char])
        elif char.isspace():
            out.append(" ")  # a no-break or thin space ("tour : …"): the font has only the plain one
        elif char in STAND_INS:
            out.append(STAND_INS[char])
        elif unicodedata.category(char).startswith("M"):
            pass  # a mark with no composed letter ("q" + U+0303): the letter is drawn bare, with no "?" after
        else:
            # Accents stripped ("é" -> "e", "ñ" -> "n", "ç" -> "c"), compatibility forms unfolded ("ﬁ", "Ｔ").
            plain = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            out.append(plain if plain and all(drawable(c) for c in plain) else "?")
    return "".join(out)


def drawable_text(text: str) -> str:
    """``text`` as the pictures' font can write it, in the language in force: every text drawn on a picture
    goes through here. What the font has stays as it is (English is unchanged); a letter it lacks is written
    as the language's convention has it (German "ü" -> "ue"), else without its accent ("é" -> "e"), else as
    its usual ASCII stand-in ("œ" -> "oe", "–" -> "-"); anything else becomes "?"."""
    return _drawable_in(text, current_locale())


def draw_centered_text(
    draw: ImageDraw.ImageDraw,
    text: str,
    centre: Point,
    *,
    size: int,
    fill: Colour,
    max_width: float | None = None,
    bold: float = 0.06,
) -> None:
    """``text`` centred on ``centre``, emboldened with a stroke of ``bold`` times the size, narrowed to
    ``max_width`` by taking a smaller size."""
    text = drawable_text(text)
    while True:
        face = font(size)
        stroke = max(1, round(size * bold)) if bold else 0
        left, top, right, bottom = draw.textbbox((0, 0), text, font=face, stroke_width=stroke)
        if max_width is None or right - left <= max_width or size <= 8:
            break
        size = max(8, int(size * max_width / (right - left)))
    x = centre[0] - (left + right) / 2
    y = centre[1] - (top + bottom) / 2
    draw.text((x, y), text, font=face, fill=fill, stroke_width=stroke, stroke_fill=fill)


# --- whole pictures --------------------------------------------------------------------------------------


RANK_TEXT = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _canvas(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGBA", (width * SUPERSAMPLE, height * SUPERSAMPLE), (0, 0, 0, 0))
    return image, ImageDraw.Draw(image)


def _finish(image: Image.Image, width: int, height: int) -> Image.Image:
    return image.resize((width, height), Image.Resampling.LANCZOS)


def _card_outline(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill: Colour) -> None:
    width = box[2] - box[0]
    draw.rounded_rectangle(
        box, radius=width * 0.12, fill=fill, outline=INK, width=max(2, round(width * 0.035))
    )


def card_image(code: str, *, width: int, height: int, palette: Palette = FOUR_COLOUR) -> Image.Image:
    """A card face ``width`` × ``height`` pixels (transparent outside the card): the rank large in the top
    half and the suit large below it, both in the suit's colour, so the card reads at emoji size."""
    card = parse_card(code)
    rank, suit = rank_of(card), suit_of(card)
    colour = palette.of(suit)
    image, draw = _canvas(width, height)
    s = SUPERSAMPLE
    w, h = width * s, height * s
    _card_outline(draw, (s, s, w - s - 1, h - s - 1), PAPER)
    text = RANK_TEXT[rank]
    draw_centered_text(
        draw, text, (w / 2, h * 0.30), size=int(h * 0.40), fill=colour, max_width=w * 0.80, bold=0.035
    )
    pip = min(w * 0.56, h * 0.42)
    draw_suit(draw, suit, (w / 2 - pip / 2, h * 0.52, w / 2 + pip / 2, h * 0.52 + pip), colour)
    return _finish(image, width, height)


def back_image(*, width: int, height: int) -> Image.Image:
    """The card back: a blue card with a white frame, a lattice and an 8 in a white disc."""
    image, draw = _canvas(width, height)
    s = SUPERSAMPLE
    w, h = width * s, height * s
    _card_outline(draw, (s, s, w - s - 1, h - s - 1), PAPER)
    inset = w * 0.10
    inner = (inset, inset, w - inset, h - inset)
    draw.rounded_rectangle(inner, radius=w * 0.07, fill=BACK_BLUE)
    # A diagonal lattice, clipped to the inner panel by drawing it on its own layer.
    lattice = Image.new("L", image.size, 0)
    lines = ImageDraw.Draw(lattice)
    step = w * 0.16
    line_width = max(1, round(w * 0.025))
    k: float = -h
    while k < w + h:
        lines.line([(k, 0), (k + h, h)], fill=255, width=line_width)
        lines.line([(k + h, 0), (k, h)], fill=255, width=line_width)
        k += step
    panel = Image.new("L", image.size, 0)
    ImageDraw.Draw(panel).rounded_rectangle(inner, radius=w * 0.07, fill=255)
    mask = Image.composite(lattice, Image.new("L", image.size, 0), panel)
    image.paste(Image.new("RGBA", image.size, (*BACK_LIGHT, 255)), (0, 0), mask)
    r = w * 0.26
    cx, cy = w / 2, h / 2
    draw.ellipse(
        (cx - r, cy - r, cx + r, cy + r), fill=PAPER, outline=BACK_BLUE, width=max(1, round(w * 0.02))
    )
    draw_centered_text(draw, "8", (cx, cy), size=int(r * 1.5), fill=BACK_BLUE, bold=0.04)
    return _finish(image, width, height)


def suit_badge(suit: int, *, size: int, palette: Palette = FOUR_COLOUR) -> Image.Image:
    """A suit on a white rounded tile with a dark outline (a named suit, readable on either theme)."""
    image, draw = _canvas(size, size)
    s = SUPERSAMPLE
    full = size * s
    _card_outline(draw, (s, s, full - s - 1, full - s - 1), PAPER)
    pip = full * 0.62
    offset = (full - pip) / 2
    draw_suit(draw, suit, (offset, offset, offset + pip, offset + pip), palette.of(suit))
    return _finish(image, size, size)


# --- emoji-sized pictures, as PNG bytes -------------------------------------------------------------------


def png_bytes(
    image: Image.Image, *, optimize: bool = True, level: int = 6, strategy: int | None = None
) -> bytes:
    """PNG without timestamps or other varying chunks: the same picture gives the same bytes. ``optimize``
    (smallest file) is for pictures made once; it is slow. ``level``: zlib's effort otherwise, and
    ``strategy`` its matching (``zlib.Z_RLE``...; None: the default)."""
    out = io.BytesIO()
    if optimize:
        image.save(out, format="PNG", optimize=True)
    elif strategy is None:
        image.save(out, format="PNG", compress_level=level)
    else:
        image.save(out, format="PNG", compress_level=level, compress_type=strategy)
    return out.getvalue()


def card_emoji_png(code: str, palette: Palette = FOUR_COLOUR) -> bytes:
    """A card as a square emoji: the card (portrait) centred on a transparent 128 × 128 square."""
    card_width = round(EMOJI_SIZE * 0.78)
    face = card_image(card_code(parse_card(code)), width=card_width, height=EMOJI_SIZE, palette=palette)
    square = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (0, 0, 0, 0))
    square.paste(face, ((EMOJI_SIZE - card_width) // 2, 0))
    return png_bytes(square)


def back_emoji_png() -> bytes:
    card_width = round(EMOJI_SIZE * 0.78)
    back = back_image(width=card_width, height=EMOJI_SIZE)
    square = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (0, 0, 0, 0))
    square.paste(back, ((EMOJI_SIZE - card_width) // 2, 0))
    return png_bytes(square)


def suit_emoji_png(code: str, palette: Palette = FOUR_COLOUR) -> bytes:
    return png_bytes(suit_badge(parse_suit(code), size=EMOJI_SIZE, palette=palette))
