"""Typed input read in the player's language, against the shipped catalogues: house-rule values (on/off,
none, choices, ranks, option names), card and suit words with their plurals and spellings, colours; the
player's own language first, then English, then the other languages when they agree."""

from __future__ import annotations

import pytest

from bot.engine import EngineError, RulesetError, card_name, parse_card, parse_suit, suit_name
from bot.engine.cards import STANDARD_DECK, SUITS, _vocabulary, parse_rank
from bot.engine.crazier.deck import COLOURS, parse_colour
from bot.engine.rule_options import (
    CHOICE,
    OPTIONS,
    _off_words,
    _on_words,
    change,
    option,
    parse_value,
    suggestions,
)
from bot.engine.rules import get_preset
from bot.i18n import LOCALES, _, fold, listed_words, spellings, use_locale
from tests.i18n.catalogues import shipped

TRANSLATED = shipped()

SWITCHES = {
    "de": (("an", "ja", "AN", "ein"), ("aus", "nein", "Aus")),
    "fr": (("oui", "activé", "active", "Activée"), ("non", "désactivé", "desactive")),
    "es": (("sí", "si", "activado", "Activada"), ("no", "desactivado")),
    "pt_BR": (("sim", "ligado", "Ligada"), ("não", "nao", "desligado")),
}


def test_every_language_is_checked() -> None:
    assert sorted(TRANSLATED) == sorted(SWITCHES)


@pytest.mark.parametrize("locale", sorted(SWITCHES))
def test_on_and_off_in_the_players_language_and_in_english(locale: str) -> None:
    on, off = SWITCHES[locale]
    with use_locale(locale):
        for word in (*on, "on", "yes", "true"):
            assert parse_value("reshuffle", word) is True, word
        for word in (*off, "off", "no", "false"):
            assert parse_value("reshuffle", word) is False, word
        assert change(get_preset("classic"), "reshuffle", off[0]).reshuffle is False
        with pytest.raises(RulesetError):
            parse_value("reshuffle", "peut-être")


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_refusal_names_the_words_of_the_players_language(locale: str) -> None:
    with use_locale(locale), pytest.raises(RulesetError) as refused:
        parse_value("reshuffle", "maybe")
    said = fold(str(refused.value))
    with use_locale(locale):
        first_on = fold(_on_words().split(",")[0])
        first_off = fold(_off_words().split(",")[0])
    assert first_on in said and first_off in said, said
    assert "on or off" not in said


def test_no_word_means_on_in_one_language_and_off_in_another() -> None:
    on = set().union(*(listed_words(code, _on_words) for code in LOCALES))
    off = set().union(*(listed_words(code, _off_words) for code in LOCALES))
    assert not on & off, on & off


@pytest.mark.parametrize(
    ("locale", "word"),
    [
        ("de", "keine"),
        ("de", "Kein Limit"),
        ("fr", "aucun"),
        ("fr", "sans limite"),
        ("es", "sin limite"),
        ("es", "ninguno"),
        ("pt_BR", "nenhum"),
        ("pt_BR", "sem limite"),
        ("de", "none"),
    ],
)
def test_no_number_in_the_players_language(locale: str, word: str) -> None:
    with use_locale(locale):
        assert parse_value("draw_limit", word) is None
        assert parse_value("skip_ranks", word) == ()


@pytest.mark.parametrize("locale", LOCALES)
def test_every_choice_is_read_back_by_its_label_in_the_language(locale: str) -> None:
    for o in OPTIONS:
        if o.kind != CHOICE or o.key == "wild_rank":
            continue
        for code, label in o.choices:
            with use_locale(locale):
                shown = _(label)
                assert parse_value(o.key, shown) in (code, code == "on"), (o.key, shown)
                assert parse_value(o.key, shown.upper()) in (code, code == "on")


@pytest.mark.parametrize("locale", LOCALES)
def test_every_option_is_found_by_its_name_in_the_language(locale: str) -> None:
    for o in OPTIONS:
        with use_locale(locale):
            assert option(_(o.label)) is o, _(o.label)
            assert option(o.key) is o


