"""PNG writing for the board pictures, band by band: most of a board is the same from one move to the next.

A picture comes framed (``framed_png``): one more column on its left, all 0, so that each row starts with
PNG's filter byte (0: none, as Pillow writes a palette PNG) and its bytes are the PNG's rows as they are. They
are cut in bands of ``BAND_ROWS`` rows; each band is deflated on its own, where it lies (a full flush, so the
pieces join into one valid stream; copying each row after its filter byte instead made the PNG after a move
about a fifth dearer, bench/art.py) and kept, keyed by its bytes, in a small cache shared by every board: a
band that did not change (the felt above the seats, a seat that did not move, the same band at another
table) is not compressed again. The key is the band's CRC-32 and Adler-32 by zlib-ng (64 bits; about 0.4 us
a band, where Python's own hash of a fresh slice took 4.5). The zlib stream's Adler-32 is combined from the
bands' (``adler32_combine``, as zlib's own), so an unchanged band costs its checksums and a copy. The bands
are deflated by zlib-ng (the ``zlib-ng`` package): the same deflate format, and at level 1 (its "quick"
strategy) 2.7 times as fast as zlib's level 1 on these bands for 12% more bytes (14 against 37 us a band,
bench/art.py): a move changes about 13 of the 30 bands.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image
from zlib_ng import zlib_ng

from bot.ui.art.kept import Kept

BAND_ROWS = 15  # 30 bands on an 800 × 450 board: about 12 kB of pixels each
LEVEL = 1  # zlib's effort (see bot.ui.art.board.PNG_LEVEL)
# About 1.8 kB of deflate each, ~2.2 kB with its key: 2,048 hold ~4.5 MiB. The hits that count are a table's
# bands unchanged since its last picture, a few thousand insertions earlier at 300 busy tables; what is kept
# longer is mostly hands and piles never drawn again. Replaying the bands of a 300-table run (bench/e2e.py)
# through LRU maps: 4.6 new bands a picture with 2,048 kept, 3.6 with 8,192 (~20 us more a picture), while
# 8,192 took 18 MiB and filled over 15-20 minutes of bench/soak.py (its RSS target, issue 26).
CACHE_BANDS = 2048
_ADLER_BASE = 65521
_FINAL_BLOCK = b"\x03\x00"  # an empty final block (fixed Huffman): ends the joined stream

# (CRC-32, Adler-32, length) of a framed band (a false match needs two different bands alike in both
# checksums among the few thousand kept) -> its deflate bytes
_bands: Kept[tuple[int, int, int], bytes] = Kept(CACHE_BANDS)


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


FRAME = 1  # the columns left of a framed picture: each row's filter byte


def framed(picture: Image.Image) -> Image.Image:
    """``picture`` (mode "P") framed for ``framed_png``: one more column on its left, index 0."""
    frame = Image.new("P", (picture.width + FRAME, picture.height), 0)
    frame.putpalette(picture.getpalette() or [])
    frame.paste(picture, (FRAME, 0))
    return frame


def clear_frame(image: Image.Image) -> None:
    """Put back the filter bytes after pastes on a framed picture (one past its left edge reaches them)."""
    image.paste(0, (0, 0, FRAME, image.height))


def unframed(image: Image.Image) -> Image.Image:
    """The picture a framed one holds."""
    return image.crop((FRAME, 0, image.width, image.height))


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


def framed_png(image: Image.Image) -> bytes:
    """A framed picture as a PNG: ``image`` (mode "P", 8 bits) is the picture with one more column on its
    left, all 0. Each of its rows then starts with PNG's filter byte (0: none), so its bytes are the PNG's
    rows as they are. The PNG holds the same pixels as Pillow writes, with no varying chunks."""
    if image.mode != "P":
        raise ValueError("palette pictures only")
    pixels = memoryview(_pixels(image))  # bands are looked at in place, copied only when new
    band_bytes = image.width * BAND_ROWS
    pieces = [b"\x78\x01"]  # zlib header: deflate, 32 kB window, fastest
    adler = 1
    for start in range(0, len(pixels), band_bytes):
        band = pixels[start : start + band_bytes]
        band_adler = zlib_ng.adler32(band)
        key = (zlib_ng.crc32(band), band_adler, len(band))
        found = _bands.get(key)  # not get_or_make: 30 bands a picture, a closure each costs ~5%
        if found is None:
            deflate = zlib_ng.compressobj(LEVEL, zlib_ng.DEFLATED, -15)
            # Deflated alone, byte-aligned at its end (a full flush): the bands' pieces join into one stream.
            found = deflate.compress(band) + deflate.flush(zlib_ng.Z_FULL_FLUSH)
            _bands.put(key, found)
        pieces.append(found)
        adler = adler32_combine(adler, band_adler, len(band))
    pieces.append(_FINAL_BLOCK)
    pieces.append(struct.pack(">I", adler))
    palette = image.getpalette() or []
    header = struct.pack(">IIBBBBB", image.width - 1, image.height, 8, 3, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", bytes(palette)),
            _chunk(b"IDAT", b"".join(pieces)),
            _chunk(b"IEND", b""),
        )
    )
