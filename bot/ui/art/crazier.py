"""The faces of the ``crazier-abilities`` cards, drawn with Pillow from vector shapes (no font glyphs).

A face is the card filled with its colour — blue, green, orange, purple — with the rank large in white, the
colour's suit symbol (moon, ankh, sun, eye) in white below it, and the card's name on a white plate at the
bottom (on the board, in the language in force). Aces are cut diagonally into their two colours and show both
symbols; 8s sit in a dark frame and say WILD. The colour fills the card because colour is what a discard must
match, and it must read at emoji size; the symbol tells the colours apart for players who cannot see them.

Three levels of detail, one drawing: ``emoji`` (the 128-pixel emoji: a one-word name, since anything longer is
unreadable there), ``full`` (the board's top card: the whole name, on up to two lines) and ``mini`` (no name:
the board writes it beside the card, at a size that reads). The colours do not
depend on the standard cards' palette: these are the same in every palette.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

from PIL import Image, ImageDraw

from bot.engine.crazier.deck import COLOURS, colours_of, rank_of, row_of
from bot.i18n import N_, _, pgettext
from bot.ui.art.cards import (
    EMOJI_SIZE,
    INK,
    PAPER,
    SUPERSAMPLE,
    Colour,
    draw_centered_text,
    png_bytes,
)

Detail = Literal["mini", "emoji", "full"]
Box = tuple[float, float, float, float]

#: Each colour dark enough for white text on it (contrast 3:1 or more), and apart in hue.
COLOUR_INKS: dict[str, Colour] = {
    "B": (30, 90, 210),
    "G": (20, 130, 60),
    "O": (215, 100, 10),
    "P": (140, 40, 160),
}
FRAME = (18, 18, 22)  # the 8s' dark frame
WHITE = (255, 255, 255)

#: What the emoji's plate says: one word, readable at 128 pixels (the board card has the whole name).
SHORT_NAMES = {
    "2": "Knowledge",
    "3": "Potion",
    "4": "Princess",
    "5": "Angel",
    "6": "Castle",
    "7": "Resurrect",
    "8": "WILD",
    "9": "Death",
    "10": "Crown",
    "J": "Dragon",
    "Q": "Mordred",
    "K": "Arthur",
}


def face_name(card: str, detail: Detail) -> str:
    """The name the face shows ("" for an Ace, which has none): on the board's top card (``full``), in the
    language in force; on an emoji, in English (the emojis are uploaded once, for every server)."""
    rank = rank_of(card)
    if rank == "A" or detail == "mini":
        return ""
    if detail == "emoji":
        return SHORT_NAMES[rank]
    if rank == "8":
        # TRANSLATORS: what the top card of the Crazier Eights board says on an 8 (a wild card), in capitals.
        return pgettext("picture", "WILD")
    return _(row_of(card).name)


def name_lines(name: str) -> list[str]:
    """The name on one line, or two lines as even as the words allow."""
    words = name.split()
    if len(words) < 2:
        return [name] if name else []
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    first, second = min(splits, key=lambda pair: max(len(pair[0]), len(pair[1])))
    return [first, second]


# --- the suit symbols, drawn on a mask so that they lie on any background ---------------------------------


def _moon(draw: ImageDraw.ImageDraw, size: float) -> None:
    # A crescent: a disc with an offset disc cut out of it.
    draw.ellipse((0, 0, size, size), fill=255)
    draw.ellipse((size * 0.30, -size * 0.08, size * 1.14, size * 0.80), fill=0)


def _ankh(draw: ImageDraw.ImageDraw, size: float) -> None:
    # A loop on a cross: an oval ring, a bar, and a stem that widens downwards.
    ring = size * 0.11
    draw.ellipse((size * 0.27, 0, size * 0.73, size * 0.46), fill=255)
    draw.ellipse((size * 0.27 + ring, ring, size * 0.73 - ring, size * 0.46 - ring), fill=0)
    draw.rectangle((size * 0.12, size * 0.42, size * 0.88, size * 0.54), fill=255)
    draw.polygon(
        [(size * 0.44, size * 0.50), (size * 0.56, size * 0.50), (size * 0.62, size), (size * 0.38, size)],
        fill=255,
    )


def _sun(draw: ImageDraw.ImageDraw, size: float) -> None:
    # A disc with twelve pointed rays.
    c = size / 2
    rays = 12
    for i in range(rays):
        angle = 2 * math.pi * i / rays
        half = math.pi / rays * 0.55
        draw.polygon(
            [
                (c + size * 0.50 * math.cos(angle), c + size * 0.50 * math.sin(angle)),
                (c + size * 0.30 * math.cos(angle + half), c + size * 0.30 * math.sin(angle + half)),
                (c + size * 0.30 * math.cos(angle - half), c + size * 0.30 * math.sin(angle - half)),
            ],
            fill=255,
        )
    r = size * 0.30
    draw.ellipse((c - r, c - r, c + r, c + r), fill=255)


def _lens(size: float, top: float, bottom: float, steps: int = 24) -> list[tuple[float, float]]:
    """An almond between two arcs, from the left corner to the right, over ``top`` and under ``bottom``."""
    upper = [(size * i / steps, size / 2 - top * math.sin(math.pi * i / steps)) for i in range(steps + 1)]
    lower = [
        (size * i / steps, size / 2 + bottom * math.sin(math.pi * i / steps)) for i in range(steps, -1, -1)
    ]
    return upper + lower


def _eye(draw: ImageDraw.ImageDraw, size: float) -> None:
    # An almond outline with a round iris and a pupil cut out of it.
    draw.polygon(_lens(size, size * 0.36, size * 0.36), fill=255)
    inset = size * 0.10
    inner = [
        (x * 0.8 + inset, size / 2 + (y - size / 2) * 0.62) for x, y in _lens(size, size * 0.36, size * 0.36)
    ]
    draw.polygon(inner, fill=0)
    c, r = size / 2, size * 0.19
    draw.ellipse((c - r, c - r, c + r, c + r), fill=255)
    p = size * 0.075
    draw.ellipse((c - p, c - p, c + p, c + p), fill=0)


SYMBOLS: dict[str, Callable[[ImageDraw.ImageDraw, float], None]] = {
    "B": _moon,
    "G": _ankh,
    "O": _sun,
    "P": _eye,
}
SYMBOL_NAMES = {"B": N_("moon"), "G": N_("ankh"), "O": N_("sun"), "P": N_("eye")}


def draw_symbol(image: Image.Image, colour: str, box: Box, fill: Colour) -> None:
    """The suit symbol of ``colour`` ("B", "G", "O", "P") filling the square ``box``, in ``fill``."""
    left, top, right, _ = box
    size = right - left
    mask = Image.new("L", (math.ceil(size), math.ceil(size)), 0)
    SYMBOLS[colour](ImageDraw.Draw(mask), size)
    image.paste(Image.new("RGBA", mask.size, (*fill, 255)), (round(left), round(top)), mask)


# --- whole faces --------------------------------------------------------------------------------------------


def _rounded_mask(size: tuple[int, int], box: Box, radius: float) -> Image.Image:
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle(box, radius=radius, fill=255)
    return mask


def crazier_card_image(card: str, *, width: int, height: int, detail: Detail = "emoji") -> Image.Image:
    """The face of ``card`` (a canonical code: "KB", "10G", "AO", "8P"), ``width`` × ``height`` pixels,
    transparent outside the card."""
    s = SUPERSAMPLE
    w, h = width * s, height * s
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    rank = rank_of(card)
    colours = colours_of(card)
    outline = max(2, round(w * 0.035))
    card_box = (s, s, w - s - 1, h - s - 1)
    radius = w * 0.12
    # The body: the card's colour, or an Ace's two colours cut along the diagonal (its own top left).
    body = Image.new("RGBA", (w, h), (*COLOUR_INKS[colours[0]], 255))
    if len(colours) == 2:
        ImageDraw.Draw(body).polygon([(w, 0), (w, h), (0, h)], fill=(*COLOUR_INKS[colours[1]], 255))
    image.paste(body, (0, 0), _rounded_mask((w, h), card_box, radius))
    if rank == "8":
        # The wild cards' dark frame: the colour shows inside it.
        frame = w * 0.11
        draw.rounded_rectangle(card_box, radius=radius, outline=FRAME, width=round(frame))
    draw.rounded_rectangle(card_box, radius=radius, outline=INK, width=outline)

    name = face_name(card, detail)
    lines = name_lines(name) if detail == "full" else ([name] if name else [])
    if rank == "A":
        pip = w * 0.32
        first, second = (w * 0.28, h * 0.24), (w * 0.72, h * 0.76)
        for (cx, cy), colour in zip((first, second), colours, strict=True):
            draw_symbol(image, colour, (cx - pip / 2, cy - pip / 2, cx + pip / 2, cy + pip / 2), WHITE)
        _rank(draw, "A", (w / 2, h / 2), size=int(h * 0.34), width=w)
        return image.resize((width, height), Image.Resampling.LANCZOS)

    plate_height = h * (0.14 if len(lines) < 2 else 0.24) if lines else 0.0
    plate_top = h * 0.93 - plate_height
    _rank(draw, rank, (w / 2, h * 0.22), size=int(h * 0.28), width=w)
    pip = min(w * (0.42 if lines else 0.56), plate_top - h * 0.42)
    centre_y = (h * 0.40 + plate_top) / 2
    draw_symbol(
        image, colours[0], (w / 2 - pip / 2, centre_y - pip / 2, w / 2 + pip / 2, centre_y + pip / 2), WHITE
    )
    if not lines:
        return image.resize((width, height), Image.Resampling.LANCZOS)
    plate = (w * 0.14 if rank == "8" else w * 0.09, plate_top, w * (0.86 if rank == "8" else 0.91), h * 0.93)
    draw.rounded_rectangle(plate, radius=plate_height * 0.3, fill=PAPER)
    line_height = plate_height / max(1, len(lines))
    for i, line in enumerate(lines):
        draw_centered_text(
            draw,
            line,
            (w / 2, plate_top + line_height * (i + 0.5)),
            size=int(line_height * 0.72),
            fill=INK,
            max_width=(plate[2] - plate[0]) * 0.90,
            bold=0.04,
        )
    return image.resize((width, height), Image.Resampling.LANCZOS)


def _rank(
    draw: ImageDraw.ImageDraw, text: str, centre: tuple[float, float], *, size: int, width: float
) -> None:
    # White with a dark rim: legible on all four colours and on the Aces' diagonal.
    draw_centered_text(draw, text, centre, size=size, fill=INK, max_width=width * 0.62, bold=0.10)
    draw_centered_text(draw, text, centre, size=size, fill=WHITE, max_width=width * 0.62, bold=0.035)


def colour_badge(colour: str, *, size: int) -> Image.Image:
    """A colour as a badge: a disc of the colour with its symbol in white (the colour to follow)."""
    s = SUPERSAMPLE
    full = size * s
    image = Image.new("RGBA", (full, full), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse(
        (s, s, full - s - 1, full - s - 1), fill=COLOUR_INKS[colour], outline=INK, width=max(2, 3 * s)
    )
    pip = full * 0.56
    offset = (full - pip) / 2
    draw_symbol(image, colour, (offset, offset, offset + pip, offset + pip), WHITE)
    return image.resize((size, size), Image.Resampling.LANCZOS)


# --- emoji-sized pictures ----------------------------------------------------------------------------------


def crazier_emoji_png(card: str) -> bytes:
    """A card as a square emoji: the card (portrait) centred on a transparent 128 × 128 square."""
    card_width = round(EMOJI_SIZE * 0.78)
    face = crazier_card_image(card, width=card_width, height=EMOJI_SIZE, detail="emoji")
    square = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (0, 0, 0, 0))
    square.paste(face, ((EMOJI_SIZE - card_width) // 2, 0))
    return png_bytes(square)


def colour_emoji_png(colour: str) -> bytes:
    if colour not in COLOURS:
        raise ValueError(f"not a colour: {colour!r}")
    return png_bytes(colour_badge(colour, size=EMOJI_SIZE))
