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

from bot.engine.cards import RANK_CODES, parse_rank
from bot.engine.errors import RulesetError, typed_shown
from bot.engine.rules import (
    AFTER_DRAW,
    CARD_VALUES,
    DECKS,
    EARLIER_RULES,
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
from bot.i18n import N_, _, current_locale, fold, listed_words, pgettext, read_typed, use_locale

CHOICE, NUMBER, RANKS, RANK_NUMBERS = "choice", "number", "ranks", "rank-numbers"
ON_OFF = (("on", N_("on")), ("off", N_("off")))


# What a player may type for on, off and none: listed by each catalogue (the player's language is read
# first, then English; see ``bot.i18n.read_typed``).
def _on_words() -> str:
    # TRANSLATORS: the words a player may type to turn a house rule on, comma-separated (any case; accents
    # may be left out when typed). Never a word of the "off" list.
    return pgettext("typed words meaning on", "on, yes, true, y, 1")


def _off_words() -> str:
    # TRANSLATORS: the words a player may type to turn a house rule off, comma-separated. Never a word of
    # the "on" list.
    return pgettext("typed words meaning off", "off, no, false, n, 0")


def _none_words() -> str:
    # TRANSLATORS: the words a player may type for "no number" (no draw limit, no target), comma-separated.
    return pgettext("typed words meaning none", "none, no limit, -")


def _switch_words(locale: str) -> dict[str, bool]:
    on, off = listed_words(locale, _on_words), listed_words(locale, _off_words)
    # A word a catalogue lists both ways means neither.
    return {w: True for w in on - off} | {w: False for w in off - on}


def _none_vocabulary(locale: str) -> dict[str, bool]:
    return dict.fromkeys(listed_words(locale, _none_words), True)


def _is_none(text: str) -> bool:
    return not text.strip() or bool(read_typed(text, _none_vocabulary))


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
    _number("min_players", N_("Fewest players"), N_("the fewest players to start"), 2, MAX_SEATS),
    _number("max_players", N_("Most players"), N_("the most players a table seats"), 2, MAX_SEATS),
    _bool_choice("partnership", N_("Partnership"), N_("four players in two sides, partners opposite")),
    Option(
        "decks",
        N_("Decks"),
        CHOICE,
        N_("one deck, or two above some number of players"),
        _named(
            DECKS,
            {
                "one": N_("one deck"),
                "two-above-5": N_("two decks above 5 players"),
                "two-above-2": N_("two decks above 2 players"),
            },
        ),
    ),
    _number("hand_size", N_("Hand size"), N_("cards dealt to each player"), 1, 26, common=(5, 6, 7, 8)),
    _number(
        "hand_size_two",
        N_("Hand size for two"),
        N_("cards dealt each with two players"),
        1,
        26,
        common=(5, 7, 8),
    ),
    Option(
        "wild_rank",
        N_("Wild rank"),
        CHOICE,
        N_("the rank played on anything (then name a suit)"),
        (*((RANK_CODES[r], RANK_CODES[r]) for r in range(1, 14)), ("none", N_("no wild cards"))),
    ),
    _bool_choice("wild_must_match", N_("Wild must match"), N_("a wild follows suit like any card")),
    Option(
        "starter_wild",
        N_("Wild as starter"),
        CHOICE,
        N_("what happens when the first card turned is a wild"),
        _named(
            STARTER_WILD,
            {
                "keep": N_("keep it: match its suit"),
                "hearts": N_("keep it: hearts are named"),
                "bury": N_("bury it, turn another"),
            },
        ),
    ),
    _bool_choice(
        "starter_effect",
        N_("Special starter works"),
        N_("a special first card works as if the dealer played it"),
    ),
    _bool_choice("draw_with_legal_play", N_("Draw with a play"), N_("you may draw even when you could play")),
    _number(
        "draw_limit",
        N_("Draw limit"),
        N_("cards you may draw in one turn"),
        1,
        20,
        none_means=N_("until a card can be played"),
        common=(1, 2, 3, 5),
    ),
    Option(
        "after_draw",
        N_("After drawing"),
        CHOICE,
        N_("what you may do after drawing"),
        _named(
            AFTER_DRAW,
            {
                "must-play-drawn": N_("play the drawn card if it fits"),
                "may-play-drawn": N_("play the drawn card or pass"),
                "may-play-any": N_("play any card or pass"),
                "draw-up-to": N_("play, or draw again up to the limit, then pass"),
                "turn-ends": N_("the turn ends"),
            },
        ),
    ),
    _bool_choice("draw_first", N_("Draw to start a turn"), N_("every turn starts by drawing a card")),
    _bool_choice("reshuffle", N_("Reshuffle"), N_("an empty stock is refilled from the discard pile")),
    _bool_choice(
        "empty_draw_ends_round",
        N_("Impossible draw ends round"),
        N_("a draw that cannot be made ends the round"),
    ),
    _bool_choice("pass_anytime", N_("Pass any time"), N_("you may pass whenever you like")),
    _bool_choice(
        "pass_when_no_draw", N_("Pass when stock is out"), N_("you may pass while nothing can be drawn")
    ),
    Option("skip_ranks", N_("Skip cards"), RANKS, N_("ranks that skip the next player")),
    Option("reverse_ranks", N_("Reverse cards"), RANKS, N_("ranks that reverse the direction")),
    Option(
        "reverse_two_players",
        N_("Reverse with two"),
        CHOICE,
        N_("what a reverse does with two players"),
        _named(REVERSE_TWO, {"nothing": N_("nothing more"), "skip": N_("it skips the other player")}),
    ),
    _pairs("draw_ranks", N_("Draw cards"), N_("rank:cards the next player draws (2:2)"), 1, 20),
    _pairs("draw_caps", N_("Stacking caps"), N_("rank:most cards stacking can make owed (2:8)"), 1, 60),
    Option("answer_ranks", N_("Answer cards"), RANKS, N_("ranks the next player must answer or miss a turn")),
    _bool_choice("stacking", N_("Stacking"), N_("a draw card can be answered with the same rank")),
    _bool_choice("wild_answers_draw", N_("Wild answers a draw"), N_("a wild cancels a pending draw")),
    _bool_choice("same_rank_runs", N_("Same-rank runs"), N_("play more cards of the same rank in one turn")),
    _bool_choice("last_card", N_("Last card"), N_("call your last card or be caught")),
    _number(
        "last_card_penalty",
        N_("Last card penalty"),
        N_("cards drawn when caught"),
        1,
        10,
        common=(1, 2, 3, 4),
    ),
    _number(
        "blocked_after",
        N_("Blocked after"),
        N_("passes in a row that block the round"),
        1,
        20,
        none_means=N_("every player passed in a row"),
    ),
    _number(
        "turn_cap", N_("Turn cap"), N_("turns before a round ends anyway"), 50, 5000, common=(250, 500, 1000)
    ),
    Option(
        "scoring",
        N_("Scoring"),
        CHOICE,
        N_("how a round is scored"),
        _named(
            SCORING,
            {
                "penalty": N_("your hand's value, low wins"),
                "payment": N_("the winner collects"),
                "card-count": N_("1 per card"),
            },
        ),
    ),
    Option(
        "card_values",
        N_("Card values"),
        CHOICE,
        N_("what cards are worth"),
        _named(CARD_VALUES, {"volity": N_("8 = 50, court 10, A 1"), "switch": N_("A 20, 2/4/J 15, K/Q 10")}),
    ),
    Option(
        "match_end",
        N_("Match end"),
        CHOICE,
        N_("when the match ends"),
        _named(
            MATCH_END,
            {
                "passes-target": N_("a total passes the target (low wins)"),
                "reaches-target": N_("a total reaches the target (high wins)"),
                "rounds": N_("a number of rounds"),
                "one-round": N_("one round"),
            },
        ),
    ),
    _number(
        "target",
        N_("Target"),
        N_("the points that end the match"),
        1,
        10000,
        none_means=N_("no target (a match of a set number of rounds)"),
        common=(25, 50, 100, 150, 200, 250, 500),
    ),
    _number(
        "rounds",
        N_("Rounds"),
        N_("rounds in a match of a number of rounds"),
        1,
        50,
        none_means=N_("not set (the match ends on a target)"),
        common=(1, 3, 5, 7, 10),
    ),
    Option(
        "next_leader",
        N_("Next round leader"),
        CHOICE,
        N_("who moves first in the next round"),
        _named(
            NEXT_LEADER,
            {"left-of-dealer": N_("left of the dealer"), "most-points": N_("the player with most points")},
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

# The rules that keep stored matches on the rule they were played by are no house rules (``EARLIER_RULES``).
_FIELDS = {f.name for f in dataclasses.fields(Ruleset)} - {"name"} - set(EARLIER_RULES)
assert set(_BY_KEY) == _FIELDS, "every ruleset option is a house rule"


def _options_by_label(locale: str) -> dict[str, Option]:
    with use_locale(locale):
        return {fold(_(o.label)): o for o in OPTIONS}


def option(name: str) -> Option:
    """The option called ``name`` (its key or label, any case); ``RulesetError`` if there is none."""
    found = _BY_NAME.get(_norm(name)) if isinstance(name, str) else None
    if found is None and isinstance(name, str):  # its label in the player's language
        found = read_typed(name.replace("_", " "), _options_by_label)
    if found is None:
        shown = typed_shown(name) if isinstance(name, str) else name
        raise RulesetError(_("unknown house rule '{name}'", name=shown))
    return found


# --------------------------------------------------------------------------------------------- values
def _rank(text: str) -> int:
    # A code, or a rank's name in the player's language or English ("K", "king", "König", "roi").
    rank = parse_rank(text)
    if rank is None:
        raise RulesetError(_("'{text}' is not a rank (A, 2–10, J, Q, K)", text=typed_shown(text)))
    return rank


def _words(text: str) -> list[str]:
    return text.replace(",", " ").replace(";", " ").split()


def _whole(o: Option, text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise RulesetError(
            _(
                "{label}: '{text}' is not a whole number from {low} to {high}",
                label=_(o.label),
                text=typed_shown(text),
                low=o.low,
                high=o.high,
            )
        ) from None
    if not o.low <= n <= o.high:
        raise RulesetError(
            _("{label}: the number must be from {low} to {high}", label=_(o.label), low=o.low, high=o.high)
        )
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
    if o.kind == CHOICE:
        if o.choices == ON_OFF:
            switch = read_typed(t, _switch_words)
            if switch is None:
                raise RulesetError(_("{label}: say on or off", label=_(o.label)))
            return switch
        if key == "wild_rank":
            # "none", or its label as the value list shows it ("no wild cards", "keine Joker"), or a rank.
            if _is_none(t) or read_typed(t, lambda locale: _choice_words(o, locale)) == "none":
                return None
            return _rank(t)
        code = read_typed(t, lambda locale: _choice_words(o, locale))
        if code is not None:
            return code
        raise RulesetError(
            _(
                "{label}: choose one of {items}",
                label=_(o.label),
                items="; ".join(_(label) for _code, label in o.choices),
            )
        )
    if o.kind == NUMBER:
        if _is_none(t):
            if o.none_means is None:
                raise RulesetError(
                    _("{label} needs a number from {low} to {high}", label=_(o.label), low=o.low, high=o.high)
                )
            return None
        return _whole(o, t)
    if _is_none(t):
        return ()
    if o.kind == RANKS:
        ranks = tuple(_rank(w) for w in _words(t))
        if len(set(ranks)) != len(ranks):
            raise RulesetError(_("{label}: a rank is listed twice", label=_(o.label)))
        return ranks
    pairs: list[tuple[int, int]] = []
    for w in _words(t):
        rank, sep, number = w.partition(":")
        if not sep:
            raise RulesetError(_("{label}: write rank:number, for example 2:2", label=_(o.label)))
        pairs.append((_rank(rank), _whole(o, number)))
    if len({r for r, _ in pairs}) != len(pairs):
        raise RulesetError(_("{label}: a rank is listed twice", label=_(o.label)))
    return tuple(pairs)


def _choice_words(o: Option, locale: str) -> dict[str, str]:
    """A choice's values by their codes and by their labels in ``locale``."""
    with use_locale(locale):
        words = {fold(_(label)): code for code, label in o.choices}
    return words | {fold(code): code for code, _label in o.choices}


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

    none = pgettext("house rule value", "none")
    if ruleset is not None:
        current = value_code(key, getattr(ruleset, key))
        add(current, _("{value} (now)", value=none if current == "none" else current))
    if o.kind == NUMBER:
        if o.none_means is not None:
            add("none", _("{none}: {meaning}", none=none, meaning=_(o.none_means)))
        numbers = o.common or tuple(range(o.low, o.high + 1))
        for n in numbers:
            add(str(n), str(n))
    elif o.kind == RANKS:
        add("none", none)
        for r in range(1, 14):
            add(RANK_CODES[r], RANK_CODES[r])
    else:
        add("none", none)
        examples = ("2:2", "2:2 4:4", "J:5") if key == "draw_ranks" else ("2:8", "2:8 4:16")
        for code in examples:
            add(code, code)
    return out[:MAX_SUGGESTIONS]


def suggestions(key: str, typed: str, ruleset: Ruleset | None = None) -> list[tuple[str, str]]:
    """``allowed_values`` that start with (or contain) what was typed; a typed value that reads well is
    offered first, so a number or a list of ranks not in the list can still be picked."""
    values = allowed_values(key, ruleset)
    t = fold(typed)
    if not t:
        return values
    # Labels as the player reads them (a choice's are translated where shown), accents optional.
    words = [(fold(code), fold(_(label))) for code, label in values]
    hits = [v for v, (c, w) in zip(values, words, strict=True) if c.startswith(t) or w.startswith(t)]
    hits += [v for v, (c, w) in zip(values, words, strict=True) if v not in hits and (t in c or t in w)]
    if option(key).choices == ON_OFF:
        # Also by the words a player may type for on and off ("désac…" finds "non" in French).
        switch = _switch_words(current_locale())
        said = {value for word, value in switch.items() if fold(word).startswith(t)}
        hits += [v for v in values if v not in hits and (v[0] == "on") in said]
    try:
        code = value_code(key, parse_value(key, typed))
    except RulesetError:
        return hits[:MAX_SUGGESTIONS]
    if all(code != c for c, _ in hits):
        hits.insert(0, (code, code))
    return hits[:MAX_SUGGESTIONS]


# --------------------------------------------------------------------------------------------- changing
#: The number of rounds a match of rounds is given when it is chosen before any number was set.
DEFAULT_ROUNDS = 5


def change(ruleset: Ruleset, key: str, value: Any) -> Ruleset:
    """``ruleset`` with one option changed (``value``: a code or the value itself). Raises ``RulesetError``
    with the reason when the value or the combination is impossible.

    The options that only make sense together follow each other, in whichever order they are set: a number
    of rounds (or a target) set while the match ends otherwise makes it a match of that many rounds (or to
    that target); a match of rounds chosen with no number yet is ``DEFAULT_ROUNDS`` rounds; and a match to a
    target follows the scoring (payment: a total reaches it, highest wins; else a total passes it, lowest
    wins), whichever of the two is changed."""
    o = option(key)
    parsed = parse_value(o.key, value)
    changes: dict[str, Any] = {o.key: parsed}
    to_target = "reaches-target" if ruleset.scoring == "payment" else "passes-target"
    if o.key == "match_end" and parsed == "rounds" and ruleset.rounds is None:
        changes["rounds"] = DEFAULT_ROUNDS
    elif o.key == "rounds" and parsed is not None and ruleset.match_end != "rounds":
        changes["match_end"] = "rounds"
    elif o.key == "target" and parsed is not None and ruleset.match_end in ("rounds", "one-round"):
        changes["match_end"] = to_target
    elif o.key == "scoring" and ruleset.match_end in TARGET_ENDS:
        changes["match_end"] = "reaches-target" if parsed == "payment" else "passes-target"
    elif o.key == "match_end" and parsed == "reaches-target" and ruleset.scoring != "payment":
        changes["scoring"] = "payment"
    elif o.key == "match_end" and parsed == "passes-target" and ruleset.scoring == "payment":
        changes["scoring"] = "penalty"
    return ruleset.replace(**changes)


TARGET_ENDS = ("passes-target", "reaches-target")


def house_rules(ruleset: Ruleset) -> dict[str, Any]:
    """The options that differ from the ruleset's preset, as JSON (what a table stores). A rule a table
    stored before a change of play keeps (``EARLIER_RULES``) is none: it is never listed nor set as one."""
    base = PRESETS[ruleset.name].to_json()
    return {k: v for k, v in ruleset.to_json().items() if k in _FIELDS and base[k] != v}


def with_house_rules(preset: str, changes: dict[str, Any]) -> Ruleset:
    """The preset with stored house rules applied (validated as one ruleset)."""
    if not isinstance(changes, dict):
        raise RulesetError(_("house rules must be a JSON object"))
    rs = get_preset(preset)
    keys = [option(k).key for k in changes]
    return rs.replace(**dict(zip(keys, changes.values(), strict=True))) if changes else rs


def current_value(ruleset: Ruleset, key: str) -> str:
    """The option's value code in ``ruleset``."""
    o = option(key)
    return value_code(o.key, getattr(ruleset, o.key))
