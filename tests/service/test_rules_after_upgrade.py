"""A preset changed by an upgrade (Switch's decks, de0ef12): a match in play goes on under the rules it was
dealt with, which the table's rules follow; a lobby, not played yet, takes today's preset. A table's record
stores the ruleset it was opened with, its state the house rules as differences from the preset of its day."""

from __future__ import annotations

from typing import Any

from bot.engine import Match
from bot.engine.rules import EARLIER_RULES, PRESETS, rules_help
from bot.service.registry import live_from
from bot.store.base import SeatRecord, TableRecord


def _old_switch_json() -> dict[str, Any]:
    """The Switch ruleset as the build before de0ef12 / e4dde68 stored it at /eights new."""
    data = PRESETS["switch"].replace(decks="two-above-5").to_json()
    for key in EARLIER_RULES:
        data.pop(key, None)
    return data


def _record(status: str) -> TableRecord:
    return TableRecord(
        id=7,
        guild_id=1,
        channel_id=2,
        host_id=10,
        status=status,  # type: ignore[arg-type]
        ruleset=_old_switch_json(),
        options={"preset": "switch", "target": 250, "seats": 3, "seats_chosen": True, "auto_draw": True},
        turn_timeout=60.0,
        board_message_id=None,
        created_at=0.0,
        updated_at=0.0,
    )


def _seats() -> list[SeatRecord]:
    return [SeatRecord(position=i, user_id=10 + i, display_name=f"P{i}") for i in range(3)]


def _doc(phase: str) -> dict[str, Any]:
    return {
        "format": 1,
        "phase": phase,
        "host_id": 10,
        "seed": 12345,
        "timeouts": [0, 0, 0],
        "kicked": [],
        "recent": [],
        "round_winners": [],
        "opened_at": 0.0,
        "last_human_at": 0.0,
        "lobby_until": 600.0 if phase == "lobby" else None,
        "pause_until": None,
        "turn": None,
        "house_rules": {},  # a plain Switch table: nothing differed from the preset of its day
    }


def test_a_lobby_opened_before_the_upgrade_is_dealt_under_todays_preset() -> None:
    """A lobby has not been played: opened under the old Switch preset (one deck for three) and started
    after the upgrade, it deals as today's preset does, and /eights rules says so."""
    live = live_from(_record("lobby"), _seats(), {**_doc("lobby"), "match": None}, 1)
    assert live.ruleset.decks == PRESETS["switch"].decks == "two-above-2"  # type: ignore[union-attr]


def test_a_match_in_play_before_the_upgrade_keeps_its_rules_for_the_table() -> None:
    """A three-seat Switch match dealt from one deck before the upgrade goes on under the rules it was dealt
    with (its match holds them): the table's rules, which /eights rules shows and the match's result
    records, say one deck, not today's preset's "two decks above 2 players"."""
    old = Match.new(PRESETS["switch"].replace(decks="two-above-5"), 3, seed=12345, dealer=2)
    state = old.to_json()
    for key in EARLIER_RULES:
        state["ruleset"].pop(key, None)
        state["round"]["ruleset"].pop(key, None)
    live = live_from(_record("playing"), _seats(), {**_doc("playing"), "match": state}, 5)
    assert live.match is not None and live.match.ruleset.decks_for(3) == 1
    assert live.ruleset.decks == live.match.ruleset.decks  # type: ignore[union-attr]
    assert rules_help(live.ruleset) == rules_help(live.match.ruleset)  # type: ignore[arg-type]
