"""Actions and events: values, JSON, visibility."""

from __future__ import annotations

import json

import pytest

from bot.engine import Action, ActionKind, EngineError, Event, events_for, parse_card


@pytest.mark.parametrize(
    "action",
    [
        Action.play(2, parse_card("KH")),
        Action.play(0, parse_card("8S"), 1),
        Action.draw(3),
        Action.pass_(1),
        Action.name_suit(0, 2),
        Action.call_last(4),
        Action.catch(1, 3),
    ],
)
def test_action_json_round_trip(action: Action) -> None:
    data = json.loads(json.dumps(action.to_json()))
    assert Action.from_json(data) == action
    assert data["kind"] == action.kind.value


def test_actions_are_values() -> None:
    assert Action.play(1, parse_card("2C")) == Action(ActionKind.PLAY, 1, parse_card("2C"))
    assert Action.play(1, parse_card("2C")) != Action.play(1, parse_card("2C"), 0)
    assert hash(Action.draw(1)) == hash(Action(ActionKind.DRAW, 1))
    assert Action.catch(0, 2).target == 2 and Action.catch(0, 2).card is None
    assert Action.play(0, parse_card("KH")).to_json() == {"kind": "play", "seat": 0, "card": "KH"}
    assert Action.name_suit(0, 2).to_json() == {"kind": "suit", "seat": 0, "suit": "H"}


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"kind": "dance", "seat": 0}, 924),
        ({"kind": "play", "seat": 0}, 903),
        ({"kind": "play", "seat": 0, "card": "ZZ"}, 903),
        ({"kind": "suit", "seat": 0, "suit": "purple"}, 906),
        ({"kind": "suit", "seat": 0}, 906),
        ({"kind": "catch", "seat": 0}, 924),
        ({"seat": 0}, 924),
    ],
)
def test_action_from_bad_json(data: dict[str, object], code: int) -> None:
    with pytest.raises(EngineError) as info:
        Action.from_json(data)
    assert info.value.code == code


def test_event_json_and_visibility() -> None:
    public = Event("drew", 1, {"count": 1})
    private = Event("drew_cards", 1, {"cards": ["KH"]}, 1)
    for e in (public, private):
        assert Event.from_json(json.loads(json.dumps(e.to_json()))) == e
    assert events_for([public, private], 1) == [public, private]
    assert events_for([public, private], 0) == [public]
    assert events_for([public, private], None) == [public]
    assert public.public and not private.public
    assert private.visible(1) and not private.visible(2)


def test_apply_accepts_a_kind_given_as_text_and_refuses_unknown_kinds() -> None:
    from bot.engine import Round, get_preset

    r = Round.new(get_preset("classic"), 2, 1, seed=3)
    before = r.to_json()
    with pytest.raises(EngineError) as info:
        r.apply(Action("dance", 0))  # type: ignore[arg-type]
    assert info.value.code == 924 and r.to_json() == before
    r.apply(Action("draw", 0))  # type: ignore[arg-type]
    assert r.hand_sizes[0] == 8
