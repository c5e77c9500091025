"""Actions a seat can take. ``Action`` is an immutable value (a NamedTuple: cheap to build, equal by value).

The constructors return shared instances for the common cases, so ``legal_actions`` builds no new objects
on the hot path. A wild may be played in two steps (``play`` then ``name_suit``) or in one step
(``play(seat, card, suit)``); ``legal_actions`` lists the two-step form.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from bot.engine.cards import CODES, MAX_CARD, MIN_CARD, SUIT_CODES, Card, Suit, parse_card, parse_suit
from bot.engine.errors import EngineError
from bot.engine.rules import MAX_SEATS


class ActionKind(StrEnum):
    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"
    SUIT = "suit"
    CALL_LAST = "call_last"
    CATCH = "catch"


PLAY = ActionKind.PLAY
DRAW = ActionKind.DRAW
PASS = ActionKind.PASS
SUIT = ActionKind.SUIT
CALL_LAST = ActionKind.CALL_LAST
CATCH = ActionKind.CATCH


class Action(NamedTuple):
    kind: ActionKind
    seat: int
    card: Card | None = None
    suit: Suit | None = None
    #: The seat caught (CATCH only).
    target: int | None = None

    @staticmethod
    def play(seat: int, card: Card, suit: Suit | None = None) -> Action:
        # A seat that is not an int (a float, a string) is left to ``apply``, which answers 923 for it.
        if (
            suit is None
            and type(seat) is int
            and 0 <= seat < MAX_SEATS
            and type(card) is int
            and MIN_CARD <= card <= MAX_CARD
        ):
            return PLAY_ACTIONS[seat][card]
        return Action(PLAY, seat, card, suit)

    @staticmethod
    def draw(seat: int) -> Action:
        return DRAW_ACTIONS[seat] if type(seat) is int and 0 <= seat < MAX_SEATS else Action(DRAW, seat)

    @staticmethod
    def pass_(seat: int) -> Action:
        return PASS_ACTIONS[seat] if type(seat) is int and 0 <= seat < MAX_SEATS else Action(PASS, seat)

    @staticmethod
    def name_suit(seat: int, suit: Suit) -> Action:
        if type(seat) is int and 0 <= seat < MAX_SEATS and type(suit) is int and 0 <= suit <= 3:
            return SUIT_ACTIONS[seat][suit]
        return Action(SUIT, seat, None, suit)

    @staticmethod
    def call_last(seat: int) -> Action:
        return CALL_ACTIONS[seat] if type(seat) is int and 0 <= seat < MAX_SEATS else Action(CALL_LAST, seat)

    @staticmethod
    def catch(seat: int, target: int) -> Action:
        if type(seat) is int and type(target) is int and 0 <= seat < MAX_SEATS and 0 <= target < MAX_SEATS:
            return CATCH_ACTIONS[seat][target]
        return Action(CATCH, seat, None, None, target)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "seat": self.seat}
        if self.card is not None:
            out["card"] = CODES[self.card] if MIN_CARD <= self.card <= MAX_CARD else self.card
        if self.suit is not None:
            out["suit"] = SUIT_CODES[self.suit] if 0 <= self.suit <= 3 else self.suit
        if self.target is not None:
            out["target"] = self.target
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Action:
        """Read an action; raises ``EngineError`` (924 unknown kind, 903 bad card, 906 bad suit)."""
        try:
            kind = ActionKind(data["kind"])
            seat = int(data["seat"])
        except (KeyError, ValueError, TypeError) as exc:
            raise EngineError(924) from exc
        card = data.get("card")
        suit = data.get("suit")
        c = parse_card(card) if isinstance(card, str) else card
        s = parse_suit(suit) if isinstance(suit, str) else suit
        if kind is PLAY:
            if c is None:
                raise EngineError(903)
            return Action.play(seat, c, s)
        if kind is SUIT:
            if s is None:
                raise EngineError(906)
            return Action.name_suit(seat, s)
        if kind is CATCH:
            target = data.get("target")
            if type(target) is not int:
                raise EngineError(924)
            return Action.catch(seat, target)
        if kind is DRAW:
            return Action.draw(seat)
        if kind is PASS:
            return Action.pass_(seat)
        return Action.call_last(seat)

    def __repr__(self) -> str:
        parts = [self.kind.value, f"seat={self.seat}"]
        if self.card is not None:
            parts.append(CODES[self.card] if MIN_CARD <= self.card <= MAX_CARD else f"card={self.card}")
        if self.suit is not None:
            parts.append(f"suit={SUIT_CODES[self.suit] if 0 <= self.suit <= 3 else self.suit}")
        if self.target is not None:
            parts.append(f"target={self.target}")
        return f"Action({', '.join(parts)})"


# Shared instances, indexed by seat (and card / suit / target).
PLAY_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(Action(PLAY, seat, c if c >= MIN_CARD else None) for c in range(MAX_CARD + 1))
    for seat in range(MAX_SEATS)
)
DRAW_ACTIONS: tuple[Action, ...] = tuple(Action(DRAW, seat) for seat in range(MAX_SEATS))
PASS_ACTIONS: tuple[Action, ...] = tuple(Action(PASS, seat) for seat in range(MAX_SEATS))
SUIT_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(Action(SUIT, seat, None, s) for s in range(4)) for seat in range(MAX_SEATS)
)
CALL_ACTIONS: tuple[Action, ...] = tuple(Action(CALL_LAST, seat) for seat in range(MAX_SEATS))
CATCH_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(Action(CATCH, seat, None, None, t) for t in range(MAX_SEATS)) for seat in range(MAX_SEATS)
)
