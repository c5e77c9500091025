"""Crazier Eights games stored before a change of play keep the rule they were played by (README, *Replays*:
"matches played before replays existed replay too"; ``bot.engine.crazier.rules.EARLIER_RULES``, decision 14
of ``bot.engine.crazier``). New tables play by today's rule, the field's default; rules stored without the
field read as the rule before the change, unless they name a newer change (``rotating_team_leads``, the
newest, was stored from its commit on): then the older ones are today's, as the release that stored them
played them.

For each change: a log played by the earlier rule (the flag off) from a stacked position, stored as an
earlier release wrote it (no field), replays to the same end; under today's rule it does not; and new tables
get today's rule. ``rotating_team_leads`` has its own tests (test_team_leads.py)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.engine import EngineError
from bot.engine.crazier import CrazierMatch, CrazierRound, CrazierRules, Move, get_preset
from bot.engine.crazier.game import DONE, MAIN
from bot.engine.crazier.rules import EARLIER_RULES, PRESET_NAME
from tests.engine.crazier.support import position

TODAY = get_preset(PRESET_NAME)
EARLIER = TODAY.replace(**EARLIER_RULES)
EARLIER_TEAMS = EARLIER.replace(teams=True)


def stored_before(data: dict[str, Any]) -> dict[str, Any]:
    """A game's JSON as a release from before the changes wrote it: its rules lack every kept rule."""
    old = copy.deepcopy(data)
    for key in EARLIER_RULES:
        del old["rules"][key]
    return old


def replayed(start: dict[str, Any], log: list[Move]) -> dict[str, Any]:
    """What a replay does: the stored position read by this engine (its rules as stored), then the log."""
    g = CrazierRound.from_json(copy.deepcopy(start))
    for move in log:
        g.apply(move)
    return g.to_json()


def the_end_as_read(stored: dict[str, Any]) -> dict[str, Any]:
    return CrazierRound.from_json(copy.deepcopy(stored)).to_json()


def under_todays_rules(set_up: Callable[[CrazierRules], CrazierRound], log: list[Move]) -> int | None:
    """The code the log is refused with from the same position set up under today's rules (None: it is
    not)."""
    g = set_up(TODAY)
    try:
        for move in log:
            g.apply(move)
    except EngineError as error:
        return error.code
    return None


def test_new_tables_play_by_todays_rules() -> None:
    """The preset (and its teams) deals new tables with every change; a game's rules written now name each,
    so they read back as today's."""
    for rules in (TODAY, get_preset(PRESET_NAME, teams=True), CrazierRules()):
        assert all(getattr(rules, key) is True for key in EARLIER_RULES)
        assert CrazierRules.from_json(rules.to_json()) == rules
    assert CrazierMatch.new(get_preset(PRESET_NAME, teams=True), 4, seed=1).rules.idle_members_wait


def test_rules_stored_before_a_change_read_as_the_rule_before_it_unless_they_name_a_newer_one() -> None:
    """Stored without any of the fields: the earlier rules. Stored with ``rotating_team_leads`` (a build
    from its commit on, which played every older change) but without the others: today's for those."""
    bare = TODAY.to_json()
    for key in EARLIER_RULES:
        del bare[key]
    assert CrazierRules.from_json(bare) == EARLIER
    with_leads = {**bare, "rotating_team_leads": False}
    assert CrazierRules.from_json(with_leads) == TODAY.replace(rotating_team_leads=False)
    for key in EARLIER_RULES:
        with pytest.raises(Exception, match=key):
            TODAY.replace(**{key: 1})


# --------------------------------------------------------------------------------------------- aeca5a3
def test_a_last_forbidden_knowledge_did_what_it_says_in_games_stored_before_it_won_at_once() -> None:
    """Commit aeca5a3: a player who plays their last card for its effect wins at once, before the effect
    (today's rule, ``last_effect_wins``). Before, the effect came first: seat 0's last card, Forbidden
    Knowledge on itself, drew it KB and QB, so it had not won; its turn ended and seat 1 ended its own. That
    log, stored without the field, replays as played; under today's rule seat 0 has won and seat 1's move is
    refused (922)."""

    def set_up(rules: CrazierRules) -> CrazierRound:
        return position(["2B", "9O 3O"], "5G", draw="9G KB QB", rules=rules)[0]

    g = set_up(EARLIER)
    start = g.to_json()
    log = [Move.discard(0, "9G"), Move.effect(0, "2B", target=0), Move.end(1)]
    g.apply(log[0])
    g.apply(log[1])
    assert not g.over and sorted(g.hands[0]) == ["KB", "QB"], "the earlier rule: the effect happened first"
    assert g.active == [1], "seat 0, with nothing left to do, was ended"
    g.apply(log[2])
    stored = stored_before(g.to_json())
    assert CrazierRules.from_json(stored["rules"]) == EARLIER
    assert replayed(stored_before(start), log) == the_end_as_read(stored)
    assert under_todays_rules(set_up, log) == 922


def test_new_tables_win_at_once_with_a_last_card_played_for_its_effect() -> None:
    g, _ = position(["2B", "9O 3O"], "5G", draw="9G KB QB")
    assert g.rules.last_effect_wins
    g.apply(Move.discard(0, "9G"))
    g.apply(Move.effect(0, "2B", target=1))
    assert g.over and g.winners == [0] and g.hands[1] == ["9O", "3O"]


