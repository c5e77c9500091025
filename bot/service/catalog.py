"""What the rules offer before any table exists, for the face's choices and autocompletes: the presets, the
house options a server's settings may set, and the values each takes."""

from __future__ import annotations

from bot.engine import PRESETS, RulesetError, rule_options
from bot.engine.crazier import PRESETS as CRAZIER_PRESETS
from bot.i18n import _


def preset_names() -> list[str]:
    """The presets, in the order the choices list shows them (crazier-abilities, a game of its own, last)."""
    return [*PRESETS, *CRAZIER_PRESETS]


def house_option_labels() -> list[tuple[str, str]]:
    """(key, label) of every house option, in the engine's order (labels in the language in force)."""
    return [(option.key, _(option.label)) for option in rule_options.OPTIONS]


def house_value_suggestions(option: str, typed: str) -> list[tuple[str, str]]:
    """(value, label) to offer for ``option`` whatever the preset, filtered by what was typed; empty for an
    unknown option."""
    try:
        return [(value, _(label)) for value, label in rule_options.suggestions(option, typed)]
    except RulesetError:
        return []
