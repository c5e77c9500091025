"""'Draw up to N' and 'passing when nothing can be drawn' (RULESETS.md), and the seed fixes that touch
drawing: switch's pending 2 that must be answered, parlett's empty stock without a reshuffle."""

from __future__ import annotations

import pytest

from bot.engine import Action, Round, RulesetError, get_preset
from tests.engine.support import err, hand, kinds, make_round, play, position

CLASSIC = get_preset("classic")
UP_TO_3 = CLASSIC.replace(draw_limit=3, after_draw="draw-up-to")
HANDS_2P = ["9C 2D 3D 4D 6D 7D 10D", "KH QH JH 10H 9H 2H 3H"]


# -- draw up to N --------------------------------------------------------------------------------------------
def test_draw_up_to_n_play_or_draw_again_and_pass_only_at_the_limit() -> None:
    r = make_round(UP_TO_3, HANDS_2P, "5C", stock="KD QD JD 4S")
    # At the start: play or draw (drawing with a play is allowed in classic), no pass.
    assert set(r.legal_actions()) == {play(0, "9C"), Action.draw(0)}
    assert err(r, Action.pass_(0)) == 926
    r.apply(Action.draw(0))
    # After a draw: any legal card (not only the drawn one), or draw again; still no pass.
    assert set(r.legal_actions()) == {play(0, "9C"), Action.draw(0)}
    assert err(r, Action.pass_(0)) == 926
    r.apply(Action.draw(0))
    assert set(r.legal_actions()) == {play(0, "9C"), Action.draw(0)}
    r.apply(Action.draw(0))
    # Three drawn: the limit; now passing is allowed and drawing is not.
    assert set(r.legal_actions()) == {play(0, "9C"), Action.pass_(0)}
    assert err(r, Action.draw(0)) == 912
    events = r.apply(Action.pass_(0))
    assert kinds(events) == ["passed", "turn"] and r.to_act == 1
    assert hand(r, 0)[-3:] == ["KD", "QD", "JD"]


def test_draw_up_to_n_with_no_play_at_the_limit_passes_for_the_player() -> None:
    r = make_round(UP_TO_3, ["2D 3D 4D 6D 7D 9D 10D", HANDS_2P[1]], "5C", stock="KD QD JD")
    r.apply(Action.draw(0))
    r.apply(Action.draw(0))
    events = r.apply(Action.draw(0))
    assert kinds(events) == ["drew", "drew_cards", "passed", "turn"] and r.to_act == 1


def test_draw_up_to_n_a_playable_card_may_be_kept_and_drawing_goes_on() -> None:
    r = make_round(UP_TO_3, ["2D 3D 4D 6D 7D 9D 10D", HANDS_2P[1]], "5C", stock="6C KD")
    r.apply(Action.draw(0))  # 6C fits, but the player may draw again instead
    assert set(r.legal_actions()) == {play(0, "6C"), Action.draw(0)}
    r.apply(Action.draw(0))
    assert set(r.legal_actions()) == {play(0, "6C"), Action.draw(0)}


def test_draw_up_to_n_pass_when_nothing_can_be_drawn_even_at_the_start() -> None:
    # N = 5 without a reshuffle is OpenSpiel's crazy_eights: with an empty stock a pass is legal at once.
    rs = CLASSIC.replace(draw_limit=5, after_draw="draw-up-to", reshuffle=False)
    r = position(rs, ["9C 2D", "KH 3H"], discard="4C 5C", stock="")
    assert set(r.legal_actions()) == {play(0, "9C"), Action.pass_(0)}
    r = position(rs, ["9C 2D", "KH 3H"], discard="4C 5C", stock="7S")
    r.apply(Action.draw(0))  # the last card: nothing can be drawn now, so passing is allowed
    assert set(r.legal_actions()) == {play(0, "9C"), Action.pass_(0)}


def test_draw_up_to_n_with_draw_only_when_unable() -> None:
    rs = UP_TO_3.replace(draw_with_legal_play=False)
    r = make_round(rs, ["2D 3D 4D 6D 7D 9D 10D", HANDS_2P[1]], "5C", stock="6C KD")
    r.apply(Action.draw(0))  # 6C now fits: no more drawing, and no pass before the limit
    assert r.legal_actions() == [play(0, "6C")]


def test_draw_up_to_n_needs_a_number() -> None:
    with pytest.raises(RulesetError, match="draw limit"):
        CLASSIC.replace(after_draw="draw-up-to")


# -- passing when nothing can be drawn ---------------------------------------------------------------------
PASS_EMPTY = CLASSIC.replace(pass_when_no_draw=True)


def test_pass_when_nothing_can_be_drawn_even_with_a_play() -> None:
    r = position(PASS_EMPTY, ["9C 2D", "KH 5H"], discard="5C", stock="")
    assert set(r.legal_actions()) == {play(0, "9C"), Action.pass_(0)}
    events = r.apply(Action.pass_(0))
    assert kinds(events) == ["passed", "turn"] and events[0].data == {"forced": False}
    assert set(r.legal_actions()) == {play(1, "5H"), Action.pass_(1)}


def test_no_pass_while_a_card_can_be_drawn_or_the_discard_can_be_reshuffled() -> None:
    r = position(PASS_EMPTY, ["9C 2D", "KH 3H"], discard="5C", stock="7S")
    assert Action.pass_(0) not in r.legal_actions() and err(r, Action.pass_(0)) == 915
    r = position(PASS_EMPTY, ["9C 2D", "KH 3H"], discard="4C 5C", stock="")  # a reshuffle can supply a card
    assert Action.pass_(0) not in r.legal_actions()
    assert (
        Action.pass_(0)
        in position(
            PASS_EMPTY.replace(reshuffle=False), ["9C 2D", "KH 3H"], discard="4C 5C", stock=""
        ).legal_actions()
    )


