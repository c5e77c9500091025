"""House rules: every option of a ruleset as players change it at a table, in one place for every UI.

For each option (a ``Ruleset`` field) this module knows its label, its allowed values (what select menus and
autocomplete offer), how to read a typed value, and the words that tell players how a table differs from its
preset ("Draw up to 3 cards, then you may pass"). A change is validated as a whole ruleset: an impossible
combination raises ``RulesetError`` with the reason and the table keeps its rules.

Value codes are short strings: "on"/"off", a number, "none", ranks ("J 4"), rank and number pairs ("2:2 4:4").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bot.engine.cards import RANK_CODES
from bot.engine.errors import RulesetError
from bot.engine.rules import (
    AFTER_DRAW,
    CARD_VALUES,
    DECKS,
    MATCH_END,
    MAX_SEATS,
    NEXT_LEADER,
    PRESETS,
    REVERSE_TWO,
    SCORING,
    STARTER_WILD,
    Ruleset,
    get_preset,
)

CHOICE, NUMBER, RANKS, RANK_NUMBERS = "choice", "number", "ranks", "rank-numbers"
ON_OFF = (("on", "on"), ("off", "off"))
_TRUE = {"on", "yes", "true", "1", "y"}
_FALSE = {"off", "no", "false", "0", "n"}
_NONE = {"none", "no limit", "-", ""}
#: Most suggestions a Discord autocomplete or select menu shows.
MAX_SUGGESTIONS = 25


@dataclass(frozen=True)
class Option:
    """One house rule: ``key`` is the ``Ruleset`` field."""

    key: str
    label: str
    kind: str
    help: str
    #: (value code, label) for a choice.
    choices: tuple[tuple[str, str], ...] = ()
    #: Bounds of a number (and of the numbers in rank-number pairs).
    low: int = 0
    high: int = 0
    #: A number that may be none: what none means ("until a card can be played"); None: a number is needed.
    none_means: str | None = None
    #: Numbers worth offering first (the rest are typed).
    common: tuple[int, ...] = ()

    @property
    def typed(self) -> bool:
        """Whether the value is typed (a modal) rather than picked from a short list."""
        return self.kind != CHOICE


def _number(
    key: str,
    label: str,
    help: str,
    low: int,
    high: int,
    *,
    none_means: str | None = None,
    common: tuple[int, ...] = (),
) -> Option:
    return Option(key, label, NUMBER, help, low=low, high=high, none_means=none_means, common=common)


def _pairs(key: str, label: str, help: str, low: int, high: int) -> Option:
    return Option(key, label, RANK_NUMBERS, help, low=low, high=high)


def _bool_choice(key: str, label: str, help: str) -> Option:
    return Option(key, label, CHOICE, help, ON_OFF)


def _named(values: tuple[str, ...], labels: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((v, labels[v]) for v in values)


OPTIONS: tuple[Option, ...] = (
    _number("min_players", "Fewest players", "the fewest players to start", 2, MAX_SEATS),
    _number("max_players", "Most players", "the most players a table seats", 2, MAX_SEATS),
    _bool_choice("partnership", "Partnership", "four players in two sides, partners opposite"),
    Option(
        "decks",
        "Decks",
        CHOICE,
        "one deck, or two above some number of players",
        _named(
            DECKS,
            {
                "one": "one deck",
                "two-above-5": "two decks above 5 players",
                "two-above-2": "two decks above 2 players",
            },
        ),
    ),
    _number("hand_size", "Hand size", "cards dealt to each player", 1, 26, common=(5, 6, 7, 8)),
    _number(
        "hand_size_two",
        "Hand size for two",
        "cards dealt each with two players",
        1,
        26,
        common=(5, 7, 8),
    ),
    Option(
        "wild_rank",
        "Wild rank",
        CHOICE,
        "the rank played on anything (then name a suit)",
        (*((RANK_CODES[r], RANK_CODES[r]) for r in range(1, 14)), ("none", "no wild cards")),
    ),
    _bool_choice("wild_must_match", "Wild must match", "a wild follows suit like any card"),
    Option(
        "starter_wild",
        "Wild as starter",
        CHOICE,
        "what happens when the first card turned is a wild",
        _named(
            STARTER_WILD,
            {
                "keep": "keep it: match its suit",
                "hearts": "keep it: hearts are named",
                "bury": "bury it, turn another",
            },
        ),
    ),
    _bool_choice(
        "starter_effect", "Special starter works", "a special first card works as if the dealer played it"
    ),
    _bool_choice("draw_with_legal_play", "Draw with a play", "you may draw even when you could play"),
    _number(
        "draw_limit",
        "Draw limit",
        "cards you may draw in one turn",
        1,
        20,
        none_means="until a card can be played",
        common=(1, 2, 3, 5),
    ),
    Option(
        "after_draw",
        "After drawing",
        CHOICE,
        "what you may do after drawing",
        _named(
            AFTER_DRAW,
            {
                "must-play-drawn": "play the drawn card if it fits",
                "may-play-drawn": "play the drawn card or pass",
                "may-play-any": "play any card or pass",
                "draw-up-to": "play, or draw again up to the limit, then pass",
                "turn-ends": "the turn ends",
            },
        ),
    ),
    _bool_choice("draw_first", "Draw to start a turn", "every turn starts by drawing a card"),
    _bool_choice("reshuffle", "Reshuffle", "an empty stock is refilled from the discard pile"),
    _bool_choice(
        "empty_draw_ends_round", "Impossible draw ends round", "a draw that cannot be made ends the round"
    ),
    _bool_choice("pass_anytime", "Pass any time", "you may pass whenever you like"),
    _bool_choice("pass_when_no_draw", "Pass when stock is out", "you may pass while nothing can be drawn"),
    Option("skip_ranks", "Skip cards", RANKS, "ranks that skip the next player"),
    Option("reverse_ranks", "Reverse cards", RANKS, "ranks that reverse the direction"),
    Option(
        "reverse_two_players",
        "Reverse with two",
        CHOICE,
        "what a reverse does with two players",
        _named(REVERSE_TWO, {"nothing": "nothing more", "skip": "it skips the other player"}),
    ),
    _pairs("draw_ranks", "Draw cards", "rank:cards the next player draws (2:2)", 1, 20),
    _pairs("draw_caps", "Stacking caps", "rank:most cards stacking can make owed (2:8)", 1, 60),
    Option("answer_ranks", "Answer cards", RANKS, "ranks the next player must answer or miss a turn"),
    _bool_choice("stacking", "Stacking", "a draw card can be answered with the same rank"),
    _bool_choice("wild_answers_draw", "Wild answers a draw", "a wild cancels a pending draw"),
    _bool_choice("same_rank_runs", "Same-rank runs", "play more cards of the same rank in one turn"),
    _bool_choice("last_card", "Last card", "call your last card or be caught"),
    _number(
        "last_card_penalty",
        "Last card penalty",
        "cards drawn when caught",
        1,
        10,
        common=(1, 2, 3, 4),
    ),
    _number(
        "blocked_after",
        "Blocked after",
        "passes in a row that block the round",
        1,
        20,
        none_means="every player passed in a row",
    ),
    _number("turn_cap", "Turn cap", "turns before a round ends anyway", 50, 5000, common=(250, 500, 1000)),
    Option(
        "scoring",
        "Scoring",
        CHOICE,
        "how a round is scored",
        _named(
            SCORING,
            {
                "penalty": "your hand's value, low wins",
                "payment": "the winner collects",
                "card-count": "1 per card",
            },
        ),
    ),
    Option(
        "card_values",
        "Card values",
        CHOICE,
        "what cards are worth",
        _named(CARD_VALUES, {"volity": "8 = 50, court 10, A 1", "switch": "A 20, 2/4/J 15, K/Q 10"}),
    ),
    Option(
        "match_end",
        "Match end",
        CHOICE,
        "when the match ends",
        _named(
            MATCH_END,
            {
                "passes-target": "a total passes the target (low wins)",
                "reaches-target": "a total reaches the target (high wins)",
                "rounds": "a number of rounds",
                "one-round": "one round",
            },
        ),
    ),
    _number(
        "target",
        "Target",
        "the points that end the match",
        1,
        10000,
        none_means="no target (a match of a set number of rounds)",
        common=(25, 50, 100, 150, 200, 250, 500),
    ),
    _number(
        "rounds",
        "Rounds",
        "rounds in a match of a number of rounds",
        1,
        50,
        none_means="not set (the match ends on a target)",
        common=(1, 3, 5, 7, 10),
    ),
    Option(
        "next_leader",
        "Next round leader",
        CHOICE,
        "who moves first in the next round",
        _named(
            NEXT_LEADER,
            {"left-of-dealer": "left of the dealer", "most-points": "the player with most points"},
        ),
    ),
)

_BY_KEY: dict[str, Option] = {o.key: o for o in OPTIONS}


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().replace("_", " ").replace("-", " ").split())


_BY_NAME: dict[str, Option] = {}
for _o in OPTIONS:
    _BY_NAME[_norm(_o.key)] = _o
    _BY_NAME[_norm(_o.label)] = _o

_FIELDS = {f.name for f in dataclasses.fields(Ruleset)} - {"name"}
assert set(_BY_KEY) == _FIELDS, "every ruleset option is a house rule"


def option(name: str) -> Option:
    """The option called ``name`` (its key or label, any case); ``RulesetError`` if there is none."""
    found = _BY_NAME.get(_norm(name)) if isinstance(name, str) else None
    if found is None:
        raise RulesetError(f"unknown house rule {name!r}")
    return found


# --------------------------------------------------------------------------------------------- values
def _rank(text: str) -> int:
    t = text.strip().upper()
    if t == "T":
        t = "10"
    names = {"ACE": "A", "JACK": "J", "QUEEN": "Q", "KING": "K"}
    t = names.get(t, t)
    if t in RANK_CODES[1:]:
        return RANK_CODES.index(t)
    raise RulesetError(f"{text.strip()!r} is not a rank (A, 2–10, J, Q, K)")


def _words(text: str) -> list[str]:
    return text.replace(",", " ").replace(";", " ").split()


def _whole(o: Option, text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise RulesetError(f"{o.label}: {text!r} is not a whole number from {o.low} to {o.high}") from None
    if not o.low <= n <= o.high:
        raise RulesetError(f"{o.label}: the number must be from {o.low} to {o.high}")
    return n


def value_code(key: str, value: Any) -> str:
    """The value's code, as ``parse_value`` reads it and the menus list it."""
    o = option(key)
    if o.kind == CHOICE:
        if isinstance(value, bool):
            return "on" if value else "off"
        if key == "wild_rank":
            return "none" if value is None else RANK_CODES[value]
        return str(value)
    if o.kind == NUMBER:
        return "none" if value is None else str(value)
    if o.kind == RANKS:
        return " ".join(RANK_CODES[r] for r in value) if value else "none"
    return " ".join(f"{RANK_CODES[r]}:{n}" for r, n in value) if value else "none"


