"""Counts in the house rules' wording take the right plural in every language (README, Languages:
"``ngettext(…)`` for plurals"): a number a host may set to 1 is never followed by a plural noun ("1 cards",
"1 passes")."""

from __future__ import annotations

import re

import pytest

from bot.engine import get_preset, rule_options
from bot.engine import rule_wording as wording
from bot.engine.rules import rules_help
from bot.i18n import LOCALES, use_locale

# "1" followed by the plural noun each catalogue uses for these texts.
ONE_PLURAL = re.compile(r"(?<![\d.,])1 (cards|Karten|cartes|cartas|passes|pases)\b")
# What each language says for 1, and for 3: (stacking cap, blocked round).
ONE = {
    "en": ("at most 1 card owed", "blocked when 1 pass in a row"),
    "de": ("höchstens 1 Karte fällig", "nach 1-mal Passen in Folge"),
    "fr": ("au plus 1 carte due", "après 1 passe ("),
    "es": ("como máximo 1 carta", "tras 1 pase ("),
    "pt_BR": ("no máximo 1 carta a comprar", "após 1 passe ("),
}
THREE = {
    "en": ("at most 3 cards owed", "blocked when 3 passes in a row"),
    "de": ("höchstens 3 Karten fällig", "nach 3-mal Passen in Folge"),
    "fr": ("au plus 3 cartes dues", "après 3 passes consécutives"),
    "es": ("como máximo 3 cartas", "tras 3 pases seguidos"),
    "pt_BR": ("no máximo 3 cartas a comprar", "após 3 passes seguidos"),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_stacking_cap_of_one_card_is_written_in_the_singular(locale: str) -> None:
    """``/eights house option:draw_caps value:2:1`` (with draw_ranks 2:1 and stacking on): the panel's
    "Now: …", the board's house rules and ``/eights rules`` say "Stacked 2s make at most 1 card owed" (de
    "höchstens 1 Karte", fr "au plus 1 carte due", es/pt "1 carta"), and "… 2 cards owed" for more."""
    rs = rule_options.change(get_preset("classic"), "draw_ranks", "2:1")
    rs = rule_options.change(rs, "stacking", "on")
    rs = rule_options.change(rs, "draw_caps", "2:1")
    with use_locale(locale):
        said = wording.describe(rs, "draw_caps")
        more = wording.describe(rule_options.change(rs, "draw_caps", "2:3"), "draw_caps")
    assert not ONE_PLURAL.search(said), said
    assert ONE[locale][0] in said, said
    assert THREE[locale][0] in more, more


@pytest.mark.parametrize("locale", LOCALES)
def test_a_round_blocked_after_one_pass_is_written_in_the_singular(locale: str) -> None:
    """``/eights house option:blocked_after value:1``: ``/eights rules`` says the round "is blocked when 1
    pass in a row" (fr "après 1 passe", es "tras 1 pase", pt "após 1 passe"; German "nach 1-mal Passen"
    fits any number), and "3 passes" for more."""
    rs = rule_options.change(get_preset("classic"), "blocked_after", "1")
    with use_locale(locale):
        said = rules_help(rs)
        more = rules_help(rule_options.change(rs, "blocked_after", "3"))
    wrong = [line for line in said.splitlines() if ONE_PLURAL.search(line)]
    assert not wrong, wrong
    assert ONE[locale][1] in said, said
    assert THREE[locale][1] in more, more
