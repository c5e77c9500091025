"""The game the crash-safety child plays, and its replay.

The real engine (``bot.engine.Match`` on the classic preset) when it is importable; otherwise a deterministic
stand-in whose state carries a hash chain of every action applied, so that a replay missing, repeating or
reordering a single move cannot match the stored state.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

SEATS = 3


@dataclass
class Step:
    state: dict[str, Any]
    events: list[dict[str, Any]]
    round_result: tuple[int, list[int], list[int]] | None = None  # (round number, scores, winners)
    ranking: list[tuple[int, int, int]] | None = None  # (place, seat, total) when the match is over
    extra: dict[str, Any] = field(default_factory=dict)


class Game(Protocol):
    name: str

    def new(self, seed: int) -> dict[str, Any]: ...

    def choose(self, state: dict[str, Any], rng: random.Random) -> dict[str, Any]: ...

    def apply(self, state: dict[str, Any], action: dict[str, Any]) -> Step: ...


def canonical(value: Any) -> Any:
    """What the value looks like after a trip through the store's JSON."""
    return json.loads(json.dumps(value))


class StandInGame:
    """Three seats take turns adding 1–6 to their round score; a round is 9 moves, a match 3 rounds."""

    name = "stand-in"
    ROUND_MOVES = 9
    ROUNDS = 3

    def new(self, seed: int) -> dict[str, Any]:
        return {
            "seed": seed,
            "round": 1,
            "turn": 0,
            "moves": 0,
            "scores": [0] * SEATS,
            "totals": [0] * SEATS,
            "chain": str(seed),
            "over": False,
        }

    def choose(self, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return {"seat": state["turn"], "add": rng.randint(1, 6)}

    def apply(self, state: dict[str, Any], action: dict[str, Any]) -> Step:
        assert not state["over"] and action["seat"] == state["turn"]
        new = canonical(state)
        new["scores"][action["seat"]] += action["add"]
        new["chain"] = hashlib.sha256(
            (state["chain"] + json.dumps(action, sort_keys=True)).encode()
        ).hexdigest()
        new["moves"] += 1
        new["turn"] = (state["turn"] + 1) % SEATS
        events = [
            {"kind": "added", "seat": action["seat"], "data": {"add": action["add"]}, "visible_to": None}
        ]
        step = Step(new, events)
        if new["moves"] == self.ROUND_MOVES:
            scores = new["scores"]
            best = max(scores)
            winners = [seat for seat, score in enumerate(scores) if score == best]
            step.round_result = (new["round"], list(scores), winners)
            new["totals"] = [t + s for t, s in zip(new["totals"], scores, strict=True)]
            new["scores"], new["moves"] = [0] * SEATS, 0
            if new["round"] == self.ROUNDS:
                new["over"] = True
                order = sorted(range(SEATS), key=lambda seat: -new["totals"][seat])
                step.ranking = [
                    (
                        1 + sum(1 for other in new["totals"] if other > new["totals"][seat]),
                        seat,
                        new["totals"][seat],
                    )
                    for seat in order
                ]
            else:
                new["round"] += 1
        return step


class EngineGame:
    """The real engine: a three-seat classic match to 30 points; "next_round" is the move between rounds."""

    name = "engine"

    def __init__(self) -> None:
        from bot import engine

        self._engine: Any = engine
        self._parsed: tuple[int, Any] | None = None  # (id of a state dict, its Match): choose, then apply

    def _match(self, state: dict[str, Any]) -> Any:
        if self._parsed is not None and self._parsed[0] == id(state):
            return self._parsed[1]
        match = self._engine.Match.from_json(state)
        self._parsed = (id(state), match)
        return match

    def new(self, seed: int) -> dict[str, Any]:
        # A low target so that matches end within the test's few thousand moves (results and statistics).
        ruleset = self._engine.get_preset("classic").replace(target=30)
        match = self._engine.Match.new(ruleset, SEATS, seed=seed)
        return match.to_json()  # type: ignore[no-any-return]

    def choose(self, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        match = self._match(state)
        if match.round.over:
            return {"kind": "next_round"}
        return rng.choice(match.round.legal_actions()).to_json()  # type: ignore[no-any-return]

    def apply(self, state: dict[str, Any], action: dict[str, Any]) -> Step:
        match = self._match(state)
        self._parsed = None  # the Match is about to change: it no longer matches ``state``
        if action.get("kind") == "next_round":
            events = match.start_next_round()
            return Step(match.to_json(), [event.to_json() for event in events])
        events = match.apply(self._engine.Action.from_json(action))
        step = Step(match.to_json(), [event.to_json() for event in events])
        if match.round.over:
            step.round_result = (match.round_number, list(match.round.scores), list(match.round.winners))
        if match.over:
            step.ranking = [tuple(entry) for entry in match.ranking()]
        return step


def pick_game() -> Game:
    """The engine when it is there; STORE_CRASH_GAME=stand-in forces the stand-in (to tell store bugs from
    engine bugs)."""
    if os.environ.get("STORE_CRASH_GAME") == "stand-in":
        return StandInGame()
    try:
        from bot import engine
    except ImportError:
        return StandInGame()
    needed = ("Match", "Action", "get_preset")
    if all(hasattr(engine, name) for name in needed):
        return EngineGame()
    return StandInGame()
