"""Matches stored before a change of play keep the rule they were played by (README, *Replays*: "It is rebuilt
from the match's move log (the table's deal seed and the moves), so matches played before replays existed
replay too"). Each change of play made since is a ``Ruleset`` field that is no house rule
(``bot.engine.rules.EARLIER_RULES``): new tables play by today's rule (the field's default), and a ruleset
stored without the field reads as the rule before the change, so its log replays as it was played.

For each change: a log played by the earlier rule (the flag off) from a stacked deal, stored as an earlier
release wrote it (without the field), replays to the same end; the same log under today's rule does not;
and new tables get today's rule. A change that no log of a finished match can meet (the buried starter wild
that looped for ever) needs no field: its earlier and today's deals are shown to agree wherever the earlier
one ended. A change of what a state holds rather than of play (the card a round was won with, in its
``round_over`` event) is read into the stored state as this engine writes it."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from bot.engine import Action, EngineError, Match, Round, Ruleset, RulesetError, get_preset, rules_help
from bot.engine.cards import CODES, STANDARD_DECK
from bot.engine.earlier import filled, readings
from bot.engine.rule_options import OPTIONS, house_rules, option
from bot.engine.rule_wording import differences
from bot.engine.rules import EARLIER_RULES, PRESETS
from tests.engine.support import deck_for, play, position

CLASSIC = get_preset("classic")


def stored_before(data: dict[str, Any]) -> dict[str, Any]:
    """A round's JSON as a release from before the changes wrote it: its ruleset lacks every kept rule."""
    old = copy.deepcopy(data)
    for key in EARLIER_RULES:
        del old["ruleset"][key]
    return old


def replayed(start: dict[str, Any], log: list[Action]) -> dict[str, Any]:
    """What a replay does: the stored position read by this engine (its ruleset as stored), then the log."""
    r = Round.from_json(copy.deepcopy(start))
    for action in log:
        r.apply(action)
    return r.to_json()


def the_end_as_read(stored: dict[str, Any]) -> dict[str, Any]:
    """The stored end as a replay compares it: read and written by this engine."""
    return Round.from_json(copy.deepcopy(stored)).to_json()


# --------------------------------------------------------------------------------------------- 3a63368
def test_an_owed_impossible_draw_passed_the_turn_in_matches_stored_before_it_ended_the_round() -> None:
    """Commit 3a63368: with no reshuffle and "a draw that cannot be made ends the round", a must-play-drawn
    player who drew the stock's last card and still cannot play owes a draw that cannot be made, and the
    round ends (today's rule, ``owed_draw_ends_round``). Before, they were passed and the round went on: seat
    1 played on the 9C with its 9H, seat 2 followed with 6H, and seat 0, still unable to play and now unable
    to draw at all, ended the round. That log, stored without the field, replays as played; under today's
    rule the round is over at the first draw and seat 1's 9H is refused (922)."""
    today = CLASSIC.replace(reshuffle=False, empty_draw_ends_round=True)
    earlier = today.replace(**EARLIER_RULES)
    start = position(earlier, ["2D 3D", "9H 5H", "6H 7H"], discard="9C", stock="KD").to_json()
    log = [Action.draw(0), play(1, "9H"), play(2, "6H")]
    r = Round.from_json(copy.deepcopy(start))
    r.apply(log[0])
    assert not r.over and r.to_act == 1, "the earlier rule: the player who drew the last card is passed"
    for action in log[1:]:
        r.apply(action)
    assert r.over and r.end_reason == "no-draw"
    stored = stored_before(r.to_json())
    old_start = stored_before(start)
    assert Ruleset.from_json(stored["ruleset"]) == earlier
    assert replayed(old_start, log) == the_end_as_read(stored)
    # Today's rule: the same log breaks at its second move.
    now = Round.from_json({**copy.deepcopy(old_start), "ruleset": today.to_json()})
    now.apply(log[0])
    assert now.over and now.end_reason == "no-draw"
    with pytest.raises(EngineError) as info:
        now.apply(log[1])
    assert info.value.code == 922


