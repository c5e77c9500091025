"""A match: rounds one after another with cumulative scores, until the ruleset's end condition.

Round k (1-based) is dealt with seed ``round_seed(match_seed, k)``; the dealer moves one seat left each round;
the next round's leader is left of the new dealer, or (ruleset "most-points") the seat with the highest total
(ties: the first such seat left of the dealer). In a partnership every round scores each side once, the same
score for both partners, so the seats' totals are the sides' totals; places are by side (``side_ranking``),
and ``ranking`` gives each seat its side's place.
"""

from __future__ import annotations

from typing import Any

from bot.engine.actions import Action
from bot.engine.errors import EngineError
from bot.engine.events import Event
from bot.engine.round import Round
from bot.engine.rules import EARLIER_RULES, Ruleset, stored_readings
from bot.i18n import _

FORMAT_VERSION = 1


def round_seed(match_seed: int, round_number: int) -> int:
    """The deterministic seed of a match's round."""
    return (match_seed * 7919 + round_number * 104729) % (1 << 62)


class Match:
    __slots__ = (
        "_over",
        "_scored",
        "dealer",
        "round",
        "round_number",
        "round_scores",
        "ruleset",
        "seed",
        "totals",
    )

    ruleset: Ruleset
    seed: int
    dealer: int
    round: Round
    round_number: int
    totals: list[int]
    round_scores: list[list[int]]
    _over: bool
    _scored: bool

    @classmethod
    def new(cls, ruleset: Ruleset, num_seats: int, *, seed: int, dealer: int = 0) -> Match:
        """Start a match and deal round 1 (its events are ``match.round.start_events``)."""
        self = cls.__new__(cls)
        self.ruleset = ruleset
        self.seed = seed
        self.dealer = dealer
        self.round_number = 1
        self.totals = [0] * num_seats
        self.round_scores = []
        self._over = False
        self._scored = False
        self.round = Round.new(ruleset, num_seats, dealer, seed=round_seed(seed, 1))
        self._score_if_over()
        return self

    @property
    def num_seats(self) -> int:
        return self.round.num_seats

    @property
    def over(self) -> bool:
        return self._over

    @property
    def round_over(self) -> bool:
        return self.round.over

    def apply(self, action: Action) -> list[Event]:
        """Apply an action to the current round; when the round ends its scores are added to the totals."""
        if self._over:
            raise EngineError(922)
        events = self.round.apply(action)
        self._score_if_over()
        return events

    def step(self, action: Action) -> None:
        """The fast path (no validation, no events), as ``Round.step``."""
        self.round.step(action)
        self._score_if_over()

    def _score_if_over(self) -> None:
        if self._scored or not self.round.over:
            return
        scores = self.round.scores
        assert scores is not None
        self._scored = True
        self.round_scores.append(scores)
        self.totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        self._over = self._match_ends()

    def _match_ends(self) -> bool:
        rs = self.ruleset
        if rs.match_end == "one-round":
            return True
        if rs.match_end == "rounds":
            return self.round_number >= (rs.rounds or 1)
        target = rs.target or 0
        if rs.match_end == "passes-target":
            return max(self.totals) > target
        return max(self.totals) >= target  # reaches-target

    def next_leader(self, dealer: int) -> int:
        """Who moves first in a round dealt by ``dealer`` after the rounds played so far."""
        n = self.num_seats
        if self.ruleset.next_leader == "most-points" and self.round_scores:
            best = max(self.totals)
            for k in range(1, n + 1):
                seat = (dealer + k) % n
                if self.totals[seat] == best:
                    return seat
        return (dealer + 1) % n

    def start_next_round(self) -> list[Event]:
        """Deal the next round (only once the round is over and the match is not); returns its events."""
        if self._over:
            raise EngineError(922)
        if not self.round.over:
            raise EngineError(924, _("The round is not over yet."))
        n = self.num_seats
        self.dealer = (self.dealer + 1) % n
        self.round_number += 1
        leader = self.next_leader(self.dealer)
        self.round = Round.new(
            self.ruleset, n, self.dealer, seed=round_seed(self.seed, self.round_number), leader=leader
        )
        self._scored = False
        self._score_if_over()
        return list(self.round.start_events)

    def ranking(self) -> list[tuple[int, int, int]]:
        """(place, seat, total), best first; equal totals share a place (1, 1, 3 …). A seat's place is its
        side's (``side_ranking``): in a partnership the losing partners are 2nd, not 3rd behind two 1sts."""
        return [(place, seat, total) for place, seats, total in self.side_ranking() for seat in seats]

    @property
    def partnership(self) -> bool:
        return self.ruleset.partnership

    def sides(self) -> list[tuple[int, ...]]:
        """The seats of each side: two partnerships (0, 2) and (1, 3), or one side per seat."""
        if self.ruleset.partnership:
            return [(0, 2), (1, 3)]
        return [(seat,) for seat in range(self.num_seats)]

    def side_ranking(self) -> list[tuple[int, tuple[int, ...], int]]:
        """(place, seats, total) by side, best first; equal totals share a place. In a partnership both
        partners hold their side's total (each round scores a side once, for each partner)."""
        sign = -1 if self.ruleset.high_wins else 1
        order = sorted(self.sides(), key=lambda seats: (sign * self.totals[seats[0]], seats))
        ranked: list[tuple[int, tuple[int, ...], int]] = []
        for i, seats in enumerate(order):
            total = self.totals[seats[0]]
            place = ranked[-1][0] if i and total == ranked[-1][2] else i + 1
            ranked.append((place, seats, total))
        return ranked

    def clone(self) -> Match:
        m = Match.__new__(Match)
        m.ruleset = self.ruleset
        m.seed = self.seed
        m.dealer = self.dealer
        m.round_number = self.round_number
        m.totals = list(self.totals)
        m.round_scores = [list(s) for s in self.round_scores]
        m._over = self._over
        m._scored = self._scored
        m.round = self.round.clone()
        return m

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "ruleset": self.ruleset.to_json(),
            "seed": self.seed,
            "dealer": self.dealer,
            "round_number": self.round_number,
            "totals": list(self.totals),
            "round_scores": [list(s) for s in self.round_scores],
            "over": self._over,
            "scored": self._scored,
            "round": self.round.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            raise ValueError(f"unsupported match format (expected {FORMAT_VERSION})")
        m = cls.__new__(cls)
        m.ruleset = Ruleset.from_json(data["ruleset"])
        m.seed = int(data["seed"])
        m.dealer = int(data["dealer"])
        m.round_number = int(data["round_number"])
        m.totals = [int(t) for t in data["totals"]]
        m.round_scores = [[int(x) for x in s] for s in data["round_scores"]]
        m._over = bool(data["over"])
        m._scored = bool(data["scored"])
        m.round = Round.from_json(data["round"])
        return m

    @staticmethod
    def stored_readings(data: dict[str, Any]) -> list[dict[str, Any]]:
        """A stored match (as ``to_json`` wrote it) as each release that may have played it: the rules it
        lacks of ``bot.engine.rules.EARLIER_RULES`` (changes of play made after it was stored) filled in,
        first as ``from_json`` reads it (played before every change it does not name), then played after one
        more of them each, oldest first (``bot.engine.earlier.readings``). A replay whose move log does not
        rebuild the first may try the next ones: a build that played a change before its rule was named
        stored it so. One reading for a match that names every change. ``data`` is not changed."""
        rules = data.get("ruleset") if isinstance(data, dict) else None
        if not isinstance(rules, dict):
            return [data]
        out = []
        for reading in stored_readings(rules):
            copy = {**data, "ruleset": reading}
            game = data.get("round")
            if isinstance(game, dict) and isinstance(game.get("ruleset"), dict):
                kept = {key: reading[key] for key in EARLIER_RULES}
                copy["round"] = {**game, "ruleset": {**game["ruleset"], **kept}}
            out.append(copy)
        return out

    def __repr__(self) -> str:
        return f"<Match {self.ruleset.name} round={self.round_number} totals={self.totals} over={self._over}>"
