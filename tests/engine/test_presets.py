"""Each preset's distinctive rules, from explicit deck orders and positions."""

from __future__ import annotations

import random

from bot.engine import PRESETS, Action, Round, get_preset, parse_card
from tests.engine.support import err, hand, kinds, make_round, play, position

SWITCH = get_preset("switch")
PARTY = get_preset("party")
CRAZIER = get_preset("crazier")
PARLETT = get_preset("parlett")


def test_preset_order_and_names() -> None:
    assert list(PRESETS) == [
        "classic",
        "must-play",
        "draw-one",
        "uno-lite",
        "switch",
        "parlett",
        "party",
        "crazier",
    ]
    assert all(rs.name == name for name, rs in PRESETS.items())


def test_must_play_draws_one_only_when_unable_and_the_turn_ends() -> None:
    mp = get_preset("must-play")
    r = make_round(mp, ["9C 2D 3D 4D 6D", "KH QH JH 10H 9H", "KS QS JS 10S 4S"], "5C", stock="2C")
    assert r.legal_actions() == [play(0, "9C")]
    assert err(r, Action.draw(0)) == 914
    r.apply(play(0, "9C"))
    assert r.legal_actions() == [play(1, "9H")]
    r.apply(play(1, "9H"))
    assert r.legal_actions() == [Action.draw(2)]
    events = r.apply(Action.draw(2))
    assert kinds(events) == ["drew", "drew_cards", "turn"] and r.to_act == 0


# -- switch --------------------------------------------------------------------------------------------------
def test_switch_aces_are_wild_and_eights_plain() -> None:
    r = make_round(SWITCH, ["AS 8D 3D 4D 6D 7D 9D", "KH QH JH 10H 9H 5H 3H"], "5C")
    assert r.legal_actions() == [play(0, "AS")]  # draw only when unable
    assert err(r, play(0, "8D")) == 907
    assert err(r, Action.draw(0)) == 914


def test_switch_starter_ace_is_buried() -> None:
    r = make_round(SWITCH, ["2S 8D 3D 4D 6D 7D 9D", "KH QH JH 10H 9H 5H 3H"], "AC", stock="9C")
    assert r.target == parse_card("9C") and r.start_events[2].data["buried"] == ["AC"]


def test_switch_twos_stack_up_to_eight() -> None:
    r = position(SWITCH, ["2C 2H 5D 6S", "2D 2S 6D 7S"], discard="9C")
    r.apply(play(0, "2C"))
    r.apply(play(1, "2D"))
    r.apply(play(0, "2H"))
    assert r.pending_draw == 6
    r.apply(play(1, "2S"))
    assert r.pending_draw == 8
    assert r.legal_actions() == [Action.draw(0)]


def test_switch_fours_stack_up_to_sixteen() -> None:
    hands = ["4C 9D 10S", "4D 9D 10S", "4H 9D 10H", "4S 9D 10H", "4C 9D 10D", "4D KD 10D"]
    r = position(SWITCH, hands, discard="9C", stock="2C 3C 5C 6C 7C 10C JC QC KC 2H 3H 5H 6H 7H 10H JH QH KH")
    for seat in range(5):
        r.apply(play(seat, hand(r, seat)[0]))
    assert r.pending_draw == 16  # 4 + 4 + 4 + 4 + 4, capped
    # Holding a 4, seat 5 must play it (004: "play a 2 or, if unable, draw").
    assert r.legal_actions() == [play(5, "4D")]
    assert err(r, Action.draw(5)) == 925
    r.apply(play(5, "4D"))
    assert r.pending_draw == 16
    events = r.apply(Action.draw(0))
    assert kinds(events) == ["drew", "drew_cards", "draw_penalty", "turn"]
    assert events[2].data == {"count": 16, "drawn": 16}
    assert r.hand_sizes[0] == 18 and r.to_act == 1


def test_switch_jack_reverses_and_the_player_now_next_must_answer() -> None:
    hands = ["JC 9D 3S", "KH 9H 3H", "QC 9S 4S", "JD 10S 5S"]
    r = position(SWITCH, hands, discard="5C")
    r.apply(play(0, "JC"))
    # The player now next is the one who played before: seat 3, which answers with its jack.
    assert r.to_act == 3 and set(r.legal_actions()) == {play(3, "JD"), Action.pass_(3)}
    r.apply(play(3, "JD"))
    # Reversed again: seat 0 must answer, has no jack, misses the turn; seat 1 plays next.
    assert r.direction == 1 and r.to_act == 1


