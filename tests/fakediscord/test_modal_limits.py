"""The fake Discord must refuse the modals Discord refuses, or a bot defect there would pass every test."""

from __future__ import annotations

from typing import Any

from tests.fakediscord import limits


def _text_input(custom_id: str) -> dict[str, Any]:
    return {"type": 4, "custom_id": custom_id, "label": "Value", "style": 1, "max_length": 100}


def test_the_fake_refuses_a_modal_custom_id_over_100_characters() -> None:
    """Discord's documentation, Interactions › Receiving and Responding › Modal: "custom_id —
    Developer-defined identifier for the modal, max 100 characters". The fake checks only that a modal has
    a custom_id (tests/fakediscord/limits.py: check_modal), so a bot sending a 101-character modal id passes
    the tests while Discord answers 400 Invalid Form Body."""
    modal = {
        "custom_id": "e8m:" + "1" * 97,  # 101 characters
        "title": "House rule",
        "components": [{"type": 1, "components": [_text_input("value")]}],
    }
    assert len(modal["custom_id"]) == 101
    assert limits.check_modal(modal) != []


def test_the_fake_refuses_two_text_inputs_in_one_action_row_of_a_modal() -> None:
    """Discord's documentation, Components › Action Row: an action row holds up to 5 buttons, a single
    select, or a single text input. The fake walks every text input of a modal's row without counting
    them (check_modal), so a row of two text inputs is accepted."""
    modal = {
        "custom_id": "e8m:1::htype:hand_size",
        "title": "House rule",
        "components": [{"type": 1, "components": [_text_input("value"), _text_input("other")]}],
    }
    assert limits.check_modal(modal) != []
