"""Events: what an action caused, after Volity's calls, each saying who may see it.

``visible_to`` None means public; an int means only that seat may see it (a drawn card, a dealt hand).
Cards in ``data`` are canonical codes, so an event is JSON as it is. Hand sizes change only through "dealt",
"played" and "drew" events; "draw_penalty" and "last_card_caught" describe why a "drew" follows.

Kinds and data keys:
  dealt {cards} (private) · starter {card, buried} · played {card} · suit_named {suit} · drew {count} ·
  drew_cards {cards} (private) · passed {forced} · turn · skipped {reason} · reversed {direction} ·
  draw_penalty {count, drawn} · reshuffled {count} · last_card_called · last_card_caught {target, count} ·
  went_out (partnership: the seat is out, its partner plays on) ·
  round_over {scores, winners, blocked, reason, card (what the winner went out with; not when blocked)}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

EVENT_KINDS = frozenset(
    {
        "dealt",
        "starter",
        "played",
        "suit_named",
        "drew",
        "drew_cards",
        "passed",
        "turn",
        "skipped",
        "reversed",
        "draw_penalty",
        "reshuffled",
        "last_card_called",
        "last_card_caught",
        "went_out",
        "round_over",
    }
)


class Event:
    __slots__ = ("data", "kind", "seat", "visible_to")

    def __init__(
        self,
        kind: str,
        seat: int | None = None,
        data: dict[str, Any] | None = None,
        visible_to: int | None = None,
    ) -> None:
        self.kind = kind
        #: The seat the event is about (None for table events such as "starter").
        self.seat = seat
        self.data: dict[str, Any] = data if data is not None else {}
        #: None = public; an int = only that seat may see it.
        self.visible_to = visible_to

    @property
    def public(self) -> bool:
        return self.visible_to is None

    def visible(self, seat: int | None) -> bool:
        """Whether ``seat`` may see it (``None`` = a spectator: public events only)."""
        return self.visible_to is None or self.visible_to == seat

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "data": self.data, "visible_to": self.visible_to}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        return cls(data["kind"], data.get("seat"), dict(data.get("data") or {}), data.get("visible_to"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (
            self.kind == other.kind
            and self.seat == other.seat
            and self.data == other.data
            and self.visible_to == other.visible_to
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        vis = "" if self.visible_to is None else f", visible_to={self.visible_to}"
        return f"Event({self.kind!r}, seat={self.seat}, data={self.data}{vis})"


def events_for(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see (``None``: public ones only)."""
    return [e for e in events if e.visible_to is None or e.visible_to == seat]
