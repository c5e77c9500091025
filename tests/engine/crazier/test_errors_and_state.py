"""Illegal moves (a domain error with its code, nothing changed), JSON round trips mid-turn and mid-batch,
replay from a seed, per-seat views, and how the preset is registered."""

from __future__ import annotations

import json

import pytest

import bot.engine as engine
from bot.engine import EngineError, RulesetError
from bot.engine.crazier import CrazierMatch, CrazierRound, Move, get_preset, rules_help
from bot.engine.crazier.cpu import choose_action
from bot.engine.crazier.deck import RANK_ROWS
from tests.engine.crazier.support import position, refused


# --------------------------------------------------------------------------------------- illegal moves
def test_acting_out_of_turn() -> None:
    g, _ = position(["9G 2B", "9O 3B"], "5G", draw="KB")
    refused(g, Move.discard(1, "9O"), 901)
    refused(g, Move.end(1), 901)


def test_a_discard_that_does_not_match() -> None:
    g, _ = position(["9O 2B", "9P 3B"], "5G", draw="KB")
    refused(g, Move.discard(0, "9O"), 907)


def test_a_second_discard_without_potion_of_vitality() -> None:
    g, _ = position(["9G 5B 2B", "9P 3B"], "5G", draw="KB")
    g.apply(Move.discard(0, "9G"))
    refused(g, Move.discard(0, "5B"), 930)


def test_an_effect_with_no_valid_choice() -> None:
    g, _ = position(["9G 2B", "9P 3B"], "5G", draw="KB")
    refused(g, Move.effect(0, "9G", target_card="6B"), 933)


def test_a_choice_not_offered() -> None:
    g, _ = position(["9G 2B", "9P 3B"], "5G", in_play=["6B", "6P"], draw="KB")
    refused(g, Move.effect(0, "2B", target=5), 934)  # no such player
    refused(g, Move.effect(0, "9G", target_card="6O"), 934)  # not in play
    refused(g, Move.effect(0, "2B"), 934)  # a player must be chosen
    refused(g, Move.keep(0), 934)  # nothing is being looked at
    g2, _ = position(["9G 2B", "9P 3B"], "5G", in_play=["JB", "6P"], draw="KB")
    refused(g2, Move.choose_card(0, "6O"), 934)
    refused(g2, Move.player(0, 1), 934)
    refused(g2, Move.choose_card(1, "6P"), 901)
    refused(g2, Move.end(0), 935)  # the Dragon's choice comes first


def test_other_illegal_moves() -> None:
    g, _ = position(["9G 2B AB 8P 3G", "9P 3B"], "5G", draw="KB")
    refused(g, Move.effect(0, "AB"), 931)  # no ability
    refused(g, Move.discard(0, "8P"), 936)  # an 8 names a colour
    refused(g, Move.discard(0, "QQ"), 903)
    refused(g, Move.discard(0, "9P"), 902)
    refused(g, Move.end(7), 923)
    g.apply(Move.effect(0, "3G"))
    refused(g, Move.effect(0, "2B", target=1), 932)


def test_nothing_is_legal_once_the_game_is_over() -> None:
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["KB 6B 6G 6O", ""], draw="KO")
    assert g.over and g.legal_actions() == []
    refused(g, Move.end(0), 922)


def test_moves_read_from_json_and_refuse_junk() -> None:
    m = Move.effect(0, "9B", target_card="6G")
    assert Move.from_json(json.loads(json.dumps(m.to_json()))) == m
    assert Move.from_json(
        {"kind": "discard", "seat": 1, "card": "10 green", "colour": "suns"}
    ) == Move.discard(1, "10G", "O")
    for junk in ({"kind": "fly", "seat": 0}, {"seat": 0}, "discard", {"kind": "end", "seat": "0"}):
        with pytest.raises(EngineError) as info:
            Move.from_json(junk)
        assert info.value.code == 924
    with pytest.raises(EngineError) as info:
        Move.from_json({"kind": "discard", "seat": 0, "card": "ZZ"})
    assert info.value.code == 903
    with pytest.raises(EngineError) as info:
        Move.from_json({"kind": "discard", "seat": 0, "card": "8B", "colour": "pink"})
    assert info.value.code == 906


# --------------------------------------------------------------------------------------- JSON and replay
def _round_trip(g: CrazierRound) -> CrazierRound:
    return CrazierRound.from_json(json.loads(json.dumps(g.to_json())))


def test_json_round_trip_after_the_discard_before_the_effect() -> None:
    g, _ = position(["9G 2B", "9P 3B"], "5G", draw="KB")
    g.apply(Move.discard(0, "9G"))
    copy = _round_trip(g)
    assert copy.to_json() == g.to_json() and copy.legal_actions() == g.legal_actions()
    assert copy.apply(Move.effect(0, "2B", target=1)) == g.apply(Move.effect(0, "2B", target=1))
    assert copy.to_json() == g.to_json()


