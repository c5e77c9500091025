"""Discord's limits on what a bot may send; each check returns the list of broken rules (empty when fine)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

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
MAX_MODAL_COMPONENTS = 5
MAX_TEXT_INPUT_LABEL = 45
MAX_TEXT_INPUT_PLACEHOLDER = 100
MAX_TEXT_INPUT_VALUE = 4000
MAX_LABEL_DESCRIPTION = 100
MAX_LINK_URL = 512
MAX_EMBED_COLOUR = 0xFFFFFF
MAX_MENTION_IDS = 100
MAX_NONCE = 25
MAX_COMMAND_CHARACTERS = 8000
MAX_OPTION_LENGTH = 6000
# Integer and number options: Discord's range is that of a double's exact integers.
MAX_OPTION_NUMBER = 2**53

FLAG_COMPONENTS_V2 = 1 << 15

_COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")
# Discord's locales (https://discord.com/developers/docs/reference#locales; discord.Locale): the only keys a
# name_localizations or description_localizations dictionary may have.
LOCALES = frozenset(
    [
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    ]
)


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
        errors.extend(_check_embed_fields(f"embed {i}", embed))
    if total > MAX_EMBED_TOTAL:
        errors.append(f"embeds hold {total} characters in all (at most {MAX_EMBED_TOTAL})")
    return errors


def _url_error(url: Any, schemes: tuple[str, ...]) -> str | None:
    """Why Discord refuses ``url`` (None when it is fine): a well-formed URL of one of ``schemes``."""
    if not isinstance(url, str):
        return "must be a string"
    try:
        parts = urlsplit(url)
    except ValueError:
        return "is not a well formed URL"
    if parts.scheme.lower() not in schemes:
        return f"has scheme {parts.scheme!r}; it must be one of {schemes}"
    if not (parts.netloc or (parts.scheme.lower() == "attachment" and parts.path)):
        return "is not a well formed URL"
    return None


def _check_embed_fields(where: str, embed: dict[str, Any]) -> list[str]:
    """An embed's colour, links and timestamp."""
    errors: list[str] = []
    colour = embed.get("color")
    if colour is not None and (
        isinstance(colour, bool) or not isinstance(colour, int) or not 0 <= colour <= MAX_EMBED_COLOUR
    ):
        errors.append(f"{where} color {colour!r} is not an integer from 0 to {MAX_EMBED_COLOUR:#x}")
    if embed.get("url") is not None:
        why = _url_error(embed["url"], ("http", "https"))
        if why:
            errors.append(f"{where} url {why}")
    for key in ("image", "thumbnail"):
        media = embed.get(key)
        if isinstance(media, dict) and media.get("url") is not None:
            # attachment://name points at a file uploaded with the message.
            why = _url_error(media["url"], ("http", "https", "attachment"))
            if why:
                errors.append(f"{where} {key} url {why}")
    timestamp = embed.get("timestamp")
    if timestamp is not None:
        try:
            if not isinstance(timestamp, str):
                raise ValueError(timestamp)
            datetime.fromisoformat(timestamp)
        except ValueError:
            errors.append(f"{where} timestamp {timestamp!r} is not an ISO 8601 date and time")
    return errors


