"""The normal level's heuristics, in crafted positions."""

from __future__ import annotations

from bot.engine import Action, ActionKind, Round, get_preset, parse_card
from bot.engine.cpu import choose_action, react
from bot.engine.cpu.inference import opponent_groups, void_suits

from .helpers import dealt


def normal(rnd: Round, seat: int | None = None) -> Action:
    seat = rnd.to_act if seat is None else seat
    assert seat is not None
    return choose_action(rnd, seat, "normal", seed=3)


CLASSIC = get_preset("classic")


def test_keeps_the_eight_when_another_card_fits() -> None:
    rnd = dealt(CLASSIC, {0: "2C 3C 4C 5C 6D 7D 9D", 1: "8C 6H KS 2H 5H 9H 3D"}, starter="6C")
    assert rnd.to_act == 1
    assert normal(rnd) == Action.play(1, parse_card("6H"))


def test_plays_the_eight_when_nothing_else_fits_and_names_its_longest_suit() -> None:
    rnd = dealt(CLASSIC, {0: "2C 3C 4C 5C 6D 7D 9D", 1: "8C 2H 5H 9H KS 3D 4D"}, starter="JC")
    action = normal(rnd)
    assert action.kind is ActionKind.PLAY and action.card == parse_card("8C")
    rnd.apply(action)
    assert normal(rnd) == Action.name_suit(1, 2)  # hearts: three of them


def test_sheds_from_its_longest_suit_and_high_cards_first() -> None:
    rnd = dealt(CLASSIC, {0: "2C 3C 4C 5C 6D 7D 9D", 1: "KH 2H 5H 9H 4S 3D QD"}, starter="4H")
    # KH, 2H, 5H, 9H, 4S all fit: the hearts stay the longest suit; the king is worth the most.
    assert normal(rnd) == Action.play(1, parse_card("KH"))


def test_plays_the_suit_the_next_player_showed_it_lacks() -> None:
    # Seat 1 lacks spades, 3s and 8s: it must draw, draws the 9S and plays it.
    rnd = dealt(
        CLASSIC,
        {0: "9H 2H 4H 5S KD QD JC", 1: "2C 4C 6C 7D 10D JD KC"},
        starter="3S",
        stock_top="9S",
    )
    assert rnd.legal_actions(1) == [Action.draw(1)]
    rnd.apply(Action.draw(1))
    rnd.apply(Action.play(1, parse_card("9S")))
    assert rnd.to_act == 0
    assert void_suits(opponent_groups(rnd, 0), 1) == [3]
    # 9H would keep the hearts going, but seat 1 cannot follow spades.
    assert normal(rnd) == Action.play(0, parse_card("5S"))


PARTY_SMALL = get_preset("party").replace(hand_size=3, hand_size_two=3)


def test_stacks_on_a_pending_draw_when_it_can() -> None:
    rnd = dealt(PARTY_SMALL, {0: "2S 9C 10C", 1: "2H KS QD"}, starter="5H")
    rnd.apply(Action.play(1, parse_card("2H")))
    assert rnd.pending_draw == 2 and rnd.to_act == 0
    assert normal(rnd) == Action.play(0, parse_card("2S"))


def test_calls_its_last_card() -> None:
    rnd = dealt(PARTY_SMALL, {0: "6C 10C JC", 1: "5H 9H KD"}, starter="7H", stock_top="3D")
    rnd.apply(normal(rnd))  # seat 1 plays a heart
    assert rnd.hand_sizes[1] == 2
    rnd.apply(Action.draw(0))  # the 3D does not fit: the engine passes for seat 0
    action = normal(rnd)
    rnd.apply(action)
    assert rnd.hand_sizes[1] == 1
    assert react(rnd, 1, "normal", seed=0) == Action.call_last(1)
    assert react(rnd, 0, "normal", seed=0) == Action.catch(0, 1)  # until it is called
    rnd.apply(Action.call_last(1))
    assert react(rnd, 0, "normal", seed=0) is None
    assert react(rnd, 1, "normal", seed=0) is None


def test_catches_a_forgotten_last_card_on_its_turn_and_out_of_turn() -> None:
    rnd = dealt(PARTY_SMALL, {0: "9C 10C JC", 1: "5H 9H KD"}, starter="7H", stock_top="3D")
    rnd.apply(Action.play(1, parse_card("5H")))
    rnd.apply(Action.draw(0))
    rnd.apply(Action.play(1, parse_card("9H")))
    assert rnd.hand_sizes[1] == 1 and rnd.to_act == 0
    assert react(rnd, 0, "normal", seed=0) == Action.catch(0, 1)
    assert react(rnd, 0, "hard", seed=0) == Action.catch(0, 1)
    assert normal(rnd) == Action.catch(0, 1)
    rnd.apply(Action.catch(0, 1))
    assert rnd.hand_sizes[1] == 3


def test_easy_catches_only_sometimes() -> None:
    rnd = dealt(PARTY_SMALL, {0: "6C 10C JC", 1: "5H 9H KD"}, starter="7H", stock_top="3D")
    rnd.apply(Action.play(1, parse_card("5H")))
    rnd.apply(Action.draw(0))
    rnd.apply(Action.play(1, parse_card("9H")))
    answers = {react(rnd, 0, "easy", seed=seed) for seed in range(40)}
    assert answers == {None, Action.catch(0, 1)}
