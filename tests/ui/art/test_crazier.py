"""The Crazier Eights faces and their emojis: every card drawn and different, each in its colours (sampled
pixels), both colours on the Aces, a dark frame on the 8s, four symbols that differ, names Discord accepts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from bot.engine.crazier.deck import COLOURS, DECK, RANK_ROWS, colours_of
from bot.ui.art.cards import CLASSIC, FOUR_COLOUR
from bot.ui.art.crazier import (
    COLOUR_INKS,
    FRAME,
    SHORT_NAMES,
    SYMBOLS,
    crazier_card_image,
    face_name,
    name_lines,
)
from bot.ui.art.emoji_set import (
    CRAZIER_KEYS,
    MAX_EMOJI_BYTES,
    NAME_PATTERN,
    EmojiSet,
    all_keys,
    crazier_card_key,
    crazier_colour_key,
    draw,
    emoji_name,
)

Colour = tuple[int, int, int]
CARD_WIDTH, CARD_LEFT = 100, 14  # the card inside the 128 × 128 emoji


@pytest.fixture(scope="module")
def emojis() -> dict[str, Image.Image]:
    return {card: Image.open(io.BytesIO(draw(crazier_card_key(card)))).convert("RGBA") for card in DECK}


def at(image: Image.Image, x: float, y: float) -> Colour:
    """The pixel at (x, y) given as fractions of the card inside the emoji."""
    r, g, b, _ = image.getpixel((CARD_LEFT + round(x * CARD_WIDTH), round(y * 128)))  # type: ignore[misc]
    return (r, g, b)


def near(colour: Colour, expected: Colour, tolerance: int = 6) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, expected, strict=True))


def test_every_face_is_an_emoji_discord_accepts_and_all_52_differ() -> None:
    pngs = {card: draw(crazier_card_key(card)) for card in DECK}
    assert len(pngs) == 52 and len(set(pngs.values())) == 52
    for card, png in pngs.items():
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) <= MAX_EMOJI_BYTES, card
        image = Image.open(io.BytesIO(png))
        assert image.size == (128, 128) and image.mode == "RGBA", card
        assert image.getchannel("A").getpixel((0, 0)) == 0, card  # a card, not a square


def test_the_four_colours_are_what_they_are_called_and_far_apart() -> None:
    blue, green, orange, purple = (COLOUR_INKS[c] for c in COLOURS)
    assert blue[2] > max(blue[:2]) and green[1] > max(green[0], green[2])
    assert orange[0] > orange[1] > orange[2] and min(purple[0], purple[2]) > purple[1]
    for a in COLOURS:
        for b in COLOURS:
            if a < b:
                distance = sum((x - y) ** 2 for x, y in zip(COLOUR_INKS[a], COLOUR_INKS[b], strict=True))
                assert distance**0.5 > 100, (a, b)
    # White text reads on each (WCAG contrast of 3:1 at least, for large text).
    for colour, rgb in COLOUR_INKS.items():
        channels = [c / 255 for c in rgb]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        assert 1.05 / (luminance + 0.05) >= 3, colour


def test_every_card_is_filled_with_its_colour(emojis: dict[str, Image.Image]) -> None:
    for card, image in emojis.items():
        colour = colours_of(card)[0]
        # The body left of the symbol, below the rank: the card's (first) colour, inside any frame.
        assert near(at(image, 0.16, 0.45), COLOUR_INKS[colour]), card
        # The symbol, in white, in the middle of every card but the Aces (theirs are in two corners).
        if not card.startswith("A"):
            symbol = [at(image, 0.5, y / 100) for y in range(40, 72)]
            assert any(near(pixel, (255, 255, 255)) for pixel in symbol), card


def test_aces_show_both_their_colours_and_both_symbols(emojis: dict[str, Image.Image]) -> None:
    for colour in COLOURS:
        card = "A" + colour
        own, following = colours_of(card)
        assert following == COLOURS[(COLOURS.index(colour) + 1) % 4]
        image = emojis[card]
        assert near(at(image, 0.08, 0.55), COLOUR_INKS[own]), card  # top left of the diagonal
        assert near(at(image, 0.92, 0.45), COLOUR_INKS[following]), card  # bottom right
        # Each half carries a white symbol.
        top_left = [at(image, x / 100, y / 100) for x in range(16, 40) for y in range(16, 32)]
        bottom_right = [at(image, x / 100, y / 100) for x in range(60, 84) for y in range(68, 84)]
        assert any(near(p, (255, 255, 255)) for p in top_left), card
        assert any(near(p, (255, 255, 255)) for p in bottom_right), card


def test_only_the_eights_have_the_dark_frame(emojis: dict[str, Image.Image]) -> None:
    for card, image in emojis.items():
        edge = [at(image, 0.07, y / 100) for y in (30, 50, 70)]
        if card.startswith("8"):
            assert all(near(pixel, FRAME, 10) for pixel in edge), card
        else:
            assert not any(near(pixel, FRAME, 40) for pixel in edge), card


def test_the_four_symbols_are_different_shapes() -> None:
    masks = {}
    for colour, symbol in SYMBOLS.items():
        mask = Image.new("L", (64, 64), 0)
        symbol(ImageDraw.Draw(mask), 64)
        masks[colour] = {i for i, value in enumerate(mask.tobytes()) if value > 127}
        assert len(masks[colour]) > 400, colour  # a real shape, not a speck
    for a in COLOURS:
        for b in COLOURS:
            if a < b:
                overlap = len(masks[a] & masks[b]) / len(masks[a] | masks[b])
                assert overlap < 0.7, (a, b, overlap)


def test_names_one_word_on_the_emoji_whole_on_the_board_card() -> None:
    for rank, row in RANK_ROWS.items():
        card = rank + "B"
        if rank == "A":
            assert face_name(card, "emoji") == face_name(card, "full") == ""
            continue
        short = face_name(card, "emoji")
        assert short == SHORT_NAMES[rank] and " " not in short and len(short) <= 9
        assert face_name(card, "full") == ("WILD" if rank == "8" else row.name)
        assert face_name(card, "mini") == ""
    assert name_lines("Forbidden Knowledge") == ["Forbidden", "Knowledge"]
    assert name_lines("Potion of Vitality") == ["Potion of", "Vitality"]
    assert name_lines("Castle") == ["Castle"]


def test_the_board_card_differs_from_the_emoji_by_its_name() -> None:
    # At the same size, the full face (two lines: Forbidden / Knowledge) is not the emoji's (Knowledge).
    full = crazier_card_image("2G", width=100, height=128, detail="full").tobytes()
    emoji = crazier_card_image("2G", width=100, height=128, detail="emoji").tobytes()
    assert full != emoji
    # A name of one word is the same on both.
    castle_full = crazier_card_image("6G", width=100, height=128, detail="full").tobytes()
    assert castle_full == crazier_card_image("6G", width=100, height=128, detail="emoji").tobytes()


def test_colour_badges_are_the_colour_with_its_symbol() -> None:
    for colour in COLOURS:
        image = Image.open(io.BytesIO(draw(crazier_colour_key(colour)))).convert("RGBA")
        assert image.size == (128, 128)
        r, g, b, _ = image.getpixel((20, 64))  # type: ignore[misc]
        assert near((r, g, b), COLOUR_INKS[colour]), colour
        assert image.getchannel("A").getpixel((0, 0)) == 0


def test_the_emoji_set_names_are_valid_unique_and_apart_from_the_standard_set() -> None:
    keys = all_keys()
    assert len(keys) == len(set(keys)) == 57 + 52 + 4
    assert len(CRAZIER_KEYS) == 56 and set(CRAZIER_KEYS) <= set(keys)
    names = {palette.name: [emoji_name(key, palette) for key in keys] for palette in (FOUR_COLOUR, CLASSIC)}
    for listed in names.values():
        assert len(set(listed)) == len(listed)
        assert all(NAME_PATTERN.fullmatch(name) for name in listed)
    assert emoji_name(crazier_card_key("KB")) == "e8z1_KB"
    assert emoji_name(crazier_colour_key("P")) == "e8z1_cP"
    # The same Crazier names in every palette (same pictures), apart from every standard name.
    crazier = {emoji_name(key, FOUR_COLOUR) for key in CRAZIER_KEYS}
    assert crazier == {emoji_name(key, CLASSIC) for key in CRAZIER_KEYS}
    standard = {emoji_name(key, p) for p in (FOUR_COLOUR, CLASSIC) for key in keys if key not in CRAZIER_KEYS}
    assert not crazier & standard
    # Everything the bot can ever upload at these versions, both palettes included, is far below Discord's
    # 2,000 application emojis.
    assert len(crazier | standard) == 170 <= 2000


def test_the_crazier_faces_are_cached_once_for_every_palette(tmp_path: Path) -> None:
    calls: list[str] = []

    def drawer(key: str, palette: object) -> bytes:
        calls.append(key)
        return draw(key)

    list(EmojiSet(tmp_path, drawer=drawer))
    assert len(calls) == 113
    assert len(list((tmp_path / "z1").iterdir())) == 56
    calls.clear()
    classic = {art.key: art for art in EmojiSet(tmp_path, CLASSIC, drawer=drawer)}
    assert sorted(calls) == sorted(key for key in all_keys() if key not in CRAZIER_KEYS)
    assert classic[crazier_card_key("9B")].name == "e8z1_9B"
    assert classic[crazier_card_key("9B")].png == draw(crazier_card_key("9B"))
