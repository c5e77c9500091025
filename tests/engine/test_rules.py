"""Rulesets: validation, JSON, presets and the rules help."""

from __future__ import annotations

import json

import pytest

from bot.engine import ERROR_MESSAGES, PRESETS, Ruleset, RulesetError, get_preset, match_end_text, rules_help


def test_get_preset_and_unknown_names() -> None:
    assert get_preset("Switch") is PRESETS["switch"]
    with pytest.raises(RulesetError):
        get_preset("poker")


def test_replace_keeps_the_preset_name_and_validates() -> None:
    rs = get_preset("party").replace(hand_size=6)
    assert rs.name == "party" and rs.hand_size == 6 and rs.same_rank_runs
    with pytest.raises(RulesetError, match="unknown option"):
        rs.replace(colour="blue")


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"wild_rank": 2, "draw_ranks": ((2, 2),)}, "cannot also"),
        ({"wild_rank": None, "wild_must_match": True}, "no wild"),
        ({"after_draw": "turn-ends"}, "draw limit"),
        ({"draw_first": True}, "draw limit"),
        ({"draw_caps": ((2, 8),)}, "not a draw card"),
        ({"draw_ranks": ((2, 4),), "draw_caps": ((2, 3),)}, "below"),
        ({"draw_ranks": ((2, 2),), "stacking": False, "draw_caps": ((2, 8),)}, "need stacking"),
        ({"scoring": "payment"}, "payment"),
        ({"match_end": "reaches-target"}, "payment"),
        ({"match_end": "rounds"}, "rounds"),
        ({"hand_size": 12}, "fit"),
        ({"max_players": 9}, "players"),
        ({"min_players": 5, "max_players": 4}, "players"),
        ({"decks": "three"}, "decks"),
        ({"skip_ranks": (14,)}, "not a rank"),
        ({"last_card_penalty": 0}, "penalty"),
        ({"draw_limit": 0}, "draw limit"),
        ({"wild_answers_draw": True, "stacking": False}, "stack"),
        ({"answer_ranks": (2,), "draw_ranks": ((2, 2),)}, "answer"),
        ({"turn_cap": 0}, "turn cap"),
        ({"name": "poker"}, "preset"),
    ],
)
def test_impossible_combinations_are_refused_with_a_message(changes: dict[str, object], why: str) -> None:
    with pytest.raises(RulesetError, match=why):
        get_preset("classic").replace(**changes)


@pytest.mark.parametrize("name", list(PRESETS))
def test_json_round_trip(name: str) -> None:
    rs = PRESETS[name]
    data = json.loads(json.dumps(rs.to_json()))
    assert Ruleset.from_json(data) == rs
    assert Ruleset.from_json(data).to_json() == data


def test_from_json_refuses_unknown_options() -> None:
    data = get_preset("classic").to_json()
    data["jokers"] = True
    with pytest.raises(RulesetError):
        Ruleset.from_json(data)


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_help_is_short_markdown_for_each_preset(name: str) -> None:
    text = rules_help(PRESETS[name])
    assert 200 < len(text) < 1800
    assert text.startswith("**")


def test_rules_help_describes_the_options() -> None:
    assert "aces" not in rules_help(get_preset("classic")).lower()
    sw = rules_help(get_preset("switch"))
    assert "wild **A**" in sw and "at most 8" in sw and "at most 16" in sw and "last card" in sw
    assert "reaches 250" in sw and "collects" in sw
    party = rules_help(get_preset("party"))
    assert "same rank" in party or "its rank" in party
    assert "4 skips" in party and "Q reverses" in party
    crazier = rules_help(get_preset("crazier"))
    assert "starts by drawing" in crazier and "1 point per card" in crazier and "most points" in crazier
    custom = rules_help(get_preset("classic").replace(reshuffle=False))
    assert "(house rules)" in custom and "No reshuffle" in custom
    assert "hearts" in rules_help(get_preset("must-play")).lower()


def test_every_error_code_has_a_message() -> None:
    assert set(range(901, 908)) <= set(ERROR_MESSAGES)
    assert all(len(m) < 100 for m in ERROR_MESSAGES.values())


def test_derived_values() -> None:
    sw = get_preset("switch")
    assert sw.has_last_card and sw.target == 250 and sw.high_wins
    cl = get_preset("classic")
    assert not cl.has_last_card and cl.target == 100 and not cl.high_wins
    assert (cl.min_players, cl.max_players) == (2, 7)
    assert get_preset("parlett").max_players == 8


def test_ruleset_json_is_a_fresh_copy_each_time() -> None:
    ruleset = get_preset("switch")
    first = ruleset.to_json()
    first["draw_ranks"].append([1, 9])
    first["target"] = -1
    again = ruleset.to_json()
    assert again != first and again == Ruleset.from_json(again).to_json()
    assert Ruleset.from_json(again) == ruleset


@pytest.mark.parametrize(
    ("preset", "changes", "words"),
    [
        ("classic", {}, "until a total passes 100; lowest total wins"),
        ("crazier", {}, "until a total passes 25; lowest total wins"),
        ("switch", {}, "until a total reaches 250; highest total wins"),
        ("parlett", {"target": 300}, "until a total reaches 300; highest total wins"),
        ("classic", {"match_end": "rounds", "rounds": 3}, "3 rounds; lowest total wins"),
        ("switch", {"match_end": "rounds", "rounds": 1}, "1 round; highest total wins"),
        ("classic", {"match_end": "one-round"}, "one round; lowest score wins"),
        ("parlett", {"match_end": "one-round"}, "one round; highest score wins"),
    ],
)
def test_how_the_match_ends_in_words_for_every_match_end(
    preset: str, changes: dict[str, object], words: str
) -> None:
    """RULESETS.md's ``match end``: passes the target, reaches it (payment scoring), rounds, one round."""
    rs = get_preset(preset).replace(**changes)
    assert match_end_text(rs) == words
    assert f"• Match: {words}." in rules_help(rs)