@pytest.mark.parametrize(
    ("locale", "typed", "ranks"),
    [
        ("de", "Bube, Dame 4", (11, 12, 4)),
        ("fr", "valet roi", (11, 13)),
        ("es", "sota reina", (11, 12)),
        ("pt_BR", "valete, dama", (11, 12)),
        ("de", "Koenig", (13,)),
        ("fr", "J Q", (11, 12)),
    ],
)
def test_ranks_typed_in_the_players_language(locale: str, typed: str, ranks: tuple[int, ...]) -> None:
    with use_locale(locale):
        assert parse_value("skip_ranks", typed) == ranks
        assert parse_value("draw_ranks", f"{typed.split()[0].rstrip(',')}:3")[0] == (ranks[0], 3)


def test_suggestions_match_the_players_words() -> None:
    with use_locale("fr"):
        found = suggestions("reshuffle", "desac")
    assert [code for code, _label in found] == ["off"]


def test_french_on_and_off_read_without_a_gender_and_are_found_by_every_word() -> None:
    # "activé" agreed with a masculine noun only ("Image du plateau : activé"); "oui"/"non" agree with any.
    with use_locale("fr"):
        assert (_("on"), _("off")) == ("oui", "non")
        for typed, code in (("oui", "on"), ("act", "on"), ("non", "off"), ("désac", "off"), ("faux", "off")):
            found = suggestions("reshuffle", typed)
            assert [c for c, _label in found] == [code], typed
        # What was shown and what players were told before are both read.
        for word, value in (("oui", True), ("activé", True), ("non", False), ("désactivé", False)):
            assert parse_value("reshuffle", word) is value


# --- cards -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_every_card_name_reads_back_in_every_spelling(locale: str) -> None:
    with use_locale(locale):
        for card in STANDARD_DECK:
            name = card_name(card)
            for spelling in spellings(name):  # accents dropped, umlauts written out
                assert parse_card(spelling) == card, (name, spelling)
            assert parse_card(name.upper()) == card
        for suit in SUITS:
            assert parse_suit(suit_name(suit)) == suit


@pytest.mark.parametrize(
    ("locale", "typed", "code"),
    [
        ("fr", "dame de carreaux", "QD"),
        ("fr", "roi de cœurs", "KH"),
        ("fr", "as de piques", "AS"),
        ("fr", "10 de trèfles", "10C"),
        ("fr", "valet de trefles", "JC"),
        ("de", "Herz Koenig", "KH"),
        ("de", "Kreuz-Ass", "AC"),
        ("de", "Pik-König", "KS"),
        ("de", "pik-koenig", "KS"),
        ("de", "Karo Dame", "QD"),
        ("pt_BR", "ás de copas", "AH"),
        ("pt_BR", "as de copas", "AH"),
        ("pt_BR", "Ás de espadas", "AS"),
        ("es", "as de corazón", "AH"),
        ("es", "reina de corazones", "QH"),
        ("es", "sota de tréboles", "JC"),
        ("es", "8 de picas", "8S"),
    ],
)
def test_plurals_and_spellings_players_type(locale: str, typed: str, code: str) -> None:
    with use_locale(locale):
        assert parse_card(typed) == parse_card(code)


@pytest.mark.parametrize(
    ("locale", "typed", "suit"),
    [
        ("fr", "carreaux", "D"),
        ("fr", "cœurs", "H"),
        ("fr", "piques", "S"),
        ("fr", "trèfles", "C"),
        ("es", "corazón", "H"),
        ("es", "corazones", "H"),
        ("de", "Herz", "H"),
        ("pt_BR", "ouros", "D"),
    ],
)
def test_suit_words(locale: str, typed: str, suit: str) -> None:
    with use_locale(locale):
        assert parse_suit(typed) == parse_suit(suit)


def test_a_code_wins_over_a_word() -> None:
    # "AS" is the ace of spades, whatever "as" means in French or Portuguese (the ace, or an article).
    for locale in LOCALES:
        with use_locale(locale):
            assert parse_card("as") == parse_card("AS")
            assert parse_card("KH") == parse_card("king of hearts")