# --------------------------------------------------------------------------------------------- 99e1350
def test_a_colour_named_with_a_last_eight_was_taken_in_games_stored_before_it_was_refused() -> None:
    """Commit 99e1350: an 8 discarded as the last card names no colour, and one named with it is refused
    (905; today's rule, ``last_eight_names_no_colour``). Before, a colour typed with it was taken and set the
    colour to follow as the game ended (blue here, not the 8's own purple). That log, stored without the
    field, replays as played; under today's rule its last discard is refused."""

    def set_up(rules: CrazierRules) -> CrazierRound:
        return position(["8P 3B", "9O 3O"], "5G", draw="9G KB QB", rules=rules)[0]

    g = set_up(EARLIER)
    start = g.to_json()
    log = [Move.effect(0, "3B"), Move.discard(0, "9G"), Move.discard(0, "8P", "B")]
    for move in log:
        g.apply(move)
    assert g.over and g.winners == [0] and g.follow == "B"
    stored = stored_before(g.to_json())
    assert replayed(stored_before(start), log) == the_end_as_read(stored)
    assert under_todays_rules(set_up, log) == 905


def test_new_tables_refuse_a_colour_named_with_a_last_eight() -> None:
    g, _ = position(["8P 3B", "9O 3O"], "5G", draw="9G KB QB")
    g.apply(Move.effect(0, "3B"))
    g.apply(Move.discard(0, "9G"))
    assert g.rules.last_eight_names_no_colour and not g.is_legal(Move.discard(0, "8P", "B"))


# --------------------------------------------------------------------------------------------- 490b392
#: Seats 0 and 2 against 1 and 3, on a blue 5: seat 2 can do nothing until seat 0 discards its green 5.
TEAM_HANDS = ["5G 3O", "9O 3B", "9G 10O", "9P 3P"]


def test_a_team_member_with_nothing_to_do_was_ended_at_once_in_games_stored_before_it_waited() -> None:
    """Commit 490b392: with teams, a member with nothing to do is ended only once no teammate has anything
    left to do (today's rule, ``idle_members_wait``), since a teammate's discard may give them a move. Before,
    they were ended at once: seat 2 was done before seat 0 discarded the green 5, so seat 0's end of turn
    ended the team's turn and seat 1 of the other team ended its own. That log, stored without the field,
    replays as played; under today's rule seat 2 may still discard, the team's turn goes on, and seat 1's
    move is refused (901, not its turn)."""

    def set_up(rules: CrazierRules) -> CrazierRound:
        return position(TEAM_HANDS, "5B", draw="AO AG", teams=True, rules=rules.replace(teams=True))[0]

    g = set_up(EARLIER)
    assert g.active == [0, 2] and g.stage[2] == DONE, "the earlier rule: ended at once"
    start = g.to_json()
    log = [Move.discard(0, "5G"), Move.end(0), Move.end(1)]
    for move in log:
        g.apply(move)
    assert g.active == [1, 3] and g.stage[1] == DONE
    stored = stored_before(g.to_json())
    assert CrazierRules.from_json(stored["rules"]) == EARLIER_TEAMS
    assert replayed(stored_before(start), log) == the_end_as_read(stored)
    assert under_todays_rules(set_up, log) == 901


def test_new_team_tables_keep_a_member_with_nothing_to_do_at_their_part() -> None:
    g, _ = position(TEAM_HANDS, "5B", draw="AO AG", teams=True)
    assert g.rules.idle_members_wait and g.stage[2] == MAIN and g.legal_actions(2) == [Move.end(2)]
    g.apply(Move.discard(0, "5G"))
    assert Move.discard(2, "9G") in g.legal_actions(2)


# --------------------------------------------------------------------------------------------- readings
def _played(rules: CrazierRules, seed: int) -> tuple[CrazierMatch, list[dict[str, Any]]]:
    m = CrazierMatch.new(rules, 4, seed=seed)
    rng = random.Random(seed)
    log: list[dict[str, Any]] = []
    while not m.over and len(log) < 400:
        if m.round.over:
            m.start_next_round()
            log.append({"kind": "start_next_round"})
            continue
        move = rng.choice(m.round.legal_actions())
        log.append(move.to_json())
        m.apply(move)
    return m, log


def _rebuilds(reading: dict[str, Any], log: list[dict[str, Any]]) -> bool:
    """What a replay checks: dealt again with the stored rules and seed, the log gives the stored end."""
    end = CrazierMatch.from_json(copy.deepcopy(reading))
    again = CrazierMatch.new(end.rules, end.num_seats, seed=end.seed)
    try:
        for step in log:
            if step["kind"] == "start_next_round":
                again.start_next_round()
            else:
                again.apply(Move.from_json(step))
    except EngineError:
        return False
    return again.to_json() == end.to_json()


def test_a_team_match_a_build_stored_between_the_changes_and_their_fields_replays_by_a_further_reading() -> (
    None
):
    """A build from after commit 490b392 and before 6394c01 played the first three changes and stored its
    rules with none of the fields: read as before every change, its team match does not rebuild;
    ``CrazierMatch.stored_readings`` offers the readings played after each change in turn, and the one of
    that build (the first three today's, the first player not rotating) rebuilds it."""
    build = get_preset(PRESET_NAME, teams=True).replace(rotating_team_leads=False)
    for seed in range(40):
        m, log = _played(build, seed)
        stored = m.to_json()
        for data in (stored, stored["round"]):
            for key in EARLIER_RULES:
                del data["rules"][key]
        readings = CrazierMatch.stored_readings(stored)
        if not _rebuilds(readings[0], log):
            break
    else:
        raise AssertionError("no seed meets a member with nothing to do")
    assert len(readings) == len(EARLIER_RULES) + 1
    assert CrazierRules.from_json(readings[3]["rules"]) == build
    assert _rebuilds(readings[3], log)
    assert CrazierMatch.stored_readings(m.to_json()) == [m.to_json()]
