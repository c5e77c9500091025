"""Crazier Eights with teams: the team's first player (RULESETS.md, "Crazier Eights with its ability cards",
Teams; the engine's written choice, ``bot/engine/crazier/__init__.py`` decision 10: "The team's first player
moves one seat on every team turn").

The next team's first player is that team's next living member clockwise after its own last first player,
so after a member has lost the first player still goes round every living member of each team. Games whose
rules were stored before this (without ``rotating_team_leads``) keep the rule they were played by, the first
living member of the other team after the current first player, so that they go on and replay from their
stored moves exactly as they were played (``bot.service.replays`` refuses a match whose rebuilt end differs
from the stored one)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.engine import EngineError, RulesetError
from bot.engine.crazier import CrazierMatch, CrazierRound, CrazierRules, Move, get_preset
from tests.engine.crazier.support import position

TWELVE = "2B 3B 4B 5B 6B 7B 9B 10B JB KB 2O 3O"
TEAMS = get_preset("crazier-abilities", teams=True)


def _old_teams() -> CrazierRules:
    """The rules of team games stored before the first player rotated through every living member."""
    return TEAMS.replace(rotating_team_leads=False)


def _leads(g: CrazierRound, turns: int) -> list[int]:
    """The first player of each of the next ``turns`` team turns (the current one first), every member
    ending at once or making the first legal move."""
    leads: list[int] = []
    seen: set[int] = set()
    while len(leads) < turns and not g.over:
        if g.turn not in seen:
            seen.add(g.turn)
            leads.append(g.lead)
        seat = g.acting[0]
        legal = g.legal_actions(seat)
        g.apply(Move.end(seat) if Move.end(seat) in legal else legal[0])
    return leads


def _four_with_seat_1_out(rules: CrazierRules = TEAMS) -> CrazierRound:
    """Four players; seat 0's Mordred makes seat 1 (twelve cards) lose at the beginning of the first turn."""
    g, _ = position(["9P AG", TWELVE, "3G", "4G"], "5O", in_play=["QB", "", "", ""], teams=True, rules=rules)
    assert g.alive == [True, False, True, True] and not g.over
    return g


def _six_with_seat_3_out(rules: CrazierRules = TEAMS) -> CrazierRound:
    """Six players; seat 0's Mordred makes seat 3 (twelve cards) lose at the beginning of the first turn."""
    g, _ = position(
        ["9P AG", "2G", "3G", TWELVE, "4G", "5G"],
        "5O",
        in_play=["QB", "", "", "", "", ""],
        teams=True,
        rules=rules,
    )
    assert g.alive == [True, True, True, False, True, True] and not g.over
    return g


def test_with_four_players_the_surviving_teammate_still_leads_every_other_team_turn() -> None:
    """Seat 0's Mordred makes seat 1 lose. Team 0 (seats 0 and 2) keeps both members: its first player moves
    one seat every team turn (0, 2, 0, 2), and seat 3, team 1's only member left, leads every turn of its
    team. (It went 0, 3, 0, 3, ...: the next first player was the first living opponent after the current
    one, so seat 0 led team 0 every time and seat 2 never did.)"""
    assert _leads(_four_with_seat_1_out(), 8) == [0, 3, 2, 3, 0, 3, 2, 3]


def test_with_six_players_every_living_member_takes_a_turn_as_the_teams_first_player() -> None:
    """Six players, seat 3 loses to seat 0's Mordred. Team 0 (0, 2, 4) is intact: its first player goes
    round the three of them (0, 2, 4, 0); team 1's goes round its two living members (1, 5, 1), seat 3
    skipped. (Team 0's went 0, 2, 0, 2: from seat 2 the next first player was seat 5, and from 5 seat 0, so
    seat 4 never led its team.)"""
    assert _leads(_six_with_seat_3_out(), 7) == [0, 1, 2, 5, 4, 1, 0]


def test_while_every_player_lives_the_first_player_moves_one_seat_every_turn() -> None:
    """Four and six players, nobody out: the first player is the next seat every turn, as before (one card
    each in hand, the rest in the draw pile, so the game lasts)."""
    for n in (4, 6):
        g, _ = position(["2B", "3B", "4B", "5B", "6B", "7B"][:n], "9G", teams=True, first=1)
        assert _leads(g, 2 * n) == [(1 + k) % n for k in range(2 * n)]


def test_the_team_leads_survive_a_json_round_trip_and_are_stored_only_with_teams() -> None:
    """A team game stores each team's last first player ("team_leads"), so a game read back from JSON after
    a loss goes on alike; a game without teams stores nothing new."""
    g = _six_with_seat_3_out()
    _leads(g, 3)  # seats 0, 1, 2 have led: team 1's last first player is seat 1
    data = g.to_json()
    assert data["team_leads"] == [2, 1]
    copy = CrazierRound.from_json(data)
    assert _leads(copy, 4) == _leads(g, 4) == [2, 5, 4, 1]
    plain = CrazierRound.new(get_preset("crazier-abilities"), 4, seed=3)
    assert "team_leads" not in plain.to_json() and plain.team_leads is None


