"""The standard game (preset classic, seed 000), rule by rule, from explicit deck orders."""

from __future__ import annotations

import pytest

from bot.engine import Action, EngineError, Round, get_preset, parse_card, parse_suit
from bot.engine.cards import STANDARD_DECK
from tests.engine.support import hand, kinds, make_round, play, position

CLASSIC = get_preset("classic")


def code_err(r: Round, action: Action) -> int:
    before = r.to_json()
    with pytest.raises(EngineError) as info:
        r.apply(action)
    assert r.to_json() == before, "an illegal action changed the state"
    return info.value.code


def test_deal_one_card_at_a_time_from_left_of_the_dealer() -> None:
    deck = list(STANDARD_DECK)
    r = Round.new(CLASSIC, 3, 0, deck=deck)
    assert r.hand(1) == deck[0:15:3]
    assert r.hand(2) == deck[1:15:3]
    assert r.hand(0) == deck[2:15:3]
    assert r.target == deck[15]
    assert r.to_act == 1  # left of the dealer moves first
    assert r.stock_size == 52 - 16
    assert r.hand_sizes == [5, 5, 5]
    assert [e.kind for e in r.start_events][:3] == ["dealt", "dealt", "dealt"]
    assert all(e.visible_to == e.seat for e in r.start_events if e.kind == "dealt")


def test_hand_sizes_and_decks_by_player_count() -> None:
    assert Round.new(CLASSIC, 2, 0, seed=1).hand_sizes == [7, 7]
    r5 = Round.new(CLASSIC, 5, 0, seed=1)
    assert r5.hand_sizes == [5] * 5 and r5.stock_size == 52 - 26
    r6 = Round.new(CLASSIC, 6, 0, seed=1)
    assert r6.stock_size == 104 - 31  # two decks for six players
    r7 = Round.new(CLASSIC, 7, 3, seed=1)
    assert r7.stock_size == 104 - 36
    seen = r7.hidden_cards(0) + r7.hand(0) + [r7.target]
    assert sorted(seen) == sorted(list(STANDARD_DECK) * 2)  # every card twice
    with pytest.raises(ValueError):
        Round.new(CLASSIC, 8, 0, seed=1)
    with pytest.raises(ValueError):
        Round.new(CLASSIC, 1, 0, seed=1)


def test_two_decks_hold_duplicate_cards_and_list_them_once() -> None:
    hands = [
        "KH KH 2S 3S 4S",
        "2D 3D 4D 5D 6D",
        "2C 3C 4C 5C 6C",
        "7D 9D 10D JD QD",
        "7C 9C 10C JC QC",
        "AS AS AD AD AC",
    ]
    r = make_round(CLASSIC, hands, "5H")
    assert hand(r, 0).count("KH") == 2
    assert r.legal_actions().count(play(0, "KH")) == 1
    r.apply(play(0, "KH"))
    assert hand(r, 0).count("KH") == 1


def test_play_must_match_rank_or_suit_or_be_an_eight() -> None:
    r = make_round(CLASSIC, ["5H 9C 2D 3S 4S 6S 8S", "KH QC JD 10S 9S 2C 3C"], "5C")
    assert set(r.legal_actions()) == {play(0, "5H"), play(0, "9C"), play(0, "8S"), Action.draw(0)}
    assert code_err(r, play(0, "2D")) == 907
    assert code_err(r, play(0, "KH")) == 902
    assert code_err(r, play(1, "QC")) == 901
    assert code_err(r, Action.play(0, 99)) == 903
    assert code_err(r, Action.name_suit(0, parse_suit("h"))) == 905
    events = r.apply(play(0, "9C"))
    assert kinds(events) == ["played", "turn"]
    assert events[0].data == {"card": "9C"} and events[0].visible_to is None
    assert r.to_act == 1 and r.target == parse_card("9C")
    assert set(r.legal_actions()) == {
        play(1, "QC"),
        play(1, "9S"),
        play(1, "2C"),
        play(1, "3C"),
        Action.draw(1),
    }


def test_eight_then_name_a_suit_in_two_steps() -> None:
    r = make_round(CLASSIC, ["8D 2S 3S 4S 5S 6S 7S", "KH QH JD 10S 9S 2C 3C"], "5C")
    r.apply(play(0, "8D"))
    assert r.to_act == 0 and r.phase == "suit"  # the turn does not pass until a suit is named
    assert set(r.legal_actions()) == {Action.name_suit(0, s) for s in range(4)}
    assert code_err(r, play(0, "2S")) == 913
    assert code_err(r, Action.draw(0)) == 913
    assert code_err(r, Action.pass_(0)) == 913
    with pytest.raises(EngineError) as info:
        parse_suit("purple")
    assert info.value.code == 906
    assert code_err(r, Action.name_suit(0, 7)) == 906
    events = r.apply(Action.name_suit(0, parse_suit("♥")))
    assert kinds(events) == ["suit_named", "turn"] and events[0].data == {"suit": "H"}
    assert r.declared_suit == parse_suit("H")
    # The declared suit replaces the 8's suit: hearts (or an 8) now, not diamonds.
    assert set(r.legal_actions()) == {play(1, "KH"), play(1, "QH"), Action.draw(1)}
    r.apply(play(1, "KH"))
    assert r.declared_suit is None  # gone as soon as a card is played