def parse_value(key: str, text: Any) -> Any:
    """Read a value for option ``key`` (a code, or already the value); ``RulesetError`` says what is wrong."""
    o = option(key)
    if not isinstance(text, str):
        return text
    t = text.strip()
    low = t.lower()
    if o.kind == CHOICE:
        if o.choices == ON_OFF:
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise RulesetError(f"{o.label}: say on or off")
        if key == "wild_rank":
            return None if low in _NONE else _rank(t)
        for code, label in o.choices:
            if low in (code, label.lower()):
                return code
        raise RulesetError(f"{o.label}: choose one of {', '.join(c for c, _ in o.choices)}")
    if o.kind == NUMBER:
        if low in _NONE:
            if o.none_means is None:
                raise RulesetError(f"{o.label} needs a number from {o.low} to {o.high}")
            return None
        return _whole(o, t)
    if low in _NONE:
        return ()
    if o.kind == RANKS:
        ranks = tuple(_rank(w) for w in _words(t))
        if len(set(ranks)) != len(ranks):
            raise RulesetError(f"{o.label}: a rank is listed twice")
        return ranks
    pairs: list[tuple[int, int]] = []
    for w in _words(t):
        rank, sep, number = w.partition(":")
        if not sep:
            raise RulesetError(f"{o.label}: write rank:number, for example 2:2")
        pairs.append((_rank(rank), _whole(o, number)))
    if len({r for r, _ in pairs}) != len(pairs):
        raise RulesetError(f"{o.label}: a rank is listed twice")
    return tuple(pairs)


