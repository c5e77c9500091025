"""The card emojis: every one drawn, within Discord's emoji limits, named as Discord allows, deterministic."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from bot.ui.art.cards import CLASSIC, FOUR_COLOUR, card_emoji_png
from bot.ui.art.emoji_set import (
    MAX_EMOJI_BYTES,
    NAME_PATTERN,
    EmojiSet,
    all_keys,
    draw,
    emoji_name,
)

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def drawn() -> dict[str, bytes]:
    return {key: draw(key) for key in all_keys()}


def test_the_set_holds_52_cards_a_back_and_four_suits_then_the_crazier_cards() -> None:
    keys = all_keys()
    assert len(keys) == len(set(keys)) == 57 + 56
    assert {"AC", "10H", "KS", "8D", "back", "sC", "sD", "sH", "sS"} <= set(keys[:57])


def test_every_emoji_is_a_square_png_within_discords_limits(drawn: dict[str, bytes]) -> None:
    for key, png in drawn.items():
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), key
        assert len(png) <= MAX_EMOJI_BYTES, key
        image = Image.open(io.BytesIO(png))
        assert image.format == "PNG"
        assert image.size == (128, 128), key
        assert image.mode == "RGBA", key
        # Something is drawn, and the corners stay transparent (the emoji is a card, not a square).
        alpha = image.getchannel("A")
        assert alpha.getextrema() == (0, 255), key
        assert alpha.getpixel((0, 0)) == 0, key


def test_every_emoji_is_a_different_picture(drawn: dict[str, bytes]) -> None:
    assert len(set(drawn.values())) == len(drawn)


def test_names_are_stable_and_follow_discords_rule() -> None:
    names = [emoji_name(key) for key in all_keys()]
    assert len(set(names)) == len(names)
    for name in names:
        assert NAME_PATTERN.fullmatch(name) and 2 <= len(name) <= 32
    assert emoji_name("KH") == "e8f2_KH"
    assert emoji_name("back") == "e8f2_back"
    assert emoji_name("sH", CLASSIC) == "e8c1_sH"


def test_four_colour_suits_differ_in_hue_and_classic_is_red_and_black() -> None:
    def ink(png: bytes) -> tuple[int, int, int]:
        # The colour most used on the card, white and transparent pixels aside: the suit's ink.
        image = Image.open(io.BytesIO(png)).convert("RGBA")
        colours = image.getcolors(128 * 128) or []
        _, (r, g, b, _) = max(
            (count, colour) for count, colour in colours if colour[3] == 255 and min(colour[:3]) < 200
        )
        return (r, g, b)

    four = {suit: ink(card_emoji_png(f"5{suit}", FOUR_COLOUR)) for suit in "CDHS"}
    assert len(set(four.values())) == 4
    classic = {suit: ink(card_emoji_png(f"5{suit}", CLASSIC)) for suit in "CDHS"}
    assert classic["H"] == classic["D"] != classic["S"] == classic["C"]


def test_drawing_is_deterministic_across_processes(drawn: dict[str, bytes]) -> None:
    # A fresh interpreter (no caches shared with this one) draws the very same bytes.
    script = "import sys; from bot.ui.art.emoji_set import draw; sys.stdout.buffer.write(draw(sys.argv[1]))"
    for key in ("10H", "back", "sS"):
        out = subprocess.run(
            [sys.executable, "-c", script, key], cwd=ROOT, capture_output=True, check=True
        ).stdout
        assert out == drawn[key], key


def test_the_disk_cache_is_used_and_a_damaged_file_is_drawn_again(tmp_path: Path) -> None:
    calls: list[str] = []

    def drawer(key: str, palette: object) -> bytes:
        calls.append(key)
        return draw(key)

    first = EmojiSet(tmp_path, drawer=drawer)
    pictures = {art.key: art.png for art in first}
    assert len(calls) == 113  # the Crazier Eights faces too (tests/ui/art/test_crazier.py)
    cached = sorted(p.name for p in (tmp_path / "v2-four").iterdir())
    assert len(cached) == 57 and all(name.endswith(".png") for name in cached)

    calls.clear()
    second = EmojiSet(tmp_path, drawer=drawer)
    assert {art.key: art.png for art in second} == pictures
    assert calls == []  # everything came from the disk

    (tmp_path / "v2-four" / "KH.png").write_bytes(pictures["KH"][:100])  # truncated
    third = EmojiSet(tmp_path, drawer=drawer)
    assert third.png("KH") == pictures["KH"]
    assert calls == ["KH"]
    assert (tmp_path / "v2-four" / "KH.png").read_bytes() == pictures["KH"]


def test_an_unwritable_cache_only_costs_the_caching(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    art = EmojiSet(blocker)
    assert art.png("AS") == draw("AS")


def test_an_unwritable_cache_is_one_warning_per_folder_not_one_per_card(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each of the 113 pictures warned of the same folder at every start."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")

    def drawer(key: str, palette: object) -> bytes:
        return b"\x89PNG\r\n\x1a\nIEND\xaeB`\x82"

    with caplog.at_level(logging.DEBUG, logger="bot.ui.art.emoji_set"):
        for _ in EmojiSet(blocker, drawer=drawer):
            pass
        for _ in EmojiSet(blocker, drawer=drawer):  # a second set in the same process: no new warning
            pass
    told = [r for r in caplog.records if "could not cache the card art" in r.getMessage()]
    warned = sorted(str(r.args[0]) for r in told if r.levelno == logging.WARNING)
    assert warned == [str(blocker / "v2-four"), str(blocker / "z1")]
    assert len(told) == 2 * 113  # the others at debug level
