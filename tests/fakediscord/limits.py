"""Discord's limits on what a bot may send; each check returns the list of broken rules (empty when fine)."""

from __future__ import annotations

import re
from typing import Any

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_EMBED_TITLE = 256
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR = 256
MAX_ROWS = 5
MAX_BUTTONS_PER_ROW = 5
MAX_SELECT_OPTIONS = 25
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_PLACEHOLDER = 150
MAX_OPTION_TEXT = 100
MAX_AUTOCOMPLETE_CHOICES = 25
MAX_MODAL_TITLE = 45

FLAG_COMPONENTS_V2 = 1 << 15

_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def check_embeds(embeds: Any) -> list[str]:
    if not isinstance(embeds, list):
        return ["embeds must be a list"]
    errors: list[str] = []
    if len(embeds) > MAX_EMBEDS:
        errors.append(f"{len(embeds)} embeds (at most {MAX_EMBEDS})")
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            errors.append(f"embed {i} is not an object")
            continue
        title, description = _len(embed.get("title")), _len(embed.get("description"))
        if title > MAX_EMBED_TITLE:
            errors.append(f"embed {i} title has {title} characters (at most {MAX_EMBED_TITLE})")
        if description > MAX_EMBED_DESCRIPTION:
            errors.append(
                f"embed {i} description has {description} characters (at most {MAX_EMBED_DESCRIPTION})"
            )
        fields = embed.get("fields") or []
        if len(fields) > MAX_EMBED_FIELDS:
            errors.append(f"embed {i} has {len(fields)} fields (at most {MAX_EMBED_FIELDS})")
        total += title + description
        for j, fld in enumerate(fields):
            name, value = _len(fld.get("name")), _len(fld.get("value"))
            if not name or not value:
                errors.append(f"embed {i} field {j} needs a non-empty name and value")
            if name > MAX_FIELD_NAME:
                errors.append(f"embed {i} field {j} name has {name} characters (at most {MAX_FIELD_NAME})")
            if value > MAX_FIELD_VALUE:
                errors.append(f"embed {i} field {j} value has {value} characters (at most {MAX_FIELD_VALUE})")
            total += name + value
        footer = _len((embed.get("footer") or {}).get("text"))
        author = _len((embed.get("author") or {}).get("name"))
        if footer > MAX_FOOTER:
            errors.append(f"embed {i} footer has {footer} characters (at most {MAX_FOOTER})")
        if author > MAX_AUTHOR:
            errors.append(f"embed {i} author name has {author} characters (at most {MAX_AUTHOR})")
        total += footer + author
    if total > MAX_EMBED_TOTAL:
        errors.append(f"embeds hold {total} characters in all (at most {MAX_EMBED_TOTAL})")
    return errors


