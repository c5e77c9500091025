"""Rulesets: every option of RULESETS.md as a field of one frozen value, the eight presets, the rules help.

Option values are plain strings and ints so a ruleset is JSON as it is. Where RULESETS.md is silent the choice
made here (after the seed it names) is written in a comment and in the rules help.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bot.engine.cards import RANK_CODES, SUIT_NAMES
from bot.engine.earlier import filled, readings
from bot.engine.errors import RulesetError, typed_shown
from bot.i18n import N_, _, ngettext

DECKS = ("one", "two-above-5", "two-above-2")
STARTER_WILD = ("keep", "hearts", "bury")
AFTER_DRAW = ("must-play-drawn", "may-play-drawn", "may-play-any", "draw-up-to", "turn-ends")
REVERSE_TWO = ("nothing", "skip")
SCORING = ("penalty", "payment", "card-count")
CARD_VALUES = ("volity", "switch")
MATCH_END = ("passes-target", "reaches-target", "rounds", "one-round")
NEXT_LEADER = ("left-of-dealer", "most-points")

#: Card values by rank (index 0 unused).
VALUE_TABLES: dict[str, tuple[int, ...]] = {
    # Volity: 8 = 50, court cards 10, A 1, others face value.
    "volity": (0, 1, 2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10),
    # Switch (seed 004): A 20; 2, 4, J 15; K Q 10; others face value.
    "switch": (0, 20, 15, 3, 15, 5, 6, 7, 8, 9, 10, 15, 10, 10),
}

MAX_SEATS = 8
#: A partnership game is for exactly this many players (RULESETS.md, Partnership).
PARTNERSHIP_SEATS = 4

#: The fields of ``Ruleset`` that are not house rules, oldest change first: each keeps matches on the rule
#: they were played by after a change of play (README, *Replays*: a match is rebuilt from its deal and its
#: move log, matches stored before the change included). New tables take the field's default, today's rule.
#: A ruleset stored before the field existed lacks it and reads (``Ruleset.from_json``) as the value here,
#: the rule its matches were played, and are replayed, by; a table in play goes on by it. How, and how else
#: it may have been played: ``bot.engine.earlier``, ``Match.stored_readings``. Never offered, typed, listed
#: or worded as house rules (``rule_options``, ``rule_wording``, ``rules_help``).
EARLIER_RULES: dict[str, Any] = {
    # Before commit 0ecec83: a rank that skipped and made the next player draw skipped first.
    "skipped_player_draws": False,
    # Before commit 3a63368: a must-play-drawn player who drew the stock's last card and still could not play
    # was passed, under the impossible-draw option too.
    "owed_draw_ends_round": False,
}


@dataclass(frozen=True)
class Ruleset:
    """One combination of options. Build presets with ``get_preset`` and change them with ``replace``."""

    name: str = "classic"
    min_players: int = 2
    max_players: int = 7
    #: "one" deck; two decks above 5 players ("two-above-5", seed 000); two decks above 2 players (seed 004).
    decks: str = "two-above-5"
    hand_size: int = 5
    #: Hand size with exactly two players.
    hand_size_two: int = 7
    #: The wild rank (8 by default, 1 = aces in Switch); None = no wild cards.
    wild_rank: int | None = 8
    #: A wild must match the target like any other card.
    wild_must_match: bool = False
    #: A wild turned as starter: "keep" (match its suit), "hearts" (hearts declared), "bury" (into the stock).
    starter_wild: str = "keep"
    #: A special starter card takes effect as if the dealer had played it.
    starter_effect: bool = False
    #: A player may draw even with a legal play in hand.
    draw_with_legal_play: bool = True
    #: Cards a player may draw per turn (None = until a playable card comes).
    draw_limit: int | None = None
    #: After drawing: must play the drawn card if playable (and it came from a draw forced by having no play);
    #: may play the drawn card or pass; may play any legal card or pass; "draw-up-to": may play any legal card
    #: or draw again, and may pass only once ``draw_limit`` cards were drawn this turn or nothing can be drawn
    #: (with 5 and no reshuffle: OpenSpiel's ``crazy_eights``); the turn ends.
    after_draw: str = "must-play-drawn"
    #: Every turn starts with drawing a card (Crazier Eights).
    draw_first: bool = False
    #: An empty stock is refilled from the discard pile under its top card.
    reshuffle: bool = True
    #: A player who must draw when no card can be drawn ends the round (settled as blocked), not a pass.
    empty_draw_ends_round: bool = False
    #: Any player may pass on their turn (not only one who can neither play nor draw), stock or not.
    pass_anytime: bool = False
    #: Any player may pass on their turn, but only while nothing can be drawn (stock and discard cannot supply
    #: a card); off: only a player unable to play passes (seed 000).
    pass_when_no_draw: bool = False
    skip_ranks: tuple[int, ...] = ()
    reverse_ranks: tuple[int, ...] = ()
    #: What a reverse does with two players: "nothing" more, or it also skips the other player.
    reverse_two_players: str = "nothing"
    #: (rank, N): the next player owes N cards.
    draw_ranks: tuple[tuple[int, int], ...] = ()
    #: (rank, cap): the most that stacking that rank can make a player owe.
    draw_caps: tuple[tuple[int, int], ...] = ()
    #: Ranks the player now next must answer with the same rank or miss the turn (Switch jack).
    answer_ranks: tuple[int, ...] = ()
    #: A pending draw may be answered with the same rank, adding to it.
    stacking: bool = True
    #: A wild may answer a pending draw (it cancels the draw).
    wild_answers_draw: bool = False
    #: After a play the player may play more cards of the same rank in the same turn.
    same_rank_runs: bool = False
    #: Last card must be called; an uncalled last card can be caught for ``last_card_penalty`` cards.
    last_card: bool = False
    last_card_penalty: int = 2
    #: Four players in two partnerships, partners opposite (seats 0 and 2, 1 and 3).
    partnership: bool = False
    #: Passes in a row that block the round (None = one per player).
    blocked_after: int | None = None
    #: Safety net: after this many turns the round ends, settled as a blocked round.
    turn_cap: int = 1000
    scoring: str = "penalty"
    card_values: str = "volity"
    match_end: str = "passes-target"
    target: int | None = 100
    rounds: int | None = None
    next_leader: str = "left-of-dealer"
    # Not house rules (``EARLIER_RULES``): how play changed after matches were stored. New tables play by
    # today's rule (these defaults); a ruleset stored before a field existed reads as its earlier rule.
    #: A card that both skips and makes the next player draw (a skip and a draw on one rank, or a two-player
    #: reverse that skips): the next player draws what is owed and loses the turn. False: the skip goes first
    #: and the player after the skipped one owes the cards (with two players, the one who laid the card),
    #: free to answer them (the rule before).
    skipped_player_draws: bool = True
    #: With ``empty_draw_ends_round``, a must-play-drawn player who has drawn, still cannot play and owes
    #: another draw that nothing can supply ends the round (it is the impossible draw). False: they are passed
    #: and the round goes on (the rule before).
    owed_draw_ends_round: bool = True

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem is not None:
            raise RulesetError(problem)

    # ----------------------------------------------------------------- derived values
    @property
    def has_last_card(self) -> bool:
        return self.last_card

    @property
    def high_wins(self) -> bool:
        """Payment scoring ranks the highest total first; penalty and card-count scoring the lowest."""
        return self.scoring == "payment"

    @property
    def value_table(self) -> tuple[int, ...]:
        return VALUE_TABLES[self.card_values]

    @property
    def min_seats(self) -> int:
        """The fewest players a table of this ruleset seats (exactly four in a partnership)."""
        return PARTNERSHIP_SEATS if self.partnership else self.min_players

    @property
    def max_seats(self) -> int:
        """The most players a table of this ruleset seats (exactly four in a partnership)."""
        return PARTNERSHIP_SEATS if self.partnership else self.max_players

    def allows_seats(self, num_seats: int) -> bool:
        return self.min_seats <= num_seats <= self.max_seats

    def decks_for(self, num_seats: int) -> int:
        if self.decks == "two-above-5" and num_seats > 5:
            return 2
        if self.decks == "two-above-2" and num_seats > 2:
            return 2
        return 1

    def hand_size_for(self, num_seats: int) -> int:
        return self.hand_size_two if num_seats == 2 else self.hand_size

    # ----------------------------------------------------------------- changing and JSON
    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some options changed (validated: raises ``RulesetError``)."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise RulesetError(_("unknown option: {items}", items=", ".join(unknown)))
        try:
            return dataclasses.replace(self, **_normalise(changes))
        except TypeError as exc:  # pragma: no cover - guarded by the name check above
            raise RulesetError(str(exc)) from exc

    def to_json(self) -> dict[str, Any]:
        # Every stored move writes its ruleset: built once per (immutable) ruleset, copied for each caller.
        built: dict[str, Any] | None = self.__dict__.get("_json")
        if built is None:
            built = {}
            for f in dataclasses.fields(self):
                value = getattr(self, f.name)
                if isinstance(value, tuple):
                    value = [list(v) if isinstance(v, tuple) else v for v in value]
                built[f.name] = value
            object.__setattr__(self, "_json", built)
        return {key: [*value] if isinstance(value, list) else value for key, value in built.items()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ruleset:
        if not isinstance(data, dict):
            raise RulesetError(_("a ruleset must be a JSON object"))
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise RulesetError(_("unknown option: {items}", items=", ".join(unknown)))
        # Stored before a change of play: the rule the table's matches were played by (``EARLIER_RULES``).
        return cls(**_normalise(filled(data, EARLIER_RULES, _TODAY)))

    def same_rules_as(self, other: Ruleset) -> bool:
        """Whether the two rulesets are the same house rules (``EARLIER_RULES`` aside: a table stored before a
        change of play is not a table of house rules for it)."""
        return self == other or self.replace(**{k: getattr(other, k) for k in EARLIER_RULES}) == other


#: Today's rule of each of ``EARLIER_RULES``: what new tables play by.
_TODAY: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(Ruleset) if f.name in EARLIER_RULES}


def stored_readings(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored ruleset's JSON with every field of ``EARLIER_RULES`` it lacks, as each release that may have
    stored it played (``bot.engine.earlier.readings``): first as ``Ruleset.from_json`` reads it."""
    return readings(data, EARLIER_RULES, _TODAY)


