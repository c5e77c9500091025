"""What the Discord layer shows of a table, built from its committed state in memory: the board
(``TableSnapshot``, cached per committed version), one player's hand with the controls legal now
(``HandView``), and the cards /eights play's autocomplete offers. Reads only: nothing here changes a table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from bot.engine import (
    Action,
    ActionKind,
    EngineError,
    Match,
    Ruleset,
    card_code,
    card_label,
    card_name,
    card_title,
    match_end_text,
    parse_card,
    parse_suit,
    rank_of,
    sort_key,
    suit_code,
    suit_of,
)
from bot.engine.cards import RANK_CODES
from bot.engine.crazier import CrazierMatch, CrazierRules
from bot.i18n import N_, _, current_locale, typed_in
from bot.service import crazier
from bot.service.errors import ServiceError
from bot.service.live import (
    DEFAULT_NEXT_ROUND_PAUSE,
    LiveTable,
    capacity,
    game_number,
    is_cpu,
    phase_of,
    player_position,
    position_of,
    round_token,
)
from bot.service.models import (
    CardChoice,
    HandCard,
    HandView,
    RankingLine,
    SeatView,
    SideLine,
    TableEvent,
    TableSnapshot,
    house_rules_words,
)
from bot.service.situation import situation_token
from bot.service.views import side_lines
from bot.store.base import SeatRecord


def seats_to_start(rules: Ruleset | CrazierRules) -> int:
    """The fewest seats with which a table of ``rules`` starts: /eights new refuses fewer, Start deals no
    fewer, the lobby board asks for no fewer."""
    return max(2, rules.min_seats)


def snapshot(live: LiveTable) -> TableSnapshot:
    """The table's board as last committed (built once per committed version and record)."""
    cached = live.snapshot_of
    if cached is not None and cached[0] == live.version and cached[1] is live.record:
        return cached[2]
    built = _build(live)
    live.snapshot_of = (live.version, live.record, built)
    return built


def ranking_lines(match: Match | CrazierMatch, seats: Sequence[SeatRecord]) -> list[RankingLine]:
    return [
        RankingLine(
            place=place,
            position=seat,
            name=seats[seat].display_name,
            total=total,
            user_id=seats[seat].user_id,
        )
        for place, seat, total in match.ranking()
    ]


def hand_token(live: LiveTable, position: int) -> str:
    """The token a hand's controls carry: the round's, then the seat's situation."""
    return f"{round_token(live.id, live.game)}:{situation_of(live.doc, live.game, position)}"


def situation_of(doc: dict[str, Any], match: Match | CrazierMatch | None, position: int) -> str:
    """The seat's situation token (``bot.service.situation``), "" in the lobby."""
    if match is None:
        return ""
    live = phase_of(doc) == "playing" and not match.round.over
    if isinstance(match, CrazierMatch):
        return crazier.situation_token(int(doc["seed"]), match, position, live=live)
    return situation_token(int(doc["seed"]), match, position, live=live)


def hand_view(live: LiveTable, user_id: int) -> HandView:
    """The player's private hand view, with every control that is legal now."""
    position = player_position(live.seats, live.doc, user_id)
    if live.crazier is not None:
        return _crazier_hand_view(live, live.crazier, position, user_id)
    if live.match is None:
        raise ServiceError("not_started", _("The game hasn't started yet."))
    seat = live.seats[position]
    rnd = live.match.round
    playing = live.phase == "playing" and not rnd.over
    # A seat the CPU plays offers no controls: the person must take it back first.
    legal = list(rnd.legal_actions(position)) if playing and not seat.cpu_takeover else []
    plays: dict[int, list[Action]] = {}
    for action in legal:
        if action.kind == ActionKind.PLAY and action.card is not None:
            plays.setdefault(action.card, []).append(action)
    cards = tuple(
        HandCard(
            code=card_code(card),
            label=card_label(card),
            name=card_name(card),
            playable=card in plays,
            wild=isinstance(live.ruleset, Ruleset) and rank_of(card) == live.ruleset.wild_rank,
        )
        for card in sorted(rnd.hand(position), key=sort_key)
    )
    kinds = {a.kind for a in legal}
    your_turn = playing and rnd.to_act == position and not seat.cpu_takeover
    turn = live.doc.get("turn")
    return HandView(
        table_id=live.id,
        round_token=hand_token(live, position),
        position=position,
        cards=cards,
        your_turn=your_turn,
        can_draw=ActionKind.DRAW in kinds,
        can_pass=ActionKind.PASS in kinds,
        must_name_suit=ActionKind.SUIT in kinds,
        can_call_last=ActionKind.CALL_LAST in kinds,
        catch_targets=tuple(
            sorted({a.target for a in legal if a.kind == ActionKind.CATCH and a.target is not None})
        ),
        taken_over=seat.cpu_takeover,
        in_run=your_turn and rnd.phase == "run",
        answer_rank=RANK_CODES[rnd.answer_rank] if your_turn and rnd.answer_rank else None,
        deadline=turn["deadline"] if your_turn and turn and not seat.cpu_takeover else None,
        recent_private=tuple(live.notes.get(user_id, ())),
        snapshot=snapshot(live),
    )


