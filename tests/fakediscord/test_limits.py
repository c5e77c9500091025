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
    one = row(text_input("i", label="L"))
    assert limits.check_modal({"custom_id": "m", "title": "T", "components": [one]}) == []
    six = [row(text_input(f"i{n}", label="L")) for n in range(6)]
    assert limits.check_modal({"custom_id": "m", "title": "T" * 46, "components": six}) == [
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


def command(*options: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": "eights", "description": "Crazy Eights", "options": list(options), **extra}


def option(name: str, kind: int = 3, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "description": f"The {name}", **extra}


def test_command_localizations_use_discords_locales_and_rules() -> None:
    fine = command(
        option("preset", name_localizations={"de": "vorgabe", "pt-BR": "predefinição"}),
        name_localizations={"fr": "huit", "es-ES": "ochos"},
        description_localizations={"de": "Verrückte Achten"},
    )
    assert limits.check_command_schema(fine) == []
    bad = command(
        option("preset", name_localizations={"de": "Vorgabe", "en": "preset"}),
        description_localizations={"fr": "", "es-ES": "d" * 101},
    )
    assert limits.check_command_schema(bad) == [
        "command 'eights': description_localizations[fr] must have 1 to 100 characters",
        "command 'eights': description_localizations[es-ES] must have 1 to 100 characters",
        "command 'eights' option 'preset': name_localizations[de] must be lowercase letters, digits, - or _",
        "command 'eights' option 'preset': name_localizations has invalid locale 'en'",
    ]
    # User and message commands may have capitals and spaces, in their translations too.
    user_command = {"type": 2, "name": "Invite to table", "name_localizations": {"de": "Zum Tisch einladen"}}
    assert limits.check_command_schema(user_command) == []


def test_choices_have_names_and_values_of_at_most_100_characters() -> None:
    choices = [
        {"name": "n" * 100, "value": "v" * 100, "name_localizations": {"de": "klassisch"}},
        {"name": "", "value": "v" * 101, "name_localizations": {"xx": "x", "fr": "c" * 101}},
    ]
    assert limits.check_command_schema(command(option("preset", choices=choices))) == [
        "command 'eights' option 'preset' choice 1: name must have 1 to 100 characters",
        "command 'eights' option 'preset' choice 1: name_localizations has invalid locale 'xx'",
        "command 'eights' option 'preset' choice 1: name_localizations[fr] must have 1 to 100 characters",
        "command 'eights' option 'preset' choice 1: value longer than 100 characters",
    ]


def test_a_command_counts_at_most_8000_characters_with_its_longest_translations() -> None:
    # 6 + 12 for the command; each option 32 + 100, with a translated description of 100 characters.
    def long_option(n: int) -> dict[str, Any]:
        return option(f"{n:02d}" + "o" * 30, description="d", description_localizations={"de": "d" * 100})

    subcommands = [option(f"sub{s}", 1, options=[long_option(n) for n in range(25)]) for s in range(2)]
    total = 6 + 12 + 2 * (len("sub0") + len("The sub0")) + 50 * 132
    assert total <= 8000 and limits.check_command_schema(command(*subcommands)) == []
    third = option("sub2", 1, options=[long_option(n) for n in range(12)])
    assert limits.check_command_schema(command(*subcommands, third)) == [
        f"command 'eights': {total + 12 + 12 * 132} characters in all (at most 8000)"
    ]


def test_option_bounds_are_sane() -> None:
    fine = command(
        option("seats", 4, min_value=2, max_value=8),
        option("odds", 10, min_value=-0.5, max_value=0.5),
        option("nick", 3, min_length=0, max_length=6000),
    )
    assert limits.check_command_schema(fine) == []
    bad = command(
        option("seats", 4, min_value=9, max_value=2.5),
        option("nick", 3, min_length=10, max_length=6001),
        option("tag", 3, min_length=-1, max_length=0),
        option("note", 3, min_length=7, max_length=6),
    )
    assert limits.check_command_schema(bad) == [
        "command 'eights' option 'seats': max_value of an integer option must be an integer",
        "command 'eights' option 'seats': min_value 9 is above max_value 2.5",
        "command 'eights' option 'nick': max_length 6001 not within 1 to 6000",
        "command 'eights' option 'tag': min_length -1 not within 0 to 6000",
        "command 'eights' option 'tag': max_length 0 not within 1 to 6000",
        "command 'eights' option 'note': min_length 7 is above max_length 6",
    ]


def test_subcommands_and_groups_nest_as_discord_allows() -> None:
    group = option("table", 2, options=[option("new", 1, options=[option("preset")])])
    assert limits.check_command_schema(command(group, option("hand", 1))) == []
    assert limits.check_command_schema(command(option("hand", 1), option("preset"))) == [
        "command 'eights': subcommands and groups cannot be mixed with other options"
    ]
    in_group = option("table", 2, options=[option("new", 1), option("preset")])
    assert limits.check_command_schema(command(in_group)) == [
        "command 'eights' option 'table': a subcommand group holds only subcommands"
    ]
    nested = option("table", 2, options=[option("inner", 2, options=[option("new", 1)])])
    assert limits.check_command_schema(command(nested)) == [
        "command 'eights' option 'table': a subcommand group holds only subcommands"
    ]
    in_sub = option("new", 1, options=[option("deeper", 1)])
    assert limits.check_command_schema(command(in_sub)) == [
        "command 'eights' option 'new': a subcommand cannot hold subcommands or groups"
    ]


def text_input(custom_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": 4, "custom_id": custom_id, "style": 1, **extra}


def modal(*components: dict[str, Any], title: str = "Rename") -> dict[str, Any]:
    return {"custom_id": "m", "title": title, "components": list(components)}


def test_modal_text_inputs() -> None:
    fine = modal(
        row(text_input("a", label="L" * 45, placeholder="p" * 100, value="v" * 4000, max_length=4000)),
        # discord.py 2.6+: a label component (type 18) carries the label of the text input it holds.
        {"type": 18, "label": "House value", "description": "d" * 100, "component": text_input("b")},
    )
    assert limits.check_modal(fine) == []
    bad = modal(
        row(text_input("a", label="L" * 46, placeholder="p" * 101, value="v" * 4001)),
        row(text_input("a", label="Again", min_length=4001, max_length=0)),
        row(text_input("", label="No id")),
        {"type": 18, "label": "", "component": text_input("x" * 101)},
    )
    assert limits.check_modal(bad) == [
        "modal component 0 text input label must have 1 to 45 characters",
        "modal component 0 text input placeholder longer than 100 characters",
        "modal component 0 text input value longer than 4000 characters",
        "modal custom_id 'a' used twice",
        "modal component 1 text input min_length 4001 not within 0 to 4000",
        "modal component 1 text input max_length 0 not within 1 to 4000",
        "modal component 2: custom_id must have 1 to 100 characters",
        "modal component 3 label must have 1 to 45 characters",
        "modal component 3: custom_id must have 1 to 100 characters",
    ]
    assert limits.check_modal(modal(title="T" * 45)) == ["modal needs 1 to 5 components"]


def test_select_defaults_fit_max_values() -> None:
    select = string_select("s", 3, max_values=2)
    select["options"][0]["default"] = select["options"][1]["default"] = True
    assert limits.check_components([row(select)]) == []
    select["options"][2]["default"] = True
    assert limits.check_components([row(select)]) == [
        "row 0 component 0 has 3 default options (max_values 2)"
    ]
    users = {"type": 5, "custom_id": "u", "default_values": [{"id": "1", "type": "user"}] * 2}
    assert limits.check_components([row(users)]) == ["row 0 component 0 has 2 default_values (max_values 1)"]
    assert limits.check_components([row(string_select("s", 3, min_values=3, max_values=2))]) == [
        "row 0 component 0 has invalid min_values/max_values 3/2"
    ]


def test_link_button_urls_have_at_most_512_characters() -> None:
    url = "https://example.com/" + "x" * 492
    assert limits.check_components([row({"type": 2, "style": 5, "label": "l", "url": url})]) == []
    assert limits.check_components([row({"type": 2, "style": 5, "label": "l", "url": url + "x"})]) == [
        "row 0 component 0 url longer than 512 characters"
    ]


def test_allowed_mentions_and_nonce() -> None:
    fine = {
        "content": "hi",
        "nonce": "n" * 25,
        "allowed_mentions": {"parse": ["roles"], "users": ["1"] * 100},
    }
    assert limits.check_message(fine, creating=True) == []
    bad = {
        "content": "hi",
        "nonce": "n" * 26,
        "allowed_mentions": {"parse": ["users"], "users": ["1"], "roles": ["2"] * 101},
    }
    assert limits.check_message(bad, creating=True) == [
        'allowed_mentions: parse ["users"] and a users list are mutually exclusive',
        "allowed_mentions: 101 roles (at most 100)",
        "nonce has 26 characters (at most 25)",
    ]


def test_embed_colour_links_and_timestamp() -> None:
    fine = {
        "color": 0xFFFFFF,
        "url": "https://example.com/table",
        "image": {"url": "attachment://rating.png"},
        "thumbnail": {"url": "http://example.com/t.png"},
        "timestamp": "2025-01-02T03:04:05.678000+00:00",
    }
    assert limits.check_embeds([fine, {"color": 0, "timestamp": "2025-01-02T03:04:05Z"}]) == []
    bad = {
        "color": 0x1000000,
        "url": "attachment://rating.png",
        "image": {"url": "ftp://example.com/a.png"},
        "thumbnail": {"url": "https://"},
        "timestamp": "yesterday",
    }
    assert limits.check_embeds([bad, {"color": -1}]) == [
        "embed 0 color 16777216 is not an integer from 0 to 0xffffff",
        "embed 0 url has scheme 'attachment'; it must be one of ('http', 'https')",
        "embed 0 image url has scheme 'ftp'; it must be one of ('http', 'https', 'attachment')",
        "embed 0 thumbnail url is not a well formed URL",
        "embed 0 timestamp 'yesterday' is not an ISO 8601 date and time",
        "embed 1 color -1 is not an integer from 0 to 0xffffff",
    ]
