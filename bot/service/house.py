"""House rules and partnerships as the service shows them: the lobby's option views, the sides' standing,
the words for a finished match's house rules (the engine's ``bot.engine.house`` knows the options)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.engine import Match, Ruleset, RulesetError, house
from bot.engine import house_words as words
from bot.service.models import HouseOption, SideLine
from bot.store.base import SeatRecord


def house_option_view(ruleset: Ruleset, key: str) -> HouseOption:
    option = house.option(key)
    return HouseOption(
        key=option.key,
        label=option.label,
        help=option.help,
        typed=option.typed,
        current=house.current_value(ruleset, option.key),
        described=words.describe(ruleset, option.key),
        values=tuple(house.allowed_values(option.key, ruleset)),
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
        return tuple(words.differences(house.with_house_rules(preset, rules)))
    except RulesetError:
        return ()