def test_json_round_trip_in_the_middle_of_a_batch_waiting_for_a_choice() -> None:
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["5B JB 4G", "6G"], draw="KB QB")
    g.apply(Move.order(0, "JB"))
    assert g.choice is not None and g.choice["kind"] == "card" and len(g.batch) == 2
    copy = _round_trip(g)
    assert copy.legal_actions() == g.legal_actions()
    for move in (Move.choose_card(0, "6G"), Move.order(0, "4G"), Move.move(0), Move.player(0, 1)):
        assert copy.apply(move) == g.apply(move)
    assert copy.to_json() == g.to_json()


def test_a_game_replays_from_its_seed() -> None:
    def play(seed: int) -> dict[str, object]:
        g = CrazierRound.new(get_preset("crazier-abilities", teams=True), 4, seed=seed)
        k = 0
        while not g.over:
            seat = g.acting[0]
            k += 1
            g.apply(choose_action(g, seat, "normal", seed=k))
        return g.to_json()

    assert play(21) == play(21)
    assert play(21) != play(22)


def test_a_view_shows_only_the_seats_own_hand_and_private_events() -> None:
    g = CrazierRound.new(get_preset("crazier-abilities"), 3, seed=9, first=0)
    view = g.view(1)
    assert view["hand"] == g.hands[1]
    assert view["hand_sizes"] == [len(h) for h in g.hands]
    assert all(e["visible_to"] in (None, 1) for e in view["last_events"])
    text = json.dumps(view)
    assert "draw" not in view and "hands" not in view
    assert not any(f'"{c}"' in text for c in g.hands[0] if c not in view["in_play"][0] and c != g.top())
    public = json.dumps(g.public_view())
    assert not any(f'"{c}"' in public for h in g.hands for c in h)


# --------------------------------------------------------------------------------------- registration
def test_the_preset_is_registered_apart_from_the_user_facing_presets() -> None:
    assert "crazier-abilities" not in engine.PRESETS and "crazier-abilities" not in engine.PRESET_NAMES
    with pytest.raises(RulesetError):
        engine.get_preset("crazier-abilities")
    rules = get_preset("crazier-abilities")
    assert rules.name == "crazier-abilities" and not rules.teams
    assert "crazier" in engine.PRESETS  # the core preset stays


def test_the_teams_option_seats_two_teams_of_two_or_three() -> None:
    teams = get_preset("crazier-abilities", teams=True)
    assert [n for n in range(2, 7) if teams.allows_seats(n)] == [4, 6]
    with pytest.raises(RulesetError):
        teams.replace(max_players=3)
    with pytest.raises(EngineError):
        CrazierRound.new(teams, 5, seed=1)


def test_the_rules_help_lists_every_card() -> None:
    text = rules_help(get_preset("crazier-abilities", teams=True))
    for row in RANK_ROWS.values():
        assert row.name in text and row.ability in text
    assert "Teams" in text and len(text) < 4000


def test_the_rules_help_says_what_the_engine_decides_about_losing_and_the_last_card() -> None:
    # Decision 8: a loser scores the cards they held in hand (not those in play); decision 13: a last card
    # played for its effect wins at once, and an event played so does nothing.
    text = rules_help(get_preset("crazier-abilities"))
    assert "the cards they held in hand count as their points" in text
    assert "discard pile, and count as their points" not in text
    assert "a last card played for its effect wins too (an event played so does nothing)" in text
    assert "2–6 players" in text
    assert "4 or 6 players in two teams" in rules_help(get_preset("crazier-abilities", teams=True))


def test_naming_a_colour_with_a_discard_that_is_not_an_eight_is_refused_with_905() -> None:
    # RULESETS.md, "The standard game", errors: "Errors follow seed 000's codes and meanings: ... 905 you
    # can't choose a suit now ... An illegal action changes nothing." Seed 000: "905 You can't choose a suit;
    # you haven't just played an 8." Crazier, "A turn" 3: only "an 8 (then names a colour ...)".
    g, _ = position(["9G 2B", "9P 3B"], "5G", draw="KB")
    assert Move.discard(0, "9G", "B") not in g.legal_actions(0)  # the engine itself does not offer it
    refused(g, Move.discard(0, "9G", "B"), 905)


def test_most_points_tie_goes_to_the_first_such_seat_after_the_one_the_game_ended_on() -> None:
    # Spec ("Setup"): "after a game, the player with the most points goes first" (ties: silent).
    # The engine's written choice (bot/engine/crazier/__init__.py decision 9 and match.py docstring):
    # "ties: the first such seat after the one whose turn the game ended on".
    m = CrazierMatch.new(get_preset("crazier-abilities"), 3, seed=11)
    g, _ = position(["9P 9G", "9O 3P", "5B"], "9B", draw="KO KP 6B", first=0)  # seat 0 plays first
    m.round = g
    m.apply(Move.end(0))
    m.apply(Move.end(1))
    m.apply(Move.discard(2, "5B"))
    m.apply(Move.effect(2, "6B"))  # seat 2 goes out on the game's third turn
    assert m.totals == [3, 3, 0]  # seats 0 and 1 tie on the most points
    # the game ended on seat 2's turn -> the first seat after it holding the most points is seat 0
    assert m.next_first() == 0