def test_switch_last_card_and_payment_scoring_with_switch_values() -> None:
    r = position(SWITCH, ["9C 9D", "KH 2H AC", "JS 4S"], discard="5C", stock="5S")
    r.apply(play(0, "9C"))
    assert r.legal_actions(0) == [Action.call_last(0)]
    r.apply(Action.call_last(0))
    r.apply(play(1, "AC", "D"))
    events = r.apply(Action.draw(2))  # unable to play: one card, unplayable, so the turn passes
    assert kinds(events) == ["drew", "drew_cards", "passed", "turn"]
    r.apply(play(0, "9D"))
    assert r.over and r.winners == [0]
    # K 10 + 2 15 = 25; J 15 + 4 15 + 5 = 35: the winner collects both.
    assert r.scores == [60, -25, -35]


def test_switch_deals_from_a_double_deck_above_two_players() -> None:
    """RULESETS.md's `switch` row is silent on decks, so seed 004 decides: the game Switch develops deals
    "seven cards from a standard 52-card deck" to two players, "five cards from a double deck of 104 cards
    if there are more than two"."""
    switch = get_preset("switch")
    assert switch.decks_for(2) == 1
    for seats in (3, 4, 5, 7):
        r = Round.new(switch, seats, seats - 1, seed=7)
        assert r.hand_sizes[0] == 5
        assert sum(r.hand_sizes) + r.stock_size + len(r.discard) == 104, f"{seats} players"


# -- parlett -------------------------------------------------------------------------------------------------
def test_parlett_two_decks_above_two_players_and_buried_starter() -> None:
    r = Round.new(PARLETT, 3, 0, seed=5)
    assert r.stock_size + sum(r.hand_sizes) + 1 == 104
    hands = ["2C 3D 4H 5S 6S", "KH QD JD 10S 9S", "2D 3D 4S 5D 6D"]
    r = make_round(PARLETT, hands, "8C", stock="8C 9H")
    assert r.target == parse_card("9H")
    assert r.start_events[3].data["buried"] == ["8C", "8C"]


def test_parlett_draws_until_playable() -> None:
    hands = ["2C 3D 4D 5S 6S", "KH QD JD 10S 9S", "2D 3D 4S 5D 6D"]
    r = make_round(PARLETT, hands, "7H", stock="KC QC 7C")
    for _ in range(3):
        assert r.legal_actions() == [Action.draw(0)]
        r.apply(Action.draw(0))
    assert r.legal_actions() == [play(0, "7C")]


# -- party ---------------------------------------------------------------------------------------------------
def test_party_deal_eight_and_bury_a_starter_eight() -> None:
    r = Round.new(PARTY, 2, 0, seed=9)
    assert r.hand_sizes == [8, 8]
    assert rankof(r.target) != 8
    r4 = Round.new(PARTY, 4, 0, seed=9)
    assert r4.hand_sizes == [8] * 4


def rankof(card: int) -> int:
    return card >> 2


def test_party_queen_reverses_four_skips_two_draws_two() -> None:
    hands = ["QC 4C 9D 9S", "KH 2H 3H 5H", "3C 6H 6D 6S", "9H 7D 7S 7H"]
    r = position(PARTY, hands, discard="5C")
    r.apply(play(0, "QC"))
    assert r.to_act == 3 and r.direction == -1
    r = position(PARTY, hands, discard="5C")
    r.apply(play(0, "4C"))
    assert r.to_act == 2


def test_party_may_draw_one_then_play_one_or_pass() -> None:
    r = make_round(PARTY, ["9C 3D 4D 5D 6D 7D 10D KD", "KH QH JH 10H 9H 3H 6H 7H"], "5C", stock="JC")
    assert {Action.draw(0), play(0, "9C"), play(0, "5D")} == set(r.legal_actions())
    r.apply(Action.draw(0))
    assert set(r.legal_actions()) == {play(0, "9C"), play(0, "5D"), play(0, "JC"), Action.pass_(0)}
    assert err(r, Action.draw(0)) == 912


def test_party_cannot_pass_without_playing_or_drawing() -> None:
    r = make_round(PARTY, ["9C 3D 4D 5D 6D 7D 10D KD", "KH QH JH 10H 9H 3H 6H 7H"], "5C")
    assert err(r, Action.pass_(0)) == 915


