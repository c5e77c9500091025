"""The few things every ability is made of: draw, destroy, take control, look at the draw pile, win, lose.

Each is a function over the game's state (``CrazierRound``) that appends what happened to ``ev``. The game's
own turn uses them too (the turn's draw is ``draw_cards`` with no cause), so a rule such as Castle or the
impossible draw holds whoever causes the draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.engine.events import Event

if TYPE_CHECKING:
    from bot.engine.crazier.game import CrazierRound


def opponents(g: CrazierRound, a: int, b: int) -> bool:
    """Whether seats ``a`` and ``b`` are opponents (with teams: on different teams)."""
    if a == b:
        return False
    return a % 2 != b % 2 if g.rules.teams else True


def refill(g: CrazierRound, ev: list[Event]) -> int:
    """Shuffle the discard pile but its top card and put it under the draw pile (seed 001 detail 1 and
    clarification 4); returns how many cards moved. Deterministic: the n-th refill uses its own seed."""
    moved = g.discard[:-1]
    if not moved:
        return 0
    g.reshuffles += 1
    g.rng_for(g.reshuffles).shuffle(moved)
    g.draw[:0] = moved
    del g.discard[:-1]
    ev.append(Event("reshuffled", None, {"count": len(moved)}))
    return len(moved)


def draw_cards(
    g: CrazierRound, seat: int, n: int, cause: int | None, ev: list[Event], by: str | None
) -> None:
    """``seat`` draws ``n`` cards one at a time, ``cause`` being the player who makes it draw (None: the
    turn's own draw). An opponent's cause is reduced by the seat's Castles. A card that must be drawn when
    the draw pile is empty and the discard pile holds only its top card ends the game (the impossible
    draw)."""
    if cause is not None and opponents(g, cause, seat):
        fewer = min(n, g.fewer_draws(seat))
        if fewer:
            ev.append(Event("draw_prevented", seat, {"count": fewer, "by": by}))
            n -= fewer
    drawn: list[str] = []
    for _ in range(n):
        if not g.draw and refill(g, ev) == 0:
            _tell_drawn(g, seat, drawn, ev, by)
            g.impossible_draw(ev)
            return
        card = g.draw.pop()
        g.hands[seat].append(card)
        drawn.append(card)
    _tell_drawn(g, seat, drawn, ev, by)


def _tell_drawn(g: CrazierRound, seat: int, drawn: list[str], ev: list[Event], by: str | None) -> None:
    if drawn:
        ev.append(Event("drew", seat, {"count": len(drawn), "by": by}))
        ev.append(Event("drew_cards", seat, {"cards": list(drawn)}, visible_to=seat))


def draw_from_one_source(
    g: CrazierRound, counts: dict[int, int], cause: int | None, start: int, ev: list[Event], by: str | None
) -> None:
    """Several players drawing from one ability draw one player at a time, clockwise, starting with ``start``
    (the player taking the turn: seed 001 clarification 8)."""
    for k in range(g.n):
        seat = (start + k) % g.n
        if seat in counts and g.alive[seat] and not g.over:
            draw_cards(g, seat, counts[seat], cause, ev, by)


def owner_of(g: CrazierRound, card: str) -> int | None:
    for seat, cards in enumerate(g.in_play):
        if card in cards:
            return seat
    return None


def destroy(g: CrazierRound, card: str, by: str | None, ev: list[Event]) -> None:
    """A destroyed card goes to the bottom of the discard pile (seed 001 detail 3)."""
    owner = owner_of(g, card)
    if owner is None:
        return
    g.in_play[owner].remove(card)
    g.discard.insert(0, card)
    ev.append(Event("destroyed", owner, {"card": card, "by": by}))


def take_control(g: CrazierRound, seat: int, card: str, ev: list[Event]) -> None:
    owner = owner_of(g, card)
    if owner is None or owner == seat:
        return
    g.in_play[owner].remove(card)
    g.in_play[seat].append(card)
    ev.append(Event("took_control", seat, {"card": card, "from": owner}))


def look_top(g: CrazierRound, seat: int, ev: list[Event]) -> str | None:
    """The top card of the draw pile, shown to ``seat`` only (refilled first when empty); None if none."""
    if not g.draw:
        refill(g, ev)
    if not g.draw:
        return None
    card = g.draw[-1]
    ev.append(Event("looked", seat, {"count": 1}))
    ev.append(Event("looked_card", seat, {"card": card}, visible_to=seat))
    return card


def lose(g: CrazierRound, seat: int, reason: str, ev: list[Event]) -> None:
    """``seat`` leaves the game: its hand, then the cards it controls, go to the bottom of the discard pile
    (seed 001 detail 5); the last player (or team) left wins."""
    if not g.alive[seat] or g.over:
        return
    g.alive[seat] = False
    g.lost_with[seat] = len(g.hands[seat])
    g.discard[:0] = g.hands[seat] + g.in_play[seat]
    ev.append(
        Event("lost", seat, {"reason": reason, "cards": len(g.hands[seat]), "in_play": len(g.in_play[seat])})
    )
    g.hands[seat] = []
    g.in_play[seat] = []
    if seat in g.active:
        g.stage[seat] = "done"
    sides = {s % 2 if g.rules.teams else s for s in range(g.n) if g.alive[s]}
    if len(sides) == 1:
        g.finish([s for s in range(g.n) if g.alive[s]], "last_standing", ev)


def win(g: CrazierRound, seat: int, reason: str, ev: list[Event]) -> None:
    if g.alive[seat] and not g.over:
        g.finish([seat], reason, ev)
