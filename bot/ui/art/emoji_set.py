"""The application emojis the bot owns, with stable names: the 52 standard cards, the card back and the four
suits (57), then the 52 cards of ``crazier-abilities`` and its four colours (56): 113 uploads in all.

A standard name reads ``e8<palette><palette version>_<key>``: ``e8f2_KH`` (four-colour palette, version 2,
King of Hearts), ``e8f2_back``, ``e8f2_sH`` (the Hearts badge), ``e8c1_KH`` (classic, version 1). The Crazier
Eights faces are the same in every palette, so their names carry no palette but a version of their own: key
``zKB`` (Arthur, blue) is named ``e8z1_KB``, key ``zcB`` (the blue colour's badge) ``e8z1_cB``; switching
palettes uploads only the other 57, and redrawing one set leaves the other's names alone. Every name keeps to
Discord's rule for emoji names (2–32 characters of letters, digits and underscores); with both palettes the
application holds 170 of its 2,000 emojis. Bumping a version when its pictures change (``Palette.version``:
the four-colour palette's new colours made it 2) gives new names, so the bot uploads the new pictures once
instead of keeping the old ones by name (the old ones stay in the application, unused, until deleted in the
Developer Portal).

The PNGs are drawn once and cached on disk (``cache_dir``, one file per emoji, written atomically): a start-up
reads them back instead of drawing them again. A damaged or missing file is simply drawn again.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.engine.cards import STANDARD_DECK, card_code
from bot.engine.crazier.deck import COLOURS, DECK
from bot.ui.art.cards import (
    FOUR_COLOUR,
    Palette,
    back_emoji_png,
    card_emoji_png,
    suit_emoji_png,
)
from bot.ui.art.crazier import colour_emoji_png, crazier_emoji_png

log = logging.getLogger(__name__)

SUIT_KEYS = ("sC", "sD", "sH", "sS")
BACK_KEY = "back"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_]{2,32}$")
MAX_EMOJI_BYTES = 256 * 1024
CRAZIER_ART_VERSION = 1
CRAZIER = "z"  # the first letter of a Crazier Eights key
_warned_folders: set[Path] = set()  # cache folders this process could not write to, already warned of


def crazier_card_key(card: str) -> str:
    """The emoji key of a ``crazier-abilities`` card (a canonical code): "KB" -> "zKB"."""
    return CRAZIER + card


def crazier_colour_key(colour: str) -> str:
    """The emoji key of a ``crazier-abilities`` colour: "B" -> "zcB"."""
    return CRAZIER + "c" + colour


CRAZIER_KEYS = (*(crazier_card_key(card) for card in DECK), *(crazier_colour_key(c) for c in COLOURS))


def all_keys() -> tuple[str, ...]:
    """Every emoji's key, in upload order: the cards (clubs to spades in each rank), the back, the suits, then
    the Crazier Eights cards (blue to purple in each rank) and colours."""
    return (*(card_code(card) for card in STANDARD_DECK), BACK_KEY, *SUIT_KEYS, *CRAZIER_KEYS)


def emoji_name(key: str, palette: Palette = FOUR_COLOUR) -> str:
    if key in CRAZIER_KEYS:
        name = f"e8{CRAZIER}{CRAZIER_ART_VERSION}_{key[1:]}"
    else:
        name = f"e8{palette.name[0]}{palette.version}_{key}"
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"not a valid emoji name: {name!r}")
    return name


@functools.lru_cache(maxsize=2 * 113)
def draw(key: str, palette: Palette = FOUR_COLOUR) -> bytes:
    """The PNG of one emoji (drawn once per process; a few kilobytes each)."""
    if key in CRAZIER_KEYS:
        code = key[1:]
        return colour_emoji_png(code[1]) if code.startswith("c") else crazier_emoji_png(code)
    if key == BACK_KEY:
        return back_emoji_png()
    if key in SUIT_KEYS:
        return suit_emoji_png(key[1], palette)
    return card_emoji_png(key, palette)


@dataclass(frozen=True, slots=True)
class EmojiArt:
    key: str  # "KH", "back", "sH", "zKB", "zcB"
    name: str  # "e8f2_KH", "e8z1_KB"
    png: bytes


class EmojiSet:
    """The pictures of one palette, drawn or read from the disk cache on first use."""

    def __init__(
        self,
        cache_dir: Path | None,
        palette: Palette = FOUR_COLOUR,
        *,
        drawer: Callable[[str, Palette], bytes] = draw,
    ) -> None:
        self.palette = palette
        self.cache_dir = cache_dir / f"v{palette.version}-{palette.name}" if cache_dir is not None else None
        # The Crazier Eights faces, shared by the palettes.
        self.crazier_dir = cache_dir / f"{CRAZIER}{CRAZIER_ART_VERSION}" if cache_dir is not None else None
        self._draw = drawer
        self._pngs: dict[str, bytes] = {}

    def name(self, key: str) -> str:
        return emoji_name(key, self.palette)

    def png(self, key: str) -> bytes:
        png = self._pngs.get(key)
        if png is None:
            png = self._pngs[key] = self._load(key)
        return png

    def __iter__(self) -> Iterator[EmojiArt]:
        for key in all_keys():
            yield EmojiArt(key, self.name(key), self.png(key))

    def _load(self, key: str) -> bytes:
        folder = self.crazier_dir if key in CRAZIER_KEYS else self.cache_dir
        path = folder / f"{key}.png" if folder is not None else None
        if path is not None:
            try:
                data = path.read_bytes()
            except OSError:
                data = b""
            # The file name carries no checksum; a truncated file fails the PNG signature or the IEND check.
            if data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82"):
                return data
        png = self._draw(key, self.palette)
        if path is not None:
            try:
                _write_atomically(path, png)
            except OSError as error:
                # Once per folder: the same cause would otherwise be told for each of the 113 pictures.
                warned = path.parent in _warned_folders
                _warned_folders.add(path.parent)
                log.log(
                    logging.DEBUG if warned else logging.WARNING,
                    "could not cache the card art in %s: %s",
                    path.parent,
                    error,
                )
        return png


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