def test_party_last_card_is_on() -> None:
    r = position(PARTY, ["9C 9D", "KH 3H"], discard="5C")
    r.apply(play(0, "9C"))
    assert r.phase == "run"
    r.apply(Action.pass_(0))
    assert Action.catch(1, 0) in r.legal_actions(1)


def test_party_going_out_with_a_run_of_the_last_cards_needs_no_call() -> None:
    r = position(PARTY, ["7C 7D", "KH 3H 9S"], discard="5C")
    r.apply(play(0, "7C"))
    assert r.phase == "run" and r.hand_sizes[0] == 1
    # Between the two 7s nobody can catch (003: "The Last Card button does not need to be pressed").
    assert r.legal_actions(1) == [] and r.last_card_open is None
    assert err(r, Action.catch(1, 0)) == 921
    r.apply(play(0, "7D"))
    assert r.over and r.winners == [0]


def test_party_a_run_down_to_one_card_may_be_caught_once_the_turn_ends() -> None:
    r = position(PARTY, ["7C 7D KS", "KH 3H 9S"], discard="5C")
    r.apply(play(0, "7C"))
    assert r.legal_actions(1) == []
    r.apply(play(0, "7D"))  # no 7 left: the run and the turn end with one card in hand
    assert r.to_act == 1 and r.last_card_open == 0 and Action.catch(1, 0) in r.legal_actions(1)


# -- crazier -------------------------------------------------------------------------------------------------
def test_crazier_every_turn_starts_with_a_draw() -> None:
    hands = ["9C 3D 4D 5D 6D 7D 10D", "KH QH JH 10H 9H 3H 6H"]
    r = make_round(CRAZIER, hands, "5C", stock="KS")
    assert r.hand_sizes == [7, 7]
    assert r.legal_actions() == [Action.draw(0)] and r.must_draw(0)
    assert err(r, play(0, "9C")) == 916
    r.apply(Action.draw(0))
    assert set(r.legal_actions()) == {play(0, "9C"), play(0, "5D"), Action.pass_(0)}
    r.apply(Action.pass_(0))  # discarding is optional
    assert r.to_act == 1 and r.legal_actions() == [Action.draw(1)]


def test_crazier_round_ends_when_a_draw_is_impossible_fewest_cards_wins() -> None:
    hands = ["KH 2S", "6D 7C 9C", "AD 2D 3D 4D"]
    r = position(CRAZIER, hands, discard="5C", stock="", to_act=1, phase="drew", drawn=1)
    events = r.apply(Action.pass_(1))
    # Seat 2 must draw; the stock is empty and the discard pile holds one card: the round is over.
    assert kinds(events) == ["passed", "turn", "round_over"]
    assert r.over and r.blocked and r.end_reason == "no-draw"
    assert r.winners == [0] and r.scores == [0, 3, 4]


def test_crazier_never_reshuffles_the_first_impossible_draw_ends_the_round() -> None:
    hands = ["KH 2S", "6D 7C 9C", "AD 2D 3D 4D"]
    r = position(CRAZIER, hands, discard="5C", stock="", to_act=1, phase="drew", drawn=1)
    events = r.apply(play(1, "9C"))
    # Two cards in the discard pile, but no reshuffle in the core game: seat 2 cannot draw, the round ends.
    assert "reshuffled" not in kinds(events)
    # Fewest cards wins: seats 0 and 1 hold two each and share the win.
    assert r.over and r.end_reason == "no-draw" and r.winners == [0, 1] and r.scores == [0, 0, 4]


def test_crazier_rounds_end_well_before_the_turn_cap() -> None:
    for seed in range(40):
        r = Round.new(CRAZIER, 2 + seed % 3, 0, seed=seed)
        rng = random.Random(seed)
        while not r.over:
            r.step(rng.choice(r.legal_actions()))
        assert r.end_reason in ("out", "no-draw"), r.end_reason


def test_crazier_most_points_leads_the_next_round() -> None:
    from bot.engine import Match

    m = Match.new(CRAZIER.replace(target=1000), 3, seed=4)
    rng = random.Random(4)
    for _ in range(3):
        while not m.round.over:
            m.apply(rng.choice(m.round.legal_actions()))
        assert not m.over
        m.start_next_round()
        best = max(m.totals)
        leader = m.round.leader
        assert m.totals[leader] == best and m.round.to_act == leader
        # Ties go to the first such seat left of the (moving) dealer.
        left = [(m.dealer + k) % 3 for k in range(1, 4)]
        assert leader == next(s for s in left if m.totals[s] == best)
