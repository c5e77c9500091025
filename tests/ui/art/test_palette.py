"""The default "four" card palette lets colour-blind players tell every suit apart, and stays readable.

README (settings): "`four` (spades black, hearts vermilion, diamonds blue, clubs bluish green ...), so that
red-green colour-blind players too tell every suit apart". Version 1 of the palette did not: its red hearts
(208, 32, 40) and green clubs (20, 128, 60) have nearly the same lightness, and red-green colour blindness
(protanopia, deuteranopia: the common kinds, about one man in twelve) merges exactly red and green; simulated,
they were 16 (protan) / 23 (deutan) CIELAB units apart, closer than the classic palette's red and black are.

The measure: each colour as a dichromat sees it (Machado, Oliveira & Fernandes 2009, severity 1, on linear
RGB), then CIELAB distance (CIE76). The floor for the two common kinds is the classic palette's red and black
as a protanope sees them (37 units): the pair the four colours exist to improve on, for the viewer who finds
it hardest (a deuteranope sees that pair 62 apart, mostly by lightness; no palette whose spades stay black
and whose colours keep 4:1 on white gets all six pairs that far apart: about 40 is the most there is). The
rarer tritanopes (blue-yellow) get a floor of 20 units, well past a difference seen at a glance. The card's
face is white paper and the rank and pip are drawn in the suit's colour, so each colour also keeps at least
4:1 contrast on white (WCAG's ratio; 3:1 is its minimum for large text and graphics); no suit colour is drawn
on the board's felt.
"""

from __future__ import annotations

import itertools

import pytest

from bot.ui.art.cards import CLASSIC, FOUR_COLOUR, INK, PALETTES, PAPER, Colour, Palette

SUITS = ("clubs", "diamonds", "hearts", "spades")  # the palette's order

# Machado et al. 2009, severity 1.0, applied to linear RGB.
SIMULATIONS = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
TRITAN_FLOOR = 20.0
MIN_CONTRAST_ON_THE_CARD = 4.0


def _linear(channel: float) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _simulated(rgb: Colour, kind: str) -> tuple[float, float, float]:
    lin = [_linear(c) for c in rgb]
    r, g, b = (
        min(1.0, max(0.0, sum(m * v for m, v in zip(row, lin, strict=True)))) for row in SIMULATIONS[kind]
    )
    return r, g, b


def _lab(lin: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = lin
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _distance(a: Colour, b: Colour, kind: str) -> float:
    la, lb = (_lab(_simulated(c, kind)) for c in (a, b))
    return float(sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5)


def _contrast(a: Colour, b: Colour) -> float:
    def luminance(c: Colour) -> float:
        r, g, b = (_linear(v) for v in c)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _floor(kind: str) -> float:
    if kind == "tritanopia":
        return TRITAN_FLOOR
    return _distance(CLASSIC.of(2), CLASSIC.of(3), "protanopia")  # red and black, for a protanope


@pytest.mark.parametrize("kind", sorted(SIMULATIONS))
def test_every_pair_of_suits_stays_apart_for_colour_blind_players(kind: str) -> None:
    """No two suits of the "four" palette closer, for this viewer, than the floor (module docstring)."""
    floor = _floor(kind)
    closest = min(
        (_distance(FOUR_COLOUR.of(i), FOUR_COLOUR.of(j), kind), SUITS[i], SUITS[j])
        for i, j in itertools.combinations(range(4), 2)
    )
    assert closest[0] >= floor, (
        f"{kind}: {closest[1]} and {closest[2]} are {closest[0]:.1f} apart (CIELAB), below {floor:.1f}"
    )


def test_the_floor_is_what_the_classic_palette_gives_protanopes() -> None:
    """Guards the measure itself: version 1's hearts and clubs fall below it, the classic pair sits on it."""
    floor = _floor("protanopia")
    assert 36 < floor < 38
    assert _distance((208, 32, 40), (20, 128, 60), "protanopia") < 20  # version 1: hearts and clubs
    assert _distance((208, 32, 40), (20, 128, 60), "deuteranopia") < 25


@pytest.mark.parametrize("palette", PALETTES.values(), ids=PALETTES.keys())
def test_every_suit_reads_on_the_white_card(palette: Palette) -> None:
    """The rank and the pip are drawn in the suit's colour on the white face: at least 4:1 for everyone."""
    for suit, colour in zip(SUITS, palette.suits, strict=True):
        assert _contrast(colour, PAPER) >= MIN_CONTRAST_ON_THE_CARD, (suit, colour, _contrast(colour, PAPER))


def test_the_four_colours_are_the_ones_the_readme_names() -> None:
    """Spades in the ink; clubs, diamonds and hearts green, blue and red-orange first (their strongest
    channel), so that a player with full colour vision reads them as the usual four-colour deck."""
    clubs, diamonds, hearts, spades = FOUR_COLOUR.suits
    assert spades == INK
    assert max(range(3), key=lambda i: clubs[i]) == 1
    assert max(range(3), key=lambda i: diamonds[i]) == 2
    assert max(range(3), key=lambda i: hearts[i]) == 0
    assert len(set(FOUR_COLOUR.suits)) == 4