@pytest.mark.parametrize("leads", [[0], [1, 1], [0, 7], "0,1"])
def test_stored_team_leads_that_are_not_one_seat_of_each_team_are_refused(leads: Any) -> None:
    data = _four_with_seat_1_out().to_json()
    data["team_leads"] = leads
    with pytest.raises((ValueError, TypeError)):
        CrazierRound.from_json(data)


def test_rules_stored_before_the_rotating_first_player_read_as_the_rule_their_games_were_played_by() -> None:
    """Rules written without ``rotating_team_leads`` (an earlier release) read as False; rules written now
    carry it, and new games rotate."""
    stored = TEAMS.to_json()
    assert stored.pop("rotating_team_leads") is True
    assert CrazierRules.from_json(stored) == _old_teams()
    assert CrazierRules.from_json(TEAMS.to_json()) == TEAMS
    assert (
        CrazierRules().rotating_team_leads and get_preset("crazier-abilities", teams=True).rotating_team_leads
    )
    with pytest.raises(RulesetError, match="rotating_team_leads"):
        TEAMS.replace(rotating_team_leads=1)


def test_a_team_game_of_an_earlier_release_keeps_its_first_players_order() -> None:
    """The two positions above under the earlier rules: the order those games were played in, and stored in
    (no "team_leads" in their state)."""
    four = _four_with_seat_1_out(_old_teams())
    assert "team_leads" not in four.to_json()
    assert _leads(four, 4) == [0, 3, 0, 3]
    assert _leads(_six_with_seat_3_out(_old_teams()), 5) == [0, 1, 2, 5, 0]


def _played(rules: CrazierRules, n: int, seed: int) -> tuple[CrazierMatch, list[dict[str, Any]]]:
    """A match played to the end of its first game by seeded random moves, and its move log."""
    match = CrazierMatch.new(rules, n, seed=seed)
    rng = random.Random(seed)
    log: list[dict[str, Any]] = []
    while not match.round.over:
        move = rng.choice(match.round.legal_actions())
        log.append(move.to_json())
        match.apply(move)
    return match, log


def _without_the_new_key(data: dict[str, Any]) -> dict[str, Any]:
    """A match's JSON as an earlier release wrote it: its rules (the match's and the game's) without
    ``rotating_team_leads``."""
    data["rules"].pop("rotating_team_leads")
    data["round"]["rules"].pop("rotating_team_leads")
    assert "team_leads" not in data["round"]
    return data


def test_a_team_match_stored_by_an_earlier_release_replays_from_its_moves_as_it_was_played() -> None:
    """What ``bot.service.replays`` does with a stored match: read its end, deal again with its rules and
    seed, apply the logged moves, and compare. A team match of the earlier rule in which a member lost
    (seed 81: the rule makes a difference there) rebuilds the same end from its rules as stored; dealt with
    the rule new matches play, the same log breaks."""
    played, log = _played(_old_teams(), 4, seed=81)
    assert not all(played.round.alive)
    stored = CrazierMatch.from_json(_without_the_new_key(played.to_json()))
    assert stored.rules == _old_teams()
    rebuilt = CrazierMatch.new(stored.rules, stored.num_seats, seed=81)
    for step in log:
        rebuilt.apply(Move.from_json(step))
    assert rebuilt.to_json() == stored.to_json() == played.to_json()
    today = CrazierMatch.new(TEAMS, 4, seed=81)
    with pytest.raises(EngineError):
        for step in log:
            today.apply(Move.from_json(step))


def test_seeded_games_where_nobody_loses_before_the_end_are_the_same_under_both_rules() -> None:
    """Without a loss the two rules agree: the moves of a seeded game of the earlier rule are legal under the
    new one and end in the same state (its recent events included), the new keys aside."""
    compared = 0
    for n in (4, 6):
        for seed in range(12):
            old_match, log = _played(_old_teams(), n, seed)
            if not all(old_match.round.alive):
                continue  # a player lost (a loss is for good): the rules may differ after it
            new_match = CrazierMatch.new(TEAMS, n, seed=seed)
            for step in log:
                new_match.apply(Move.from_json(step))
            old, new = old_match.to_json(), new_match.to_json()
            assert new["round"].pop("team_leads") is not None
            for data in (old, new):
                data["rules"].pop("rotating_team_leads")
                data["round"]["rules"].pop("rotating_team_leads")
            assert new == old
            compared += 1
    assert compared >= 15
