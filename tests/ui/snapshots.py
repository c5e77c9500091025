"""Building service snapshots and hand views by hand, for rendering and publisher tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.engine import card_label, card_name, parse_card
from bot.service import HandCard, HandView, SeatView, TableEvent, TableSnapshot

ALICE, BOB = 1001, 1002


def seat(position: int, name: str, user_id: int | None, **changes: Any) -> SeatView:
    values: dict[str, Any] = {
        "position": position,
        "user_id": user_id,
        "name": name,
        "is_host": position == 0,
        "is_cpu": user_id is None,
        "cpu_level": "normal" if user_id is None else None,
        "taken_over": False,
        "card_count": 5,
        "total": 0,
        "last_round_score": None,
        "to_act": False,
        "timeouts_in_a_row": 0,
    }
    values.update(changes)
    return SeatView(**values)


def snapshot(**changes: Any) -> TableSnapshot:
    """A table of three (alice, bob, a CPU) in round 1, alice to move, target 9♠."""
    seats = (
        seat(0, "alice", ALICE, to_act=True),
        seat(1, "bob", BOB),
        seat(2, "CPU 1", None),
    )
    values: dict[str, Any] = {
        "table_id": 7,
        "guild_id": 1,
        "channel_id": 2,
        "host_id": ALICE,
        "status": "playing",
        "phase": "playing",
        "preset": "classic",
        "target_score": 100,
        "match_end": "until a total passes 100; lowest total wins",
        "max_seats": 7,
        "turn_timeout": 90.0,
        "auto_draw": True,
        "next_round_pause": 10.0,
        "seats": seats,
        "round_number": 1,
        "round_token": "7:1",
        "target_card": "9S",
        "declared_suit": None,
        "direction": 1,
        "pending_draw": 0,
        "stock_size": 30,
        "to_act": 0,
        "deadline": 1_700_000_090.0,
        "deadline_kind": "turn",
        "totals": (0, 0, 0),
        "round_scores": (),
        "recent": (TableEvent("played", 2, {"card": "9S"}, "engine"),),
        "ranking": (),
        "board_message_id": 555,
    }
    values.update(changes)
    return TableSnapshot(**values)


def to_act(snap: TableSnapshot, position: int | None) -> TableSnapshot:
    seats = tuple(replace(s, to_act=s.position == position) for s in snap.seats)
    return replace(snap, seats=seats, to_act=position)


def hand_card(code: str, *, playable: bool = False, wild: bool = False) -> HandCard:
    card = parse_card(code)
    return HandCard(code=code, label=card_label(card), name=card_name(card), playable=playable, wild=wild)


def hand(codes: list[str], playable: set[str], snap: TableSnapshot | None = None, **changes: Any) -> HandView:
    snap = snap or snapshot()
    values: dict[str, Any] = {
        "table_id": snap.table_id,
        "round_token": snap.round_token,
        "position": 0,
        "cards": tuple(hand_card(c, playable=c in playable, wild=c.startswith("8")) for c in codes),
        "your_turn": snap.to_act == 0,
        "can_draw": True,
        "can_pass": False,
        "must_name_suit": False,
        "can_call_last": False,
        "catch_targets": (),
        "taken_over": False,
        "deadline": snap.deadline,
        "recent_private": (),
        "snapshot": snap,
    }
    values.update(changes)
    return HandView(**values)
