"""Each card's ability as a small function over the primitives (``primitives.py``), keyed as in ``deck.py``.

An ``Ability`` says what it asks (``choice``: a player, a card in play, keep-or-move, or nothing), the options
of that choice now (``options``; an event with no option cannot be played: seed 001 clarification 6), what it
does (``resolve``), and for the beginning-of-turn ones, whether it happens (``trigger``: its condition checked
at that exact moment, clarification 7; the data it returns travels with it, so it happens "no matter what else
happens" afterwards, §6). ``fewer_draws`` is Castle's substitution, read by the draw primitive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.engine.crazier import primitives as p
from bot.engine.events import Event

if TYPE_CHECKING:
    from bot.engine.crazier.game import CrazierRound

PLAYER, CARD, LOOK = "player", "card", "look"
Options = Callable[["CrazierRound", int, dict[str, Any]], list[Any]]
Resolve = Callable[["CrazierRound", int, str, Any, dict[str, Any], list[Event]], None]
Trigger = Callable[["CrazierRound", int, int], "dict[str, Any] | None"]


def _nothing(g: CrazierRound, seat: int, data: dict[str, Any]) -> list[Any]:
    return [None]


@dataclass(frozen=True)
class Ability:
    resolve: Resolve | None = None
    choice: str | None = None
    options: Options = _nothing
    #: Beginning-of-turn abilities: (game, controller, seat beginning its turn) -> data, or None if it does
    #: not happen.
    trigger: Trigger | None = None
    fewer_draws: int = 0


def _alive_players(g: CrazierRound, seat: int, data: dict[str, Any]) -> list[Any]:
    return [s for s in range(g.n) if g.alive[s]]


def _cards_in_play(g: CrazierRound, seat: int, data: dict[str, Any]) -> list[Any]:
    return [c for cards in g.in_play for c in cards]


def _opponent_cards(g: CrazierRound, seat: int, data: dict[str, Any]) -> list[Any]:
    return [c for s, cards in enumerate(g.in_play) if p.opponents(g, seat, s) for c in cards]


def _your_turn(g: CrazierRound, controller: int, turn_seat: int) -> dict[str, Any] | None:
    return {} if controller == turn_seat else None


# ------------------------------------------------------------------------------------------------ events
def _forbidden_knowledge(
    g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]
) -> None:
    p.draw_from_one_source(g, {target: 2}, seat, seat, ev, card)


def _potion(
    g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]
) -> None:
    g.discards_left[seat] += 2


def _resurrection_options(g: CrazierRound, seat: int, data: dict[str, Any]) -> list[Any]:
    return [None] if len(g.discard) >= 2 else []


def _resurrection(
    g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]
) -> None:
    top = g.discard.pop()
    g.draw.insert(0, top)
    g.follow = None
    g.uncover_top()
    ev.append(Event("resurrected", seat, {"moved": top, "top": g.discard[-1], "follow": g.follow}))


def _death(g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]) -> None:
    p.destroy(g, target, card, ev)


def _crown(g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]) -> None:
    p.take_control(g, seat, target, ev)


# ------------------------------------------------------------------------------------------------ assets
def _princess_options(g: CrazierRound, seat: int, data: dict[str, Any]) -> list[Any]:
    """Keep or move the card looked at, while it is still the top card of the draw pile (a teammate's draw
    may take it meanwhile: then there is nothing left to choose)."""
    seen = data.get("seen")
    return ["keep", "move"] if seen is not None and g.draw and g.draw[-1] == seen else []


def _princess(
    g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]
) -> None:
    if target == "move" and g.draw and g.draw[-1] == data.get("seen"):
        g.draw.insert(0, g.draw.pop())
        ev.append(Event("moved_to_bottom", seat, {"by": card}))
    else:
        ev.append(Event("kept_on_top", seat, {"by": card}))


def _angel(g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]) -> None:
    p.draw_from_one_source(g, {target: 1}, seat, g.turn_seat(), ev, card)


def _dragon(
    g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]
) -> None:
    p.destroy(g, target, card, ev)


def _mordred_trigger(g: CrazierRound, controller: int, turn_seat: int) -> dict[str, Any] | None:
    if controller != turn_seat:
        return None
    victims = [
        s
        for s in g.clockwise(controller)
        if g.alive[s] and p.opponents(g, controller, s) and len(g.hands[s]) >= 12
    ]
    return {"victims": victims} if victims else None


def _mordred(
    g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]
) -> None:
    for victim in data["victims"]:
        p.lose(g, victim, card, ev)


def _arthur_trigger(g: CrazierRound, controller: int, turn_seat: int) -> dict[str, Any] | None:
    return {} if controller == turn_seat and len(g.in_play[controller]) >= 4 else None


def _arthur(
    g: CrazierRound, seat: int, card: str, target: Any, data: dict[str, Any], ev: list[Event]
) -> None:
    p.win(g, seat, card, ev)


ABILITIES: dict[str, Ability] = {
    "forbidden_knowledge": Ability(_forbidden_knowledge, PLAYER, _alive_players),
    "potion": Ability(_potion),
    "resurrection": Ability(_resurrection, None, _resurrection_options),
    "death": Ability(_death, CARD, _cards_in_play),
    "crown_of_kings": Ability(_crown, CARD, _opponent_cards),
    "elven_princess": Ability(_princess, LOOK, _princess_options, _your_turn),
    "angel_of_hope": Ability(_angel, PLAYER, _alive_players, _your_turn),
    "castle": Ability(fewer_draws=1),
    "devious_dragon": Ability(_dragon, CARD, _cards_in_play, _your_turn),
    "mordred": Ability(_mordred, None, _nothing, _mordred_trigger),
    "king_arthur": Ability(_arthur, None, _nothing, _arthur_trigger),
}
