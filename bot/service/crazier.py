"""Crazier Eights with its ability cards (``crazier-abilities``) at a table: the service's adapter for that
game. A table of this preset holds a ``CrazierMatch`` (``LiveTable.crazier`` / ``Work.crazier``) instead of a
``Match``; the service's parts call in here where the two games differ (a player's intent, the CPUs, the turn
timer's referee, the end of a game, what the board and a hand show), so the rest of the path (lock, copy,
commit, timers, outcomes) is the same for both.

An intent here: ``play`` discards a card (``suit`` names an 8's colour), ``effect`` plays one for its effect
(``target``: a seat, ``option``: a card in play), ``end_turn``, ``choose`` answers the pending choice
(``option``: a card code for the order or a card in play, a seat number, "keep" or "move"); ``pass`` ends
the turn as ``end_turn`` does (the typed /eights pass).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from bot.engine import EngineError
from bot.engine.crazier import (
    PRESET_NAME,
    CrazierMatch,
    CrazierRules,
    Move,
    card_label,
    parse_card,
    parse_colour,
)
from bot.engine.crazier import get_preset as crazier_preset
from bot.engine.crazier.cpu import choose_action, normal_move
from bot.engine.crazier.deck import COLOUR_NAMES, is_wild, row_of
from bot.engine.crazier.game import CrazierRound
from bot.i18n import N_, _, typed_in
from bot.service.errors import ServiceError
from bot.service.live import Work, is_cpu
from bot.service.models import (
    AbilityCard,
    ChoiceOption,
    CrazierBoard,
    CrazierHand,
    HandAbilityCard,
    Intent,
    IntentKind,
    PendingChoice,
)
from bot.service.moves import route
from bot.store.base import SeatRecord


def is_crazier_preset(name: str | None) -> bool:
    return isinstance(name, str) and name.strip().lower() == PRESET_NAME


def rules_for(name: str, *, teams: bool) -> CrazierRules:
    return crazier_preset(name, teams=teams)


def is_crazier_state(data: object) -> bool:
    """Whether a stored match document is a crazier-abilities one (its ``to_json`` names its game)."""
    return isinstance(data, dict) and data.get("game") == PRESET_NAME


# ============================================================================================ moves
def apply(work: Work, move: Move) -> None:
    assert work.crazier is not None
    events = work.crazier.apply(move)
    work.steps.append(move.to_json())
    for event in events:
        route(work, event)


def move_of(rnd: CrazierRound, position: int, intent: Intent) -> Move:
    """The engine move an intent asks for (``EngineError`` for an unreadable card or colour; the engine
    refuses what is not legal)."""
    kind = intent.kind
    if (
        kind in (IntentKind.PLAY, IntentKind.EFFECT)
        and rnd.choice is not None
        and rnd.choice["by"] == position
    ):
        raise EngineError(935)  # the engine's answer, before the card is read: the choice comes first
    if kind == IntentKind.PLAY:
        card = parse_card(intent.card)
        colour = parse_colour(intent.suit) if intent.suit else None
        plain = Move.discard(position, card)
        if (
            is_wild(card)
            and colour is None
            and not rnd.is_legal(plain)
            and rnd.is_legal(plain._replace(colour="B"))
        ):
            raise ServiceError("need_suit", _("Name a colour with that 8 (suit option)."))
        if is_wild(card) and rnd.hands[position] == [card]:
            colour = None  # a last 8 ends the game: a colour typed with it is not asked for
        # A colour typed with a card that is not an 8 is the engine's to refuse (905), as in the standard game
        # (bot.service.moves.apply_intent), not dropped.
        return Move.discard(position, card, colour)
    if kind == IntentKind.EFFECT:
        card = parse_card(intent.card)
        target_card = parse_card(intent.option) if intent.option else None
        move = Move.effect(position, card, target=intent.target, target_card=target_card)
        offered = [m for m in rnd.legal_actions(position) if m.kind == "effect" and m.card == card]
        if offered and move not in offered:
            # Playable, but the choice it needs was left out (a wrong choice is the engine's to refuse).
            if intent.target is None and any(m.target is not None for m in offered):
                raise ServiceError("need_player", _("Name the player it chooses (player option)."))
            if target_card is None and any(m.target_card is not None for m in offered):
                raise ServiceError("need_target", _("Name the card in play it chooses (target option)."))
        return move
    if kind in (IntentKind.END_TURN, IntentKind.PASS):  # typed, /eights pass ends one's turn
        return Move.end(position)
    if kind == IntentKind.CHOOSE:
        choice = rnd.choice
        if choice is None or choice["by"] != position:
            raise ServiceError("no_choice", _("Nothing is waiting for your choice now."))
        option = (intent.option or "").strip().lower()
        if choice["kind"] == "look":
            if option not in ("keep", "move"):
                raise _not_an_answer(rnd, position, option)
            return Move.keep(position) if option == "keep" else Move.move(position)
        if choice["kind"] == "player":
            if not (option.isascii() and option.isdigit()):  # not "²", which int() refuses
                raise _not_an_answer(rnd, position, option)
            return Move.player(position, int(option))
        # The options are cards in play: a card of one's hand is never one of them.
        card = parse_card(option)
        if card in rnd.hands[position]:
            raise EngineError(935)
        return Move.order(position, card) if choice["kind"] == "order" else Move.choose_card(position, card)
    raise ServiceError(
        "not_in_game", _("This game has no such move: discard, play a card for its effect, or end.")
    )


def _not_an_answer(rnd: CrazierRound, position: int, option: str) -> EngineError:
    """A typed answer the pending choice does not offer: a card of the chooser's hand was typed to play it
    (935, "Make the choice you are asked for first."), anything else is not offered (934)."""
    try:
        card = parse_card(option)
    except EngineError:
        return EngineError(934)
    return EngineError(935 if card in rnd.hands[position] else 934)


def apply_intent(work: Work, position: int, intent: Intent) -> None:
    assert work.crazier is not None
    apply(work, move_of(work.crazier.round, position, intent))


def cpu_seat(rnd: CrazierRound, seats: list[SeatRecord]) -> int | None:
    """A CPU seat that may act now (with teams several seats act at once), or None."""
    if rnd.over:
        return None
    return next((s for s in rnd.acting if is_cpu(seats[s])), None)


def cpu_move(rnd: CrazierRound, seat: int, level: str, seed: int) -> Move:
    return choose_action(rnd, seat, level, seed=seed)


def referee_move(rnd: CrazierRound, seat: int) -> Move | None:
    """What the referee does for a seat whose time ran out: answers its pending choice as a normal CPU would,
    and otherwise ends the turn (nothing is discarded or played for the absent player; with teams, a member
    at their own part of the turn while a teammate's choice waits is ended too)."""
    if rnd.over or seat not in rnd.acting:
        return None
    legal = rnd.legal_actions(seat)
    if not legal:
        return None
    if rnd.choice is not None and rnd.choice["by"] == seat:
        return normal_move(rnd.view(seat), legal)
    return Move.end(seat)


def referee_turn(work: Work, seat: int, steps: int) -> int:
    """The referee ends the seat's turn that ran out: it answers its pending choices and ends it, and stops
    there (the seat's next turn, or a new game, is the player's again, with a time of its own). Returns the
    moves it made."""
    assert work.crazier is not None
    turn = turn_key(work.crazier)
    made = 0
    for _n in range(steps):
        if turn_key(work.crazier) != turn:
            break
        move = referee_move(work.crazier.round, seat)
        if move is None:
            break
        apply(work, move)
        made += 1
    return made


def human_acting(rnd: CrazierRound, seats: list[SeatRecord]) -> list[int]:
    return [s for s in rnd.acting if not is_cpu(seats[s])]


def turn_key(match: CrazierMatch) -> list[int]:
    """What the turn timer is keyed on: a new game or a new (team) turn sets a new deadline."""
    return [match.number, match.round.turn]


# ============================================================================================ reading
def ability_card(card: str) -> AbilityCard:
    row = row_of(card)
    return AbilityCard(code=card, label=card_label(card), name=row.name, ability=row.ability)


def board(match: CrazierMatch) -> CrazierBoard:
    rnd = match.round
    return CrazierBoard(
        top=ability_card(rnd.top()),
        follow=tuple(COLOUR_NAMES[c] for c in rnd.colours_to_follow()),
        draw_size=len(rnd.draw),
        in_play=tuple(tuple(ability_card(c) for c in cards) for cards in rnd.in_play),
        alive=tuple(rnd.alive),
        acting=tuple(rnd.acting),
        teams=rnd.rules.teams,
    )


def _player_option(seat: int, names: list[str]) -> ChoiceOption:
    return ChoiceOption(
        value=str(seat), label=names[seat][:100] if seat < len(names) else _("seat {seat}", seat=seat + 1)
    )


def _card_option(rnd: CrazierRound, card: str, names: list[str]) -> ChoiceOption:
    owner = next((s for s, cards in enumerate(rnd.in_play) if card in cards), None)
    whose = names[owner] if owner is not None and owner < len(names) else ""
    label = f"{card_label(card)} — {whose}" if whose else card_label(card)
    return ChoiceOption(value=card, label=label[:100], description=_(row_of(card).ability)[:100])


# A choice is its chooser's alone (their hand): its words are in the language in force when it is built.
_PROMPTS = {
    "order": N_("Choose which of your beginning-of-turn abilities happens next."),
    "player": N_("{source}: choose a player to draw a card."),
    "card": N_("{source}: choose a card in play to destroy."),
    "look": N_(
        "{source}: the top card of the draw pile is {seen}: keep it on top, or move it to the bottom?"
    ),
}


def pending_choice(rnd: CrazierRound, position: int, names: list[str]) -> PendingChoice | None:
    ch = rnd.choice
    if ch is None or ch["by"] != position:
        return None
    moves = rnd.legal_actions(position)
    kind = ch["kind"]
    source = _(row_of(ch["entry"][0]).name) if kind != "order" else ""
    if kind == "order":
        options = tuple(
            ChoiceOption(m.card or "", card_label(m.card or "")[:100], _(row_of(m.card or "").ability)[:100])
            for m in moves
        )
        return PendingChoice(kind, _(_PROMPTS["order"]), options)
    if kind == "player":
        return PendingChoice(
            kind,
            _(_PROMPTS["player"], source=source),
            tuple(_player_option(m.target, names) for m in moves if m.target is not None),
        )
    if kind == "card":
        return PendingChoice(
            kind,
            _(_PROMPTS["card"], source=source),
            tuple(_card_option(rnd, m.target_card, names) for m in moves if m.target_card is not None),
        )
    seen = ch["entry"][2].get("seen")
    prompt = _(_PROMPTS["look"], source=source, seen=card_label(seen) if seen else _("unknown"))
    return PendingChoice(
        kind,
        prompt,
        (
            ChoiceOption("keep", _("Keep it on top")),
            ChoiceOption("move", _("Move it to the bottom of the draw pile")),
        ),
    )


def hand(match: CrazierMatch, position: int, names: list[str], *, playing: bool) -> CrazierHand:
    rnd = match.round
    legal = rnd.legal_actions(position) if playing else []
    discards = {m.card for m in legal if m.kind == "discard"}
    effects: dict[str, list[Move]] = {}
    for m in legal:
        if m.kind == "effect" and m.card is not None:
            effects.setdefault(m.card, []).append(m)
    cards = []
    for card in rnd.hands[position]:
        moves = effects.get(card, [])
        choice = ""
        options: tuple[ChoiceOption, ...] = ()
        if any(m.target is not None for m in moves):
            choice = "player"
            options = tuple(_player_option(m.target, names) for m in moves if m.target is not None)
        elif any(m.target_card is not None for m in moves):
            choice = "card"
            options = tuple(
                _card_option(rnd, m.target_card, names) for m in moves if m.target_card is not None
            )
        cards.append(
            HandAbilityCard(
                card=ability_card(card),
                can_discard=card in discards,
                needs_colour=is_wild(card) and len(rnd.hands[position]) > 1,
                can_play=bool(moves),
                effect_choice=choice,
                effect_options=options,
            )
        )
    return CrazierHand(
        cards=tuple(cards),
        can_end=any(m.kind == "end" for m in legal),
        choice=pending_choice(rnd, position, names) if playing else None,
        discards_left=rnd.discards_left[position] if playing else 0,
    )


def situation_token(seed: int, match: CrazierMatch, position: int, *, live: bool) -> str:
    """As ``bot.service.situation.situation_token``: a digest of what this seat may do now (its hand, its
    legal moves when it acts, the choice it is asked), keyed with the table's seed."""
    rnd = match.round
    acting = live and position in rnd.acting
    seen: tuple[object, ...] = (
        match.number,
        position,
        live,
        rnd.turn if acting else -1,
        sorted(rnd.hands[position]),
        sorted(repr(sorted(m.to_json().items())) for m in rnd.legal_actions(position)) if acting else [],
    )
    asked = _asked(rnd, position) if acting else ""
    if asked:  # only then: a token without a choice is the one stored tables' buttons were shown with
        seen += (asked,)
    key = (seed % 2**64).to_bytes(8, "big")
    return hashlib.blake2b(repr(seen).encode(), key=key, digest_size=6).hexdigest()


def _asked(rnd: CrazierRound, position: int) -> str:
    """The choice this seat is asked now, "" for none: its ability (card, controller, what it saw) and the
    abilities still to happen this turn. Two choices in a row may offer the same moves (two Elven Princesses,
    two Angels of Hope): each has a token of its own, so a second press of the first answers no unseen one."""
    ch = rnd.choice
    if ch is None or ch["by"] != position:
        return ""
    asked: list[Any] = [ch["kind"], ch.get("entry"), [entry[:2] for entry in rnd.batch]]
    return json.dumps(asked, sort_keys=True, default=str)


def effect_choices(match: CrazierMatch, position: int, current: str) -> list[tuple[str, str]]:
    """Autocomplete for the effect command: (value, label) of the cards this seat may play for their effect
    now, filtered by what was typed."""
    rnd = match.round
    cards: list[str] = []
    for m in rnd.legal_actions(position):
        if m.kind == "effect" and m.card is not None and m.card not in cards:
            cards.append(m.card)
    out = []
    for card in cards:
        label = f"{card_label(card)}: {_(row_of(card).ability)}"[:100]
        if not typed_in(current, label):
            continue
        out.append((card, label))
    return out[:25]


def discard_choices(match: CrazierMatch, position: int, current: str) -> list[tuple[str, str]]:
    rnd = match.round
    cards: list[str] = []
    for m in rnd.legal_actions(position):
        if m.kind == "discard" and m.card is not None and m.card not in cards:
            cards.append(m.card)
    return [(c, card_label(c)) for c in cards if typed_in(current, card_label(c))][:25]


def seat_names(seats: list[SeatRecord]) -> list[str]:
    return [s.display_name for s in sorted(seats, key=lambda s: s.position)]
