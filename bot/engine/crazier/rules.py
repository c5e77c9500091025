"""The ``crazier-abilities`` ruleset (and its teams option) and its rules help, listing every card.

It lives in its own registry, ``PRESETS`` here, not in ``bot.engine.rules.PRESETS``: the lobby, the rules
command and the server settings enumerate that one, and the table side cannot play this game yet (see the
package's docstring). ``get_preset`` here knows only this game.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bot.engine.crazier.deck import COLOUR_NAMES, COLOUR_SUITS, KIND_NAMES, RANK_ROWS, RANKS
from bot.engine.earlier import filled, readings
from bot.engine.errors import RulesetError
from bot.i18n import _

PRESET_NAME = "crazier-abilities"

#: The rules that keep stored games on the rule they were played by after a change of play, oldest change
#: first (README, *Replays*: a match is rebuilt from its deal and its move log, matches stored before the
#: change included). New tables take the field's default, today's rule; rules stored before a field existed
#: lack it and read (``CrazierRules.from_json``, by ``bot.engine.earlier.filled``) as the value here, the rule
#: their games were played, and are replayed, by, unless they name a newer one: then as today's. This game has
#: no house rules, so none of them is ever offered or worded.
EARLIER_RULES: dict[str, bool] = {
    "last_effect_wins": False,  # commit aeca5a3
    "last_eight_names_no_colour": False,  # commit 99e1350
    "idle_members_wait": False,  # commit 490b392
    "rotating_team_leads": False,  # commit 6394c01
}


@dataclass(frozen=True)
class CrazierRules:
    name: str = PRESET_NAME
    min_players: int = 2
    max_players: int = 6
    hand_size: int = 7
    #: Two teams seated alternately (seat 1, 3, 5 … against 2, 4, 6 …), of two or three players each.
    teams: bool = False
    #: The safety net: after this many turns the game ends as an impossible draw would (fewest cards wins).
    turn_cap: int = 1000
    #: A match ends when a total passes this (card-count points, lowest total wins), as ``crazier`` does.
    target: int = 25
    #: With teams, how the next team's first player is found (decision 10). True: the other team's next living
    #: member clockwise after that team's own last first player, so the first player goes round every living
    #: member even after a member has lost. False: the rule games were first stored with (the first living
    #: member of the other team after the current first player, which after a loss may skip a member for
    #: good); rules stored without this key read as False (``from_json``), so such a game goes on, and its
    #: stored moves replay, exactly as it was played. No effect without teams.
    rotating_team_leads: bool = True
    #: A card played for its effect that was its player's last card wins at once, before its effect (decision
    #: 13). False: the rule before commit aeca5a3, the effect happened first (a last Forbidden Knowledge on
    #: oneself drew cards and did not win). Rules stored without this key read as False, unless they hold a
    #: newer key of ``EARLIER_RULES`` (``from_json``).
    last_effect_wins: bool = True
    #: With teams, a member with nothing to do is ended only once no teammate has anything left to do
    #: (decision 10). False: the rule before commit 490b392, such a member was ended at once (read as for
    #: ``last_effect_wins``). No effect without teams.
    idle_members_wait: bool = True
    #: A last 8 discarded names no colour: one named with it is refused (905). False: the rule before commit
    #: 99e1350, the colour was taken and set the colour to follow as the game ended (read as for
    #: ``last_effect_wins``).
    last_eight_names_no_colour: bool = True

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise RulesetError(problem)

    def _problem(self) -> str | None:
        if self.name != PRESET_NAME:
            return _("unknown preset name {name!r}", name=self.name)
        for key in ("min_players", "max_players", "hand_size", "turn_cap", "target"):
            if type(getattr(self, key)) is not int or getattr(self, key) < 1:
                return f"{key} must be a whole number of at least 1"
        if type(self.teams) is not bool:
            return "teams must be true or false"
        for key in EARLIER_RULES:
            if type(getattr(self, key)) is not bool:
                return f"{key} must be true or false"
        if not 2 <= self.min_players <= self.max_players <= 6:
            return "players must be between 2 and 6, the minimum not above the maximum"
        if self.hand_size * self.max_players + 2 > 52:
            return f"{self.max_players} hands of {self.hand_size} cards do not fit in the deck"
        if self.teams and not any(self.allows_seats(n) for n in (4, 6)):
            return "teams are two teams of two or three players: 4 or 6 players"
        return None

    @property
    def min_seats(self) -> int:
        return max(4, self.min_players) if self.teams else self.min_players

    @property
    def max_seats(self) -> int:
        return min(6, self.max_players) if self.teams else self.max_players

    def allows_seats(self, n: int) -> bool:
        if not self.min_players <= n <= self.max_players:
            return False
        return n in (4, 6) if self.teams else True

    def replace(self, **changes: Any) -> CrazierRules:
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise RulesetError(_("unknown option: {items}", items=", ".join(unknown)))
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: object) -> CrazierRules:
        """Rules as ``to_json`` wrote them. Rules stored before one of ``EARLIER_RULES`` existed lack it: it
        reads as the value there, the rule their games were played (and are replayed) by; or as today's rule
        when they hold a newer one of them (``bot.engine.earlier.filled``)."""
        if not isinstance(data, dict):
            raise RulesetError(_("a ruleset must be a JSON object"))
        return cls().replace(**filled(data, EARLIER_RULES, _TODAY))


#: Today's rule of each of ``EARLIER_RULES``: what new tables play by.
_TODAY: dict[str, Any] = {key: getattr(CrazierRules(), key) for key in EARLIER_RULES}

PRESETS: dict[str, CrazierRules] = {PRESET_NAME: CrazierRules()}


def stored_readings(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Stored rules' JSON with every field of ``EARLIER_RULES`` they lack, as each release that may have
    stored them played (``bot.engine.earlier.readings``): first as ``CrazierRules.from_json`` reads them."""
    return readings(data, EARLIER_RULES, _TODAY)


