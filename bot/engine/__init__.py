"""The rules engine: Crazy Eights as RULESETS.md says, pure Python (no discord, asyncio or database).

Everything the contract (engine.md) names is importable from here.
"""

from bot.engine.actions import Action, ActionKind
from bot.engine.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUITS,
    Card,
    Suit,
    card_code,
    card_label,
    card_name,
    card_title,
    card_value,
    make_card,
    parse_card,
    parse_suit,
    rank_of,
    sort_key,
    suit_code,
    suit_name,
    suit_of,
    suit_symbol,
)
from bot.engine.errors import ERROR_MESSAGES, EngineError, RulesetError
from bot.engine.events import Event, events_for
from bot.engine.match import Match
from bot.engine.round import Round
from bot.engine.rules import PRESET_NAMES, PRESETS, Ruleset, get_preset, match_end_text, rules_help

__all__ = [
    "CLUBS",
    "DIAMONDS",
    "ERROR_MESSAGES",
    "HEARTS",
    "PRESETS",
    "PRESET_NAMES",
    "SPADES",
    "SUITS",
    "Action",
    "ActionKind",
    "Card",
    "EngineError",
    "Event",
    "Match",
    "Round",
    "Ruleset",
    "RulesetError",
    "Suit",
    "card_code",
    "card_label",
    "card_name",
    "card_title",
    "card_value",
    "events_for",
    "get_preset",
    "make_card",
    "match_end_text",
    "parse_card",
    "parse_suit",
    "rank_of",
    "rules_help",
    "sort_key",
    "suit_code",
    "suit_name",
    "suit_of",
    "suit_symbol",
]