def _check_button(where: str, button: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    style = button.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        errors.append(f"{where} has invalid style {style!r}")
    if style == 5:
        if not button.get("url") or "custom_id" in button:
            errors.append(f"{where} is a link button: it needs a url and no custom_id")
    elif style != 6 and not button.get("custom_id"):
        errors.append(f"{where} needs a custom_id")
    if not button.get("label") and not button.get("emoji") and style != 6:
        errors.append(f"{where} needs a label or an emoji")
    if _len(button.get("label")) > MAX_BUTTON_LABEL:
        errors.append(f"{where} label longer than {MAX_BUTTON_LABEL} characters")
    return errors


def _check_select(where: str, select: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    if not select.get("custom_id"):
        errors.append(f"{where} needs a custom_id")
    if _len(select.get("placeholder")) > MAX_PLACEHOLDER:
        errors.append(f"{where} placeholder longer than {MAX_PLACEHOLDER} characters")
    min_values, max_values = select.get("min_values", 1), select.get("max_values", 1)
    if not (0 <= min_values <= 25 and 1 <= max_values <= 25 and min_values <= max_values):
        errors.append(f"{where} has invalid min_values/max_values {min_values}/{max_values}")
    if select.get("type") == 3:
        options = select.get("options") or []
        if not 1 <= len(options) <= MAX_SELECT_OPTIONS:
            errors.append(f"{where} has {len(options)} options (1 to {MAX_SELECT_OPTIONS})")
        if max_values > len(options):
            errors.append(f"{where} max_values {max_values} exceeds its {len(options)} options")
        values = [o.get("value") for o in options]
        if len(set(values)) != len(values):
            errors.append(f"{where} has duplicate option values")
        for k, option in enumerate(options):
            for key in ("label", "value"):
                if not 1 <= _len(option.get(key)) <= MAX_OPTION_TEXT:
                    errors.append(f"{where} option {k} {key} must have 1 to {MAX_OPTION_TEXT} characters")
            if _len(option.get("description")) > MAX_OPTION_TEXT:
                errors.append(f"{where} option {k} description longer than {MAX_OPTION_TEXT} characters")
    return errors


def check_components(components: Any, flags: int = 0) -> list[str]:
    """Classic action rows: at most 5 rows; a row holds 1 to 5 buttons or exactly one select."""
    if not isinstance(components, list):
        return ["components must be a list"]
    if flags & FLAG_COMPONENTS_V2:
        # Layout components (IS_COMPONENTS_V2) are not modelled beyond the custom_id checks below.
        return _check_custom_ids(components)
    errors: list[str] = []
    if len(components) > MAX_ROWS:
        errors.append(f"{len(components)} action rows (at most {MAX_ROWS})")
    for r, row in enumerate(components):
        if not isinstance(row, dict) or row.get("type") != 1:
            errors.append(f"top-level component {r} is not an action row")
            continue
        items = row.get("components") or []
        if not items:
            errors.append(f"action row {r} is empty")
        buttons = [c for c in items if c.get("type") == 2]
        selects = [c for c in items if c.get("type") in (3, 5, 6, 7, 8)]
        if len(buttons) > MAX_BUTTONS_PER_ROW:
            errors.append(f"action row {r} has {len(buttons)} buttons (at most {MAX_BUTTONS_PER_ROW})")
        if selects and len(items) > 1:
            errors.append(f"action row {r} mixes a select with other components")
        if len(buttons) + len(selects) != len(items):
            errors.append(f"action row {r} holds a component that is neither a button nor a select")
        for c, item in enumerate(items):
            where = f"row {r} component {c}"
            if item.get("type") == 2:
                errors.extend(_check_button(where, item))
            elif item.get("type") in (3, 5, 6, 7, 8):
                errors.extend(_check_select(where, item))
    errors.extend(_check_custom_ids(components))
    return errors


def _check_custom_ids(components: list[Any]) -> list[str]:
    seen: set[str] = set()
    errors: list[str] = []

    def walk(items: list[Any]) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            custom_id = item.get("custom_id")
            if custom_id is not None:
                if _len(custom_id) > MAX_CUSTOM_ID:
                    errors.append(f"custom_id {custom_id[:20]!r}… longer than {MAX_CUSTOM_ID} characters")
                if custom_id in seen:
                    errors.append(f"custom_id {custom_id!r} used twice in one message")
                seen.add(custom_id)
            child = item.get("components")
            if isinstance(child, list):
                walk(child)

    walk(components)
    return errors


def check_message(data: dict[str, Any], *, creating: bool) -> list[str]:
    """A message body (create, edit, interaction response, follow-up)."""
    errors: list[str] = []
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        errors.append("content must be a string")
    elif content is not None and len(content) > MAX_CONTENT:
        errors.append(f"content has {len(content)} characters (at most {MAX_CONTENT})")
    if data.get("embeds") is not None:
        errors.extend(check_embeds(data["embeds"]))
    if data.get("components") is not None:
        errors.extend(check_components(data["components"], int(data.get("flags") or 0)))
    if creating and not (
        data.get("content")
        or data.get("embeds")
        or data.get("components")
        or data.get("attachments")
        or data.get("sticker_ids")
        or data.get("poll")
    ):
        errors.append("cannot send an empty message")
    return errors


def check_autocomplete_choices(choices: Any, option_type: int) -> list[str]:
    if not isinstance(choices, list):
        return ["autocomplete choices must be a list"]
    errors: list[str] = []
    if len(choices) > MAX_AUTOCOMPLETE_CHOICES:
        errors.append(f"{len(choices)} autocomplete choices (at most {MAX_AUTOCOMPLETE_CHOICES})")
    for i, choice in enumerate(choices):
        if not 1 <= _len(choice.get("name")) <= MAX_OPTION_TEXT:
            errors.append(f"autocomplete choice {i} name must have 1 to {MAX_OPTION_TEXT} characters")
        value = choice.get("value")
        if option_type == 3 and not (isinstance(value, str) and len(value) <= MAX_OPTION_TEXT):
            errors.append(f"autocomplete choice {i} value must be a string of at most {MAX_OPTION_TEXT}")
        if option_type in (4, 10) and (isinstance(value, bool) or not isinstance(value, int | float)):
            errors.append(f"autocomplete choice {i} value must be a number")
    return errors


def check_modal(data: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    if not data.get("custom_id"):
        errors.append("modal needs a custom_id")
    if not 1 <= _len(data.get("title")) <= MAX_MODAL_TITLE:
        errors.append(f"modal title must have 1 to {MAX_MODAL_TITLE} characters")
    if not 1 <= len(data.get("components") or []) <= 5:
        errors.append("modal needs 1 to 5 components")
    return errors


def check_command_schema(command: dict[str, Any]) -> list[str]:
    """What Discord rejects when commands are synced."""
    errors: list[str] = []
    name = command.get("name", "")
    where = f"command {name!r}"
    if command.get("type", 1) == 1:
        if not (_COMMAND_NAME.match(name) and name == name.lower()):
            errors.append(f"{where}: name must be 1-32 lowercase letters, digits, - or _")
        if not 1 <= _len(command.get("description")) <= 100:
            errors.append(f"{where}: description must have 1 to 100 characters")
    errors.extend(_check_options(where, command.get("options") or []))
    return errors


def _check_options(where: str, options: list[dict[str, Any]]) -> list[str]:
    errors: list[str] = []
    if len(options) > 25:
        errors.append(f"{where}: {len(options)} options (at most 25)")
    seen_optional = False
    names = [o.get("name") for o in options]
    if len(set(names)) != len(names):
        errors.append(f"{where}: duplicate option names")
    for option in options:
        name = option.get("name", "")
        here = f"{where} option {name!r}"
        if not (_COMMAND_NAME.match(name) and name == name.lower()):
            errors.append(f"{here}: name must be 1-32 lowercase letters, digits, - or _")
        if not 1 <= _len(option.get("description")) <= 100:
            errors.append(f"{here}: description must have 1 to 100 characters")
        if option.get("type") in (1, 2):
            errors.extend(_check_options(here, option.get("options") or []))
            continue
        if option.get("required"):
            if seen_optional:
                errors.append(f"{here}: required options must come before optional ones")
        else:
            seen_optional = True
        choices = option.get("choices") or []
        if len(choices) > 25:
            errors.append(f"{here}: {len(choices)} choices (at most 25)")
        if choices and option.get("autocomplete"):
            errors.append(f"{here}: autocomplete cannot be combined with choices")
    return errors