def get_preset(name: str, *, teams: bool = False) -> CrazierRules:
    key = name.strip().lower() if isinstance(name, str) else ""
    if key not in PRESETS:
        raise RulesetError(
            _("unknown preset {name!r}; this registry holds: {items}", name=name, items=", ".join(PRESETS))
        )
    return PRESETS[key].replace(teams=True) if teams else PRESETS[key]


def rules_help(rules: CrazierRules) -> str:
    """The rules, then every card with what it does (Markdown). The choices where the rules sheet is silent
    are said where players meet them."""
    colours = ", ".join(f"{_(COLOUR_NAMES[c])} ({_(COLOUR_SUITS[c])})" for c in COLOUR_NAMES)
    title = _("**Crazier Eights with its ability cards**")
    lines = [
        _("{title} — teams", title=title) if rules.teams else title,
        _(
            "• {players}, one deck of 52 cards in four colours: {colours}. Seven cards each; the next card "
            "starts the discard pile. Empty your hand to win, at once: a last card played for its effect "
            "wins too (an event played so does nothing).",
            players=_("4 or 6 players in two teams") if rules.teams else _("2–6 players"),
            colours=colours,
        ),
        _(
            "• Your turn: first the abilities of your cards in play that say *at the beginning of your turn* "
            "(you choose the order of yours); then draw a card; then, in either order, **discard** one card "
            "matching the top card's colour or rank (or an 8, naming a colour), and **play** one"
            " card for its "
            "effect (it need not match). Then end your turn."
        ),
        _(
            "• An empty draw pile is refilled from the discard pile but its top card. If a card must"
            " be drawn "
            "and none can be, the game ends: fewest cards wins (ties share the win)."
        ),
        _(
            "• A player who loses leaves: their hand and cards in play go to the bottom of the discard pile; "
            "the cards they held in hand count as their points. The last player left wins."
        ),
        _(
            "• Destroyed cards go to the bottom of the discard pile. A card that needs a choice is playable "
            "only when a choice exists; you may choose yourself. A looked-at card stays private."
        ),
        _(
            "• Points: the winner 0, every other player one per card in hand. Match: until a total passes "
            "{target}; most points plays first next game.",
            target=rules.target,
        ),
    ]
    if rules.teams:
        lines.append(
            _(
                "• Teams: two teams seated alternately take turns; each member does their own beginning of "
                "turn and draw, one member after the other; a member who has drawn may discard, play and end "
                "at once, even while a teammate is still choosing; the team's turn ends when every member "
                "has ended theirs. The first team with a player out of cards wins; points are by team."
            )
        )
    lines.append(_("**The cards** (every colour of a rank is the same card)"))
    for rank in RANKS:
        row = RANK_ROWS[rank]
        kind = f" ({_(KIND_NAMES[row.kind])})" if row.kind else ""
        lines.append(f"• **{rank} {_(row.name)}**{kind}: {_(row.ability)}")
    return "\n".join(lines)