def test_new_tables_end_the_round_on_an_owed_draw_that_cannot_be_made() -> None:
    """Every preset deals new tables with today's rule, and it holds through a JSON round trip."""
    assert all(rs.owed_draw_ends_round for rs in PRESETS.values())
    rs = get_preset("classic").replace(reshuffle=False, empty_draw_ends_round=True)
    r = Round.from_json(position(rs, ["2D 3D", "9H 5H", "6H 7H"], discard="9C", stock="KD").to_json())
    assert r.ruleset.owed_draw_ends_round
    r.apply(Action.draw(0))
    assert r.over and r.blocked and r.end_reason == "no-draw"


# --------------------------------------------------------------------------------------------- 0ecec83
TWO = ["2C 3D 4D 5D 6D 7D 9D", "KH QH JH 10H 9H 4H 3H"]
THREE = ["2C 3D 4D 5D 6D", "KH QH JH 10H 9H", "KS QS JS 10S 9S"]
SKIP_DRAW = {"skip_ranks": (2,), "draw_ranks": ((2, 2),)}
REVERSE_DRAW = {"reverse_ranks": (2,), "draw_ranks": ((2, 2),), "reverse_two_players": "skip"}


@pytest.mark.parametrize(
    ("changes", "hands", "paid_by"),
    [(SKIP_DRAW, TWO, 0), (REVERSE_DRAW, TWO, 0), (SKIP_DRAW, THREE, 2)],
    ids=["skip+draw, 2 players", "reverse(skip with two)+draw, 2 players", "skip+draw, 3 players"],
)
def test_a_skip_and_draw_card_was_paid_after_the_skip_in_matches_stored_before_the_skipped_player_drew(
    changes: dict[str, Any], hands: list[str], paid_by: int
) -> None:
    """Commit 0ecec83: a card that both skips and makes the next player draw (house rules) makes the next
    player draw the cards and lose the turn (today's rule, ``skipped_player_draws``). Before, the skip went
    first and the seat it came to owed the cards: the player after the skipped one, or with two players the
    one who laid the 2, who drew them as their move. That log, stored without the field, replays as played;
    under today's rule the skipped player has already drawn and the same draw is a plain draw of one card,
    so the end differs."""
    today = CLASSIC.replace(**changes)
    earlier = today.replace(**EARLIER_RULES)
    deck = deck_for(earlier, hands, "5C")
    n = len(hands)
    start = Round.new(earlier, n, n - 1, deck=deck).to_json()
    log = [play(0, "2C"), Action.draw(paid_by)]
    r = Round.from_json(copy.deepcopy(start))
    sizes = r.hand_sizes
    r.apply(log[0])
    assert r.to_act == paid_by and r.pending_draw == 2, "the earlier rule: the skip first, the draw after"
    r.apply(log[1])
    assert r.hand_sizes[paid_by] == sizes[paid_by] + 2 - (paid_by == 0)  # seat 0 also laid the 2
    assert r.hand_sizes[1] == sizes[1]
    stored = stored_before(r.to_json())
    assert Ruleset.from_json(stored["ruleset"]) == earlier
    assert replayed(stored_before(start), log) == the_end_as_read(stored)
    now = Round.from_json({**copy.deepcopy(start), "ruleset": today.to_json()})
    for action in log:
        if now.is_legal(action):
            now.apply(action)
    assert now.to_json()["hands"] != stored["hands"]


def test_new_tables_make_the_skipped_player_draw() -> None:
    """New tables (every preset, and house rules set on one) play by today's rule: seat 1, skipped, draws
    the 2 owed and seat 2 is to act, owing nothing."""
    assert all(rs.skipped_player_draws for rs in PRESETS.values())
    rs = get_preset("classic").replace(**SKIP_DRAW)
    assert rs.skipped_player_draws
    r = Round.new(rs, 3, 2, deck=deck_for(rs, THREE, "5C"))
    sizes = r.hand_sizes
    r.apply(play(0, "2C"))
    assert r.to_act == 2 and r.pending_draw == 0 and r.hand_sizes[1] == sizes[1] + 2


