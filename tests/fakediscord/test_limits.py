"""Discord's limits as the fake checks them."""

from __future__ import annotations

from typing import Any

from tests.fakediscord import limits


def button(custom_id: str, label: str = "b", **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label, **extra}


def row(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(items)}


def string_select(custom_id: str, count: int, **extra: Any) -> dict[str, Any]:
    options = [{"label": f"o{i}", "value": f"v{i}"} for i in range(count)]
    return {"type": 3, "custom_id": custom_id, "options": options, **extra}


def test_five_rows_of_five_buttons_is_the_most_a_message_holds() -> None:
    full = [row(*(button(f"r{r}b{b}") for b in range(5))) for r in range(5)]
    assert limits.check_components(full) == []
    assert limits.check_components([*full, row(button("extra"))]) == ["6 action rows (at most 5)"]
    six = [row(*(button(f"b{b}") for b in range(6)))]
    assert limits.check_components(six) == ["action row 0 has 6 buttons (at most 5)"]


def test_a_select_has_one_to_25_options_and_a_row_to_itself() -> None:
    assert limits.check_components([row(string_select("s", 25, max_values=25))]) == []
    assert "has 26 options (1 to 25)" in limits.check_components([row(string_select("s", 26))])[0]
    assert "has 0 options" in limits.check_components([row(string_select("s", 0))])[0]
    assert limits.check_components([row(string_select("s", 3), button("b"))]) == [
        "action row 0 mixes a select with other components"
    ]
    assert limits.check_components([row(string_select("s", 2, max_values=3))]) == [
        "row 0 component 0 max_values 3 exceeds its 2 options"
    ]


def test_custom_ids_are_required_unique_and_short() -> None:
    assert limits.check_components([row(button("same"), button("same"))]) == [
        "custom_id 'same' used twice in one message"
    ]
    assert "longer than 100" in limits.check_components([row(button("x" * 101))])[0]
    assert limits.check_components([row({"type": 2, "style": 1, "label": "no id"})]) == [
        "row 0 component 0 needs a custom_id"
    ]
    link = {"type": 2, "style": 5, "label": "rules", "url": "https://example.com"}
    assert limits.check_components([row(link)]) == []


def test_content_and_empty_messages() -> None:
    assert limits.check_message({"content": "x" * 2000}, creating=True) == []
    assert limits.check_message({"content": "x" * 2001}, creating=True) == [
        "content has 2001 characters (at most 2000)"
    ]
    assert limits.check_message({"content": ""}, creating=True) == ["cannot send an empty message"]
    # An edit may leave fields out: what it does not send stays as it was.
    assert limits.check_message({}, creating=False) == []


def test_embed_limits() -> None:
    fine = {"title": "t" * 256, "description": "d" * 4096, "fields": [{"name": "n", "value": "v"}] * 25}
    assert limits.check_embeds([fine]) == []
    assert limits.check_embeds([{"fields": [{"name": "n", "value": "v"}] * 26}]) == [
        "embed 0 has 26 fields (at most 25)"
    ]
    assert limits.check_embeds([{"fields": [{"name": "n", "value": "v" * 1025}]}]) == [
        "embed 0 field 0 value has 1025 characters (at most 1024)"
    ]
    assert limits.check_embeds([{"footer": {"text": "f" * 2049}}]) == [
        "embed 0 footer has 2049 characters (at most 2048)"
    ]
    two = [{"description": "d" * 3001}, {"description": "d" * 3000}]
    assert limits.check_embeds(two) == ["embeds hold 6001 characters in all (at most 6000)"]
    assert limits.check_embeds([{}] * 11) == ["11 embeds (at most 10)"]


def test_autocomplete_choices_and_modals() -> None:
    choices = [{"name": f"c{i}", "value": f"c{i}"} for i in range(26)]
    assert limits.check_autocomplete_choices(choices[:25], 3) == []
    assert limits.check_autocomplete_choices(choices, 3) == ["26 autocomplete choices (at most 25)"]
    assert limits.check_autocomplete_choices([{"name": "one", "value": "1"}], 4) == [
        "autocomplete choice 0 value must be a number"
    ]
    text_input = {"type": 1, "components": [{"type": 4, "custom_id": "i", "label": "L", "style": 1}]}
    assert limits.check_modal({"custom_id": "m", "title": "T", "components": [text_input]}) == []
    assert limits.check_modal({"custom_id": "m", "title": "T" * 46, "components": [text_input] * 6}) == [
        "modal title must have 1 to 45 characters",
        "modal needs 1 to 5 components",
    ]


def test_command_schemas_as_discord_validates_them() -> None:
    good = {
        "name": "eights",
        "description": "Crazy Eights",
        "options": [
            {
                "type": 1,
                "name": "new",
                "description": "Open a table",
                "options": [
                    {"type": 3, "name": "preset", "description": "Rules", "required": True},
                    {"type": 4, "name": "seats", "description": "Seats"},
                ],
            }
        ],
    }
    assert limits.check_command_schema(good) == []
    bad = {
        "name": "Eights",
        "description": "",
        "options": [
            {"type": 4, "name": "seats", "description": "Seats"},
            {
                "type": 3,
                "name": "preset",
                "description": "Rules",
                "required": True,
                "autocomplete": True,
                "choices": [{"name": "a", "value": "a"}],
            },
        ],
    }
    assert limits.check_command_schema(bad) == [
        "command 'Eights': name must be 1-32 lowercase letters, digits, - or _",
        "command 'Eights': description must have 1 to 100 characters",
        "command 'Eights' option 'preset': required options must come before optional ones",
        "command 'Eights' option 'preset': autocomplete cannot be combined with choices",
    ]
