"""Engine values as the service shows them to the face: a house rule option's view (the lobby's panel), the
sides' standing (partnerships), the words for a finished match's house rules (the engine's
``bot.engine.rule_options`` knows the options, ``bot.engine.rule_wording`` their words)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.engine import Match, Ruleset, RulesetError, rule_options
from bot.engine import rule_wording as words
from bot.i18n import _
from bot.service.models import HouseOption, SideLine
from bot.store.base import SeatRecord


def house_option_view(ruleset: Ruleset, key: str) -> HouseOption:
    option = rule_options.option(key)
    return HouseOption(
        key=option.key,
        # In the language in force: the asking player's (the panel is theirs alone).
        label=_(option.label),
        help=_(option.help),
        typed=option.typed,
        current=rule_options.current_value(ruleset, option.key),
        described=words.describe(ruleset, option.key),
        values=tuple((code, _(label)) for code, label in rule_options.allowed_values(option.key, ruleset)),
    )


def side_lines(match: Match | None, seats: Sequence[SeatRecord]) -> tuple[SideLine, ...]:
    """The standing by side of a partnership match (empty otherwise)."""
    if match is None or not match.partnership:
        return ()
    return tuple(
        SideLine(place, positions, tuple(seats[p].display_name for p in positions), total)
        for place, positions, total in match.side_ranking()
    )


def house_words(preset: str, rules: dict[str, Any]) -> tuple[str, ...]:
    """A stored match's house rules in words (nothing when they no longer read as rules of the preset)."""
    if not rules:
        return ()
    try:
        return tuple(words.differences(rule_options.with_house_rules(preset, rules)))
    except RulesetError:
        return ()
