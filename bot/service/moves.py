"""Engine steps on a move's working copy: a player's intent turned into engine actions, each action applied
with its events routed to everyone or to one player, and the referee's own moves (seed 000's automatic
draws and passes, the forced move for a player whose time ran out, the fallback for a CPU that fails)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from bot.engine import (
    Action,
    ActionKind,
    EngineError,
    Round,
    parse_card,
    parse_suit,
    rank_of,
    sort_key,
    suit_of,
)
from bot.i18n import _
from bot.service.errors import ServiceError
from bot.service.live import Work, is_cpu, was_kicked
from bot.service.models import Intent, IntentKind, TableEvent

log = logging.getLogger(__name__)

MAX_STEPS_PER_MOVE = 400  # safety bound on referee/CPU action chains inside one move
_ON_TURN = (ActionKind.PLAY, ActionKind.DRAW, ActionKind.PASS, ActionKind.SUIT)


def apply(work: Work, action: Action) -> None:
    assert work.match is not None
    events = work.match.apply(action)
    work.steps.append(action.to_json())
    for event in events:
        route(work, event)


def route(work: Work, event: Any) -> None:
    data = dict(event.data)
    table_event = TableEvent(str(event.kind), event.seat, data, "engine")
    visible_to = event.visible_to
    if visible_to is None:
        work.public.append(table_event)
        work.log_events.append({"kind": table_event.kind, "seat": event.seat, "data": data, "to": None})
        return
    seat = work.seats[visible_to] if 0 <= visible_to < len(work.seats) else None
    user_id = seat.user_id if seat is not None and not was_kicked(work.doc, seat.user_id) else None
    work.log_events.append(
        {"kind": table_event.kind, "seat": event.seat, "data": data, "to": user_id, "to_seat": visible_to}
    )
    if user_id is not None:
        work.private.setdefault(user_id, []).append(table_event)


def apply_intent(work: Work, position: int, intent: Intent) -> None:
    assert work.match is not None
    rnd = work.match.round
    kind = intent.kind
    if kind == IntentKind.PLAY:
        if intent.card is None:
            raise EngineError(903)
        card = parse_card(intent.card)
        suit = parse_suit(intent.suit) if intent.suit else None
        legal = rnd.legal_actions(position)
        exact = Action.play(position, card, suit)
        plain = Action.play(position, card)
        wild = rank_of(card) == work.match.ruleset.wild_rank
        if suit is not None and wild and exact not in legal and plain in legal:
            # The engine names a wild's suit in a second step: do both in this move. A suit typed with a card
            # that names none is refused by the engine (905), not dropped.
            apply(work, plain)
            follow = Action.name_suit(position, suit)
            if work.match.round.to_act == position and follow in work.match.round.legal_actions(position):
                apply(work, follow)
            return
        if suit is None and exact not in legal:
            with_suit = [
                a for a in legal if a.kind == ActionKind.PLAY and a.card == card and a.suit is not None
            ]
            if with_suit:
                raise ServiceError("need_suit", _("Name a suit with that card (suit option)."))
        apply(work, exact)
    elif kind == IntentKind.DRAW:
        apply(work, Action.draw(position))
    elif kind == IntentKind.PASS:
        apply(work, Action.pass_(position))
    elif kind == IntentKind.SUIT:
        if intent.suit is None:
            raise EngineError(906)
        apply(work, Action.name_suit(position, parse_suit(intent.suit)))
    elif kind == IntentKind.CALL_LAST:
        apply(work, Action.call_last(position))
    elif kind == IntentKind.CATCH:
        if intent.target is None:
            raise EngineError(923)
        apply(work, Action.catch(position, intent.target))
    else:  # pragma: no cover - IntentKind is closed
        raise EngineError(924)


def auto_draw(work: Work) -> None:
    """Seed 000's referee convenience (table option, on by default): a person to move with no legal play
    has cards drawn for them as the rules require (and is passed when, after drawing, passing is all that
    is left)."""
    assert work.match is not None
    if not work.live.record.options.get("auto_draw", True):
        return
    drawn: dict[int, int] = {}
    for _n in range(MAX_STEPS_PER_MOVE):
        rnd = work.match.round
        seat = rnd.to_act
        if rnd.over or seat is None or is_cpu(work.seats[seat]):
            break
        # A drawing referee would close an uncalled last card's catch window at once: leave the draw to
        # the player, so the others get their chance to catch. That holds when the turn came straight back
        # to the card's own player too (a skip, a missed answer to a jack): their draw would end the window
        # inside the very move that opened it. Calling their card, or a catch, lets the referee draw again.
        if rnd.last_card_open is not None:
            break
        legal = [a for a in rnd.legal_actions(seat) if a.kind in _ON_TURN]
        kinds = {a.kind for a in legal}
        if not legal or ActionKind.PLAY in kinds or ActionKind.SUIT in kinds:
            break
        if ActionKind.DRAW in kinds:
            before = rnd.hand_sizes[seat]
            apply(work, Action.draw(seat))
            drawn[seat] = drawn.get(seat, 0) + max(0, work.match.round.hand_sizes[seat] - before)
            if work.match.round.to_act != seat or work.match.round.over:
                _note_auto_draw(work, seat, drawn.pop(seat))
            continue
        if kinds == {ActionKind.PASS} and drawn.get(seat):
            _note_auto_draw(work, seat, drawn.pop(seat))
            apply(work, Action.pass_(seat))
            work.say("auto_passed", seat)
            continue
        break
    for seat, count in drawn.items():
        _note_auto_draw(work, seat, count)


def _note_auto_draw(work: Work, seat: int, count: int) -> None:
    work.say("auto_drew", seat, count=count)


def referee_turn(work: Work, seat: int) -> int:
    """The referee acts for a person whose time ran out, as the rules force: name a suit if one is owed,
    pass when passing is allowed, take a pending draw, draw while nothing is playable, and otherwise play
    (a playable drawn card must be played). Returns the number of cards drawn."""
    assert work.match is not None
    drawn = 0
    for _n in range(MAX_STEPS_PER_MOVE):
        rnd = work.match.round
        if rnd.over or rnd.to_act != seat:
            break
        action = referee_action(rnd, seat)
        if action is None:
            break
        before = rnd.hand_sizes[seat]
        apply(work, action)
        if action.kind == ActionKind.DRAW:
            drawn += max(0, work.match.round.hand_sizes[seat] - before)
    return drawn


def apply_or_referee(work: Work, action: Action, seat: int) -> None:
    assert work.match is not None
    try:
        apply(work, action)
    except EngineError as exc:
        # A CPU choice the engine refuses is a bug in the CPU; the referee's choice keeps the game going.
        log.error("table %s: CPU seat %s chose an illegal action (%s)", work.live.id, seat, exc.code)
        fallback = referee_action(work.match.round, seat)
        if fallback is not None:
            apply(work, fallback)


def _best_suit(hand: Sequence[int]) -> int:
    counts = [0, 0, 0, 0]
    for card in hand:
        counts[suit_of(card)] += 1
    return max(range(4), key=lambda s: (counts[s], -s))


def referee_action(rnd: Round, seat: int) -> Action | None:
    """The action the referee takes for a seat that did not act in time (see ``referee_turn``)."""
    legal: list[Action] = [a for a in rnd.legal_actions(seat) if a.kind in _ON_TURN]
    if not legal:
        return None
    by_kind: dict[ActionKind, list[Action]] = {}
    for action in legal:
        by_kind.setdefault(action.kind, []).append(action)
    suit = _best_suit(rnd.hand(seat))
    if ActionKind.SUIT in by_kind:
        named = [a for a in by_kind[ActionKind.SUIT] if a.suit == suit]
        return (named or by_kind[ActionKind.SUIT])[0]
    if ActionKind.PASS in by_kind:
        return by_kind[ActionKind.PASS][0]
    if ActionKind.DRAW in by_kind and (rnd.pending_draw > 0 or ActionKind.PLAY not in by_kind):
        return by_kind[ActionKind.DRAW][0]
    plays = by_kind.get(ActionKind.PLAY, [])
    if plays:
        plain = [a for a in plays if a.suit is None] or plays
        named = [a for a in plain if a.suit is None or a.suit == suit]
        return sorted(named or plain, key=lambda a: sort_key(a.card) if a.card is not None else 0)[0]
    return by_kind[ActionKind.DRAW][0] if ActionKind.DRAW in by_kind else None