def test_passes_while_nothing_can_be_drawn_block_the_round() -> None:
    r = position(PASS_EMPTY, ["9C 2D", "KH 3H"], discard="5C", stock="")
    r.apply(Action.pass_(0))  # seat 1 cannot play: the engine passes for it, and the round is blocked
    assert r.over and r.blocked and r.winners == [0]


def test_default_only_a_player_unable_to_play_passes() -> None:
    r = position(CLASSIC, ["9C 2D", "KH 3H"], discard="5C", stock="")
    assert r.legal_actions() == [play(0, "9C")]


def test_pass_at_any_time_stays_its_own_rule() -> None:
    rs = CLASSIC.replace(pass_anytime=True)
    r = position(rs, ["9C 2D", "KH 3H"], discard="5C", stock="7S")
    assert Action.pass_(0) in r.legal_actions()
    with pytest.raises(RulesetError, match="choose one"):
        rs.replace(pass_when_no_draw=True)


def test_pass_when_nothing_can_be_drawn_facing_a_pending_draw() -> None:
    rs = get_preset("party").replace(pass_when_no_draw=True)
    r = position(rs, ["2C 5D", "KH 3H 9S"], discard="2H", stock="", pending=2, pending_rank=2)
    assert set(r.legal_actions()) == {play(0, "2C"), Action.pass_(0)}
    r.apply(Action.pass_(0))  # the owed cards cannot be drawn: forgiven
    assert r.pending_draw == 0 and r.to_act == 1


# -- switch: a pending 2 must be answered by a player who holds one ------------------------------------------
def test_switch_holding_a_two_facing_a_two_must_play_it() -> None:
    sw = get_preset("switch")
    r = position(sw, ["2D 5S 9H", "KH 3H 9S"], discard="9C 2C", stock="4S 5H", pending=2, pending_rank=2)
    assert r.legal_actions() == [play(0, "2D")]
    assert err(r, Action.draw(0)) == 925
    r.apply(play(0, "2D"))
    assert r.pending_draw == 4 and r.to_act == 1
    # Seat 1 holds no 2: it draws the four owed and misses the turn.
    assert r.legal_actions() == [Action.draw(1)]


def test_stacking_stays_a_choice_where_drawing_with_a_play_is_allowed() -> None:
    party = get_preset("party")
    r = position(party, ["2D 5S 9H", "KH 3H 9S"], discard="9C 2C", stock="4S 5H", pending=2, pending_rank=2)
    assert set(r.legal_actions()) == {play(0, "2D"), Action.draw(0)}


# -- parlett: no reshuffle -----------------------------------------------------------------------------------
def test_parlett_never_reshuffles_and_blocks_when_nobody_can_play() -> None:
    parlett = get_preset("parlett")
    r = position(parlett, ["9H KD", "6D 7D", "3D QS"], discard="4C 5C 6C 9C", stock="", to_act=0)
    events = r.apply(play(0, "9H"))
    # Nobody can follow 9H and nothing can be drawn (the cards under the top are not reshuffled): every
    # player passes in turn and the round is blocked.
    assert kinds(events) == ["played", "turn", "passed", "turn", "passed", "turn", "passed", "round_over"]
    assert "reshuffle" not in [h[0] for h in r.history]
    assert r.over and r.blocked and r.end_reason == "blocked"
    # Payment, blocked: the lowest hand (KD = 10) collects the difference from each player (13 - 10, twice).
    assert r.winners == [0] and r.scores == [6, -3, -3]


def test_parlett_rounds_end_by_a_block_not_only_by_the_turn_cap() -> None:
    import random

    parlett = get_preset("parlett")
    reasons = set()
    for seed in range(60):
        r = Round.new(parlett, 2 + seed % 4, 0, seed=seed)
        rng = random.Random(seed)
        while not r.over:
            r.step(rng.choice(r.legal_actions()))
        reasons.add(r.end_reason)
        assert r.end_reason != "turn-cap"
    assert "blocked" in reasons


def test_an_owed_draw_that_cannot_be_made_ends_the_round_with_the_impossible_draw_option() -> None:
    """Classic drawing keeps drawing until a playable card comes (rule 5). With no reshuffle and the option
    "a draw that cannot be made ends the round", a player who drew the stock's last card and still cannot
    play owes a draw that cannot be made: the round ends there, settled as blocked, and the next player,
    who holds a playable card, does not play on."""
    rs = get_preset("classic").replace(reshuffle=False, empty_draw_ends_round=True)
    r = position(rs, ["2D 3D", "9H 5H", "6H 7H"], discard="9C", stock="KD")
    assert r.legal_actions() == [Action.draw(0)]
    r.apply(Action.draw(0))
    assert r.over and r.blocked and r.end_reason == "no-draw"


def test_a_player_who_owes_no_more_draws_passes_when_the_stock_is_empty() -> None:
    """With "may play the drawn card" a player draws once: having drawn the last card and unable to play it,
    they owe nothing more, so the empty stock ends nothing and the turn passes."""
    rs = get_preset("classic").replace(
        reshuffle=False, empty_draw_ends_round=True, after_draw="may-play-drawn", draw_limit=1
    )
    r = position(rs, ["2D 3D", "9H 5H", "6H 7H"], discard="9C", stock="KD")
    r.apply(Action.draw(0))
    assert not r.over
    assert r.to_act == 1