def _normalise(values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    for key in ("skip_ranks", "reverse_ranks", "answer_ranks"):
        if key in out:
            try:
                out[key] = tuple(int(v) for v in out[key])
            except (TypeError, ValueError) as exc:
                raise RulesetError(_("{key} must be a list of ranks", key=key)) from exc
    for key in ("draw_ranks", "draw_caps"):
        if key in out:
            try:
                out[key] = tuple((int(a), int(b)) for a, b in out[key])
            except (TypeError, ValueError) as exc:
                raise RulesetError(_("{key} must be a list of [rank, number] pairs", key=key)) from exc
    return out


def _is_int(v: object) -> bool:
    return type(v) is int


def _problem(rs: Ruleset) -> str | None:
    """Why the ruleset is impossible, or None."""
    if rs.name not in PRESET_NAMES:
        return _("unknown preset name {name!r}", name=rs.name)
    for key in ("min_players", "max_players", "hand_size", "hand_size_two", "last_card_penalty", "turn_cap"):
        if not _is_int(getattr(rs, key)):
            return _("{key} must be a whole number", key=key)
    for key in (
        "wild_must_match",
        "starter_effect",
        "draw_with_legal_play",
        "draw_first",
        "reshuffle",
        "empty_draw_ends_round",
        "pass_anytime",
        "pass_when_no_draw",
        "partnership",
        "stacking",
        "wild_answers_draw",
        "same_rank_runs",
        "last_card",
        "skipped_player_draws",
        "owed_draw_ends_round",
    ):
        if type(getattr(rs, key)) is not bool:
            return _("{key} must be true or false", key=key)
    choices = (
        ("decks", DECKS),
        ("starter_wild", STARTER_WILD),
        ("after_draw", AFTER_DRAW),
        ("reverse_two_players", REVERSE_TWO),
        ("scoring", SCORING),
        ("card_values", CARD_VALUES),
        ("match_end", MATCH_END),
        ("next_leader", NEXT_LEADER),
    )
    for key, allowed in choices:
        if getattr(rs, key) not in allowed:
            return _("{key} must be one of: {items}", key=key, items=", ".join(allowed))
    if not 2 <= rs.min_players <= rs.max_players <= MAX_SEATS:
        return _(
            "players must be between 2 and {max_seats}, the minimum not above the maximum",
            max_seats=MAX_SEATS,
        )
    if rs.hand_size < 1 or rs.hand_size_two < 1:
        return _("hand size must be at least 1")
    if rs.partnership and not rs.min_players <= PARTNERSHIP_SEATS <= rs.max_players:
        return _(
            "a partnership game is for four players; these rules allow {min_players}–{max_players}",
            min_players=rs.min_players,
            max_players=rs.max_players,
        )
    # Only the player counts a table of these rules can seat (a partnership: exactly four).
    for n in range(rs.min_seats, rs.max_seats + 1):
        if rs.hand_size_for(n) * n + 2 > 52 * rs.decks_for(n):
            return _(
                "{n} hands of {cards} cards do not fit in the deck",
                n=n,
                cards=rs.hand_size_for(n),
            )
    if rs.wild_rank is not None and not (_is_int(rs.wild_rank) and 1 <= rs.wild_rank <= 13):
        return _("wild rank must be a rank from A (1) to K (13), or none")
    if rs.wild_rank is None and (rs.wild_must_match or rs.wild_answers_draw):
        return _("there is no wild rank")
    if rs.draw_limit is not None and not (_is_int(rs.draw_limit) and rs.draw_limit >= 1):
        return _("draw limit must be at least 1 (or none: draw until playable)")
    if rs.after_draw == "turn-ends" and rs.draw_limit != 1:
        return _("when the turn ends after drawing, the draw limit must be one card")
    if rs.after_draw == "draw-up-to" and rs.draw_limit is None:
        return _("“draw up to N cards, then pass” needs a number of cards as the draw limit")
    if rs.pass_anytime and rs.pass_when_no_draw:
        return _("passing at any time already allows passing when nothing can be drawn: choose one")
    if rs.draw_first:
        if rs.draw_limit != 1:
            return _("when every turn starts with a draw, the draw limit must be one card")
        if rs.after_draw == "turn-ends":
            return _(
                "when every turn starts with a draw, the player must be able to play after drawing",
            )
        if not rs.draw_with_legal_play:
            return _("when every turn starts with a draw, drawing with a legal play must be allowed")
    ranks_seen: dict[int, str] = {}
    specials = (
        ("skip", rs.skip_ranks),
        ("reverse", rs.reverse_ranks),
        ("answer", rs.answer_ranks),
        ("draw", tuple(r for r, _ in rs.draw_ranks)),
    )
    for label, ranks in specials:
        if len(set(ranks)) != len(ranks):
            return _("a rank is listed twice as {label}", label=label)
        for r in ranks:
            if not 1 <= r <= 13:
                return _("{rank} is not a rank (A=1 … K=13)", rank=r)
            if r == rs.wild_rank:
                return _(
                    "the wild rank {rank} cannot also have a {label} effect", rank=RANK_CODES[r], label=label
                )
            if label == "answer" and r in ranks_seen and ranks_seen[r] == "draw":
                return _(
                    "{rank} cannot both need an answer and make the next player draw", rank=RANK_CODES[r]
                )
            ranks_seen.setdefault(r, label)
    for r, n in rs.draw_ranks:
        if n < 1:
            return _("a draw card must make the next player draw at least one card")
        if r in rs.answer_ranks:
            return _("{rank} cannot both need an answer and make the next player draw", rank=RANK_CODES[r])
    draw_ranks = dict(rs.draw_ranks)
    for r, cap in rs.draw_caps:
        if r not in draw_ranks:
            return _(
                "a cap is set for {rank}, which is not a draw card",
                rank=RANK_CODES[r] if 1 <= r <= 13 else r,
            )
        if cap < draw_ranks[r]:
            return _(
                "the cap for {rank} is below what one card makes the next player draw", rank=RANK_CODES[r]
            )
    if rs.draw_caps and not rs.stacking:
        return _("stacking caps need stacking")
    if rs.wild_answers_draw and not rs.stacking:
        return _("a wild can only answer a pending draw when draws stack")
    if rs.last_card_penalty < 1:
        return _("the last card penalty must be at least one card")
    if rs.blocked_after is not None and not (_is_int(rs.blocked_after) and rs.blocked_after >= 1):
        return _("blocked round: the number of passes in a row must be at least 1")
    if rs.turn_cap < 1:
        return _("the turn cap must be at least 1")
    if rs.match_end == "passes-target" and rs.scoring == "payment":
        return _(
            "with payment scoring the match ends when a total reaches the target (highest wins)",
        )
    if rs.match_end == "reaches-target" and rs.scoring != "payment":
        return _(
            "a match to reach the target needs payment scoring; with low-wins scoring use passes-target",
        )
    if rs.match_end in ("passes-target", "reaches-target") and not (
        _is_int(rs.target) and (rs.target or 0) >= 1
    ):
        return _("the match needs a target of at least 1 point")
    if rs.match_end == "rounds" and not (_is_int(rs.rounds) and (rs.rounds or 0) >= 1):
        return _("the match needs a number of rounds of at least 1")
    return None


PRESET_NAMES: tuple[str, ...] = (
    "classic",
    "must-play",
    "draw-one",
    "uno-lite",
    "switch",
    "parlett",
    "party",
    "crazier",
)


def _build_presets() -> dict[str, Ruleset]:
    classic = Ruleset()
    return {
        # Seed 000: the standard game.
        "classic": classic,
        # Seed 002 (CardStock): must play if able; unable: draw one card, the turn ends; starter 8 = hearts.
        "must-play": Ruleset(
            name="must-play",
            draw_with_legal_play=False,
            draw_limit=1,
            after_draw="turn-ends",
            starter_wild="hearts",
        ),
        # Seed 000's variant: draw one card; play it if playable, otherwise the turn passes.
        "draw-one": Ruleset(name="draw-one", draw_limit=1, after_draw="may-play-drawn"),
        # Seed 000's Uno-like variant: a 2 makes the next player draw two and lose the turn; a J skips.
        "uno-lite": Ruleset(name="uno-lite", draw_ranks=((2, 2),), stacking=False, skip_ranks=(11,)),
        # Seed 004's Switch. Silent points, chosen after seed 004: dealt as the base game Switch develops
        # (two decks above two players); a starter ace is buried as in the base game; the card drawn when
        # unable may be played at once; a match is played to 250 points.
        "switch": Ruleset(
            name="switch",
            decks="two-above-2",
            wild_rank=1,
            starter_wild="bury",
            # Drawing only when unable also holds against a pending 2 or 4: holding one, the player must play
            # it (004: "play a 2 or, if unable, draw two").
            draw_ranks=((2, 2), (4, 4)),
            draw_caps=((2, 8), (4, 16)),
            reverse_ranks=(11,),
            answer_ranks=(11,),
            draw_with_legal_play=False,
            draw_limit=1,
            after_draw="may-play-drawn",
            last_card=True,
            scoring="payment",
            card_values="switch",
            match_end="reaches-target",
            target=250,
        ),
        # Seed 004's plain game: two decks above two players (up to 8), starter 8 buried, payment scoring.
        # No reshuffle (004: draw "until ... the stock runs out"; play ends "when no one can match"): with an
        # empty stock a player who cannot play passes, and a round of passes blocks it.
        "parlett": Ruleset(
            name="parlett",
            max_players=8,
            decks="two-above-2",
            starter_wild="bury",
            reshuffle=False,
            scoring="payment",
            match_end="reaches-target",
            target=250,
        ),
        # Seed 003: 8 cards, starter 8 buried, 4 skips, Q reverses, 2 draws two and stacks, same-rank runs,
        # draw one card then play one card (no run after a draw) or pass, last card on.
        "party": Ruleset(
            name="party",
            hand_size=8,
            hand_size_two=8,
            starter_wild="bury",
            skip_ranks=(4,),
            reverse_ranks=(12,),
            draw_ranks=((2, 2),),
            same_rank_runs=True,
            draw_limit=1,
            after_draw="may-play-any",
            last_card=True,
        ),
        # Seed 001's core: 7 cards; every turn starts with a draw, then discard one matching card or not; no
        # reshuffle: the first draw that cannot be made ends the round (fewest cards wins; with a reshuffle
        # each turn draws one and discards at most one, so a round would only end at the turn cap);
        # card-count scoring; most points leads. Silent point: a match is played until a total passes 25.
        "crazier": Ruleset(
            name="crazier",
            hand_size=7,
            hand_size_two=7,
            draw_first=True,
            draw_limit=1,
            after_draw="may-play-any",
            reshuffle=False,
            empty_draw_ends_round=True,
            scoring="card-count",
            next_leader="most-points",
            target=25,
        ),
    }


PRESETS: dict[str, Ruleset] = _build_presets()


def get_preset(name: str) -> Ruleset:
    """The preset called ``name`` (case-insensitive); raises ``RulesetError`` for unknown names."""
    key = name.strip().lower() if isinstance(name, str) else ""
    if key not in PRESETS:
        raise RulesetError(
            _(
                "unknown preset '{name}'; presets: {items}",
                name=typed_shown(name) if isinstance(name, str) else name,
                items=", ".join(PRESET_NAMES),
            )
        )
    return PRESETS[key]


# --------------------------------------------------------------------------------------------- rules help
_TITLES = {
    "classic": N_("Classic Crazy Eights"),
    "must-play": N_("Must-play Crazy Eights"),
    "draw-one": N_("Draw-one Crazy Eights"),
    "uno-lite": N_("Uno-lite Crazy Eights"),
    "switch": N_("Switch"),
    "parlett": N_("Parlett's Crazy Eights"),
    "party": N_("Party Crazy Eights"),
    "crazier": N_("Crazier Eights"),
}


def preset_title(name: str) -> str:
    """The preset's title in the current language ("Classic Crazy Eights")."""
    title = _TITLES.get(name)
    return _(title) if title else name


def _rank_list(ranks: tuple[int, ...]) -> str:
    return "/".join(RANK_CODES[r] for r in ranks)


def match_end_text(rs: Ruleset) -> str:
    """How the match ends (RULESETS.md's ``match end``), in the words the rules help, the board's Match line
    and the scores use: "until a total passes 100; lowest total wins"."""
    if rs.match_end == "passes-target":
        if rs.high_wins:
            return _("until a total passes {target}; highest total wins", target=rs.target)
        return _("until a total passes {target}; lowest total wins", target=rs.target)
    if rs.match_end == "reaches-target":
        if rs.high_wins:
            return _("until a total reaches {target}; highest total wins", target=rs.target)
        return _("until a total reaches {target}; lowest total wins", target=rs.target)
    if rs.match_end == "rounds":
        rounds = rs.rounds or 1
        if rs.high_wins:
            return ngettext("{n} round; highest total wins", "{n} rounds; highest total wins", rounds)
        return ngettext("{n} round; lowest total wins", "{n} rounds; lowest total wins", rounds)
    return _("one round; highest score wins") if rs.high_wins else _("one round; lowest score wins")


_DECKS = {
    "one": N_("one deck"),
    "two-above-5": N_("two decks above 5 players"),
    "two-above-2": N_("two decks above 2 players"),
}
_AFTER_DRAW = {
    "must-play-drawn": N_("; a playable card drawn when you had no play must be played at once."),
    "may-play-drawn": N_("; then play the drawn card or pass."),
    "may-play-any": N_("; then play one card or pass."),
    "draw-up-to": N_(
        "; after each draw play a card or draw again; pass only at the limit or when nothing can be drawn."
    ),
    "turn-ends": N_("; then your turn ends."),
}


def rules_help(ruleset: Ruleset) -> str:
    """The rules help players read for this ruleset (Markdown, under 1,800 characters), in the current
    language."""
    rs = ruleset
    default = PRESETS.get(rs.name)
    title = preset_title(rs.name)
    if default is not None and not rs.same_rules_as(default):
        title = _("{title} (house rules)", title=title)
    lines = [f"**{title}**"]
    if rs.min_players == rs.max_players:
        players = ngettext("{n} player", "{n} players", rs.min_players)
    else:
        players = _("{low}–{high} players", low=rs.min_players, high=rs.max_players)
    decks = _(_DECKS[rs.decks])
    deal = (
        ngettext("{n} card each", "{n} cards each", rs.hand_size)
        if rs.hand_size == rs.hand_size_two
        else ngettext(
            "{n} card each ({two} with two players)",
            "{n} cards each ({two} with two players)",
            rs.hand_size,
            two=rs.hand_size_two,
        )
    )
    if rs.partnership:
        lines.append(
            _(
                "• Partnership: 4 players, {decks}; {hand} cards each. Partners sit opposite (seats"
                " 1 and 3, 2"
                " and 4). Out of cards, your turns are passed over; a side wins when both partners are out,"
                " or in a blocked round when its hands are worth less (equal sides both win and score 0)."
                " Nobody catches their own partner.",
                decks=_("two decks") if rs.decks_for(4) == 2 else _("one deck"),
                hand=rs.hand_size,
            )
        )
    else:
        lines.append(
            _("• {players}, {decks}; {deal}. Empty your hand first.", players=players, decks=decks, deal=deal)
        )
    w = rs.wild_rank
    if w is None:
        match = _("• Play a card matching the top card's rank or suit. There are no wild cards.")
    else:
        wr = RANK_CODES[w]
        if rs.wild_must_match:
            match = _(
                "• Play a card matching the top card's rank or suit, or a wild **{rank}** (it must"
                " match too);"
                " then name a suit.",
                rank=wr,
            )
        else:
            match = _(
                "• Play a card matching the top card's rank or suit, or a wild **{rank}**, any time;"
                " then name"
                " a suit.",
                rank=wr,
            )
        if rs.starter_wild == "keep":
            starter = _("A starter {rank} stays: match its suit.", rank=wr)
        elif rs.starter_wild == "hearts":
            starter = _("A starter {rank} means {suit} are named.", rank=wr, suit=_(SUIT_NAMES[2]))
        else:
            starter = _("A starter {rank} is buried in the stock and the next card turned.", rank=wr)
        match += " " + starter
    lines.append(match)
    if rs.draw_first:
        lines.append(_("• Every turn starts by drawing a card; then play one matching card or pass."))
    else:
        if rs.draw_with_legal_play:
            draw = _("• You may draw instead of playing.")
        else:
            draw = _("• You must play if you can; draw only when unable.")
        if rs.draw_limit is None:
            draw += " " + _("Unable to play: draw until a card can be played")
        else:
            draw += " " + ngettext("Draw one card a turn", "Draw at most {n} cards a turn", rs.draw_limit)
        draw += _(_AFTER_DRAW[rs.after_draw])
        lines.append(draw)
    if rs.pass_anytime:
        lines.append(_("• You may pass instead of playing."))
    if rs.pass_when_no_draw:
        lines.append(_("• When nothing can be drawn, you may pass instead of playing."))
    if rs.reshuffle:
        lines.append(_("• An empty stock is refilled from the discard pile (its top card stays)."))
    else:
        lines.append(_("• No reshuffle: once the stock is empty, nobody draws."))
    effects = []
    if rs.skip_ranks:
        effects.append(_("{ranks} skips the next player", ranks=_rank_list(rs.skip_ranks)))
    if rs.reverse_ranks:
        if rs.reverse_two_players == "skip":
            rev = _("{ranks} reverses play (a skip with two players)", ranks=_rank_list(rs.reverse_ranks))
        else:
            rev = _("{ranks} reverses play", ranks=_rank_list(rs.reverse_ranks))
        effects.append(rev)
    caps = dict(rs.draw_caps)
    for r, n in rs.draw_ranks:
        if not rs.stacking:
            eff = _(
                "{rank} makes the next player draw {count} and lose the turn", rank=RANK_CODES[r], count=n
            )
        elif r in caps:
            eff = _(
                "{rank} makes the next player draw {count} unless they answer with a {rank}, which"
                " adds {count}"
                " (at most {cap})",
                rank=RANK_CODES[r],
                count=n,
                cap=caps[r],
            )
        else:
            eff = _(
                "{rank} makes the next player draw {count} unless they answer with a {rank}, which"
                " adds {count}",
                rank=RANK_CODES[r],
                count=n,
            )
        effects.append(eff)
    for r in rs.answer_ranks:
        effects.append(
            _("after a {rank} the next player must answer with a {rank} or miss a turn", rank=RANK_CODES[r])
        )
    if effects:
        lines.append("• " + "; ".join(effects) + ".")
    if rs.draw_ranks and rs.stacking:
        line = _("• Not answering a draw: draw all owed and your turn ends.")
        if not rs.draw_with_legal_play:
            line += " " + _("Holding an answer, you must play it.")
        if rs.wild_answers_draw:
            line += " " + _("A wild also answers, and cancels it.")
        lines.append(line)
    if rs.same_rank_runs:
        lines.append(
            _("• After a play you may play more cards of the same rank (not after drawing), then pass.")
        )
    if rs.starter_effect:
        lines.append(_("• A special starter card works as if the dealer played it."))
    if rs.last_card:
        if rs.partnership:
            text = _(
                "• Down to one card? Call **last card** before the next player acts, or an opponent may catch"
                " you: you draw {count}.",
                count=rs.last_card_penalty,
            )
        else:
            text = _(
                "• Down to one card? Call **last card** before the next player acts, or anyone may catch you:"
                " you draw {count}.",
                count=rs.last_card_penalty,
            )
        lines.append(text)
    if rs.empty_draw_ends_round:
        if rs.scoring == "card-count":
            lines.append(_("• If a card must be drawn and none can be, the round ends: fewest cards wins."))
        else:
            lines.append(_("• If a card must be drawn and none can be, the round ends: lowest hand wins."))
    if rs.blocked_after is None:
        lines.append(
            _(
                "• The round ends when a hand is empty, or is blocked when everyone passes in a row (or after"
                " {turns} turns).",
                turns=rs.turn_cap,
            )
        )
    else:
        lines.append(
            ngettext(
                "• The round ends when a hand is empty, or is blocked when {passes} pass in a row (or after"
                " {turns} turns).",
                "• The round ends when a hand is empty, or is blocked when {passes} passes in a row (or after"
                " {turns} turns).",
                rs.blocked_after,
                passes=rs.blocked_after,
                turns=rs.turn_cap,
            )
        )
    values = (
        _("8 = 50, K/Q/J = 10, A = 1, others face value")
        if rs.card_values == "volity"
        else _("A = 20, 2/4/J = 15, K/Q = 10, others face value")
    )
    if rs.partnership:
        # By side (round.py ``_settle_sides``): a partner who went out scores their side's score. Payment in a
        # blocked round: the lower side collects the difference, as seat by seat (RULESETS.md, round scoring),
        # where the Partnership section says only "the total of the losing side's hands".
        if rs.scoring == "penalty":
            score = _(
                "• Score: both partners score the cards left in their side's hands ({values}), even one who"
                " went out; the winning side scores 0. Low wins.",
                values=values,
            )
        elif rs.scoring == "payment":
            score = _(
                "• Score: each winning partner collects the losing side's hand total ({values}) and each"
                " opponent pays it; blocked: the lower side collects the difference.",
                values=values,
            )
        else:
            score = _(
                "• Score: both partners score 1 point per card left in their side's hands, even one who went"
                " out; the winning side scores 0. Low wins."
            )
    elif rs.scoring == "penalty":
        score = _(
            "• Score: the cards left in your hand ({values}); going out scores 0. Low wins.", values=values
        )
    elif rs.scoring == "payment":
        score = _(
            "• Score: whoever goes out collects the value of each other hand from its holder ({values});"
            " blocked: the lowest hand collects the difference from each player.",
            values=values,
        )
    else:
        score = _("• Score: 1 point per card left in hand; the winner scores 0. Low wins.")
    lines.append(score)
    end = _("• Match: {match}.", match=match_end_text(rs))
    if rs.next_leader == "most-points":
        # Ties: the first such seat left of the dealer (match.py ``next_leader``).
        end += " " + _(
            "The player with the most points leads the next round; on a tie, the first of them left of the"
            " dealer."
        )
    lines.append(end)
    return "\n".join(lines)