# --------------------------------------------------------------------------------------------- 0ecec83 (deal)
def _earlier_bury(stock: list[int], starter: int, wild: int) -> tuple[list[int], int] | None:
    """The deal's burying before commit 0ecec83 (each wild starter into the middle of the stock), or None
    where it never ended (the deal that commit fixed)."""
    stock = list(stock)
    for _n in range(1000):
        if starter >> 2 != wild:
            return stock, starter
        stock.insert(len(stock) // 2, starter)
        starter = stock.pop()
    return None


@pytest.mark.parametrize("hand", [25, 24, 23, 22, 21])
def test_a_buried_starter_wild_is_dealt_as_before_wherever_the_earlier_deal_ended(hand: int) -> None:
    """Commit 0ecec83 changed how a starter wild is buried in a stock of a few cards (two wilds took turns
    under its top for ever, so that deal never ended and no match of it was stored). Every deal the earlier
    rule finished comes out the same today, so stored matches need no field for it: checked on every
    placement of up to three more 8s in the stock of two players' hands of 21 to 25 cards (1 to 9 cards
    left under the starter), and the deals that never ended before end now."""
    rs = CLASSIC.replace(starter_wild="bury", hand_size_two=hand)
    stock_size = 52 - 2 * hand - 1
    starter, *eights = [c for c in STANDARD_DECK if c >> 2 == 8]
    others = [c for c in STANDARD_DECK if c >> 2 != 8]
    ended = looped = 0
    for mask in range(1 << stock_size):
        if bin(mask).count("1") > len(eights):
            continue
        spare, plain = iter(eights), iter(others)
        tail = [
            next(spare) if mask >> i & 1 else next(plain) for i in range(stock_size)
        ]  # the stock, top first
        used = {starter, *tail}
        deck = [c for c in STANDARD_DECK if c not in used] + [starter, *tail]
        r = Round.new(rs, 2, 1, deck=deck)  # today's deal always ends
        earlier = _earlier_bury(tail[::-1], starter, 8)
        if earlier is None:
            looped += 1
            continue
        stock, turned = earlier
        assert r.to_json()["discard"] == [CODES[turned]]
        assert r.to_json()["stock"] == [CODES[c] for c in reversed(stock)]
        ended += 1
    assert ended and (looped or stock_size > 3)


# --------------------------------------------------------------------------------------------- b2e0f40
def test_a_round_stored_before_round_over_named_the_winning_card_reads_as_this_engine_writes_it() -> None:
    """Commit b2e0f40 added the card a round was won with to its ``round_over`` event (kept in the stored
    round's recent events): the stored end of a match played before lacked it, and its replay, which names
    it, compared unequal. Read by this engine, the stored round names it (the top of the discard pile, the
    winner's last play); a blocked round names none."""
    r = position(CLASSIC, ["2C", "9H 5H"], discard="5C")
    r.apply(play(0, "2C"))
    assert r.over and r.end_reason == "out"
    written = r.to_json()
    old = copy.deepcopy(written)
    (event,) = [e for e in old["recent"] if e["kind"] == "round_over"]
    assert event["data"].pop("card") == "2C"
    assert Round.from_json(old).to_json() == written
    blocked = CLASSIC.replace(reshuffle=False, empty_draw_ends_round=True)
    b = position(blocked, ["2D 3D", "9H 5H", "6H 7H"], discard="9C", stock="KD")
    b.apply(Action.draw(0))
    assert b.over and b.end_reason == "no-draw" and b.to_json()["recent"][-1]["kind"] == "round_over"
    assert "card" not in Round.from_json(b.to_json()).to_json()["recent"][-1]["data"]


# ------------------------------------------------------------------------------------------- not house rules
def _without_earlier_fields(rs: Ruleset) -> dict[str, Any]:
    data = rs.to_json()
    for key in EARLIER_RULES:
        del data[key]
    return data


def test_the_kept_rules_are_no_house_rules() -> None:
    """A table stored before the changes (its ruleset without the fields) is read with the earlier rules,
    yet it has no house rules for it: none is listed, worded, titled in the rules help, offered or typed."""
    for name, preset in PRESETS.items():
        old = Ruleset.from_json(_without_earlier_fields(preset))
        assert all(getattr(old, key) == value for key, value in EARLIER_RULES.items())
        assert old != preset and old.same_rules_as(preset)
        assert house_rules(old) == {} and differences(old) == []
        assert rules_help(old) == rules_help(preset), name
    party = Ruleset.from_json(_without_earlier_fields(get_preset("party").replace(same_rank_runs=False)))
    assert house_rules(party) == {"same_rank_runs": False}
    assert not set(EARLIER_RULES) & {o.key for o in OPTIONS}
    for key in EARLIER_RULES:
        with pytest.raises(RulesetError):
            option(key)
        with pytest.raises(RulesetError):
            get_preset("classic").replace(**{key: "off"})


def test_new_tables_store_todays_rules_and_read_them_back() -> None:
    """A ruleset written now names each kept rule (today's), so it never reads as an earlier one."""
    data = json.loads(json.dumps(get_preset("switch").to_json()))
    assert all(data[key] is True for key in EARLIER_RULES)
    assert Ruleset.from_json(data) == get_preset("switch")


# --------------------------------------------------------------------------------------------- readings
def test_a_stored_ruleset_naming_a_newer_change_reads_every_older_one_as_todays() -> None:
    """``bot.engine.earlier``: a field that is absent reads as the rule before its change, unless the stored
    rules name a newer change (the release that stored them played every older one)."""
    earlier = {"a": False, "b": False, "c": False}
    today = {"a": True, "b": True, "c": True}
    assert filled({}, earlier, today) == earlier
    assert filled({"b": True}, earlier, today) == {"a": True, "b": True, "c": False}
    assert filled({"c": False}, earlier, today) == {"a": True, "b": True, "c": False}
    assert readings({"x": 1}, earlier, today) == [
        {"x": 1, "a": False, "b": False, "c": False},
        {"x": 1, "a": True, "b": False, "c": False},
        {"x": 1, "a": True, "b": True, "c": False},
        {"x": 1, "a": True, "b": True, "c": True},
    ]
    assert readings({"b": True}, earlier, today) == [
        {"a": True, "b": True, "c": False},
        {"a": True, "b": True, "c": True},
    ]
    assert readings(today, earlier, today) == [today]


def _skip_draw_match() -> tuple[Match, list[dict[str, Any]]]:
    """A seeded match of two players under a skip-and-draw 2, played by today's rule until the 2 is laid."""
    rs = CLASSIC.replace(**SKIP_DRAW, match_end="one-round", target=None)
    for seed in range(200):
        m = Match.new(rs, 2, seed=seed, dealer=1)
        rng = random.Random(seed)
        log: list[dict[str, Any]] = []
        while not m.over:
            action = rng.choice(m.round.legal_actions(m.round.to_act))
            log.append(action.to_json())
            m.apply(action)
            if any(h[0] == "penalty" for h in m.round.history):
                return m, log
    raise AssertionError("no seed lays the 2")


def test_a_match_a_build_stored_between_a_change_and_its_field_replays_by_a_further_reading() -> None:
    """A build that played today's rule before its field existed (between commit 0ecec83 and this one)
    stored its matches without the field: read as the earlier rule, the log does not rebuild them, and
    ``Match.stored_readings`` offers, after that first reading, the readings played after each change in
    turn; one of them rebuilds the match (what a replay may try when the first does not)."""
    m, log = _skip_draw_match()
    stored = m.to_json()
    for data in (stored, stored["round"]):
        for key in EARLIER_RULES:
            del data["ruleset"][key]
    readings_ = Match.stored_readings(stored)
    assert len(readings_) == len(EARLIER_RULES) + 1
    assert readings_[0]["ruleset"] == Match.from_json(stored).to_json()["ruleset"]

    def rebuilds(reading: dict[str, Any]) -> bool:
        end = Match.from_json(copy.deepcopy(reading))
        again = Match.new(end.ruleset, 2, seed=end.seed, dealer=1)
        try:
            for step in log:
                again.apply(Action.from_json(step))
        except EngineError:
            return False
        return again.to_json() == end.to_json()

    assert [rebuilds(reading) for reading in readings_] == [False, True, True]
    assert Match.stored_readings(m.to_json()) == [m.to_json()]
