"""House rules (bot/engine/rule_options.py, rule_wording.py): every option reachable with its allowed values,
changes validated with a reason, the differences from the preset in words; and random valid house rules played
over thousands of games (cards kept, a legal action always, every round ends, exact JSON round trips)."""

from __future__ import annotations

import json
import random

import pytest

from bot.engine import PRESETS, Match, Round, Ruleset, RulesetError, get_preset, rules_help
from bot.engine.rule_options import (
    CHOICE,
    MAX_SUGGESTIONS,
    NUMBER,
    OPTIONS,
    RANKS,
    allowed_values,
    change,
    current_value,
    house_rules,
    option,
    parse_value,
    suggestions,
    value_code,
    with_house_rules,
)
from bot.engine.rule_wording import describe, differences, in_use
from tests.engine.test_properties import check_stretch, check_whole_round

CLASSIC = get_preset("classic")


def test_every_ruleset_option_is_a_house_rule_with_a_label_and_help() -> None:
    """Every field but the name and the rules kept for matches stored before a change of play
    (``EARLIER_RULES``: internal, never a house rule) is a house rule."""
    import dataclasses

    from bot.engine.rules import EARLIER_RULES

    fields = {f.name for f in dataclasses.fields(Ruleset)} - {"name"} - set(EARLIER_RULES)
    assert {o.key for o in OPTIONS} == fields
    for o in OPTIONS:
        assert o.label and o.help and len(o.label) <= 45  # a select menu option label
        assert option(o.label) is o and option(o.key.upper()) is o and option(o.key.replace("_", "-")) is o


@pytest.mark.parametrize("opt", OPTIONS, ids=lambda o: o.key)
def test_allowed_values_read_back_and_fit_a_menu(opt: object) -> None:
    from bot.engine.rule_options import Option

    assert isinstance(opt, Option)
    values = allowed_values(opt.key, CLASSIC)
    assert 1 <= len(values) <= MAX_SUGGESTIONS
    for code, label in values:
        assert code and label and len(label) <= 100
        assert value_code(opt.key, parse_value(opt.key, code)) == code
    if opt.kind == CHOICE:
        assert not opt.typed
    assert values[0][0] == current_value(CLASSIC, opt.key) or opt.kind == CHOICE


@pytest.mark.parametrize("opt", OPTIONS, ids=lambda o: o.key)
def test_every_option_is_reachable_from_some_preset(opt: object) -> None:
    """Each option can be changed to another allowed value on some preset (alone, as a host would)."""
    from bot.engine.rule_options import Option

    assert isinstance(opt, Option)
    reached = False
    for rs in PRESETS.values():
        for code, _ in allowed_values(opt.key, rs):
            if code == current_value(rs, opt.key):
                continue
            try:
                changed = change(rs, opt.key, code)
            except RulesetError as exc:
                assert str(exc)  # a reason, never an empty refusal
                continue
            assert current_value(changed, opt.key) == code
            # Listed as a change where the match end uses it (a set number of rounds: in a match of rounds;
            # the match end's own sentence says the number when a number of rounds made it a match of rounds).
            if opt.key == "rounds" and changed.match_end != rs.match_end:
                shown = describe(changed, "match_end") in differences(changed)
            else:
                shown = describe(changed, opt.key) in differences(changed)
            assert shown == in_use(changed, opt.key), (opt.key, code, rs.name)
            reached = True
    assert reached, opt.key


def test_the_differences_from_the_preset_in_words() -> None:
    assert differences(CLASSIC) == []
    rs = change(change(CLASSIC, "draw_limit", "3"), "after drawing", "draw-up-to")
    assert differences(rs) == ["Draw up to 3 cards, then you may pass"]
    rs = change(rs, "partnership", "on")
    assert differences(rs)[0].startswith("Partnership: four players")
    assert differences(change(CLASSIC, "wild rank", "A")) == ["Aces are wild"]
    assert differences(change(CLASSIC, "wild rank", "6")) == ["Sixes are wild"]
    assert differences(change(CLASSIC, "skip cards", "J 4")) == ["J and 4 skip the next player"]
    assert differences(change(get_preset("party"), "same_rank_runs", "off")) == ["One card a turn"]
    assert differences(change(CLASSIC, "pass_when_no_draw", "on")) == [
        "You may pass when nothing can be drawn"
    ]
    assert "(house rules)" in rules_help(rs) and "Partnership" in rules_help(rs)


def test_an_impossible_combination_is_refused_with_the_reason_and_nothing_changes() -> None:
    with pytest.raises(RulesetError, match="draw limit"):
        change(CLASSIC, "after_draw", "draw-up-to")
    with pytest.raises(RulesetError, match="four players"):
        change(CLASSIC.replace(max_players=3), "partnership", "on")
    with pytest.raises(RulesetError, match="payment"):
        CLASSIC.replace(scoring="payment")  # (``change`` moves the match end along: test_options)
    with pytest.raises(RulesetError, match="not a draw card"):
        change(get_preset("switch"), "draw_ranks", "2:2")
    with pytest.raises(RulesetError, match="wild rank"):
        change(get_preset("uno-lite"), "wild rank", "2")
    assert get_preset("classic") == CLASSIC


