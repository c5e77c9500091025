"""PNG writing for the board pictures, band by band: most of a board is the same from one move to the next.

A palette picture's rows are cut in bands of ``BAND_ROWS``; each band's rows (filter byte 0, as Pillow writes
a palette PNG) are deflated on their own (a full flush, so the pieces join into one valid stream) and kept,
keyed by the band's pixels, in a small cache shared by every board: a band that did not change (the felt
above the seats, a seat that did not move, the same band at another table) is not compressed again. The
key is the pixels' CRC-32 and Adler-32 by zlib-ng (64 bits; about 0.4 us a band, where Python's own hash of
a fresh slice took 4.5). The zlib stream's Adler-32 is combined from the bands' (``adler32_combine``, as
zlib's own), so an unchanged band costs its checksums and a copy. The bands are deflated by zlib-ng (the
``zlib-ng`` package): the same deflate format, and at level 1 (its "quick" strategy) 2.7 times as fast as
zlib's level 1 on these bands for 12% more bytes (14 against 37 us a band, bench/art.py): a move changes
about 13 of the 30 bands. A board is composed framed (``framed_png``): its rows hold their filter bytes
already, so a new band is deflated where it lies.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image
from zlib_ng import zlib_ng

from bot.ui.art.kept import Kept

BAND_ROWS = 15  # 30 bands on an 800 × 450 board: about 12 kB of pixels each
LEVEL = 1  # zlib's effort (see bot.ui.art.board.PNG_LEVEL)
# About 1.8 kB of deflate each: measured full in bench/soak.py, 14.3 MiB of deflate and ~18 MiB with the keys
# and the map (the process's largest kept part; full after ~4 minutes of the soak's 14 tables).
CACHE_BANDS = 8192
_ADLER_BASE = 65521
_FINAL_BLOCK = b"\x03\x00"  # an empty final block (fixed Huffman): ends the joined stream

# (CRC-32, Adler-32, length, framed) of a band's pixels (a false match needs two different bands alike in
# both checksums among the few thousand kept) -> (deflate bytes, Adler-32 of the filtered rows, their length)
_bands: Kept[tuple[int, int, int, bool], tuple[bytes, int, int]] = Kept(CACHE_BANDS)


def forget() -> None:
    """Drop the kept bands (benchmarks, tests)."""
    _bands.clear()


def adler32_combine(adler1: int, adler2: int, length2: int) -> int:
    """The Adler-32 of two pieces joined, from theirs (zlib's ``adler32_combine``)."""
    rem = length2 % _ADLER_BASE
    sum1 = adler1 & 0xFFFF
    sum2 = (rem * sum1) % _ADLER_BASE
    sum1 += (adler2 & 0xFFFF) + _ADLER_BASE - 1
    sum2 += (adler1 >> 16) + (adler2 >> 16) + _ADLER_BASE - rem
    if sum1 >= _ADLER_BASE:
        sum1 -= _ADLER_BASE
    if sum1 >= _ADLER_BASE:
        sum1 -= _ADLER_BASE
    if sum2 >= _ADLER_BASE << 1:
        sum2 -= _ADLER_BASE << 1
    if sum2 >= _ADLER_BASE:
        sum2 -= _ADLER_BASE
    return sum1 | (sum2 << 16)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _band(pixels: bytes | memoryview, width: int) -> tuple[bytes, int, int]:
    """A band's rows with their filter bytes, deflated alone (byte-aligned at its end) and checksummed."""
    rows = bytearray()
    for start in range(0, len(pixels), width):
        rows += b"\0"
        rows += pixels[start : start + width]
    deflate = zlib_ng.compressobj(LEVEL, zlib_ng.DEFLATED, -15)
    data = deflate.compress(rows) + deflate.flush(zlib_ng.Z_FULL_FLUSH)
    return data, zlib_ng.adler32(rows), len(rows)


def _framed_band(rows: memoryview, adler: int) -> tuple[bytes, int, int]:
    """A framed band (its rows carry their filter bytes already), deflated alone; ``adler``: its Adler-32."""
    deflate = zlib_ng.compressobj(LEVEL, zlib_ng.DEFLATED, -15)
    return deflate.compress(rows) + deflate.flush(zlib_ng.Z_FULL_FLUSH), adler, len(rows)


def _pixels(image: Image.Image) -> bytes:
    """``image.tobytes()`` in one piece. Pillow's ``tobytes`` encodes in 64 kB pieces and joins them; on a
    board (360 kB) that took 0.35 ms, most of it page faults of freshly mapped memory, against 0.012 ms for
    one piece (bench/art.py)."""
    image.load()
    encoder = Image._getencoder(image.mode, "raw", image.mode)
    try:
        encoder.setimage(image.im, (0, 0, *image.size))
        pieces = []
        while True:  # one round for a palette picture, whose raw size is the buffer's
            _, status, data = encoder.encode(image.width * image.height)
            pieces.append(data)
            if status:
                break
    finally:
        encoder.cleanup()
    if status < 0:
        raise RuntimeError(f"encoder error {status} reading the picture's pixels")
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def palette_png(image: Image.Image) -> bytes:
    """``image`` (mode "P", 8 bits) as a PNG: the same pixels as Pillow writes, with no varying chunks."""
    _check(image)
    pixels = memoryview(_pixels(image))  # bands are looked at in place, copied only when new
    return _png(image, image.width, pixels, image.width * BAND_ROWS, False)


def framed_png(image: Image.Image) -> bytes:
    """A framed picture as a PNG: ``image`` (mode "P") is the picture with one more column on its left,
    all 0. Each of its rows then starts with PNG's filter byte (0: none), so its bytes are the PNG's rows
    as they are: a new band is deflated in place, with no copy to add the filter bytes (bench/art.py: the
    PNG after a move about a fifth cheaper)."""
    _check(image)
    pixels = memoryview(_pixels(image))
    return _png(image, image.width - 1, pixels, image.width * BAND_ROWS, True)


def _check(image: Image.Image) -> None:
    if image.mode != "P":
        raise ValueError("palette pictures only")


def _png(image: Image.Image, width: int, pixels: memoryview, band_bytes: int, framed: bool) -> bytes:
    pieces = [b"\x78\x01"]  # zlib header: deflate, 32 kB window, fastest
    adler = 1
    for start in range(0, len(pixels), band_bytes):
        band = pixels[start : start + band_bytes]
        band_adler = zlib_ng.adler32(band)
        # The mode is in the key: a framed band and a plain one of the same bytes deflate differently.
        key = (zlib_ng.crc32(band), band_adler, len(band), framed)
        found = _bands.get(key)  # not get_or_make: 30 bands a picture, a closure each costs ~5%
        if found is None:
            found = _framed_band(band, band_adler) if framed else _band(band, width)
            _bands.put(key, found)
        data, band_adler, length = found
        pieces.append(data)
        adler = adler32_combine(adler, band_adler, length)
    pieces.append(_FINAL_BLOCK)
    pieces.append(struct.pack(">I", adler))
    palette = image.getpalette() or []
    header = struct.pack(">IIBBBBB", width, image.height, 8, 3, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", bytes(palette)),
            _chunk(b"IDAT", b"".join(pieces)),
            _chunk(b"IEND", b""),
        )
    )