def _check_button(where: str, button: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    style = button.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        errors.append(f"{where} has invalid style {style!r}")
    if style == 5:
        if not button.get("url") or "custom_id" in button:
            errors.append(f"{where} is a link button: it needs a url and no custom_id")
        elif _len(button.get("url")) > MAX_LINK_URL:
            errors.append(f"{where} url longer than {MAX_LINK_URL} characters")
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
        defaults = sum(1 for o in options if o.get("default"))
        if defaults > max_values:
            errors.append(f"{where} has {defaults} default options (max_values {max_values})")
    elif select.get("default_values"):
        defaults = len(select["default_values"])
        if defaults > max_values:
            errors.append(f"{where} has {defaults} default_values (max_values {max_values})")
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
    if data.get("allowed_mentions") is not None:
        errors.extend(check_allowed_mentions(data["allowed_mentions"]))
    nonce = data.get("nonce")
    if isinstance(nonce, str) and len(nonce) > MAX_NONCE:
        errors.append(f"nonce has {len(nonce)} characters (at most {MAX_NONCE})")
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


def check_allowed_mentions(mentions: Any) -> list[str]:
    """``parse`` naming a kind excludes the list of ids of that kind; each list holds at most 100 ids."""
    if not isinstance(mentions, dict):
        return ["allowed_mentions must be an object"]
    errors: list[str] = []
    parse = mentions.get("parse") or []
    for kind in ("users", "roles"):
        ids = mentions.get(kind) or []
        if kind in parse and ids:
            errors.append(f'allowed_mentions: parse ["{kind}"] and a {kind} list are mutually exclusive')
        if len(ids) > MAX_MENTION_IDS:
            errors.append(f"allowed_mentions: {len(ids)} {kind} (at most {MAX_MENTION_IDS})")
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
    if not 1 <= _len(data.get("custom_id")) <= MAX_CUSTOM_ID:
        errors.append(f"modal custom_id must have 1 to {MAX_CUSTOM_ID} characters")
    if not 1 <= _len(data.get("title")) <= MAX_MODAL_TITLE:
        errors.append(f"modal title must have 1 to {MAX_MODAL_TITLE} characters")
    components = data.get("components") or []
    if not 1 <= len(components) <= MAX_MODAL_COMPONENTS:
        errors.append(f"modal needs 1 to {MAX_MODAL_COMPONENTS} components")
    seen: set[str] = set()
    for c, item in enumerate(components):
        if not isinstance(item, dict):
            continue
        # A text input comes in an action row (with its own label) or in a label component (type 18).
        if item.get("type") == 18:
            if not 1 <= _len(item.get("label")) <= MAX_TEXT_INPUT_LABEL:
                errors.append(f"modal component {c} label must have 1 to {MAX_TEXT_INPUT_LABEL} characters")
            if _len(item.get("description")) > MAX_LABEL_DESCRIPTION:
                errors.append(
                    f"modal component {c} description longer than {MAX_LABEL_DESCRIPTION} characters"
                )
            children = [item["component"]] if isinstance(item.get("component"), dict) else []
        else:
            children = [i for i in item.get("components") or [] if isinstance(i, dict)]
            if len(item.get("components") or []) > 1:  # a modal's action row holds one text input
                errors.append(f"modal component {c}: an action row in a modal holds a single text input")
        for child in children:
            custom_id = child.get("custom_id")
            if custom_id is not None or child.get("type") == 4:
                if not 1 <= _len(custom_id) <= MAX_CUSTOM_ID:
                    errors.append(f"modal component {c}: custom_id must have 1 to {MAX_CUSTOM_ID} characters")
                elif custom_id in seen:
                    errors.append(f"modal custom_id {custom_id!r} used twice")
                seen.add(str(custom_id))
            if child.get("type") == 4:
                errors.extend(
                    _check_text_input(f"modal component {c} text input", child, item.get("type") == 1)
                )
    return errors


def _check_text_input(where: str, text_input: dict[str, Any], needs_label: bool) -> list[str]:
    errors: list[str] = []
    label = _len(text_input.get("label"))
    if (needs_label or label) and not 1 <= label <= MAX_TEXT_INPUT_LABEL:
        errors.append(f"{where} label must have 1 to {MAX_TEXT_INPUT_LABEL} characters")
    if _len(text_input.get("placeholder")) > MAX_TEXT_INPUT_PLACEHOLDER:
        errors.append(f"{where} placeholder longer than {MAX_TEXT_INPUT_PLACEHOLDER} characters")
    if _len(text_input.get("value")) > MAX_TEXT_INPUT_VALUE:
        errors.append(f"{where} value longer than {MAX_TEXT_INPUT_VALUE} characters")
    low, high = text_input.get("min_length"), text_input.get("max_length")
    if low is not None and not 0 <= low <= MAX_TEXT_INPUT_VALUE:
        errors.append(f"{where} min_length {low} not within 0 to {MAX_TEXT_INPUT_VALUE}")
    if high is not None and not 1 <= high <= MAX_TEXT_INPUT_VALUE:
        errors.append(f"{where} max_length {high} not within 1 to {MAX_TEXT_INPUT_VALUE}")
    return errors


def _localized_length(
    where: str, field: str, item: dict[str, Any], low: int, high: int, *, named: bool = False
) -> tuple[int, list[str]]:
    """Check ``item[field + "_localizations"]``: locale keys, values of ``low`` to ``high`` characters (with
    ``named``, lowercase and of the command name pattern too). Returns the length Discord counts towards a
    command's total: the longest of the field's default and its translations."""
    errors: list[str] = []
    longest = _len(item.get(field))
    translations = item.get(f"{field}_localizations") or {}
    if not isinstance(translations, dict):
        return longest, [f"{where}: {field}_localizations must be an object"]
    for locale, text in translations.items():
        if locale not in LOCALES:
            errors.append(f"{where}: {field}_localizations has invalid locale {locale!r}")
        if text is None:
            continue
        if not isinstance(text, str) or not low <= len(text) <= high:
            errors.append(f"{where}: {field}_localizations[{locale}] must have {low} to {high} characters")
            continue
        if named and not (_COMMAND_NAME.match(text) and text == text.lower()):
            errors.append(
                f"{where}: {field}_localizations[{locale}] must be lowercase letters, digits, - or _"
            )
        longest = max(longest, len(text))
    return longest, errors


def check_command_schema(command: dict[str, Any]) -> list[str]:
    """What Discord rejects when commands are synced."""
    errors: list[str] = []
    name = command.get("name", "")
    where = f"command {name!r}"
    chat_input = command.get("type", 1) == 1
    if chat_input:
        if not (_COMMAND_NAME.match(name) and name == name.lower()):
            errors.append(f"{where}: name must be 1-32 lowercase letters, digits, - or _")
        if not 1 <= _len(command.get("description")) <= 100:
            errors.append(f"{where}: description must have 1 to 100 characters")
    # Discord counts, towards 8000, each name, description and choice value of the command and its options,
    # taking the longest of a field's default and its translations.
    name_length, name_errors = _localized_length(where, "name", command, 1, 32, named=chat_input)
    text_length, text_errors = _localized_length(where, "description", command, 1, 100)
    errors += name_errors + text_errors
    counted = [name_length + text_length]
    errors.extend(_check_options(where, command.get("options") or [], counted, parent=None))
    if sum(counted) > MAX_COMMAND_CHARACTERS:
        errors.append(f"{where}: {sum(counted)} characters in all (at most {MAX_COMMAND_CHARACTERS})")
    return errors


def _check_options(
    where: str, options: list[dict[str, Any]], counted: list[int], *, parent: int | None
) -> list[str]:
    """``parent``: None for the command's own options, else the type of the option holding them (1 a
    subcommand, 2 a group). ``counted`` gets the characters Discord counts towards the command's total."""
    errors: list[str] = []
    if len(options) > 25:
        errors.append(f"{where}: {len(options)} options (at most 25)")
    kinds = [o.get("type") for o in options]
    if parent == 2 and any(kind != 1 for kind in kinds):
        errors.append(f"{where}: a subcommand group holds only subcommands")
    elif parent == 1 and any(kind in (1, 2) for kind in kinds):
        errors.append(f"{where}: a subcommand cannot hold subcommands or groups")
    elif (
        parent is None and any(kind in (1, 2) for kind in kinds) and not all(kind in (1, 2) for kind in kinds)
    ):
        errors.append(f"{where}: subcommands and groups cannot be mixed with other options")
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
        name_length, name_errors = _localized_length(here, "name", option, 1, 32, named=True)
        text_length, text_errors = _localized_length(here, "description", option, 1, 100)
        errors += name_errors + text_errors
        counted.append(name_length + text_length)
        if option.get("type") in (1, 2):
            errors.extend(_check_options(here, option.get("options") or [], counted, parent=option["type"]))
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
        for k, choice in enumerate(choices):
            there = f"{here} choice {k}"
            if not 1 <= _len(choice.get("name")) <= MAX_OPTION_TEXT:
                errors.append(f"{there}: name must have 1 to {MAX_OPTION_TEXT} characters")
            choice_length, choice_errors = _localized_length(there, "name", choice, 1, MAX_OPTION_TEXT)
            errors += choice_errors
            value = choice.get("value")
            if isinstance(value, str) and len(value) > MAX_OPTION_TEXT:
                errors.append(f"{there}: value longer than {MAX_OPTION_TEXT} characters")
            counted.append(choice_length + _len(value))
        errors.extend(_check_bounds(here, option))
    return errors


def _check_bounds(where: str, option: dict[str, Any]) -> list[str]:
    """min_value/max_value of integer and number options, min_length/max_length of string options."""
    errors: list[str] = []
    low, high = option.get("min_value"), option.get("max_value")
    for key, bound in (("min_value", low), ("max_value", high)):
        if bound is None:
            continue
        if isinstance(bound, bool) or not isinstance(bound, int | float):
            errors.append(f"{where}: {key} must be a number")
        elif option.get("type") == 4 and isinstance(bound, float) and not bound.is_integer():
            errors.append(f"{where}: {key} of an integer option must be an integer")
        elif not -MAX_OPTION_NUMBER <= bound <= MAX_OPTION_NUMBER:
            errors.append(f"{where}: {key} {bound} outside -2^53 to 2^53")
    if isinstance(low, int | float) and isinstance(high, int | float) and low > high:
        errors.append(f"{where}: min_value {low} is above max_value {high}")
    low, high = option.get("min_length"), option.get("max_length")
    if low is not None and not (isinstance(low, int) and 0 <= low <= MAX_OPTION_LENGTH):
        errors.append(f"{where}: min_length {low!r} not within 0 to {MAX_OPTION_LENGTH}")
    if high is not None and not (isinstance(high, int) and 1 <= high <= MAX_OPTION_LENGTH):
        errors.append(f"{where}: max_length {high!r} not within 1 to {MAX_OPTION_LENGTH}")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        errors.append(f"{where}: min_length {low} is above max_length {high}")
    return errors