def _crazier_hand_view(live: LiveTable, match: CrazierMatch, position: int, user_id: int) -> HandView:
    seat = live.seats[position]
    rnd = match.round
    playing = live.phase == "playing" and not rnd.over and not seat.cpu_takeover
    view = crazier.hand(match, position, crazier.seat_names(live.seats), playing=playing)
    your_turn = playing and position in rnd.acting
    turn = live.doc.get("turn")
    return HandView(
        table_id=live.id,
        round_token=hand_token(live, position),
        position=position,
        cards=tuple(
            HandCard(
                code=c.card.code,
                label=c.card.label,
                name=c.card.name,
                playable=c.can_discard or c.can_play,
                wild=c.needs_colour,
            )
            for c in view.cards
        ),
        your_turn=your_turn,
        can_draw=False,
        can_pass=False,
        must_name_suit=False,
        can_call_last=False,
        catch_targets=(),
        taken_over=seat.cpu_takeover,
        deadline=turn["deadline"] if your_turn and turn else None,
        recent_private=tuple(live.notes.get(user_id, ())),
        snapshot=snapshot(live),
        crazier=view,
    )


def crazier_choices(live: LiveTable | None, user_id: int, current: str, *, effect: bool) -> list[CardChoice]:
    """Autocomplete of a crazier-abilities table: the cards the user may discard (``effect`` False) or play
    for their effect now. Never raises."""
    if live is None or live.crazier is None or live.phase != "playing":
        return []
    position = position_of(live.seats, user_id)
    if position is None or live.seats[position].cpu_takeover or live.crazier.round.over:
        return []
    pick = crazier.effect_choices if effect else crazier.discard_choices
    return [CardChoice(value=value, label=label) for value, label in pick(live.crazier, position, current)]


def card_choices(live: LiveTable | None, user_id: int, current: str) -> list[CardChoice]:
    """Autocomplete for /eights play: on the user's turn exactly their legal cards (at most 25, filtered by
    what is typed so far); nothing when it is not their turn, they have no playable card, or there is no
    round. Never raises."""
    if live is not None and live.crazier is not None:
        return crazier_choices(live, user_id, current, effect=False)
    if live is None or live.match is None or live.phase != "playing":
        return []
    position = position_of(live.seats, user_id)
    rnd = live.match.round
    if position is None or live.seats[position].cpu_takeover or rnd.over or rnd.to_act != position:
        return []
    cards: list[int] = []
    for action in rnd.legal_actions(position):
        if action.kind == ActionKind.PLAY and action.card is not None and action.card not in cards:
            cards.append(action.card)
    cards.sort(key=sort_key)
    typed = current.strip().lower()
    parsed: int | None = None
    suit: int | None = None  # a suit typed alone ("♥", "h", "coeur"): its cards
    if typed:
        try:
            parsed = parse_card(typed)
        except EngineError:
            parsed = None
        try:
            suit = parse_suit(typed)
        except EngineError:
            suit = None
    choices: list[CardChoice] = []
    for card in cards:
        label = card_title(card)
        if (
            typed
            and card != parsed
            and suit_of(card) != suit
            and not card_code(card).lower().startswith(typed)
            and not typed_in(typed, label, at_start=True)
            and not typed_in(typed, card_name(card))
        ):
            continue
        choices.append(CardChoice(value=card_code(card), label=label))
    return choices[:25]


