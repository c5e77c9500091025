"""How a replay step of a crazier-abilities match looks (issue 27): this game's board fields, the viewer's
hand as this game's cards, and what only the viewer learned in the step (cards drawn, the card an Elven
Princess looked at) in a field of its own; a step of the standard game shows no such field."""

from __future__ import annotations

from bot.service.models import TableEvent
from bot.service.replays import ReplayStep
from bot.ui.replays import replay_embed
from tests.ui.snapshots import snapshot
from tests.ui.test_crazier import snap_of, table

HANDS = [
    ["9B", "10B", "2O", "KO", "5O", "QP", "7P"],
    ["AG", "4G", "6G", "8B", "JG", "QG", "KG"],
]


def step(**changes: object) -> ReplayStep:
    fields: dict[str, object] = {
        "table_id": 7,
        "index": 3,
        "count": 10,
        "round_number": 1,
        "next_round_index": None,
        "lines": (TableEvent("looked", 1, {"count": 1}, "engine"),),
        "snapshot": snap_of(table(HANDS, "3G", in_play=[[], ["4P"]])),
        "hand": tuple(HANDS[1]),
        "private": (
            TableEvent("looked_card", 1, {"card": "9P"}, "engine"),
            TableEvent("drew_cards", 1, {"cards": ["KG"]}, "engine"),
        ),
        "version": 9,
    }
    fields.update(changes)
    return ReplayStep(**fields)  # type: ignore[arg-type]


def fields(embed: object) -> dict[str, str]:
    return {str(f.name): str(f.value) for f in embed.fields}  # type: ignore[attr-defined]


def test_a_crazier_step_shows_its_board_the_viewers_cards_and_what_only_they_saw() -> None:
    shown = fields(replay_embed(step()))
    assert "3G" in shown["Top card"] and "colour to follow" in shown["Top card"]
    assert "Elven Princess" in shown["In play — Ben"]
    hand = shown["Your hand then (7)"]
    assert "4G Elven Princess (green ☥)" in hand and "8B (blue ☾)" in hand
    assert not any(card in hand for card in HANDS[0])
    only = shown["Only you saw then"]
    assert "9P" in only and "You drew KG" in only


def test_an_onlooker_and_a_standard_step_have_no_private_field() -> None:
    assert "Only you saw then" not in fields(replay_embed(step(hand=None, private=())))
    standard = step(snapshot=snapshot(), hand=("KH",), private=(TableEvent("drew_cards", 1, {"cards": [5]}),))
    shown = fields(replay_embed(standard))
    assert "Only you saw then" not in shown and shown["Your hand then (1)"] == "K♥"
