"""The text board and the board picture stay within Discord's limits at the worst sizes a table reaches.

The text board: 8 seats of 32-character, markdown-heavy names in German and French (escaping doubles a name's
length) with 30 long house rules stay within Discord's embed limits (6,000 in all, 25 fields, 1,024 a field,
256 the title, 4,096 the description) in every phase, every seat listed. The picture: every table size from 2
to 8, reversed, with a pending draw and a named suit, in every language, is an 800 × 450 PNG far under
Discord's 10 MiB attachment limit, not blank, with a description of at most 1,024 characters that counts each
seat's cards and names the seat to move, as the picture's plates do.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.i18n import use_locale
from bot.service import TableEvent
from bot.ui import render
from bot.ui.art import board as board_art
from tests.ui.snapshots import seat, snapshot

LANGUAGES = ["en", "de", "fr", "es", "pt_BR"]
NAME = ("_*~`|>" * 6 + "<@")[:31]


@pytest.mark.parametrize("language", ["de", "fr"])
@pytest.mark.parametrize("phase", ["lobby", "playing", "between_rounds", "finished", "abandoned"])
def test_the_text_board_fits_discord_with_eight_long_names(language: str, phase: str) -> None:
    """Every phase, eight long escaped names and thirty long house rules: within every embed limit."""
    seats = tuple(
        seat(
            i,
            NAME + str(i),
            None if i % 2 else 1000 + i,
            cpu_level="hard" if i % 2 else None,
            taken_over=bool(i % 2 and i > 3),
            card_count=12,
            total=-1234,
            to_act=i == 0,
        )
        for i in range(8)
    )
    board = snapshot(
        seats=seats,
        phase=phase,
        status="playing" if phase in ("playing", "between_rounds") else phase,
        house_rules=tuple("Regel " + "x" * 300 + str(i) for i in range(30)),
        recent=tuple(TableEvent("played", i % 8, {"card": "10H"}, "engine") for i in range(10)),
        round_scores=((1234,) * 8,) * 30,
        totals=(-1234,) * 8,
        pending_draw=16,
        declared_suit="H",
        max_seats=8,
    )
    with use_locale(language):
        embed = render.board_embed(board)
    assert len(embed) <= 6000 and len(embed.fields) <= 25
    assert len(embed.title or "") <= 256 and len(embed.description or "") <= 4096
    assert all(len(f.value or "") <= 1024 and len(f.name or "") <= 256 for f in embed.fields)
    seats_field = next(f.value for f in embed.fields if f.value and "`8`" in f.value)
    assert all(f"`{i}` " in seats_field for i in range(1, 9)) and not seats_field.endswith("…")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("players", range(2, 9))
def test_the_picture_matches_the_state_at_every_size(language: str, players: int) -> None:
    """Each size and language: a small PNG of the right size whose plates name every seat, count its cards
    and light the seat to move, and a description that says the same within 1,024 characters."""
    seats = tuple(
        seat(i, "W" * 31 + str(i), 1000 + i, card_count=i, to_act=i == players - 1) for i in range(players)
    )
    board = snapshot(
        seats=seats,
        to_act=players - 1,
        direction=-1,
        pending_draw=4,
        declared_suit="D",
        target_card="8C",
        stock_size=61,
        totals=(0,) * players,
    )
    with use_locale(language):
        picture = board_art.render_board(board)
        keys = [key for _draw, key, _where in board_art._parts(board, board_art.FOUR_COLOUR)]
    labels = [key[1] for key in keys if key[0] == "label"]
    counts = [key[1] for key in keys if key[0] == "count"]
    lit = [key[2] for key in keys if key[0] == "label"]
    image = Image.open(io.BytesIO(picture.png))
    image.load()
    assert image.format == "PNG" and image.size == (800, 450)
    assert len(picture.png) < 10 * 1024 * 1024
    assert len(image.convert("RGB").getcolors(1 << 16) or []) > 20  # not blank
    assert labels == ["W" * 31 + str(i) for i in range(players)]
    assert counts == list(range(players))
    assert lit == [i == players - 1 for i in range(players)]
    assert len(picture.alt_text) <= 1024
    for i in range(players):
        assert f"{i + 1}. {'W' * 31}{i}" in picture.alt_text
