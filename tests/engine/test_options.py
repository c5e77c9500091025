"""One scenario (at least) for every row of RULESETS.md's options table."""

from __future__ import annotations

import pytest

from bot.engine import Action, Round, get_preset, parse_card, parse_suit, rule_options
from tests.engine.support import err, hand, kinds, make_round, play, position

CLASSIC = get_preset("classic")


# -- players, decks, hand size ------------------------------------------------------------------------------
def test_players_two_to_seven_or_eight_where_the_ruleset_says_so() -> None:
    with pytest.raises(ValueError):
        Round.new(CLASSIC, 8, 0, seed=1)
    r = Round.new(get_preset("parlett"), 8, 0, seed=1)
    assert r.hand_sizes == [5] * 8 and r.stock_size == 104 - 41


def test_decks_one_or_two_above_two_players() -> None:
    one = CLASSIC.replace(decks="one")
    assert Round.new(one, 7, 0, seed=2).stock_size == 52 - 36
    two = CLASSIC.replace(decks="two-above-2")
    assert Round.new(two, 3, 0, seed=2).stock_size == 104 - 16
    assert Round.new(two, 2, 0, seed=2).stock_size == 52 - 15


def test_hand_size_option() -> None:
    rs = CLASSIC.replace(hand_size=6, hand_size_two=9)
    assert Round.new(rs, 2, 0, seed=3).hand_sizes == [9, 9]
    assert Round.new(rs, 4, 0, seed=3).hand_sizes == [6] * 4


# -- wild rank and wild must match --------------------------------------------------------------------------
def test_wild_rank_ace_makes_eights_plain() -> None:
    rs = CLASSIC.replace(wild_rank=1)
    r = make_round(rs, ["AS 8D 2D 3D 4D 6D 7D", "KH QH JH 10H 9H 2H 3H"], "5C")
    assert set(r.legal_actions()) == {play(0, "AS"), Action.draw(0)}
    r.apply(play(0, "AS"))
    assert r.phase == "suit"


def test_no_wild_rank() -> None:
    rs = CLASSIC.replace(wild_rank=None)
    r = make_round(rs, ["8S 8D 2D 3D 4D 6D 7D", "KH QH JH 10H 9H 2H 3H"], "5C")
    assert r.legal_actions() == [Action.draw(0)]


def test_wild_must_match() -> None:
    rs = CLASSIC.replace(wild_must_match=True)
    r = make_round(rs, ["8C 8D 2D 3D 4D 6D 7D", "KH QH JH 10H 9H 2H 3H"], "5C")
    assert set(r.legal_actions()) == {play(0, "8C"), Action.draw(0)}
    assert err(r, play(0, "8D")) == 907
    r.apply(play(0, "8C", "D"))
    assert r.declared_suit == parse_suit("D")


# -- the starter ---------------------------------------------------------------------------------------------
def test_starter_wild_hearts_are_declared() -> None:
    r = make_round(get_preset("must-play"), ["2C 3H 4D 5S 6S", "KH QD JD 10S 9S", "2D 3D 4S 5D 6D"], "8C")
    assert r.target == parse_card("8C") and r.declared_suit == parse_suit("H")
    assert set(r.legal_actions()) == {play(0, "3H")}


def test_starter_wild_buried_in_the_stock_and_the_next_card_turned() -> None:
    rs = CLASSIC.replace(starter_wild="bury")
    r = make_round(rs, ["2C 3H 4D 5S 6S", "KH QD JD 10S 9S", "2D 3D 4S 5D 6D"], "8C", stock="8H 7S KC")
    assert r.target == parse_card("7S")
    assert r.start_events[3].kind == "starter"
    assert r.start_events[3].data == {"card": "7S", "buried": ["8C", "8H"]}
    assert r.stock_size == 52 - 15 - 1
    # Buried in the middle of the stock, not on top.
    stock = r.hidden_cards(0)[10:]
    assert stock[-1] == parse_card("KC")
    assert ("bury", "8C") in r.history


