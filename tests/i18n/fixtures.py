"""Catalogues written for a test: a few messages of a language, in a folder the bot reads instead of
bot/locales/ (the real catalogues are the translators'; these tests check the machinery with known words)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

import bot.i18n
from bot.i18n import translations
from tests.i18n.catalogues import template

Key = str | tuple[str, str]  # a msgid (the singular, for a plural message), or (context, msgid)
Value = str | tuple[str, ...]  # a translation, or its plural forms
Writer = Callable[[str, Mapping[Key, Value]], None]


def write_catalogue(folder: Path, locale: str, messages: Mapping[Key, Value]) -> None:
    """A catalogue of ``messages``, each one of the template's (a plural one given by its singular)."""
    known = {(m.context, m.id if isinstance(m.id, str) else m.id[0]): m.id for m in template() if m.id}
    catalogue = Catalog(locale=locale, domain="messages")
    for key, value in messages.items():
        context, msgid = key if isinstance(key, tuple) else (None, key)
        assert (context, msgid) in known, f"not a message of the template: {key!r}"
        if isinstance(value, tuple):  # the last form stands for any further one the language has
            value = value + (value[-1],) * (catalogue.num_plurals - len(value))
        catalogue.add(known[(context, msgid)], value, context=context)
    path = folder / locale / "LC_MESSAGES" / "messages.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as po:
        write_po(po, catalogue)


@pytest.fixture
def catalogues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Writer]:
    """``catalogues("de", {...})`` makes the bot read that catalogue for German (and none for the others)."""
    folder = tmp_path / "locales"
    folder.mkdir()
    monkeypatch.setattr(bot.i18n, "LOCALES_DIR", folder)
    translations.cache_clear()

    def write(locale: str, messages: Mapping[Key, Value]) -> None:
        write_catalogue(folder, locale, messages)
        translations.cache_clear()

    yield write
    translations.cache_clear()
