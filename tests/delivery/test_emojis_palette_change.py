"""A palette whose pictures changed gets new emoji names, so the bot uploads its set once more, and only it.

The application keeps the emojis by name and the bot uploads only the names it does not find
(``CardEmojis.ensure``): a palette that changed its colours under the same names would keep showing the old
pictures for good, and the disk cache (one folder per palette and version) would serve them too. The four-
colour palette's version 2 (colours that red-green colour-blind players tell apart) has names of its own
(``e8f2_…``): an application holding version 1's set gets the 57 new standard emojis, the 56 Crazier Eights
faces (the same in every palette) are not uploaded again, and the cards are then written with the new ones.
Switching to the classic palette does the same with its own names.
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

from PIL import Image

from bot.delivery.emojis import CardEmojis
from bot.ui.art.cards import CLASSIC, FOUR_COLOUR, INK, Palette
from bot.ui.art.emoji_set import CRAZIER_KEYS, EmojiSet, all_keys, emoji_name
from tests.delivery.test_emojis import Client

# The four-colour palette as version 1 drew it (green clubs, blue diamonds, red hearts).
FOUR_VERSION_1 = replace(FOUR_COLOUR, suits=((20, 128, 60), (22, 96, 196), (208, 32, 40), INK), version=1)
STANDARD_KEYS = [key for key in all_keys() if key not in CRAZIER_KEYS]


def _ink(png: bytes) -> tuple[int, int, int]:
    """The colour most used on a picture, white, outline and transparent pixels aside."""
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    colours = [(n, c) for n, c in image.getcolors(128 * 128) or [] if c[3] == 255 and min(c[:3]) < 200]
    r, g, b, _ = max((n, c) for n, c in colours if c[:3] != (32, 34, 37))[1]
    return r, g, b


def test_the_new_version_has_names_of_its_own() -> None:
    assert FOUR_COLOUR.version == 2
    assert emoji_name("KH", FOUR_VERSION_1) == "e8f1_KH" and emoji_name("KH") == "e8f2_KH"
    assert emoji_name("sH") == "e8f2_sH" and emoji_name("sH", CLASSIC) == "e8c1_sH"
    old = {emoji_name(key, FOUR_VERSION_1) for key in STANDARD_KEYS}
    assert not old & {emoji_name(key) for key in STANDARD_KEYS}


async def test_an_application_with_the_old_set_gets_the_new_one_uploaded_once(tmp_path: Path) -> None:
    old_set = [emoji_name(key, FOUR_VERSION_1) for key in all_keys()]
    assert len(set(old_set)) == 113
    client: Any = Client(old_set)
    emojis = CardEmojis(EmojiSet(tmp_path / "cache"), pace=0)
    assert await emojis.ensure(client)
    assert sorted(client.created) == sorted(emoji_name(key) for key in STANDARD_KEYS)  # the 57, only
    faces = emojis.faces()
    assert faces.card_emoji("KH") is not None and faces.card_emoji("KH").name == "e8f2_KH"
    assert faces.suit_emoji("C") is not None and faces.suit_emoji("C").name == "e8f2_sC"
    # What was uploaded is the new art: the hearts in the new vermilion, not version 1's red.
    uploaded = {art.name: art.png for art in EmojiSet(tmp_path / "cache")}
    assert _ink(uploaded["e8f2_sH"]) == FOUR_COLOUR.of(2) != FOUR_VERSION_1.of(2)
    # A restart uploads nothing more.
    again = CardEmojis(EmojiSet(tmp_path / "cache"), pace=0)
    assert await again.ensure(client) and again.uploaded == 0


async def test_switching_palettes_uploads_the_other_set_once(tmp_path: Path) -> None:
    client: Any = Client([art.name for art in EmojiSet(tmp_path)])
    emojis = CardEmojis(EmojiSet(tmp_path, CLASSIC), pace=0)
    assert await emojis.ensure(client)
    assert sorted(client.created) == sorted(emoji_name(key, CLASSIC) for key in STANDARD_KEYS)


def test_the_old_versions_disk_cache_is_not_read(tmp_path: Path) -> None:
    """Each version draws into a folder of its own: version 1's pictures on disk are never served as
    version 2's."""
    drawn: list[str] = []

    def drawer(key: str, palette: Palette) -> bytes:  # a stand-in picture naming its key and version
        drawn.append(key)
        return b"\x89PNG\r\n\x1a\n" + f"{key} {palette.version}".encode() + b"IEND\xaeB`\x82"

    old = {art.key: art.png for art in EmojiSet(tmp_path, FOUR_VERSION_1, drawer=drawer)}
    assert (tmp_path / "v1-four" / "KH.png").exists()
    drawn.clear()
    new = {art.key: art.png for art in EmojiSet(tmp_path, drawer=drawer)}
    assert sorted(drawn) == sorted(STANDARD_KEYS)  # every standard picture drawn anew, the Crazier ones read
    assert (tmp_path / "v2-four" / "KH.png").exists()
    assert all(new[key] != old[key] for key in STANDARD_KEYS)
