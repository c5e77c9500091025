"""The catalogues: the template holds every message of the code, and every language has every message, with
the same placeholders as English and within Discord's limits for the slash strings and buttons."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.exts.translator import valid_name
from bot.i18n import DEFAULT_LOCALE, catalogue_path
from tests.i18n.catalogues import (
    TEMPLATE,
    forms,
    key,
    placeholders,
    read,
    shipped,
    template,
    translations,
)

ROOT = Path(__file__).resolve().parents[2]
LIMITS = {
    "slash command description": 100,
    "slash option description": 100,
    "slash choice": 100,
    "button": 80,
}


def test_the_template_holds_every_message_the_code_has(tmp_path: Path) -> None:
    extracted = tmp_path / "messages.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "extract",
            "-F",
            "babel.cfg",
            "-o",
            extracted,
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    in_code = {key(m) for m in read(extracted) if m.id}
    in_template = {key(m) for m in template() if m.id}
    missing = sorted(in_code - in_template, key=str)
    assert not missing, f"run pybabel extract (README.md, Languages): the template lacks {missing[:10]}"
    stale = sorted(in_template - in_code, key=str)
    assert not stale, f"the template holds messages the code no longer has: {stale[:10]}"


def test_the_english_catalogue_follows_the_template() -> None:
    english = read(catalogue_path(DEFAULT_LOCALE), DEFAULT_LOCALE)
    assert {key(m) for m in english if m.id} == {key(m) for m in template() if m.id}


def test_a_missing_or_wrong_message_is_caught(tmp_path: Path) -> None:
    """The checks below find what they look for: a catalogue missing one message, and one whose
    placeholders differ from English."""
    po = tmp_path / "broken.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
        'msgid "{who} played {card}"\nmsgstr "{wer} spielte {card}"\n'
    )
    broken = read(po, "de")
    assert _missing(broken) != []
    assert _placeholder_problems(broken) == ["'{who} played {card}' -> '{wer} spielte {card}'"]


def _missing(catalogue) -> list[str]:  # type: ignore[no-untyped-def]
    by_key = {key(m): m for m in catalogue if m.id}
    out = []
    for message in template():
        if not message.id:
            continue
        found = by_key.get(key(message))
        if found is None or found.fuzzy or not all(translations(found)):
            out.append(repr(forms(message)[0]))
    return out


def _placeholder_problems(catalogue) -> list[str]:  # type: ignore[no-untyped-def]
    out = []
    for message in catalogue:
        if not message.id or not all(translations(message)):
            continue
        english: set[str] = set().union(*(placeholders(f) for f in forms(message)))
        said = [placeholders(t) for t in translations(message)]
        # A plural form may leave out the count ("one card"), nothing else, and may add none.
        if any(not s <= english for s in said) or not english - {"n"} <= set().union(*said):
            out.append(f"{forms(message)[0]!r} -> {translations(message)[0]!r}")
    return out


@pytest.mark.parametrize("locale", shipped())
def test_every_message_is_translated(locale: str) -> None:
    missing = _missing(read(catalogue_path(locale), locale))
    assert not missing, f"{locale}: {len(missing)} messages untranslated or fuzzy, e.g. {missing[:5]}"


@pytest.mark.parametrize("locale", shipped())
def test_placeholders_are_those_of_english(locale: str) -> None:
    problems = _placeholder_problems(read(catalogue_path(locale), locale))
    assert not problems, f"{locale}: {problems[:5]}"


@pytest.mark.parametrize("locale", shipped())
def test_slash_names_and_short_texts_fit_discord(locale: str) -> None:
    problems = []
    for message in read(catalogue_path(locale), locale):
        if not message.id or not all(translations(message)):
            continue
        for text in translations(message):
            if message.context in ("slash command name", "slash option name") and not valid_name(text):
                problems.append(f"{message.context} {message.id!r} -> {text!r}: not a Discord name")
            limit = LIMITS.get(message.context or "")
            if limit is not None and len(text) > limit:
                problems.append(f"{message.context} {message.id!r} -> {text!r}: over {limit} characters")
    assert not problems, f"{locale}: {problems[:5]}"


def test_the_template_is_where_the_readme_says() -> None:
    assert TEMPLATE.is_file()
    assert "bot/locales/messages.pot" in (ROOT / "README.md").read_text()


def test_every_language_has_its_catalogue() -> None:
    """Issue 28: English, German, French, Spanish and Brazilian Portuguese, complete (the four translations
    are written from the template and merged in; until then this names the ones still missing)."""
    missing = [code for code in ("de", "fr", "es", "pt_BR") if not catalogue_path(code).is_file()]
    assert not missing, f"no catalogue yet for {missing} (bot/locales/<code>/LC_MESSAGES/messages.po)"