def test_another_languages_words_are_read_after_ones_own_and_english() -> None:
    # A German player whose Discord is in French: "Herz Dame" is read (German agrees on both words).
    with use_locale("fr"):
        assert parse_card("Herz Dame") == parse_card("QH")
    with use_locale("en"):
        assert parse_card("dame de cœur") == parse_card("QH")
        assert parse_card("rei de copas") == parse_card("KH")


def _meanings(word: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for code in LOCALES:
        words = _vocabulary(code)
        meaning = words.ranks.get(word, words.suits.get(word))
        if meaning is not None:
            out[code] = ("rank" if word in words.ranks else "suit", meaning)
    return out


def test_no_card_word_means_two_things_in_the_shipped_languages() -> None:
    """If two catalogues gave one word two meanings, a third language's player would be refused it (see
    below): the shipped catalogues have no such word."""
    words = set().union(
        *(_vocabulary(code).ranks.keys() | _vocabulary(code).suits.keys() for code in LOCALES)
    )
    clashes = {w: m for w in words if len(set((m := _meanings(w)).values())) > 1}
    assert not clashes, clashes


def test_a_word_two_languages_read_differently_is_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's language decides; a third language's player is refused rather than misread."""
    import bot.engine.cards as cards

    real = cards._vocabulary

    def clashing(locale: str):  # type: ignore[no-untyped-def]
        words = real(locale)
        if locale == "de":  # pretend German called the queen "Reina" (Spanish's word for the queen)
            return words._replace(ranks={**words.ranks, "reina": 13})
        return words

    monkeypatch.setattr(cards, "_vocabulary", clashing)
    with use_locale("de"):
        assert parse_card("Reina Herz") == parse_card("KH")  # German's own meaning first
    with use_locale("es"):
        assert parse_card("reina de corazones") == parse_card("QH")
    with use_locale("fr"), pytest.raises(EngineError):
        parse_card("reina de coeur")  # German and Spanish disagree: not guessed


@pytest.mark.parametrize(
    ("locale", "typed", "rank"), [("de", "Koenig", 13), ("fr", "Rois", 13), ("pt_BR", "as", 1)]
)
def test_rank_words(locale: str, typed: str, rank: int) -> None:
    with use_locale(locale):
        assert parse_rank(typed) == rank


@pytest.mark.parametrize(
    ("locale", "typed", "colour"),
    [
        ("de", "grün", "G"),
        ("de", "gruen", "G"),
        ("de", "Gruen", "G"),
        ("fr", "œil", "P"),
        ("fr", "oeil", "P"),
        ("es", "morado", "P"),
        ("pt_BR", "laranja", "O"),
        ("en", "verde", "G"),
        ("fr", "green", "G"),
    ],
)
def test_colours(locale: str, typed: str, colour: str) -> None:
    assert colour in COLOURS
    with use_locale(locale):
        assert parse_colour(typed) == colour


def test_preload_reads_every_catalogue_so_no_typed_word_reads_one_on_the_loop() -> None:
    from bot.i18n import available_locales, preload, translations

    translations.cache_clear()
    preload()
    assert translations.cache_info().currsize == len(available_locales()) == len(LOCALES)
    misses = translations.cache_info().misses
    with use_locale("en"):
        assert parse_card("Herz Dame") == parse_card("QH")  # every language consulted
    assert translations.cache_info().misses == misses


def test_a_player_named_with_accents_may_be_typed_without() -> None:
    from bot.exts.tables._play import _seat_named
    from tests.ui.snapshots import seat, snapshot

    snap = snapshot(seats=(seat(0, "Zoë", 1), seat(1, "José", 2), seat(2, "Jose", 3), seat(3, "Jöse", None)))
    assert _seat_named(snap, "zoe") == 0
    assert _seat_named(snap, "@ZOË") == 0
    assert _seat_named(snap, "José") == 1  # exactly as written first
    assert _seat_named(snap, "jose") == 2
    assert _seat_named(snap, "Jóse") is None  # three players it could mean: none guessed