def test_eight_with_the_suit_in_one_step_and_suit_only_for_wilds() -> None:
    r = make_round(CLASSIC, ["8D 2S 3S 4S 5S 6S 7S", "KH QH JD 10S 9S 2C 3C"], "5C")
    assert code_err(r, play(0, "5S", "D")) == 905  # a suit only comes with a wild
    events = r.apply(play(0, "8D", "S"))
    assert kinds(events) == ["played", "suit_named", "turn"]
    assert r.declared_suit == parse_suit("S") and r.to_act == 1
    r2 = make_round(CLASSIC, ["9C 2S 3S 4S 5S 6S 7S", "KH QH JD 10S 9S 2C 3C"], "5C")
    assert code_err(r2, play(0, "9C", "H")) == 905


def test_starter_eight_stays_and_is_matched_by_suit() -> None:
    r = make_round(CLASSIC, ["2C 3D 4H 5S 6S 7S 9S", "KH QH JD 10S 9D 2D 3H"], "8C")
    assert r.target == parse_card("8C") and r.declared_suit is None
    assert set(r.legal_actions()) == {play(0, "2C"), Action.draw(0)}


def test_no_play_draws_until_playable_then_must_play_it_at_once() -> None:
    r = make_round(CLASSIC, ["2D 3D 4D 6D 7D 9D 10D", "KH QH JH 10H 9H 4H 3H"], "5C", stock="KD 2H 6C")
    assert r.legal_actions() == [Action.draw(0)] and r.must_draw(0)
    r.apply(Action.draw(0))
    assert r.legal_actions() == [Action.draw(0)]
    events = r.apply(Action.draw(0))
    assert kinds(events) == ["drew", "drew_cards"]
    assert events[0].data == {"count": 1} and events[0].visible_to is None
    assert events[1].data == {"cards": ["2H"]} and events[1].visible_to == 0
    r.apply(Action.draw(0))
    assert r.legal_actions() == [play(0, "6C")]
    assert not r.must_draw(0)
    assert code_err(r, Action.draw(0)) == 910
    assert code_err(r, play(0, "2D")) == 910
    r.apply(play(0, "6C"))
    assert r.to_act == 1


