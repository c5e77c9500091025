"""The rules help says the scoring choices the engine makes where RULESETS.md is silent or reads otherwise
(RULESETS.md, preamble: "write the choice down in the code and the rules help"): who leads after a tie on
points, how a partnership's blocked round is won and paid, and what a partner who went out scores."""

from __future__ import annotations

import pytest

from bot.engine import Action, Match, get_preset, parse_card, rules_help
from tests.engine.support import position

PARTNERS = get_preset("classic").replace(partnership=True)
BLOCKED = ["9S KD", "2D 4H", "3D", "QH 5D"]  # after 9S nobody follows: side 0 holds 13, side 1 holds 21


def _line(text: str, word: str) -> str:
    return next(x for x in text.splitlines() if word in x)


def test_a_tie_on_points_leads_from_the_first_tied_seat_left_of_the_dealer_as_the_help_says() -> None:
    """Neither RULESETS.md nor seed 001 says who leads when two players share the most points; the engine
    takes the first such seat left of the dealer (bot/engine/match.py), and the rules help says so."""
    m = Match.new(get_preset("crazier"), 3, seed=1)
    m.totals = [5, 2, 5]
    m.round_scores = [[5, 2, 5]]
    assert [m.next_leader(dealer) for dealer in range(3)] == [2, 2, 0]
    line = _line(rules_help(get_preset("crazier")), "most points")
    assert "The player with the most points leads the next round; on a tie," in line
    assert "the first of them left of the dealer" in line, line


def test_a_partnerships_blocked_round_and_equal_sides_are_in_the_rules_help() -> None:
    """RULESETS.md, Partnership 3: a blocked round goes to the side whose hands are worth less; silent on
    equal sides, where the engine has both sides win and score 0. The help's partnership line says both."""
    r = position(PARTNERS.replace(reshuffle=False), ["9S KD", "2D QH", "3D", "AH"], discard="4C 9C", stock="")
    r.apply(Action.play(0, parse_card("9S"), None))
    assert r.blocked and r.winners == [0, 1, 2, 3] and r.scores == [0, 0, 0, 0]
    line = _line(rules_help(PARTNERS), "Partnership")
    assert "in a blocked round when its hands are worth less (equal sides both win and score 0)" in line, line


def test_a_partnerships_blocked_payment_round_pays_the_difference_as_the_help_says() -> None:
    """RULESETS.md, Partnership 4: "with payment scoring the winning side collects the total of the losing
    side's hands". In a blocked round the engine pays the difference between the sides instead (13 against
    21: +8/-8), as a blocked payment round does seat by seat (RULESETS.md, round scoring); that choice is
    written in the rules help."""
    rs = get_preset("parlett").replace(partnership=True)
    r = position(rs, BLOCKED, discard="4C 9C", stock="")
    r.apply(Action.play(0, parse_card("9S"), None))
    assert r.over and r.blocked and r.winners == [0, 2]
    assert r.scores == [8, -8, 8, -8]
    line = _line(rules_help(rs), "• Score")
    assert "blocked: the lower side collects the difference" in line, line


@pytest.mark.parametrize("scoring", ["penalty", "card-count"])
def test_a_partner_who_went_out_scores_their_sides_total_as_the_help_says(scoring: str) -> None:
    """A player who went out first scores their side's score like their partner: their side's hands when it
    loses, not the 0 of "going out scores 0" (the help's wording for a game without partners)."""
    rs = PARTNERS.replace(scoring=scoring)
    r = position(rs, ["", "", "9C", "2S 5S"], discard="5C", stock="6D", to_act=2, out=[0, 1])
    r.apply(Action.play(2, parse_card("9C"), None))
    assert r.over and r.winners == [0, 2]
    assert r.scores == ([0, 7, 0, 7] if scoring == "penalty" else [0, 2, 0, 2])
    line = _line(rules_help(rs), "• Score")
    assert "going out scores 0" not in line and "the winner scores 0" not in line, line
    assert "even one who went out" in line and "the winning side scores 0" in line, line


def test_a_partnerships_payment_score_line_is_by_side() -> None:
    """With payment scoring a side that goes out collects the losing side's total from each opponent, not
    "whoever goes out" from "each other hand" (seat by seat)."""
    line = _line(rules_help(get_preset("parlett").replace(partnership=True)), "• Score")
    assert (
        "whoever goes out" not in line
        and "each winning partner collects the losing side's hand total" in line
    ), line