@pytest.mark.parametrize(
    ("key", "text", "why"),
    [
        ("hand_size", "lots", "not a whole number"),
        ("hand_size", "0", "from 1"),
        ("hand_size", "none", "needs a number"),
        ("skip_ranks", "Z", "not a rank"),
        ("skip_ranks", "J J", "twice"),
        ("draw_ranks", "2", "rank:number"),
        ("draw_ranks", "2:x", "not a whole number"),
        ("last_card", "maybe", "on or off"),
        ("scoring", "golf", "choose one of"),
        ("colour", "red", "unknown house rule"),
    ],
)
def test_bad_values_are_refused_with_a_reason(key: str, text: str, why: str) -> None:
    with pytest.raises(RulesetError, match=why):
        change(CLASSIC, key, text)


def test_values_are_read_liberally() -> None:
    assert parse_value("last_card", "Yes") is True and parse_value("reshuffle", "off") is False
    assert parse_value("wild_rank", "ace") == 1 and parse_value("wild_rank", "none") is None
    assert parse_value("skip_ranks", "j, q") == (11, 12) and parse_value("skip_ranks", "none") == ()
    assert parse_value("draw_ranks", "2:2, 4:4") == ((2, 2), (4, 4))
    assert parse_value("draw_limit", "none") is None and parse_value("draw_limit", " 3 ") == 3
    assert parse_value("scoring", "Payment") == "payment"


def test_suggestions_filter_and_offer_a_typed_value() -> None:
    assert next(c for c, _ in suggestions("after_draw", "draw")) == "draw-up-to"  # starts with it first
    assert [c for c, _ in suggestions("after_draw", "up to")] == ["draw-up-to"]
    assert suggestions("draw_limit", "4", CLASSIC)[0] == ("4", "4")  # not in the common list, still offered
    assert suggestions("skip_ranks", "J Q", CLASSIC)[0] == ("J Q", "J Q")
    assert all(c != "nonsense" for c, _ in suggestions("skip_ranks", "nonsense", CLASSIC))
    assert len(suggestions("target", "", CLASSIC)) <= MAX_SUGGESTIONS


def test_house_rules_are_stored_as_json_and_read_back() -> None:
    rs = change(change(get_preset("switch"), "partnership", "on"), "hand size", "6")
    stored = json.loads(json.dumps(house_rules(rs)))
    assert stored == {"partnership": True, "hand_size": 6}
    assert with_house_rules("switch", stored) == rs
    assert house_rules(get_preset("party")) == {}
    with pytest.raises(RulesetError):
        with_house_rules("switch", {"partnership": "perhaps"})
    with pytest.raises(RulesetError):
        with_house_rules("poker", {})


# --------------------------------------------------------------------------------------------- properties
def random_value(key: str, rng: random.Random) -> object:
    o = option(key)
    if o.kind == CHOICE:
        return rng.choice(o.choices)[0]
    if o.kind == NUMBER:
        if o.none_means is not None and rng.random() < 0.3:
            return "none"
        return str(rng.randint(o.low, min(o.high, o.low + 12)))
    ranks = rng.sample(range(1, 14), rng.randint(0, 2))
    if o.kind == RANKS:
        return " ".join(str(r) for r in ranks) or "none"
    return " ".join(f"{r}:{rng.randint(1, 6)}" for r in ranks) or "none"


def random_house_rules(rng: random.Random) -> Ruleset:
    """A preset with a few random single changes, each kept only when the engine accepts it."""
    rs = rng.choice(list(PRESETS.values()))
    for _ in range(rng.randint(1, 6)):
        o = rng.choice(OPTIONS)
        if o.key == "turn_cap":
            continue  # a random cap of thousands of turns only makes games slow
        try:
            rs = change(rs, o.key, random_value(o.key, rng))
        except RulesetError:
            continue
    if rng.random() < 0.25 and rs.min_players <= 4 <= rs.max_players:
        rs = rs.replace(partnership=True)
    return rs


def test_thousands_of_games_with_random_house_rules_keep_cards_and_end() -> None:
    rng = random.Random(17)
    games = 0
    partnership = 0
    for g in range(2000):
        rs = random_house_rules(rng)
        n = rng.randint(rs.min_seats, rs.max_seats)
        r = check_whole_round(rs, n, g % n, g, random.Random(g))
        partnership += rs.partnership
        if g % 10 == 0:  # the finished round's JSON reads back exactly
            assert Round.from_json(json.loads(json.dumps(r.to_json()))).to_json() == r.to_json()
        games += 1
    assert games == 2000 and partnership > 300


@pytest.mark.parametrize("seed", range(24))
def test_random_house_rules_step_by_step(seed: int) -> None:
    """Every step of a stretch: exact JSON round trip, fast path agrees, illegal actions change nothing."""
    rng = random.Random(1000 + seed)
    rs = random_house_rules(rng)
    n = rng.randint(rs.min_seats, rs.max_seats)
    check_stretch(rs, n, seed, skip=rng.randint(0, 60), steps=30)


def test_random_house_rules_matches_round_trip_through_json() -> None:
    rng = random.Random(5)
    for g in range(40):
        rs = random_house_rules(rng).replace(match_end="rounds", rounds=2, scoring="penalty", target=100)
        n = rng.randint(rs.min_seats, rs.max_seats)
        m = Match.new(rs, n, seed=g)
        play = random.Random(g)
        steps = 0
        while not m.over:
            while not m.round.over:
                m.apply(play.choice(m.round.legal_actions()))
                steps += 1
                if steps % 23 == 0 or m.round.over:
                    data = json.loads(json.dumps(m.to_json()))
                    assert Match.from_json(data).to_json() == data
            if not m.over:
                m.start_next_round()
        assert m.round_number == 2
        if rs.partnership:
            assert len(m.side_ranking()) == 2
