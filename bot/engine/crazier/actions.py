"""The moves of ``crazier-abilities``: an immutable value, JSON both ways.

``discard`` (card, and a colour for an 8 that is not the last card) · ``effect`` (card; ``target`` a seat for
a card that chooses a player, ``target_card`` for one that chooses a card in play) · ``end`` (end one's turn)
· the answers to a pending beginning-of-turn choice: ``order`` (which of one's abilities happens next:
``card``), ``player`` (``target``), ``card`` (``target_card``), ``keep`` / ``move`` (Elven Princess: leave the
looked-at card on top, or put it on the bottom of the draw pile).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from bot.engine.crazier.deck import parse_card, parse_colour
from bot.engine.errors import EngineError

DISCARD, EFFECT, END, ORDER, PLAYER, CARD, KEEP, MOVE = (
    "discard",
    "effect",
    "end",
    "order",
    "player",
    "card",
    "keep",
    "move",
)
KINDS = (DISCARD, EFFECT, END, ORDER, PLAYER, CARD, KEEP, MOVE)
#: The kinds that answer a pending beginning-of-turn choice.
CHOICE_KINDS = (ORDER, PLAYER, CARD, KEEP, MOVE)


class Move(NamedTuple):
    kind: str
    seat: int
    card: str | None = None
    colour: str | None = None
    target: int | None = None
    target_card: str | None = None

    @staticmethod
    def discard(seat: int, card: str, colour: str | None = None) -> Move:
        return Move(DISCARD, seat, card, colour)

    @staticmethod
    def effect(seat: int, card: str, target: int | None = None, target_card: str | None = None) -> Move:
        return Move(EFFECT, seat, card, None, target, target_card)

    @staticmethod
    def end(seat: int) -> Move:
        return Move(END, seat)

    @staticmethod
    def order(seat: int, card: str) -> Move:
        return Move(ORDER, seat, card)

    @staticmethod
    def player(seat: int, target: int) -> Move:
        return Move(PLAYER, seat, target=target)

    @staticmethod
    def choose_card(seat: int, target_card: str) -> Move:
        return Move(CARD, seat, target_card=target_card)

    @staticmethod
    def keep(seat: int) -> Move:
        return Move(KEEP, seat)

    @staticmethod
    def move(seat: int) -> Move:
        return Move(MOVE, seat)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat}
        for key in ("card", "colour", "target", "target_card"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @staticmethod
    def from_json(data: object) -> Move:
        """Read a move from JSON; ``EngineError`` 924 (not a move), 903 (card), 906 (colour)."""
        if not isinstance(data, dict) or data.get("kind") not in KINDS or type(data.get("seat")) is not int:
            raise EngineError(924)
        card = data.get("card")
        target_card = data.get("target_card")
        colour = data.get("colour")
        target = data.get("target")
        if target is not None and type(target) is not int:
            raise EngineError(924)
        return Move(
            data["kind"],
            data["seat"],
            None if card is None else parse_card(card),
            None if colour is None else parse_colour(colour),
            target,
            None if target_card is None else parse_card(target_card),
        )
