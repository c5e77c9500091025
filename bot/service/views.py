"""Engine values as the service shows them to the face: a house rule option's view (the lobby's panel), the
sides' standing (partnerships), the words for a finished match's house rules and for a server's house rules
for new tables (the engine's ``bot.engine.rule_options`` knows the options, ``bot.engine.rule_wording``
their words)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from bot.engine import PRESETS, Match, Ruleset, RulesetError, get_preset, rule_options
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


#: What a stored rule's value may raise when a preset refuses it (a damaged or an impossible value).
_REFUSED = (RulesetError, TypeError, ValueError)


def server_house_words(preset: str, rules: dict[str, Any]) -> tuple[str, ...]:
    """A server's house rules for new tables in words, read against ``preset`` (one they fit together): one
    sentence per rule (options that read as one give one), a rule that ``preset`` itself has included, since
    new tables of the other presets get it too. Nothing when they do not fit ``preset``."""
    if not rules:
        return ()
    try:
        ruleset = rule_options.with_house_rules(preset, rules)
    except _REFUSED:
        return ()
    out = list(words.differences(ruleset))
    base = PRESETS[ruleset.name]
    for option in rule_options.OPTIONS:
        if option.key not in rules or getattr(ruleset, option.key) != getattr(base, option.key):
            continue  # not a rule of the server's, or said above
        sentence = words.describe(ruleset, option.key)
        if words.in_use(ruleset, option.key) and sentence not in out:
            out.append(sentence)
    return tuple(out)


def server_rules_left_out(preset: str, shown_against: str, rules: dict[str, Any]) -> tuple[str, ...]:
    """The server's house rules that new tables of ``preset`` start without, in the words
    ``server_house_words(shown_against, rules)`` gives them, each with the preset's reason when it has one.

    As the lobby applies them (``bot.service.lobby``): all of them when they fit the preset together, else
    each one that fits, in turn; a preset that takes no house rules (crazier-abilities) none."""
    if not rules:
        return ()
    try:
        shown: Ruleset | None = rule_options.with_house_rules(shown_against, rules)
    except _REFUSED:
        shown = None

    def sentence(key: str) -> str:
        try:
            return words.describe(shown, key) if shown is not None else key
        except _REFUSED:
            return key

    if preset not in PRESETS:
        return tuple(dict.fromkeys(sentence(key) for key in rules))
    out: dict[str, str] = {}  # sentence: with its reason
    for key, exc in with_server_rules(get_preset(preset), rules)[1]:
        said = sentence(key)
        reason = str(exc) if isinstance(exc, RulesetError) else ""
        out.setdefault(said, f"{said} ({reason})" if reason else said)
    return tuple(out.values())


def with_server_rules(ruleset: Ruleset, rules: dict[str, Any]) -> tuple[Ruleset, list[tuple[str, Exception]]]:
    """The preset ``ruleset`` with a server's house rules for new tables, and those it refused with why: all
    of them when they fit it together, else each one that fits, in turn (one rule a preset refuses leaves
    the others in force). The lobby deals new tables with these; the settings answer names the refused."""
    try:
        return rule_options.with_house_rules(ruleset.name, rules), []
    except _REFUSED:
        pass
    # One at a time as a host sets them (``rule_options.change``: the options the engine takes only
    # together, a match end and what it counts, follow each other), passes repeated while one more fits, so
    # that neither the stored order nor a pair refused half by half leaves out a rule the preset takes.
    left = dict(rules)
    refused: dict[str, Exception] = {}
    for _pass in range(len(rules)):
        applied_one = False
        for key, value in list(left.items()):
            try:
                ruleset = rule_options.change(ruleset, key, value)
            except _REFUSED as exc:
                refused[key] = exc
                continue
            del left[key]
            applied_one = True
        if not applied_one or not left:
            break
    # A later rule's companion change may have moved an earlier one (a target after a number of rounds):
    # the stored values are set again where they still fit together.
    for key, value in rules.items():
        if key not in left:
            with contextlib.suppress(*_REFUSED):
                ruleset = ruleset.replace(**{rule_options.option(key).key: value})
    return ruleset, [(key, refused[key]) for key in left]
