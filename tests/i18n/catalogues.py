"""Reading the shipped catalogues for the tests: the template, each language's messages, placeholders."""

from __future__ import annotations

import re
import string
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from bot.i18n import DEFAULT_LOCALE, LOCALES, LOCALES_DIR, catalogue_path

TEMPLATE = LOCALES_DIR / "messages.pot"
TRANSLATED = tuple(code for code in LOCALES if code != DEFAULT_LOCALE)


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as po:
        return read_po(po, locale=locale)


def template() -> Catalog:
    return read(TEMPLATE)


def shipped() -> list[str]:
    """The translated languages whose catalogue exists (all of them, once the translations are in)."""
    return [code for code in TRANSLATED if catalogue_path(code).is_file()]


def key(message: Message) -> tuple[str | None, str]:
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return message.context, msgid


def placeholders(text: str) -> set[str]:
    """The named fields of a ``str.format`` text ("{who} played {card}" -> {"who", "card"})."""
    try:
        return {name for _literal, name, _spec, _conv in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<unbalanced braces>"}


def forms(message: Message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple | list) else [message.id]


def translations(message: Message) -> list[str]:
    s = message.string
    return list(s) if isinstance(s, tuple | list) else [s]


MARKDOWN = re.compile(r"\*\*|`")
