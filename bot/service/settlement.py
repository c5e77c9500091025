"""Settling a move: what follows any change to a table before it is committed — the referee's automatic
draws, the end of a round (its result, the pause before the next one) or of the match (the final ranking and
the result the store records), dealing the next round, the turn timer's deadline, the board's recent plays,
and the deadline the store keeps for the table."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from bot.engine import Match, Ruleset, rule_options
from bot.engine.crazier import CrazierRules
from bot.service import crazier
from bot.service.live import (
    DEFAULT_NEXT_ROUND_PAUSE,
    IDLE_TTL,
    Work,
    is_cpu,
    round_token,
    was_kicked,
)
from bot.service.models import RankingLine, TableEvent
from bot.service.moves import auto_draw, route
from bot.service.snapshots import ranking_lines
from bot.store.base import MatchResult, RankingEntry, RoundResult

RECENT_EVENTS = 12
KICKED_SEAT_NAME = "CPU"  # a kicked member's seat in the recorded ranking (untranslated, as "CPU 1")
# Engine events not worth keeping in the board's "last plays".
_NOT_RECENT = {"turn", "dealt", "drew_cards", "round_started", "next_round_at"}


def settle(work: Work) -> None:
    """What follows any move: the referee's automatic draws, the end of a round or match, the turn timer,
    the board's recent plays."""
    if work.crazier is not None:
        _settle_crazier(work)
    elif work.phase == "playing" and work.match is not None:
        auto_draw(work)
        if work.match.round.over:
            _finish_round(work)
    if work.phase == "playing" and work.match is not None:
        rnd = work.match.round
        seat = rnd.to_act
        if seat is not None and not is_cpu(work.seats[seat]):
            key = [work.match.round_number, rnd.turn_number, seat]
            turn = work.doc.get("turn")
            if not turn or turn.get("key") != key:
                work.doc["turn"] = {"key": key, "deadline": work.now + work.live.record.turn_timeout}
        else:
            work.doc["turn"] = None
    elif work.crazier is None:
        work.doc["turn"] = None
    keep_recent(work.doc["recent"], work.public)


def keep_recent(recent: list[dict[str, Any]], events: Sequence[TableEvent]) -> None:
    """The board's last plays (``recent``, a table document's) after ``events``: a live table's at each move,
    a replay's at each step."""
    for event in events:
        if event.kind not in _NOT_RECENT:
            recent.append(
                {"kind": event.kind, "seat": event.seat, "data": dict(event.data), "source": event.source}
            )
    del recent[:-RECENT_EVENTS]


def _settle_crazier(work: Work) -> None:
    """crazier-abilities: the end of a game or match; the turn timer runs while a person may act (with
    teams, one deadline for the team's turn)."""
    match = work.crazier
    assert match is not None
    if work.phase == "playing" and match.round.over:
        ranking = [
            RankingLine(
                place=place,
                position=seat,
                name=work.seats[seat].display_name,
                total=total,
                user_id=work.seats[seat].user_id,
            )
            for place, seat, total in match.ranking()
        ]
        _end_round(
            work,
            match.number,
            match.round.scores,
            match.round.winners,
            list(match.totals),
            match.over,
            ranking,
        )
    if work.phase == "playing" and crazier.human_acting(match.round, work.seats):
        key = crazier.turn_key(match)
        turn = work.doc.get("turn")
        if not turn or turn.get("key") != key:
            work.doc["turn"] = {"key": key, "deadline": work.now + work.live.record.turn_timeout}
    else:
        work.doc["turn"] = None


def store_deadline(work: Work) -> float | None:
    times = [work.doc["last_human_at"] + IDLE_TTL]
    turn = work.doc.get("turn")
    if turn:
        times.append(turn["deadline"])
    for key in ("pause_until", "lobby_until"):
        if work.doc.get(key) is not None:
            times.append(work.doc[key])
    return min(times) if work.status not in ("finished", "abandoned") else None


