"""What a read-through of the German, French, Spanish and Portuguese screens found, against the shipped
catalogues: values shown by their words (not their codes), a house-rule line in the table's language, and no
English left in a seat's name."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.engine import PRESETS, rule_options, rule_wording
from bot.i18n import _, pgettext, use_locale
from bot.service import TableEvent
from bot.service.views import house_option_view
from bot.ui import render
from bot.ui.house_panel import HouseValueModal, option_content
from tests.i18n.catalogues import shipped
from tests.ui.snapshots import snapshot

RULES = replace(PRESETS["classic"], draw_limit=3, after_draw="draw-up-to", stacking=True)


@pytest.mark.parametrize("locale", shipped())
def test_the_house_rules_panel_shows_values_in_words(locale: str) -> None:
    with use_locale(locale):
        stacking = option_content(house_option_view(RULES, "stacking"))
        decks = option_content(house_option_view(RULES, "decks"))
        skips = house_option_view(RULES, "skip_ranks")
        assert f"**{_('on')}**" in stacking, stacking
        assert "**two-above-5**" not in decks and f"**{_('two decks above 5 players')}**" in decks, decks
        none = pgettext("house rule value", "none")
        assert f"**{none}**" in option_content(skips)
        modal = HouseValueModal(7, skips)
        assert modal.value.default == none
        assert rule_options.parse_value("skip_ranks", modal.value.default) == ()  # the form reads it back


@pytest.mark.parametrize("locale", shipped())
def test_a_house_rule_line_is_in_the_tables_language(locale: str) -> None:
    # The host changed the rule with an English client: the event carries their English words.
    with use_locale("en"):
        english = rule_wording.describe(RULES, "draw_limit")
    event = TableEvent("house_rule", None, {"option": "Draw limit", "value": "3", "text": english}, "engine")
    snap = snapshot(ruleset=RULES, phase="lobby", status="lobby")
    with use_locale(locale):
        line = render.describe_event(event, snap)
        assert line == _("House rule: {text}", text=rule_wording.describe(RULES, "draw_limit"))
    assert english not in (line or "")


@pytest.mark.parametrize("locale", shipped())
def test_a_seat_without_a_player_is_named_in_the_language(locale: str) -> None:
    with use_locale(locale):
        name = snapshot().name_at(5)
    assert name.endswith(" 6") and not name.startswith("seat "), name