def test_voluntary_draws_with_a_legal_play() -> None:
    r = make_round(CLASSIC, ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C", stock="KD 2C")
    assert Action.draw(0) in r.legal_actions() and not r.must_draw(0)
    r.apply(Action.draw(0))  # KD, though 9C could be played
    assert set(r.legal_actions()) == {play(0, "9C"), Action.draw(0)}
    r.apply(Action.draw(0))  # 2C is playable, but this draw was voluntary: any play or another draw
    assert set(r.legal_actions()) == {play(0, "9C"), play(0, "2C"), Action.draw(0)}
    r.apply(play(0, "9C"))
    assert r.to_act == 1


def test_reshuffle_the_discard_under_its_top_card() -> None:
    r = make_round(CLASSIC, ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 4H 2H 3H"], "5C")
    for _ in range(37):  # seat 0 draws the whole stock
        r.apply(Action.draw(0))
    assert r.stock_size == 0
    assert Action.draw(0) not in r.legal_actions()
    assert code_err(r, Action.draw(0)) == 904
    r.apply(play(0, "9C"))
    assert r.to_act == 1 and r.legal_actions() == [Action.draw(1)]
    events = r.apply(Action.draw(1))
    assert kinds(events)[:3] == ["reshuffled", "drew", "drew_cards"]
    assert events[0].data == {"count": 1}
    assert events[2].data == {"cards": ["5C"]}  # the old starter came back
    assert r.target == parse_card("9C") and r.discard == [parse_card("9C")]
    assert r.legal_actions() == [play(1, "5C")]
    assert ("reshuffle", 1) in r.history


def test_auto_pass_when_nothing_can_be_drawn_and_the_blocked_round() -> None:
    r = position(CLASSIC, ["KH", "6D 7D"], discard="5C", stock="2S", to_act=1)
    assert r.legal_actions() == [Action.draw(1)]
    events = r.apply(Action.draw(1))
    # Seat 1 drew an unplayable card and cannot draw again: the engine passes for it, then for seat 0, then
    # seat 1 passes again: every player passed in turn with no card played or drawn.
    assert kinds(events) == [
        "drew",
        "drew_cards",
        "passed",
        "turn",
        "passed",
        "turn",
        "passed",
        "round_over",
    ]
    assert all(e.data["forced"] for e in events if e.kind == "passed")
    assert r.over and r.blocked and r.end_reason == "blocked"
    assert r.scores == [10, 15] and r.winners == [0]
    assert r.to_act is None and r.legal_actions() == [] and r.legal_actions(0) == []
    assert code_err(r, play(0, "KH")) == 922


def test_going_out_ends_the_round_with_volity_scores() -> None:
    r = make_round(CLASSIC, ["8D 2S 3S 4S 5S 6S 7S", "KH QC AD 10S 9S 8C 3C"], "5H")
    r2 = position(CLASSIC, ["8D", "KH QC AD 10S 9S 8C 3C"], discard="5S")
    events = r2.apply(play(0, "8D"))  # an 8 as the last card: no suit to name
    assert kinds(events) == ["played", "round_over"]
    assert r2.over and not r2.blocked and r2.end_reason == "out"
    assert r2.scores == [0, 10 + 10 + 1 + 10 + 9 + 50 + 3] and r2.winners == [0]
    expected = {"scores": r2.scores, "winners": [0], "blocked": False, "reason": "out", "card": "8D"}
    assert events[-1].data == expected
    assert r.to_act == 0


def test_views_never_show_other_hands_or_the_stock_order() -> None:
    r = make_round(CLASSIC, ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C")
    r.apply(Action.draw(0))
    v1 = r.view(1)
    assert v1["hand"] == hand(r, 1)
    assert v1["hand_sizes"] == [8, 7] and v1["to_act"] == 0 and v1["target"] == "5C"
    text = str(v1)
    for code in hand(r, 0):
        assert f"'{code}'" not in text or code in hand(r, 1) or code == "5C"
    assert all(e["visible_to"] in (None, 1) for e in v1["last_events"])
    v0 = r.view(0)
    assert any(e["kind"] == "drew_cards" for e in v0["last_events"])
    pub = r.public_view()
    assert "hand" not in pub and "stock" not in pub
    assert pub["stock_size"] == r.stock_size


def test_json_needs_its_format_version() -> None:
    r = Round.new(CLASSIC, 3, 0, seed=4)
    data = r.to_json()
    assert data["format"] == 1
    data["format"] = 99
    with pytest.raises(ValueError):
        Round.from_json(data)


def test_leader_overrides_who_moves_first() -> None:
    r = Round.new(CLASSIC, 4, 0, seed=4, leader=3)
    assert r.to_act == 3 and r.leader == 3 and r.dealer == 0


def test_same_seed_same_deal_and_different_seeds_differ() -> None:
    a = Round.new(CLASSIC, 4, 2, seed=123)
    b = Round.new(CLASSIC, 4, 2, seed=123)
    c = Round.new(CLASSIC, 4, 2, seed=124)
    assert a.to_json() == b.to_json()
    assert a.to_json()["hands"] != c.to_json()["hands"]


def test_declared_suit_survives_a_reshuffle() -> None:
    r = position(CLASSIC, ["KH 2S 3S", "6D 7D"], discard="4C 5C 8C", to_act=1, declared="H")
    assert r.legal_actions() == [Action.draw(1)]
    events = r.apply(Action.draw(1))
    assert events[0].kind == "reshuffled" and events[0].data == {"count": 2}
    assert r.declared_suit == parse_suit("H") and r.target == parse_card("8C")


def test_last_card_may_be_called_at_once_but_caught_only_once_the_turn_ends() -> None:
    rs = CLASSIC.replace(last_card=True)
    r = position(rs, ["8C 9D", "KH QH JH"], discard="5H", stock="2C 3C 4C")
    r.apply(play(0, "8C"))
    assert r.phase == "suit" and r.to_act == 0
    # The turn ends when the suit is named: no catch before (RULESETS.md, last card), a call is fine.
    assert r.legal_actions(1) == [] and r.last_card_open is None
    assert Action.call_last(0) in r.legal_actions(0)
    with pytest.raises(EngineError) as info:
        r.apply(Action.catch(1, 0))
    assert info.value.code == 921
    r.apply(Action.name_suit(0, 1))
    assert r.to_act == 1 and r.last_card_open == 0
    assert Action.catch(1, 0) in r.legal_actions(1)
    r.apply(Action.catch(1, 0))
    assert r.hand_sizes[0] == 3 and r.to_act == 1


def test_round_json_history_rows_are_built_once_and_handed_out_as_copies() -> None:
    import random

    from bot.engine import Round, get_preset

    rnd = Round.new(get_preset("classic"), 3, dealer=0, seed=11)
    rng = random.Random(5)
    for _ in range(30):
        if rnd.over:
            break
        before = rnd.to_json()["history"]
        before.append(["tampered"])
        rnd.apply(rng.choice(rnd.legal_actions()))
        copy = rnd.clone()
        rows = rnd.to_json()["history"]
        assert rows == [list(h) for h in rnd.history] and ["tampered"] not in rows
        assert copy.to_json()["history"] == rows  # a clone carries the rows built so far