def allowed_values(key: str, ruleset: Ruleset | None = None) -> list[tuple[str, str]]:
    """(value code, label) to offer for ``key``, at most ``MAX_SUGGESTIONS``: every choice, or for a typed
    value the current one first, then common values (other values are typed: ``parse_value`` reads them)."""
    o = option(key)
    if o.kind == CHOICE:
        return list(o.choices)
    out: list[tuple[str, str]] = []

    def add(code: str, label: str) -> None:
        if all(code != c for c, _ in out):
            out.append((code, label))

    if ruleset is not None:
        current = value_code(key, getattr(ruleset, key))
        add(current, f"{current} (now)")
    if o.kind == NUMBER:
        if o.none_means is not None:
            add("none", f"none: {o.none_means}")
        numbers = o.common or tuple(range(o.low, o.high + 1))
        for n in numbers:
            add(str(n), str(n))
    elif o.kind == RANKS:
        add("none", "none")
        for r in range(1, 14):
            add(RANK_CODES[r], RANK_CODES[r])
    else:
        add("none", "none")
        examples = ("2:2", "2:2 4:4", "J:5") if key == "draw_ranks" else ("2:8", "2:8 4:16")
        for code in examples:
            add(code, code)
    return out[:MAX_SUGGESTIONS]


def suggestions(key: str, typed: str, ruleset: Ruleset | None = None) -> list[tuple[str, str]]:
    """``allowed_values`` that start with (or contain) what was typed; a typed value that reads well is
    offered first, so a number or a list of ranks not in the list can still be picked."""
    values = allowed_values(key, ruleset)
    t = typed.strip().lower()
    if not t:
        return values
    hits = [v for v in values if v[0].lower().startswith(t) or v[1].lower().startswith(t)]
    hits += [v for v in values if v not in hits and (t in v[0].lower() or t in v[1].lower())]
    try:
        code = value_code(key, parse_value(key, typed))
    except RulesetError:
        return hits[:MAX_SUGGESTIONS]
    if all(code != c for c, _ in hits):
        hits.insert(0, (code, code))
    return hits[:MAX_SUGGESTIONS]


# --------------------------------------------------------------------------------------------- changing
def change(ruleset: Ruleset, key: str, value: Any) -> Ruleset:
    """``ruleset`` with one option changed (``value``: a code or the value itself). Raises ``RulesetError``
    with the reason when the value or the combination is impossible."""
    o = option(key)
    return ruleset.replace(**{o.key: parse_value(o.key, value)})


def house_rules(ruleset: Ruleset) -> dict[str, Any]:
    """The options that differ from the ruleset's preset, as JSON (what a table stores)."""
    base = PRESETS[ruleset.name].to_json()
    return {k: v for k, v in ruleset.to_json().items() if k != "name" and base[k] != v}


def with_house_rules(preset: str, changes: dict[str, Any]) -> Ruleset:
    """The preset with stored house rules applied (validated as one ruleset)."""
    if not isinstance(changes, dict):
        raise RulesetError("house rules must be a JSON object")
    rs = get_preset(preset)
    keys = [option(k).key for k in changes]
    return rs.replace(**dict(zip(keys, changes.values(), strict=True))) if changes else rs


def current_value(ruleset: Ruleset, key: str) -> str:
    """The option's value code in ``ruleset``."""
    o = option(key)
    return value_code(o.key, getattr(ruleset, o.key))