def test_starter_special_card_ignored_by_default_applied_by_option() -> None:
    uno = get_preset("uno-lite")
    hands = ["2C 3H 4D 5S 6S", "KH QD JD 10S 9S", "3D 9D 4S 5D 6D"]
    r = make_round(uno, hands, "2H")
    assert r.to_act == 0 and r.pending_draw == 0
    r = make_round(uno.replace(starter_effect=True), hands, "2H")
    assert r.to_act == 0 and r.pending_draw == 2 and r.legal_actions() == [Action.draw(0)]
    r = make_round(uno.replace(starter_effect=True), hands, "JH")
    assert r.to_act == 1  # seat 0 was skipped, as if the dealer had played the jack
    rev = CLASSIC.replace(reverse_ranks=(12,), starter_effect=True)
    r = make_round(rev, hands, "QH")
    assert r.direction == -1 and r.to_act == 1  # the dealer's right (seat 2 dealt) moves first


# -- drawing -------------------------------------------------------------------------------------------------
def test_may_not_draw_with_a_legal_play() -> None:
    rs = CLASSIC.replace(draw_with_legal_play=False)
    r = make_round(rs, ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C")
    assert r.legal_actions() == [play(0, "9C")]
    assert err(r, Action.draw(0)) == 914


def test_draw_limit_n_cards_then_pass() -> None:
    rs = CLASSIC.replace(draw_limit=2, after_draw="may-play-any")
    r = make_round(rs, ["2D 3D 4D 6D 7D 9D 10D", "KH QH JH 10H 9H 2H 3H"], "5C", stock="KD QD 6C")
    r.apply(Action.draw(0))
    assert set(r.legal_actions()) == {Action.draw(0), Action.pass_(0)}
    events = r.apply(Action.draw(0))
    # The limit is reached with nothing to play: passing is all that is left, and the engine does it.
    assert kinds(events) == ["drew", "drew_cards", "passed", "turn"]
    assert r.to_act == 1 and r.hand_sizes[0] == 9 and r.stock_size == 52 - 15 - 2


def test_draw_limit_reached_error() -> None:
    rs = CLASSIC.replace(draw_limit=1, after_draw="may-play-any")
    r = make_round(rs, ["9C 3D 4D 6D 7D 2D 10D", "KH QH JH 10H 9H 2H 3H"], "5C", stock="KD")
    r.apply(Action.draw(0))
    assert set(r.legal_actions()) == {play(0, "9C"), Action.pass_(0)}
    assert err(r, Action.draw(0)) == 912


def test_after_drawing_may_play_the_drawn_card_or_pass() -> None:
    r = make_round(
        get_preset("draw-one"), ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C", stock="6C"
    )
    r.apply(Action.draw(0))  # voluntary: 9C was playable
    assert set(r.legal_actions()) == {play(0, "6C"), Action.pass_(0)}
    assert err(r, play(0, "9C")) == 917
    events = r.apply(Action.pass_(0))
    assert kinds(events) == ["passed", "turn"] and events[0].data == {"forced": False}
    assert r.to_act == 1


def test_after_drawing_an_unplayable_card_the_turn_passes_draw_one() -> None:
    r = make_round(
        get_preset("draw-one"), ["2D 3D 4D 6D 7D 9D 10D", "KH QH JH 10H 9H 2H 3H"], "5C", stock="KD"
    )
    events = r.apply(Action.draw(0))
    assert kinds(events) == ["drew", "drew_cards", "passed", "turn"]
    assert r.to_act == 1


def test_after_drawing_may_play_any_card_or_pass() -> None:
    rs = CLASSIC.replace(draw_limit=1, after_draw="may-play-any")
    r = make_round(rs, ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C", stock="6C")
    r.apply(Action.draw(0))
    assert set(r.legal_actions()) == {play(0, "6C"), play(0, "9C"), Action.pass_(0)}


def test_after_drawing_the_turn_ends() -> None:
    r = make_round(
        get_preset("must-play"), ["2D 3D 4D 6D 7D", "KH QH JH 10H 9H", "KS QS JS 10S 9S"], "5C", stock="6C"
    )
    assert r.legal_actions() == [Action.draw(0)]
    r.apply(Action.draw(0))  # the 6C is playable, but the turn ends
    assert r.to_act == 1 and "6C" in hand(r, 0)


def test_empty_stock_without_reshuffle_ends_drawing() -> None:
    rs = CLASSIC.replace(reshuffle=False)
    # After seat 1's play, seat 0 can neither play nor draw (the discard is not reshuffled): auto-pass.
    r = position(rs, ["KH 2S", "6D 7C 9C"], discard="3C 4C 5C", stock="", to_act=1)
    events = r.apply(play(1, "9C"))
    assert kinds(events) == ["played", "turn", "passed", "turn"]
    assert r.to_act == 1 and r.legal_actions() == [play(1, "7C")]


def test_any_player_may_pass_option() -> None:
    rs = CLASSIC.replace(pass_anytime=True)
    r = make_round(rs, ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C")
    assert Action.pass_(0) in r.legal_actions()
    r.apply(Action.pass_(0))
    assert r.to_act == 1
    assert (
        err(make_round(CLASSIC, ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C"), Action.pass_(0))
        == 915
    )


# -- special ranks -------------------------------------------------------------------------------------------
THREE = ["JC QC 2C 3D 4D", "KH QH 10H 9H 2H", "3C 4C JD QD 7C"]


def test_skip_with_three_and_two_players() -> None:
    rs = CLASSIC.replace(skip_ranks=(11,))
    r = make_round(rs, THREE, "5C")
    events = r.apply(play(0, "JC"))
    assert kinds(events) == ["played", "skipped", "turn"] and events[1].seat == 1
    assert r.to_act == 2
    r2 = make_round(rs, ["JC 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"], "5C")
    r2.apply(play(0, "JC"))
    assert r2.to_act == 0


def test_reverse_with_three_players_and_two_players() -> None:
    rs = CLASSIC.replace(reverse_ranks=(12,))
    r = make_round(rs, THREE, "5C")
    events = r.apply(play(0, "QC"))
    assert kinds(events) == ["played", "reversed", "turn"] and events[1].data == {"direction": -1}
    assert r.to_act == 2 and r.direction == -1
    r.apply(play(2, "QD"))
    assert r.to_act == 0 and r.direction == 1
    two = ["QC 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"]
    r2 = make_round(rs, two, "5C")
    r2.apply(play(0, "QC"))
    assert r2.to_act == 1  # with two players a reverse does nothing more by default
    r3 = make_round(rs.replace(reverse_two_players="skip"), two, "5C")
    r3.apply(play(0, "QC"))
    assert r3.to_act == 0


def test_draw_two_without_stacking_draws_and_loses_the_turn() -> None:
    r = make_round(get_preset("uno-lite"), ["2C 3D 4D 5D 6D 7D 9D", "2D QH JH 10H 9H 4H 3H"], "5C")
    r.apply(play(0, "2C"))
    assert r.pending_draw == 2
    assert r.legal_actions() == [Action.draw(1)] and r.must_draw(1)
    assert err(r, play(1, "2D")) == 911
    events = r.apply(Action.draw(1))
    assert kinds(events) == ["drew", "drew_cards", "draw_penalty", "turn"]
    assert events[0].data == {"count": 2} and events[2].data == {"count": 2, "drawn": 2}
    assert r.to_act == 0 and r.hand_sizes == [6, 9] and r.pending_draw == 0
    assert ("penalty", 1, 2) in r.history


def test_answer_rank_switch_jack() -> None:
    rs = CLASSIC.replace(reverse_ranks=(11,), answer_ranks=(11,))
    r = make_round(rs, THREE, "5C")
    r.apply(play(0, "JC"))
    assert r.direction == -1 and r.to_act == 2 and r.answer_rank == 11
    assert set(r.legal_actions()) == {play(2, "JD"), Action.pass_(2)}
    assert err(r, play(2, "3C")) == 919
    assert err(r, Action.draw(2)) == 919
    events = r.apply(play(2, "JD"))
    # Reversed again: seat 0 must answer now and has no jack, so it misses the turn.
    assert kinds(events) == ["played", "reversed", "turn", "skipped", "turn"]
    assert events[3].seat == 0 and events[3].data == {"reason": "answer"}
    assert r.to_act == 1 and r.answer_rank is None


def test_answer_rank_may_be_declined() -> None:
    rs = CLASSIC.replace(reverse_ranks=(11,), answer_ranks=(11,))
    r = make_round(rs, THREE, "5C")
    r.apply(play(0, "JC"))
    events = r.apply(Action.pass_(2))
    assert kinds(events) == ["skipped", "turn"]
    assert r.to_act == 1  # the next seat in the reversed direction


# -- stacking ------------------------------------------------------------------------------------------------
STACK = CLASSIC.replace(draw_ranks=((2, 2),))


def test_stacking_adds_and_the_player_who_does_not_answer_draws_all() -> None:
    r = make_round(STACK, ["2C 3D 4D 5D 6D 7D 9D", "2D QH JH 10H 9H 4H 3H"], "5C")
    r.apply(play(0, "2C"))
    assert set(r.legal_actions()) == {play(1, "2D"), Action.draw(1)}
    assert err(r, play(1, "QH")) == 911
    r.apply(play(1, "2D"))
    assert r.pending_draw == 4 and r.legal_actions() == [Action.draw(0)]
    r.apply(Action.draw(0))
    assert r.hand_sizes[0] == 6 + 4 and r.to_act == 1 and r.pending_draw == 0


def test_stacking_cap() -> None:
    rs = STACK.replace(draw_caps=((2, 3),))
    r = make_round(rs, ["2C 2H 4D 5D 6D 7D 9D", "2D QH JH 10H 9H 4H 3H"], "5C")
    r.apply(play(0, "2C"))
    r.apply(play(1, "2D"))
    assert r.pending_draw == 3
    r.apply(play(0, "2H"))
    assert r.pending_draw == 3


def test_wild_answers_a_pending_draw_only_by_option() -> None:
    hands = ["2C 3D 4D 5D 6D 7D 9D", "8D QH JH 10H 9H 4H 3H"]
    r = make_round(STACK, hands, "5C")
    r.apply(play(0, "2C"))
    assert r.legal_actions() == [Action.draw(1)]
    r = make_round(STACK.replace(wild_answers_draw=True), hands, "5C")
    r.apply(play(0, "2C"))
    assert set(r.legal_actions()) == {play(1, "8D"), Action.draw(1)}
    r.apply(play(1, "8D", "D"))
    assert r.pending_draw == 0 and r.to_act == 0
    assert set(r.legal_actions()) == {
        play(0, "3D"),
        play(0, "4D"),
        play(0, "5D"),
        play(0, "6D"),
        play(0, "7D"),
        play(0, "9D"),
        Action.draw(0),
    }


# -- same-rank runs ------------------------------------------------------------------------------------------
PARTY = get_preset("party")


def test_same_rank_runs_then_pass() -> None:
    r = make_round(PARTY, ["5C 5D 5H 3S 6S 7S 9S 10S", "KH QH JH 10H 9H 3H 6H 7H"], "9C")
    r.apply(play(0, "5C"))
    assert r.to_act == 0 and r.phase == "run"
    assert set(r.legal_actions()) == {play(0, "5D"), play(0, "5H"), Action.pass_(0)}
    assert err(r, play(0, "6S")) == 918
    assert err(r, Action.draw(0)) == 918
    r.apply(play(0, "5D"))
    events = r.apply(Action.pass_(0))
    assert kinds(events) == ["passed", "turn"] and r.to_act == 1
    assert r.target == parse_card("5D")


def test_a_run_ends_by_itself_when_no_card_of_the_rank_is_left() -> None:
    r = make_round(PARTY, ["5C 5D 3S 6S 7S 9S 10S KS", "KH QH JH 10H 9H 3H 6H 7H"], "9C")
    r.apply(play(0, "5C"))
    events = r.apply(play(0, "5D"))
    assert kinds(events) == ["played", "turn"] and r.to_act == 1


def test_no_run_after_drawing() -> None:
    r = make_round(PARTY, ["5C 5D 3S 6S 7S 9S 10S KS", "KH QH JH 10H 9H 3H 6H 7H"], "9C", stock="JD")
    r.apply(Action.draw(0))
    r.apply(play(0, "5C"))
    assert r.to_act == 1


def test_each_card_of_a_run_takes_effect_skips_stack() -> None:
    r = make_round(
        PARTY, ["4C 4D 3S 6S 7S 9S 10S KS", "KH QH JH 10H 9H 3H 6H 7H", "KD QD JD 10D 9D 3D 6D 7D"], "9C"
    )
    r.apply(play(0, "4C"))
    events = r.apply(play(0, "4D"))
    assert kinds(events) == ["played", "skipped", "skipped", "turn"]
    assert r.to_act == 0


def test_a_run_of_draw_twos_stacks() -> None:
    r = make_round(PARTY, ["2C 2D 3S 6S 7S 9S 10S KS", "KH QH JH 10H 9H 3H 6H 7H"], "9C")
    r.apply(play(0, "2C"))
    r.apply(play(0, "2D"))
    assert r.to_act == 1 and r.pending_draw == 4


# -- last card -----------------------------------------------------------------------------------------------
LAST = CLASSIC.replace(last_card=True)


def test_last_card_catch() -> None:
    r = position(LAST, ["5C 9D", "KH QH JH", "2S 3S 4S"], discard="5H", stock="KD QD JD 10D")
    r.apply(play(0, "5C"))
    assert r.to_act == 1 and r.last_card_open == 0
    assert r.legal_actions(0) == [Action.call_last(0)]
    assert Action.catch(1, 0) in r.legal_actions(1)
    assert r.legal_actions(2) == [Action.catch(2, 0)]  # any opponent, out of turn
    assert err(r, Action.catch(2, 1)) == 921
    assert err(r, Action.call_last(1)) == 920
    events = r.apply(Action.catch(2, 0))
    assert kinds(events) == ["drew", "drew_cards", "last_card_caught"]
    assert events[-1].seat == 2 and events[-1].data == {"target": 0, "count": 2}
    assert r.hand_sizes[0] == 3 and r.to_act == 1 and r.last_card_open is None
    assert err(r, Action.catch(1, 0)) == 921
    assert ("catch", 2, 0, 2) in r.history


def test_last_card_called_cannot_be_caught() -> None:
    r = position(LAST, ["5C 9D", "KH QH JH", "2S 3S 4S"], discard="5H", stock="KD QD JD 10D")
    r.apply(play(0, "5C"))
    assert kinds(r.apply(Action.call_last(0))) == ["last_card_called"]
    assert r.legal_actions(1) == [Action.draw(1)] and r.legal_actions(0) == []
    assert err(r, Action.catch(1, 0)) == 921


def test_last_card_window_closes_when_the_next_player_acts() -> None:
    r = position(LAST, ["5C 9D", "KH QH JH", "2S 3S 4S"], discard="5H", stock="KD QD JD 10D")
    r.apply(play(0, "5C"))
    r.apply(Action.draw(1))
    assert r.last_card_open is None
    assert err(r, Action.catch(2, 0)) == 921
    assert err(r, Action.call_last(0)) == 920


def test_last_card_penalty_option_and_off_by_default() -> None:
    r = position(LAST.replace(last_card_penalty=3), ["5C 9D", "KH QH JH"], discard="5H", stock="KD QD JD 10D")
    r.apply(play(0, "5C"))
    r.apply(Action.catch(1, 0))
    assert r.hand_sizes[0] == 4
    r = position(CLASSIC, ["5C 9D", "KH QH JH"], discard="5H", stock="KD QD JD 10D")
    r.apply(play(0, "5C"))
    assert r.legal_actions(0) == [] and Action.catch(1, 0) not in r.legal_actions(1)


# -- blocked rounds, turn cap --------------------------------------------------------------------------------
def test_blocked_after_a_set_number_of_passes() -> None:
    rs = CLASSIC.replace(reshuffle=False, blocked_after=1)
    r = position(rs, ["KH 2S", "6D 7D 9C"], discard="3C 4C 5C", stock="", to_act=1)
    events = r.apply(play(1, "9C"))
    assert kinds(events) == ["played", "turn", "passed", "round_over"]
    assert r.over and r.blocked and r.winners == [0] and r.scores == [12, 13]


def test_turn_cap_settles_the_round_as_blocked() -> None:
    rs = CLASSIC.replace(turn_cap=2)
    r = make_round(rs, ["9C 2D 3D 4D 6D 7D 10D", "KC QH JH 10H 9H 2H 3H"], "5C")
    r.apply(play(0, "9C"))
    events = r.apply(play(1, "KC"))
    assert kinds(events) == ["played", "round_over"]
    assert r.over and r.blocked and r.end_reason == "turn-cap"
    assert r.winners == [0] and r.scores == [2 + 3 + 4 + 6 + 7 + 10, 10 + 10 + 10 + 9 + 2 + 3]


# -- scoring and card values ---------------------------------------------------------------------------------
def test_payment_scoring_when_someone_goes_out() -> None:
    r = position(get_preset("parlett"), ["9C", "KH 2D", "8S"], discard="5C")
    r.apply(play(0, "9C"))
    assert r.scores == [62, -12, -50] and r.winners == [0]


def test_payment_scoring_in_a_blocked_round() -> None:
    rs = get_preset("parlett").replace(reshuffle=False)
    r = position(rs, ["KH", "6D 9D", "10D JD QD", "5D 3C"], discard="2C 4C 5C", to_act=3)
    events = r.apply(play(3, "3C"))
    assert kinds(events)[-1] == "round_over"
    # Hands 10, 15, 30, 5: the lowest (seat 3) collects the difference from each opponent.
    assert r.blocked and r.winners == [3]
    assert r.scores == [-5, -10, -25, 40]


def test_card_count_scoring() -> None:
    r = position(get_preset("crazier"), ["9C", "KH 2D", "8S 2S 3S"], discard="5C", phase="drew", drawn=1)
    r.apply(play(0, "9C"))
    assert r.scores == [0, 2, 3]


def test_switch_card_values() -> None:
    from bot.engine import card_value

    sw = get_preset("switch")
    assert [card_value(parse_card(c), sw) for c in ("AS", "2D", "4C", "JH", "KS", "QD", "8H", "10C")] == [
        20,
        15,
        15,
        15,
        10,
        10,
        8,
        10,
    ]
    assert [card_value(parse_card(c), CLASSIC) for c in ("AS", "2D", "8H", "JH", "10C")] == [1, 2, 50, 10, 10]


def test_the_match_end_and_what_it_counts_follow_each_other_in_either_order() -> None:
    """A number of rounds set in a match to a target makes it a match of rounds; a target set in a match of
    rounds makes it a match to the target (reached with payment scoring, passed otherwise); a match of rounds
    chosen with no number yet is DEFAULT_ROUNDS rounds. Clearing a value changes no match end."""
    classic = get_preset("classic")
    assert classic.match_end == "passes-target"
    three = rule_options.change(classic, "rounds", "3")
    assert (three.match_end, three.rounds) == ("rounds", 3)
    target = rule_options.change(three, "target", "150")
    assert (target.match_end, target.target, target.rounds) == ("passes-target", 150, 3)
    switch = rule_options.change(rule_options.change(get_preset("switch"), "rounds", "2"), "target", "80")
    assert switch.match_end == "reaches-target"
    chosen = rule_options.change(classic, "match_end", "rounds")
    assert (chosen.match_end, chosen.rounds) == ("rounds", rule_options.DEFAULT_ROUNDS)
    cleared = rule_options.change(target, "rounds", "none")
    assert (cleared.match_end, cleared.rounds) == ("passes-target", None)