def _build(live: LiveTable) -> TableSnapshot:
    doc = live.doc
    match = live.match
    rnd = match.round if match is not None else None
    game = live.game
    phase = live.phase
    playing = phase == "playing" and game is not None and not game.round.over
    to_act = game.round.to_act if playing and game is not None else None
    counts = list(rnd.hand_sizes) if rnd is not None else None
    if live.crazier is not None:
        counts = [len(h) for h in live.crazier.round.hands]
    totals = tuple(game.totals) if game is not None else tuple(0 for _n in live.seats)
    round_scores = tuple(tuple(row) for row in game.round_scores) if game is not None else ()
    acting = set(live.crazier.round.acting) if playing and live.crazier is not None else set()
    last_scores = round_scores[-1] if round_scores else None
    seats = tuple(
        SeatView(
            position=seat.position,
            user_id=seat.user_id,
            name=seat.display_name,
            is_host=seat.user_id is not None and seat.user_id == doc["host_id"],
            is_cpu=is_cpu(seat),
            cpu_level=seat.cpu_level,
            taken_over=seat.cpu_takeover,
            card_count=counts[seat.position] if counts is not None else None,
            total=totals[seat.position] if seat.position < len(totals) else 0,
            last_round_score=last_scores[seat.position] if last_scores is not None else None,
            to_act=to_act == seat.position or seat.position in acting,
            timeouts_in_a_row=doc["timeouts"][seat.position] if seat.position < len(doc["timeouts"]) else 0,
        )
        for seat in live.seats
    )
    deadline: float | None = None
    deadline_kind: Literal["turn", "pause", "lobby"] | None = None
    if phase == "playing" and doc.get("turn"):
        deadline, deadline_kind = float(doc["turn"]["deadline"]), "turn"
    elif phase == "between_rounds" and doc.get("pause_until") is not None:
        deadline, deadline_kind = float(doc["pause_until"]), "pause"
    elif phase == "lobby" and doc.get("lobby_until") is not None:
        deadline, deadline_kind = float(doc["lobby_until"]), "lobby"
    declared = rnd.declared_suit if rnd is not None else None
    ruleset = live.ruleset if isinstance(live.ruleset, Ruleset) else None
    status: Literal["lobby", "playing", "finished", "abandoned"]
    if phase in ("finished", "abandoned"):
        status = "finished" if phase == "finished" else "abandoned"
    elif phase == "lobby":
        status = "lobby"
    else:
        status = "playing"
    options = live.record.options
    return TableSnapshot(
        table_id=live.id,
        guild_id=live.record.guild_id,
        channel_id=live.record.channel_id,
        host_id=int(doc["host_id"]),
        status=status,
        phase=phase,
        preset=str(options.get("preset", live.ruleset.name)),
        target_score=live.ruleset.target,
        max_seats=capacity(live),
        min_seats=seats_to_start(live.ruleset),
        turn_timeout=live.record.turn_timeout,
        auto_draw=bool(options.get("auto_draw", True)),
        next_round_pause=float(options.get("next_round_pause", DEFAULT_NEXT_ROUND_PAUSE)),
        seats=seats,
        round_number=game_number(game),
        round_token=round_token(live.id, game),
        target_card=card_code(rnd.target) if rnd is not None else _crazier_top(live),
        declared_suit=suit_code(declared) if declared is not None else None,
        direction=rnd.direction if rnd is not None else 1,
        pending_draw=rnd.pending_draw if rnd is not None else 0,
        stock_size=rnd.stock_size if rnd is not None else len(live.crazier.round.draw) if live.crazier else 0,
        to_act=to_act,
        deadline=deadline,
        deadline_kind=deadline_kind,
        totals=totals,
        round_scores=round_scores,
        recent=tuple(
            TableEvent(e["kind"], e.get("seat"), e.get("data", {}), e.get("source", "service"))
            for e in doc.get("recent", ())
        ),
        ranking=tuple(ranking_lines(game, live.seats)) if game is not None else (),
        board_message_id=live.record.board_message_id,
        has_last_card=ruleset is not None and ruleset.has_last_card,
        last_card_open=rnd.last_card_open if rnd is not None else None,
        house_rules=house_rules_words(ruleset, current_locale()) if ruleset is not None else (),
        match_end=match_end_text(ruleset)
        if ruleset is not None
        else CRAZIER_MATCH_END.format(target=live.ruleset.target),
        partnership=ruleset is not None and ruleset.partnership,
        teams=isinstance(live.ruleset, CrazierRules) and live.ruleset.teams,
        ruleset=ruleset,
        side_ranking=side_lines(match, live.seats)
        if live.crazier is None
        else crazier_sides(live.crazier, live.seats),
        crazier=crazier.board(live.crazier) if live.crazier is not None else None,
    )


# English: the board words it from ``target_score`` in the reader's language (``match_end_words``).
CRAZIER_MATCH_END = N_("until a total passes {target}; lowest total wins")


def _crazier_top(live: LiveTable) -> str | None:
    return live.crazier.round.top() if live.crazier is not None else None


def crazier_sides(match: CrazierMatch, seats: Sequence[SeatRecord]) -> tuple[SideLine, ...]:
    """The standing by team of a crazier-abilities team game (empty without teams)."""
    if not match.rules.teams:
        return ()
    return tuple(
        SideLine(place, positions, tuple(seats[p].display_name for p in positions), total)
        for place, positions, total in match.side_ranking()
    )
