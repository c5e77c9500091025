"""Partnership (RULESETS.md, Partnership): four players, partners opposite (seats 0 and 2, 1 and 3)."""

from __future__ import annotations

import json
import random

import pytest

from bot.engine import PRESETS, Action, Match, Round, RulesetError, get_preset
from bot.engine.rule_options import change
from tests.engine.support import err, hand, kinds, make_round, play, position

CLASSIC = get_preset("classic").replace(partnership=True)
UNO = get_preset("uno-lite").replace(partnership=True)


def test_exactly_four_players_partners_opposite() -> None:
    with pytest.raises(RulesetError, match="four"):
        Round.new(CLASSIC, 3, 0, seed=1)
    with pytest.raises(RulesetError, match="four"):
        Round.new(CLASSIC, 5, 0, seed=1)
    with pytest.raises(RulesetError, match="four players"):
        get_preset("classic").replace(max_players=3, partnership=True)
    r = Round.new(CLASSIC, 4, 0, seed=1)
    assert [r.partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    assert [r.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert CLASSIC.min_seats == CLASSIC.max_seats == 4
    # Dealing and turn order are unchanged: left of the dealer moves first, five cards each.
    assert r.hand_sizes == [5] * 4 and r.to_act == 1


@pytest.mark.parametrize("name", [n for n, rs in PRESETS.items() if rs.min_players <= 4 <= rs.max_players])
def test_every_preset_allowing_four_players_allows_partnership(name: str) -> None:
    rs = change(PRESETS[name], "partnership", "on")
    assert rs.partnership and rs.name == name
    r = Round.new(rs, 4, 0, seed=7)
    rng = random.Random(7)
    while not r.over:
        r.step(rng.choice(r.legal_actions()))
    assert r.winners and {r.side_of(w) for w in r.winners} <= {0, 1}
    assert r.scores is not None and r.scores[0] == r.scores[2] and r.scores[1] == r.scores[3]


def test_going_out_first_the_player_is_passed_over_and_the_partner_plays_on() -> None:
    hands = ["9C", "9H KH", "QH 4D", "3H 5S"]
    r = position(CLASSIC, hands, discard="5C", stock="6D 7D 10S")
    events = r.apply(play(0, "9C"))
    assert kinds(events) == ["played", "went_out", "turn"]
    assert not r.over and r.out_seats == [0] and r.is_out(0) and r.to_act == 1
    assert ("out", 0) in r.history
    r.apply(play(1, "9H"))
    r.apply(play(2, "QH"))
    events = r.apply(play(3, "3H"))
    # Seat 0 is out: the turn goes from seat 3 straight to seat 1.
    assert r.to_act == 1 and [e.seat for e in events if e.kind == "turn"] == [1]
    assert r.legal_actions(0) == []
    assert err(r, Action.draw(0)) == 901


def test_a_skip_passes_over_a_player_who_is_out() -> None:
    r = position(UNO, ["", "9H KH", "QH 4C", "JC 5S"], discard="5C", stock="6D 7D", to_act=3, out=[0])
    events = r.apply(play(3, "JC"))
    # The next player still in after seat 3 is seat 1: it is the one skipped; seat 2 plays.
    assert [e.seat for e in events if e.kind == "skipped"] == [1]
    assert r.to_act == 2


def test_a_pending_draw_passes_over_a_player_who_is_out() -> None:
    r = position(UNO, ["", "9H KH", "QH 4C", "2C 5S"], discard="5C", stock="6D 7D 8S", to_act=3, out=[0])
    r.apply(play(3, "2C"))
    assert r.to_act == 1 and r.pending_draw == 2 and r.legal_actions() == [Action.draw(1)]
    r.apply(Action.draw(1))
    assert r.hand_sizes[1] == 4 and r.to_act == 2


def test_an_opponent_going_out_too_does_not_end_the_round() -> None:
    r = position(CLASSIC, ["", "9C", "QH 4C", "3C 5S"], discard="5C", stock="6D 7D", to_act=1, out=[0])
    r.apply(play(1, "9C"))
    assert not r.over and r.out_seats == [0, 1] and r.to_act == 2
    r.apply(play(2, "4C"))
    assert r.to_act == 3
    r.apply(play(3, "3C"))
    assert r.to_act == 2  # seats 0 and 1 are both passed over


def test_the_round_ends_when_the_second_partner_goes_out() -> None:
    r = position(CLASSIC, ["", "KH 3H", "9C", "2S 5S"], discard="5C", stock="6D", to_act=2, out=[0])
    events = r.apply(play(2, "9C"))
    assert kinds(events)[-1] == "round_over" and "went_out" not in kinds(events)
    assert r.over and not r.blocked and r.end_reason == "out"
    # Penalty by side: the winning side scores 0; the other side scores its hands' total, for each partner.
    assert r.winners == [0, 2] and r.scores == [0, 20, 0, 20]


GOING_OUT = (["", "KH 3H", "9C", "2S 5S"], "5C")


@pytest.mark.parametrize(
    ("scoring", "extra", "scores"),
    [
        ("penalty", {}, [0, 20, 0, 20]),
        ("payment", {"match_end": "reaches-target", "target": 250}, [20, -20, 20, -20]),
        ("card-count", {}, [0, 4, 0, 4]),
    ],
)
def test_each_scoring_system_by_side_when_a_side_goes_out(
    scoring: str, extra: dict[str, object], scores: list[int]
) -> None:
    rs = CLASSIC.replace(scoring=scoring, **extra)
    hands, discard = GOING_OUT
    r = position(rs, hands, discard=discard, stock="6D", to_act=2, out=[0])
    r.apply(play(2, "9C"))
    assert r.winners == [0, 2] and r.scores == scores


BLOCKED = ["9S KD", "2D 4H", "3D", "QH 5D"]  # after 9S: nobody follows and nothing can be drawn


@pytest.mark.parametrize(
    ("scoring", "extra", "scores"),
    [
        # Side 0 holds KD + 3D = 13, side 1 2D 4H QH 5D = 21 (4 cards against 2).
        ("penalty", {}, [0, 21, 0, 21]),
        ("payment", {"match_end": "reaches-target", "target": 250}, [8, -8, 8, -8]),
        ("card-count", {}, [0, 4, 0, 4]),
    ],
)
def test_a_blocked_round_is_won_by_the_side_whose_hands_are_worth_less(
    scoring: str, extra: dict[str, object], scores: list[int]
) -> None:
    rs = CLASSIC.replace(reshuffle=False, scoring=scoring, **extra)
    r = position(rs, BLOCKED, discard="4C 9C", stock="")
    events = r.apply(play(0, "9S"))
    assert kinds(events).count("passed") == 4  # every player still in passed in a row
    assert r.over and r.blocked and r.end_reason == "blocked"
    assert r.winners == [0, 2] and r.scores == scores


def test_a_blocked_round_with_equal_sides_is_shared() -> None:
    rs = CLASSIC.replace(reshuffle=False)
    # Side 0: KD + 3D = 13; side 1: 2D + QH + AH = 13.
    r = position(rs, ["9S KD", "2D QH", "3D", "AH"], discard="4C 9C", stock="")
    r.apply(play(0, "9S"))
    assert r.blocked and r.winners == [0, 1, 2, 3] and r.scores == [0, 0, 0, 0]


def test_a_block_counts_only_the_players_still_in() -> None:
    rs = CLASSIC.replace(reshuffle=False)
    r = position(rs, ["", "9S 2D", "3D", "QH 5D"], discard="4C 9C", stock="", to_act=1, out=[0])
    events = r.apply(play(1, "9S"))
    assert kinds(events).count("passed") == 3 and r.blocked
    # Side 0 (seat 2): 3; side 1: 2 + 10 + 5 = 17.
    assert r.winners == [0, 2] and r.scores == [0, 17, 0, 17]


def test_the_turn_cap_is_settled_by_side() -> None:
    rs = CLASSIC.replace(turn_cap=3)
    r = position(rs, ["9C 2C", "9H KH", "QH 4D", "3H 5S"], discard="5C", stock="6D 7D 10S")
    r.apply(play(0, "9C"))
    r.apply(play(1, "9H"))
    r.apply(play(2, "QH"))
    assert r.over and r.end_reason == "turn-cap"
    # Side 0: 2C + 4D = 6; side 1: KH + 3H + 5S = 18.
    assert r.winners == [0, 2] and r.scores == [0, 18, 0, 18]


def test_going_out_with_a_wild_names_no_suit() -> None:
    """RULESETS.md rule 6: "After an 8, unless it was the player's last card, the player names a suit" —
    in a partnership too, where the round goes on: the next player follows the 8's own suit (or plays an 8),
    as with a starter 8, and the player who went out is never the seat to act."""
    hands = ["8S", "9S KH 8D", "QH 4D", "3H 5S"]
    r = position(CLASSIC, hands, discard="5C", stock="6D 7D")
    events = r.apply(play(0, "8S"))
    assert kinds(events) == ["played", "went_out", "turn"]
    assert not r.over and r.is_out(0) and r.phase == "turn" and r.to_act == 1
    assert r.declared_suit is None and r.effective_suit == 3  # spades, the 8's own suit
    assert set(r.legal_actions()) == {play(1, "9S"), play(1, "8D"), Action.draw(1)}
    assert r.legal_actions(0) == [] and err(r, Action.name_suit(0, 2)) == 901
    # A suit sent along with the last card (one-step form) is ignored: none is named.
    r = position(CLASSIC, hands, discard="5C", stock="6D 7D")
    events = r.apply(play(0, "8S", "H"))
    assert "suit_named" not in kinds(events) and r.to_act == 1 and r.effective_suit == 3
    assert not any(entry[0] == "suit" for entry in r.history)


def test_nobody_catches_their_own_partner() -> None:
    rs = CLASSIC.replace(last_card=True)
    r = position(rs, ["9C 2D", "KH 3H", "QH 4D", "3S 5S"], discard="5C", stock="6D 7D")
    r.apply(play(0, "9C"))
    assert r.last_card_open == 0
    assert Action.catch(1, 0) in r.legal_actions(1) and Action.catch(3, 0) in r.legal_actions(3)
    assert Action.catch(2, 0) not in r.legal_actions(2)
    assert err(r, Action.catch(2, 0)) == 927
    r.apply(Action.catch(3, 0))
    assert r.hand_sizes[0] == 3


def test_json_round_trip_keeps_who_is_out() -> None:
    r = position(CLASSIC, ["", "9H KH", "QH 4C", "3H 5S"], discard="5C", stock="6D", to_act=1, out=[0])
    data = json.loads(json.dumps(r.to_json()))
    assert data["out"] == [0]
    back = Round.from_json(data)
    assert back.out_seats == [0] and back.to_json() == r.to_json()
    assert r.public_view()["out"] == [0] and r.public_view()["partnership"] is True
    # A round saved before partnership existed has no "out": nobody is out.
    del data["out"]
    assert Round.from_json(data).out_seats == []


def test_a_partnership_match_is_between_sides() -> None:
    rs = CLASSIC.replace(target=60)
    m = Match.new(rs, 4, seed=3)
    rng = random.Random(3)
    while not m.over:
        while not m.round.over:
            m.apply(rng.choice(m.round.legal_actions()))
        if not m.over:
            m.start_next_round()
    assert m.totals[0] == m.totals[2] and m.totals[1] == m.totals[3]
    assert max(m.totals) > 60
    sides = m.side_ranking()
    assert [seats for _, seats, _ in sides] in ([(0, 2), (1, 3)], [(1, 3), (0, 2)])
    assert sides[0][2] <= sides[1][2]
    assert sides[0][0] == 1 and sides[1][0] == (1 if sides[0][2] == sides[1][2] else 2)
    places = {seat: place for place, seat, _ in m.ranking()}
    assert places[0] == places[2] and places[1] == places[3]


def test_a_seat_finishes_in_its_sides_place() -> None:
    # The losing side is 2nd, as the final ranking by side says: not 3rd behind two partners sharing 1st.
    m = Match.new(CLASSIC, 4, seed=1)
    m.totals = [40, 10, 40, 10]
    assert m.ranking() == [(1, 1, 10), (1, 3, 10), (2, 0, 40), (2, 2, 40)]
    assert m.side_ranking() == [(1, (1, 3), 10), (2, (0, 2), 40)]
    m.totals = [20, 20, 20, 20]
    assert [place for place, _, _ in m.ranking()] == [1, 1, 1, 1]
    high = Match.new(get_preset("switch").replace(partnership=True), 4, seed=1)
    high.totals = [30, -15, 30, -15]
    assert high.ranking() == [(1, 0, 30), (1, 2, 30), (2, 1, -15), (2, 3, -15)]


def test_deal_from_an_explicit_deck_keeps_seats_and_partners() -> None:
    r = make_round(CLASSIC, ["9C 2D 3D 4D 6D", "KH QH JH 10H 9H", "2C 3C 4C 6C 7C", "KS QS JS 10S 9S"], "5C")
    assert hand(r, 2) == ["2C", "3C", "4C", "6C", "7C"] and r.partner_of(2) == 0 and r.to_act == 0


def test_hand_size_is_checked_against_the_four_players_of_a_partnership() -> None:
    # classic allows 2–5 players on one deck: 5 hands of 11 do not fit, 4 hands of 11 and a starter do.
    with pytest.raises(RulesetError, match="5 hands of 11 cards do not fit"):
        get_preset("classic").replace(hand_size=11)
    rs = CLASSIC.replace(hand_size=11)
    assert Round.new(rs, 4, 0, seed=3).hand_sizes == [11] * 4
    with pytest.raises(RulesetError, match="4 hands of 13 cards do not fit"):
        CLASSIC.replace(hand_size=13)
