"""A match of ``crazier-abilities``: games one after another with card-count points, until a total passes the
target; lowest total wins. The first game's first player is random (from the seed); after each game the player
with the most points goes first (ties: the first such seat after the one whose turn the game ended on). With
teams both members of a team hold the team's total, and ``side_ranking`` places the teams.
"""

from __future__ import annotations

from typing import Any

from bot.engine.crazier.actions import Move
from bot.engine.crazier.game import CrazierRound
from bot.engine.crazier.rules import EARLIER_RULES, CrazierRules, stored_readings
from bot.engine.errors import EngineError
from bot.engine.events import Event
from bot.i18n import _

FORMAT_VERSION = 1


def game_seed(match_seed: int, number: int) -> int:
    return (match_seed * 7919 + number * 104729) % (1 << 62)


class CrazierMatch:
    rules: CrazierRules
    seed: int
    number: int
    round: CrazierRound
    totals: list[int]
    round_scores: list[list[int]]
    over: bool
    scored: bool

    @classmethod
    def new(cls, rules: CrazierRules, n: int, *, seed: int) -> CrazierMatch:
        if type(n) is not int:
            raise EngineError(923)  # before ``[0] * n``; a count out of range is refused by the first game
        m = cls.__new__(cls)
        m.rules, m.seed, m.number = rules, seed, 1
        m.totals, m.round_scores = [0] * n, []
        m.over, m.scored = False, False
        m.round = CrazierRound.new(rules, n, seed=game_seed(seed, 1))
        m._score_if_over()
        return m

    @property
    def num_seats(self) -> int:
        return self.round.n

    def apply(self, move: Move) -> list[Event]:
        if self.over:
            raise EngineError(922)
        events = self.round.apply(move)
        self._score_if_over()
        return events

    def _score_if_over(self) -> None:
        if self.scored or not self.round.over:
            return
        scores = self.round.scores
        assert scores is not None
        self.scored = True
        self.round_scores.append(list(scores))
        self.totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        self.over = max(self.totals) > self.rules.target

    def next_first(self) -> int:
        """The player with the most points (ties: the first such seat after the one whose turn the game ended
        on, as the match's games have been replayed by: changing it would change old matches' replays)."""
        best = max(self.totals)
        prev = self.round.lead
        for k in range(1, self.num_seats + 1):
            seat = (prev + k) % self.num_seats
            if self.totals[seat] == best:
                return seat
        return prev  # pragma: no cover - some seat holds the maximum

    def start_next_round(self) -> list[Event]:
        if self.over:
            raise EngineError(922)
        if not self.round.over:
            raise EngineError(924, _("The game is not over yet."))
        first = self.next_first()
        self.number += 1
        self.round = CrazierRound.new(
            self.rules, self.num_seats, seed=game_seed(self.seed, self.number), first=first
        )
        self.scored = False
        self._score_if_over()
        return list(self.round.start_events)

    def ranking(self) -> list[tuple[int, int, int]]:
        """(place, seat, total), lowest total first; equal totals share a place. A seat's place is its team's
        (``side_ranking``): with teams the losing team is 2nd, not 3rd behind the two winners, as a
        partnership's side is."""
        return [(place, seat, total) for place, seats, total in self.side_ranking() for seat in seats]

    def sides(self) -> list[tuple[int, ...]]:
        if self.rules.teams:
            return [tuple(range(0, self.num_seats, 2)), tuple(range(1, self.num_seats, 2))]
        return [(s,) for s in range(self.num_seats)]

    def side_ranking(self) -> list[tuple[int, tuple[int, ...], int]]:
        """(place, seats, total) by team (or by seat without teams), lowest first."""
        rows = sorted(((self.totals[seats[0]], seats) for seats in self.sides()), key=lambda r: (r[0], r[1]))
        out: list[tuple[int, tuple[int, ...], int]] = []
        for i, (total, seats) in enumerate(rows):
            place = out[-1][0] if i and total == out[-1][2] else i + 1
            out.append((place, seats, total))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "game": self.rules.name,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "number": self.number,
            "totals": list(self.totals),
            "round_scores": [list(s) for s in self.round_scores],
            "over": self.over,
            "scored": self.scored,
            "round": self.round.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CrazierMatch:
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            raise ValueError(f"unsupported crazier-abilities match format (expected {FORMAT_VERSION})")
        m = cls.__new__(cls)
        m.rules = CrazierRules.from_json(data["rules"])
        m.seed, m.number = int(data["seed"]), int(data["number"])
        m.totals = [int(t) for t in data["totals"]]
        m.round_scores = [[int(x) for x in s] for s in data["round_scores"]]
        m.over, m.scored = bool(data["over"]), bool(data["scored"])
        m.round = CrazierRound.from_json(data["round"])
        return m

    @staticmethod
    def stored_readings(data: dict[str, Any]) -> list[dict[str, Any]]:
        """A stored match (as ``to_json`` wrote it) as each release that may have played it, first as
        ``from_json`` reads it (``bot.engine.Match.stored_readings`` says more): the rules it lacks of
        ``bot.engine.crazier.rules.EARLIER_RULES`` filled in, in the match's rules and its game's alike.
        ``data`` is not changed."""
        rules = data.get("rules") if isinstance(data, dict) else None
        if not isinstance(rules, dict):
            return [data]
        out = []
        for reading in stored_readings(rules):
            copy = {**data, "rules": reading}
            game = data.get("round")
            if isinstance(game, dict) and isinstance(game.get("rules"), dict):
                kept = {key: reading[key] for key in EARLIER_RULES}
                copy["round"] = {**game, "rules": {**game["rules"], **kept}}
            out.append(copy)
        return out
