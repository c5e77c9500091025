"""A player's rating over their last rated matches, as a small line chart for /eights stats.

The line is the displayed skill (mu − 3·sigma) after each match, oldest on the left; a dot marks each match,
the last one larger; a dashed line marks 0, where every new player starts; the lowest and highest values are
written at the left edge. ``alt_text`` says the same in words, for the attachment's description.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.i18n import _, decimal
from bot.ui.art.cards import font, png_bytes

WIDTH, HEIGHT = 480, 160
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_Y = 56, 16, 18
SCALE = 2  # drawn at twice the size and scaled down: smooth lines without Pillow's antialiasing
MAX_ALT_TEXT = 1024  # Discord's limit on an attachment's description

BACKGROUND = (43, 45, 49)
GRID = (88, 92, 99)
LINE = (87, 242, 135)
LAST = (240, 178, 50)
TEXT = (220, 221, 222)


def _points(history: Sequence[float]) -> tuple[list[tuple[float, float]], float, float]:
    low, high = min(0.0, *history), max(0.0, *history)
    if high - low < 1.0:  # a flat line still gets some height
        high, low = high + 0.5, low - 0.5
    top, bottom = MARGIN_Y, HEIGHT - MARGIN_Y
    left, right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    step = (right - left) / max(1, len(history) - 1)
    points = [
        (left + i * step if len(history) > 1 else (left + right) / 2,
         bottom - (value - low) / (high - low) * (bottom - top))
        for i, value in enumerate(history)
    ]  # fmt: skip
    return points, low, high


def rating_chart(history: Sequence[float]) -> bytes:
    """The chart of ``history`` (at least one value) as PNG bytes; the same history gives the same bytes."""
    if not history:
        raise ValueError("no rated match to draw")
    points, low, high = _points(history)
    image = Image.new("RGB", (WIDTH * SCALE, HEIGHT * SCALE), BACKGROUND)
    draw = ImageDraw.Draw(image)

    def at(point: tuple[float, float]) -> tuple[float, float]:
        return point[0] * SCALE, point[1] * SCALE

    zero = HEIGHT - MARGIN_Y - (0 - low) / (high - low) * (HEIGHT - 2 * MARGIN_Y)
    for dash in range(MARGIN_LEFT, WIDTH - MARGIN_RIGHT, 12):
        draw.line([at((dash, zero)), at((dash + 6, zero))], fill=GRID, width=SCALE)
    text = font(12 * SCALE)
    for value, label_y in ((high, MARGIN_Y), (low, HEIGHT - MARGIN_Y)):
        draw.text(at((MARGIN_LEFT - 8, label_y)), decimal(value), font=text, fill=TEXT, anchor="rm")
    if len(points) > 1:
        draw.line([at(p) for p in points], fill=LINE, width=3 * SCALE, joint="curve")
    for point, radius, colour in [(p, 3, LINE) for p in points[:-1]] + [(points[-1], 5, LAST)]:
        x, y = at(point)
        r = radius * SCALE
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    return png_bytes(image.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS), optimize=False)


def alt_text(history: Sequence[float]) -> str:
    """The chart in words: how many matches, where the rating went, its range."""
    if not history:
        return _("No rated match yet.")
    first, last = decimal(history[0]), decimal(history[-1])
    if len(history) == 1:  # its one point is the rating after it (every player starts at 0)
        text = _("Rating after 1 rated match: {last}", last=last)
    else:
        low, high = decimal(min(history)), decimal(max(history))
        text = _(
            "Rating over the last {n} rated matches: from {first} to {last}, lowest {low}, highest {high}",
            n=len(history),
            first=first,
            last=last,
            low=low,
            high=high,
        )
    return (text + ".")[:MAX_ALT_TEXT]