def _finish_round(work: Work) -> None:
    assert work.match is not None
    match = work.match
    rnd = match.round
    ranking = ranking_lines(match, work.seats) if match.over else []
    _end_round(work, match.round_number, rnd.scores, rnd.winners, list(match.totals), match.over, ranking)


def _end_round(
    work: Work,
    number: int,
    round_scores: Sequence[int] | None,
    round_winners: Sequence[int],
    totals: list[int],
    match_over: bool,
    ranking: Sequence[RankingLine],
) -> None:
    """A round (a game) is over: its result, then the match's end or the pause before the next one."""
    scores = list(round_scores or [0] * len(work.seats))
    winners = list(round_winners)
    work.doc["round_winners"].append(winners)
    work.round_result = RoundResult(round_number=number, scores=scores, winners=winners)
    work.say(
        "round_result",
        None,
        round_number=number,
        scores=scores,
        totals=totals,
        winners=winners,
    )
    if match_over:
        work.match_result = _match_result(work, ranking)
        work.say("match_over", None, ranking=[dataclasses.asdict(line) for line in ranking])
        work.close("finished", "finished")
        return
    work.doc["phase"] = "between_rounds"
    pause = float(work.live.record.options.get("next_round_pause", DEFAULT_NEXT_ROUND_PAUSE))
    work.doc["pause_until"] = work.now + pause
    work.say(
        "next_round_at", None, at=work.doc["pause_until"], round_token=round_token(work.live.id, work.game)
    )


def deal_next(work: Work) -> None:
    if work.crazier is not None:
        events = work.crazier.start_next_round()
        work.steps.append({"kind": "start_next_round"})
        work.doc["phase"] = "playing"
        work.doc["pause_until"] = None
        work.say(
            "round_started",
            None,
            round_number=work.crazier.number,
            first=work.crazier.round.lead,
            round_token=round_token(work.live.id, work.crazier),
        )
        for event in events:
            route(work, event)
        return
    assert work.match is not None
    events = work.match.start_next_round()
    work.steps.append({"kind": "start_next_round"})
    work.doc["phase"] = "playing"
    work.doc["pause_until"] = None
    work.say(
        "round_started",
        None,
        round_number=work.match.round_number,
        dealer=work.match.dealer,
        round_token=round_token(work.live.id, work.match),
    )
    for event in events:
        route(work, event)


def _ranking_entry(work: Work, line: RankingLine) -> RankingEntry:
    if was_kicked(work.doc, line.user_id):
        # A member the host removed played no part in what their seat's CPU did after: the seat is the
        # CPU's (rated as its level), under the CPU's name (nothing of theirs stays without their id, which
        # forget-user looks for).
        return RankingEntry(line.position, None, KICKED_SEAT_NAME, line.place, line.total)
    return RankingEntry(line.position, line.user_id, line.name, line.place, line.total)


def _match_result(work: Work, ranking: Sequence[RankingLine]) -> MatchResult:
    game = work.game
    assert game is not None
    round_wins: dict[int, int] = {}
    for winners in work.doc["round_winners"]:
        for seat in winners:
            round_wins[seat] = round_wins.get(seat, 0) + 1
    round_points: dict[int, int] = {}
    for scores in game.round_scores:
        for seat, score in enumerate(scores):
            round_points[seat] = round_points.get(seat, 0) + score
    return MatchResult(
        preset=str(work.live.record.options.get("preset", work.live.ruleset.name)),
        rounds_played=game.round_number if isinstance(game, Match) else game.number,
        ranking=[_ranking_entry(work, line) for line in ranking],
        round_wins=round_wins,
        round_points=round_points,
        house_rules=rule_options.house_rules(work.live.ruleset)
        if isinstance(work.live.ruleset, Ruleset)
        else {},
        teams=isinstance(work.live.ruleset, CrazierRules) and work.live.ruleset.teams,
    )
