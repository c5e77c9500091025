"""The board's PNG written band by band (bot.ui.art.png_bands): the same pixels and palette as the picture,
whether its bands were compressed now or served from the cache, and a checksum that zlib accepts."""

from __future__ import annotations

import io
import random
import zlib

import pytest
from PIL import Image

from bot.ui.art import png_bands


def picture(seed: int, height: int = 450) -> Image.Image:
    """A palette picture with flat areas and noise, as a board has (felt, cards, text edges)."""
    rng = random.Random(seed)
    image = Image.new("P", (800, height), 3)
    image.putpalette(bytes(rng.randrange(256) for _ in range(255 * 3)))
    for _ in range(40):
        x, y = rng.randrange(780), rng.randrange(height - 20)
        image.paste(rng.randrange(255), (x, y, x + rng.randint(1, 20), y + rng.randint(1, 20)))
    return image


def decoded(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()  # checks the stream's Adler-32 and the chunks' CRCs
    return image


@pytest.fixture(autouse=True)
def cold_cache() -> None:
    png_bands.forget()


def framed(image: Image.Image) -> Image.Image:
    """``image`` with one more column on its left, index 0: the filter bytes ``framed_png`` reads."""
    frame = Image.new("P", (image.width + 1, image.height), 0)
    frame.putpalette(image.getpalette() or [])
    frame.paste(image, (1, 0))
    return frame


def test_the_png_shows_the_pictures_pixels_and_palette_cold_and_from_the_cache() -> None:
    image = picture(1, height=451)  # a last band shorter than the others
    cold = png_bands.framed_png(framed(image))
    warm = png_bands.framed_png(framed(image))
    assert cold == warm
    shown = decoded(cold)
    assert shown.mode == "P" and shown.size == image.size
    assert shown.tobytes() == image.tobytes()
    assert shown.getpalette() == image.getpalette()
    # Pillow writes the same pixels and palette.
    written = io.BytesIO()
    image.save(written, "PNG")
    pillows = decoded(written.getvalue())
    assert pillows.tobytes() == shown.tobytes() and pillows.getpalette() == shown.getpalette()


def test_a_changed_band_is_compressed_again_and_the_rest_reused() -> None:
    image = framed(picture(2))
    png_bands.framed_png(image)
    kept = len(png_bands._bands)
    moved = image.copy()
    moved.paste(200, (101, 200, 141, 205))  # inside one band
    shown = decoded(png_bands.framed_png(moved))
    assert shown.tobytes() == moved.crop((1, 0, 801, 450)).tobytes() != image.crop((1, 0, 801, 450)).tobytes()
    assert len(png_bands._bands) == kept + 1


def test_adler32_combine_is_zlibs() -> None:
    rng = random.Random(3)
    for _ in range(50):
        first = bytes(rng.randrange(256) for _ in range(rng.randint(0, 5000)))
        second = bytes(rng.randrange(256) for _ in range(rng.randint(0, 70000)))
        assert png_bands.adler32_combine(
            zlib.adler32(first), zlib.adler32(second), len(second)
        ) == zlib.adler32(first + second)


def test_only_palette_pictures() -> None:
    with pytest.raises(ValueError):
        png_bands.framed_png(Image.new("RGB", (9, 8)))


@pytest.mark.parametrize(("width", "height"), [(800, 450), (800, 451), (1, 1), (3, 7)])
def test_the_pixels_read_in_one_piece_are_pillows(width: int, height: int) -> None:
    image = picture(5, height=max(height, 21)).crop((0, 0, width, height))
    assert png_bands._pixels(image) == image.tobytes()
    assert len(png_bands._pixels(image)) == width * height
