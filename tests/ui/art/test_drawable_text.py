"""Every word on the board pictures is in the server's language and drawable with the pictures' font (Pillow's
bundled one: ASCII and a few signs, no accented letter), so that no word shows boxes for missing glyphs."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import ImageDraw

from bot.i18n import _, pgettext, use_locale
from bot.ui.art import board as board_art
from bot.ui.art import crazier_board
from bot.ui.art.board import drawable_name
from bot.ui.art.cards import drawable, drawable_text
from bot.ui.art.crazier_board import CrazierBoard, CrazierSeat
from tests.i18n.catalogues import shipped
from tests.ui.snapshots import snapshot


def _forget_drawn_words() -> None:
    for kept in (board_art._felt_text, crazier_board._words, crazier_board._chip, crazier_board._face):
        kept.cache_clear()
    crazier_board.forget()


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text Pillow is asked to draw (the kept words forgotten first, so that they are drawn)."""
    texts: list[str] = []
    real = ImageDraw.ImageDraw.text

    def record(self: Any, xy: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        texts.append(str(text))
        return real(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", record)
    _forget_drawn_words()
    yield texts
    _forget_drawn_words()


def _undrawable(texts: list[str]) -> list[str]:
    return sorted({text for text in texts if not all(drawable(char) for char in text)})


def _crazier_boards() -> list[CrazierBoard]:
    playing = CrazierBoard(
        top_card="10B",  # a long name with an accent in German ("Krone der Könige")
        draw_pile=23,
        discard_pile=6,
        seats=(
            CrazierSeat(0, "Ana", 5, ("9G", "6O", "3P"), to_act=True, team=1),  # Death, Castle, Potion
            CrazierSeat(1, "Ben", 0, out=True, team=2),
            CrazierSeat(2, "Cleo", 3, ("5B",), team=1),  # Angel of Hope ("Ángel", "Anjo da Esperança")
        ),
    )
    over = CrazierBoard(
        top_card="8O",  # a wild: "COMODÍN" in Spanish
        draw_pile=0,
        discard_pile=30,
        seats=(CrazierSeat(0, "Ana", 0, won=True, team=1), CrazierSeat(1, "Ben", 7, team=2)),
        game_over=True,
    )
    return [playing, over]


# --- the one function every drawn text goes through ---------------------------------------------------------


def test_english_and_what_the_font_has_are_left_as_they_are() -> None:
    for text in ("round 3 over", "Crazier Eights · game 2", "Sample…", "+2 to draw", "a & b: 40°"):
        assert drawable_text(text) == text


@pytest.mark.parametrize(
    ("locale", "text", "written"),
    [
        ("de", "gewünscht", "gewuenscht"),  # German writes umlauts and ß out: ü -> ue, ß -> ss
        ("de", "Krone der Könige", "Krone der Koenige"),
        ("de", "Übernimm, Größe, Fähigkeit", "Uebernimm, Groesse, Faehigkeit"),
        ("fr", "manche 1 terminée", "manche 1 terminee"),  # elsewhere accents are stripped
        ("fr", "équipe 2 · Château", "equipe 2 · Chateau"),
        ("fr", "œil", "oeil"),  # a ligature has no accent to strip: its letters
        ("fr", "tour\u202f: Zoë", "tour : Zoe"),  # a narrow no-break space: the font has only the plain one
        ("es", "Ocho más loco · ganó", "Ocho mas loco · gano"),
        ("es", "pingüino, España", "pinguino, Espana"),  # the German convention is German only
        ("pt_BR", "vitória de Conceição", "vitoria de Conceicao"),
        ("en", "Müller – Jürgen", "Muller - Jurgen"),
        ("en", "山田 🎲", "?? ?"),
    ],
)
def test_what_the_font_lacks_is_written_as_the_language_would(locale: str, text: str, written: str) -> None:
    with use_locale(locale):
        assert drawable_text(text) == written
        assert drawable_text(written) == written  # drawable text is left alone


@pytest.mark.parametrize(
    ("name", "locale"), [("José", "en"), ("Zoë", "fr"), ("Jürgen", "de"), ("Ngọc", "en")]
)
def test_a_name_typed_with_combining_accents_is_drawn_as_its_composed_form(name: str, locale: str) -> None:
    """A name in decomposed form ("e" + U+0301 COMBINING ACUTE ACCENT, as macOS and some keyboards type it;
    Discord does not normalise display names) is drawn as the composed one: "Jose", "Juergen" on a German
    server, not "Jose?"."""
    composed = unicodedata.normalize("NFC", name)
    decomposed = unicodedata.normalize("NFD", name)
    assert composed != decomposed
    with use_locale(locale):
        assert drawable_name(decomposed, 1) == drawable_name(composed, 1)
        assert "?" not in drawable_text(decomposed)


def test_a_combining_mark_with_no_composed_letter_is_left_out() -> None:
    """A mark that composes with nothing ("q" + U+0303, or no letter before it) is dropped: the letter is
    drawn bare, not followed by "?"."""
    assert drawable_text("q\u0303 \u0301x") == "q x"


def test_a_seat_whose_name_cannot_be_drawn_is_named_in_the_servers_language() -> None:
    with use_locale("de"):
        expected = _("seat {seat}", seat=3)
        assert drawable_name("山田太郎", 2) == expected[:1].upper() + expected[1:]
        assert drawable_name("Jürgen", 0) == "Juergen"
    assert expected.lower() != "seat 3"
    assert drawable_name("山田太郎", 2) == "Seat 3"
    assert drawable_name("Jürgen", 0) == "Jurgen"


# --- the pictures -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("locale", shipped())
def test_every_word_on_the_board_picture_is_drawable(locale: str, drawn: list[str]) -> None:
    with use_locale(locale):
        for shown in (snapshot(declared_suit="H", pending_draw=2), snapshot(phase="between_rounds")):
            board_art.draw_board(shown)
        named = drawable_text(pgettext("picture", "named"))
    assert named in drawn  # the words were drawn, not taken from a cache
    assert not _undrawable(drawn), f"{locale}: drawn with missing glyphs: {_undrawable(drawn)}"


@pytest.mark.parametrize("locale", shipped())
def test_every_word_on_the_crazier_picture_is_drawable(locale: str, drawn: list[str]) -> None:
    with use_locale(locale):
        for shown in _crazier_boards():
            crazier_board.render_crazier_board(shown)
    assert drawn
    assert not _undrawable(drawn), f"{locale}: drawn with missing glyphs: {_undrawable(drawn)}"


def test_the_crazier_picture_names_cards_in_play_and_the_top_card_in_the_servers_language(
    drawn: list[str],
) -> None:
    with use_locale("de"):
        for shown in _crazier_boards():
            crazier_board.render_crazier_board(shown)
        death, wild = _("Death"), pgettext("picture", "WILD")
    assert (death, wild) == ("Tod", "JOKER")
    assert death in drawn and wild in drawn, drawn
    assert "Death" not in drawn and "WILD" not in drawn, drawn
    assert "Koenige" in drawn  # the top card's name, on its second line, as the font writes it


def _pictures(locale: str) -> tuple[bytes, bytes]:
    with use_locale(locale):
        crazier = crazier_board.render_crazier_board(_crazier_boards()[0]).png
        standard = board_art.render_board(snapshot(declared_suit="H", pending_draw=2)).png
    return crazier, standard


@pytest.mark.parametrize(("first", "then"), [("de", "en"), ("en", "de"), ("fr", "en"), ("en", "fr")])
def test_no_word_or_face_kept_for_one_language_is_shown_in_another(first: str, then: str) -> None:
    _forget_drawn_words()
    fresh = _pictures(then)
    _forget_drawn_words()
    _pictures(first)  # the same boards: their words, chips and top card kept in the first language
    assert _pictures(then) == fresh
