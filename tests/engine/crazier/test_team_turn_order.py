"""A team's members act in any order between them (RULESETS.md, "Crazier Eights with its ability cards",
Teams, 001 §8): "A team takes its turn together: each member does their own beginning-of-turn abilities, draw,
discard and effect, in any order between them, and the team's turn ends when every member has ended theirs."

A member with nothing to do at some moment is not ended for them while a teammate may still act, since the
teammate's discard (a new colour to follow) or card put into play (a target for Death) can give them a move
(decision 10 in ``bot.engine.crazier``). Meanwhile they are offered the end of their part, so every acting
seat always has a legal move; once no member has anything left to do, the members still at their part are
ended at once and the other team's turn begins."""

from __future__ import annotations

from bot.engine.crazier import CrazierRound, Move
from bot.engine.crazier.game import DONE, MAIN
from tests.engine.crazier.support import kinds, position

#: Seats 0 and 2 against 1 and 3, on a blue 5. Seat 0 draws AO and holds the green 5 (its rank matches);
#: seat 2 draws AG and holds nothing that matches blue, and Death / Crown of Kings with nothing in play.
HANDS = ["5G 3O", "9O 3B", "9G 10O", "9P 3P"]


def _team_turn(hands: list[str] = HANDS) -> CrazierRound:
    g, _ = position(hands, "5B", draw="AO AG", teams=True)
    assert g.active == [0, 2] and g.choice is None
    return g


def test_a_member_may_discard_on_the_colour_a_teammate_discarded_in_the_same_team_turn() -> None:
    """Seat 2 has nothing to discard on the blue 5 until seat 0 discards the green 5: then its green 9 and
    AG (green and orange) match, and it may discard either."""
    g = _team_turn()
    g.apply(Move.discard(0, "5G"))
    assert g.top() == "5G" and g.matches("9G")
    assert not g.over and g.stage[0] == MAIN and g.stage[2] == MAIN
    assert {Move.discard(2, "9G"), Move.discard(2, "AG")} <= set(g.legal_actions(2))
    events = g.apply(Move.discard(2, "9G"))
    assert kinds(events) == ["discarded"] and g.top() == "9G"


def test_a_member_may_play_death_once_a_teammate_put_a_card_into_play() -> None:
    """Death is playable only while a card is in play ("A turn" 4: a card needing a choice is playable only
    when a choice exists). Seat 2 holds Death with nothing in play; seat 0 plays a Castle into play, and
    seat 2 may then destroy it."""
    g = _team_turn(["6G 3O", "9O 3B", "9G 10O", "9P 3P"])
    g.apply(Move.effect(0, "6G"))
    assert not g.over and g.in_play[0] == ["6G"]
    assert Move.effect(2, "9G", target_card="6G") in g.legal_actions(2)


def test_a_member_with_nothing_to_do_is_offered_only_the_end_while_a_teammate_may_act() -> None:
    """Seat 2 stays at its own part of the turn, with the end of it as its only move, while seat 0 may
    still discard or play; both are acting."""
    g = _team_turn()
    assert g.stage[2] == MAIN and g.acting == [0, 2]
    assert g.legal_actions(2) == [Move.end(2)]
    assert Move.discard(0, "5G") in g.legal_actions(0)


def test_a_member_may_end_their_part_before_a_teammate_moves() -> None:
    """Ending one's part is the member's own move; the teammate's later discard does not open it again."""
    g = _team_turn()
    events = g.apply(Move.end(2))
    assert [(e.kind, e.seat, e.data["auto"]) for e in events] == [("turn_ended", 2, False)]
    assert g.stage[2] == DONE and g.acting == [0]
    g.apply(Move.discard(0, "5G"))
    assert g.legal_actions(2) == [] and g.acting == [0]


def test_the_members_with_nothing_to_do_are_ended_when_the_last_acting_teammate_ends() -> None:
    """Seat 0 ends without moving: nobody on the team has anything left to do, so seat 2 is ended for it
    and the other team's turn begins."""
    g = _team_turn()
    events = g.apply(Move.end(0))
    ended = [(e.seat, e.data["auto"]) for e in events if e.kind == "turn_ended"]
    assert ended == [(0, False), (2, True)]
    assert "turn" in kinds(events) and g.active == [1, 3] and g.turn == 2


def test_a_team_where_no_member_can_do_anything_ends_its_turn_at_once() -> None:
    """No member can discard or play: the team's turn ends by itself (nobody waits for anybody)."""
    g, events = position(["9O 10O", "5O 3B", "9G 10G", "9P 3P"], "5B", draw="AO AG", teams=True)
    ended = [(e.seat, e.data["auto"]) for e in events if e.kind == "turn_ended"]
    assert ended == [(0, True), (2, True)]
    assert g.active == [1, 3] and g.turn == 2 and g.acting


def test_without_teams_a_player_with_nothing_to_do_is_still_ended_at_once() -> None:
    """A single player's turn ends by itself when nothing is left to do, as before (replays rely on it)."""
    g, events = position(["9O 10O", "5O 3B"], "5B", draw="AO")
    assert [(e.kind, e.seat, e.data["auto"]) for e in events if e.kind == "turn_ended"] == [
        ("turn_ended", 0, True)
    ]
    assert g.active == [1] and g.turn == 2
