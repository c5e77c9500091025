"""An INTERACTION_CREATE delivered twice is parsed once (bot.delivery.interactions_once)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.delivery import interactions_once


def test_a_second_delivery_of_an_interaction_is_dropped_and_others_pass() -> None:
    parsed: list[str] = []
    state = SimpleNamespace(parsers={"INTERACTION_CREATE": lambda data: parsed.append(data["id"])})
    interactions_once.act_once(state)
    for key in ("1", "2", "1", "3", "2"):
        state.parsers["INTERACTION_CREATE"]({"id": key})
    assert parsed == ["1", "2", "3"]


def test_the_ids_remembered_are_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(interactions_once, "REMEMBERED", 2)
    parsed: list[str] = []
    state = SimpleNamespace(parsers={"INTERACTION_CREATE": lambda data: parsed.append(data["id"])})
    interactions_once.act_once(state)
    for key in ("1", "2", "3", "1"):  # "1" forgotten once three were seen
        state.parsers["INTERACTION_CREATE"]({"id": key})
    assert parsed == ["1", "2", "3", "1"]
