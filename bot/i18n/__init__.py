"""Every text a person reads, in their language: gettext catalogues
(bot/locales/<lang>/LC_MESSAGES/messages.po) looked up by the locale in force.

A leaf: it imports nothing of the project, nor Discord, so the engine's player-facing text (rule wording, card
names, error messages) can use it too.

- ``_("{who} played {card}", who=…, card=…)``: the message in the current locale, its named placeholders
  filled in (the same names in every language). Without values the text is returned as it is (braces and all).
- ``ngettext("{n} card", "{n} cards", n)``: the plural form of the locale's rules; ``n`` is a placeholder too.
- ``pgettext(context, message)``: a short word that reads differently by use (a command name, a button).
- ``N_(…)`` marks a module-level constant for extraction only; it is translated where it is shown
  (``_(CONSTANT)``).
- ``use_locale(code)``: the locale in force for a block (a context variable: each asyncio task has its own
  copy, so two players answered at once each get theirs). Set at the boundaries — an interaction's handler
  (the player's ``locale``) and the delivery of public text (the server's language) — rather than passed
  through every rendering function: the renderers stay as they are and nothing in between can forget to pass
  it on.
- ``from_discord(code)``: a Discord locale ("de", "es-419", "pt-BR") -> the catalogue that serves it, or None.

The .po files are read once, when a locale is first used (``babel.messages.pofile``), and kept in memory as
``gettext`` translations: there is no compile step, so a fresh clone, ``pip install -e .`` and the Docker
image all work from the .po files in the repository. Untranslated or fuzzy messages fall back to English.
"""

from __future__ import annotations

import gettext
import io
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import TypeVar

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent

LOCALES_DIR = Path(__file__).resolve().parents[1] / "locales"
DOMAIN = "messages"
DEFAULT_LOCALE = "en"
#: The catalogues the bot ships, English first (English is the source language: its catalogue is empty).
LOCALES: tuple[str, ...] = ("en", "de", "fr", "es", "pt_BR")
#: The languages by name, in their own words (the /eights settings language choices).
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "pt_BR": "Português do Brasil",
}

# Discord's locale codes (discord.Locale values) -> our catalogues. Discord has no plain "en" or "es".
_DISCORD: dict[str, str] = {
    "en-US": "en",
    "en-GB": "en",
    "de": "de",
    "fr": "fr",
    "es-ES": "es",
    "es-419": "es",
    "pt-BR": "pt_BR",
}

_current: ContextVar[str] = ContextVar("bot_i18n_locale", default=DEFAULT_LOCALE)


def catalogue_path(locale: str) -> Path:
    return LOCALES_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def available_locales() -> tuple[str, ...]:
    """The shipped locales whose catalogue exists (English always: it needs none)."""
    return tuple(code for code in LOCALES if code == DEFAULT_LOCALE or catalogue_path(code).is_file())


@cache
def translations(locale: str) -> gettext.NullTranslations:
    """The locale's messages, read from its .po once. English, or a locale without a catalogue, is the
    identity (the English text in the code)."""
    path = catalogue_path(locale)
    if locale == DEFAULT_LOCALE or not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as po:
        catalog = read_po(po, locale=locale, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out: they fall back to English
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def preload() -> None:
    """Read every shipped catalogue now (about 40 ms each), off the event loop at start-up: a typed word is
    looked up in every language (``read_typed``), and the first one would otherwise read them all on the
    loop."""
    for locale in available_locales():
        translations(locale)


def normalise(locale: str | None) -> str:
    """A locale we ship ("pt_BR", "de", or a Discord code such as "pt-BR"), else English."""
    if locale in LOCALES:
        return locale
    return from_discord(locale) or DEFAULT_LOCALE


def from_discord(code: object) -> str | None:
    """The catalogue for a Discord locale (``discord.Locale`` or its value), or None when we have none."""
    value = getattr(code, "value", code)
    if not isinstance(value, str):
        return None
    return _DISCORD.get(value)


def current_locale() -> str:
    return _current.get()


@contextmanager
def use_locale(locale: str | None) -> Iterator[str]:
    """Render the block's text in ``locale`` (normalised; English when unknown)."""
    code = normalise(locale)
    token = _current.set(code)
    try:
        yield code
    finally:
        _current.reset(token)


def set_locale(locale: str | None) -> str:
    """Set the locale for the rest of the current task (an interaction handler's own task): from here on
    everything it says is in ``locale``."""
    code = normalise(locale)
    _current.set(code)
    return code


def _fill(text: str, values: dict[str, object]) -> str:
    # format_map: the values are already a dict of their own (``**values``), format(**values) would copy
    # them again; a move renders about 30 lookups (bench/i18n.py).
    return text.format_map(values) if values else text


def _(message: str, /, **values: object) -> str:
    """``message`` in the current locale, placeholders filled from ``values``."""
    # An empty translation (a plural form left blank) is no translation: English rather than nothing.
    return _fill(translations(_current.get()).gettext(message) or message, values)


def ngettext(singular: str, plural: str, n: int, /, **values: object) -> str:
    """The plural form for ``n`` in the current locale; ``{n}`` is filled with ``n``."""
    english = singular if n == 1 else plural
    text = translations(_current.get()).ngettext(singular, plural, n) or english
    return _fill(text, {"n": n, **values})


def pgettext(context: str, message: str, /, **values: object) -> str:
    """``message`` as used in ``context`` (a short word whose translation depends on where it is)."""
    return _fill(translations(_current.get()).pgettext(context, message) or message, values)


def npgettext(context: str, singular: str, plural: str, n: int, /, **values: object) -> str:
    english = singular if n == 1 else plural
    text = translations(_current.get()).npgettext(context, singular, plural, n) or english
    return _fill(text, {"n": n, **values})


def N_(message: str) -> str:
    """Mark ``message`` for extraction; it is translated where it is shown (``_(message)``)."""
    return message


def in_locale(locale: str | None, message: str, /, **values: object) -> str:
    """``message`` in a given locale, whatever the current one."""
    with use_locale(locale):
        return _(message, **values)


# --- typed words --------------------------------------------------------------------------------------------
# Players type words (a card, a suit, "on"/"off") in their language, with or without its accents, and
# German players often without umlauts ("Koenig", "gruen"): typed words are compared folded, and a word of
# the catalogues is known by all its spellings.

_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ß": "ss"})
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def fold(text: str) -> str:
    """A typed word as it is compared: lowercase, spaces trimmed, ligatures spelled out and accents dropped
    ("Cœurs" -> "coeurs", "Ás" -> "as", "König" -> "konig")."""
    text = " ".join(text.lower().split())
    return _strip_accents(unicodedata.normalize("NFC", text).translate(_LIGATURES))


def spellings(word: str) -> frozenset[str]:
    """Every folded spelling of a catalogue's word a player may type: with accents dropped, and with German's
    umlauts written out ("König" -> {"konig", "koenig"}; "Grün" -> {"grun", "gruen"})."""
    lower = unicodedata.normalize("NFC", " ".join(word.lower().split()))
    return frozenset({fold(lower), fold(lower.translate(_UMLAUTS))} - {""})


def typed_in(typed: str, text: str, *, at_start: bool = False) -> bool:
    """Whether what a player typed so far (any case, accents optional, German's umlauts written out or not)
    is part of ``text`` (``at_start``: begins it), for the lists that narrow as they type. Nothing typed is
    part of everything."""
    folded = fold(typed)
    if not folded:
        return True
    if at_start:
        return any(spelling.startswith(folded) for spelling in spellings(text))
    return any(folded in spelling for spelling in spellings(text))


def listed_words(locale: str, words: Callable[[], str]) -> frozenset[str]:
    """The words that ``words()`` lists, comma-separated, in ``locale``, in all their spellings.

    ``words`` is a function that returns a ``pgettext`` call, so that extraction finds the message and the
    catalogue's translators list what a player may type, e.g.
    ``lambda: pgettext("typed words meaning on", "on, yes, true")`` -> "an, ein, ja" in German."""
    return _listed(translations(normalise(locale)), normalise(locale), words)


@cache
def _listed(_catalogue: gettext.NullTranslations, locale: str, words: Callable[[], str]) -> frozenset[str]:
    # Keyed by the catalogue object too: a catalogue read again (tests write their own) is listed again.
    with use_locale(locale):
        text = words()
    return frozenset(s for word in text.split(",") for s in spellings(word))


T = TypeVar("T")


def read_typed(typed: str, vocabulary: Callable[[str], Mapping[str, T]]) -> T | None:
    """What a typed word means, ``vocabulary(locale)`` giving each locale's folded words: the player's own
    language first, then English, then any other language we ship when those that know the word agree on
    its meaning (a German word typed from an English client); None when nothing (or no agreement) reads it."""
    word = fold(typed)
    own = current_locale()
    for locale in (own, DEFAULT_LOCALE):
        meaning = vocabulary(locale).get(word)
        if meaning is not None:
            return meaning
    others = (code for code in LOCALES if code not in (own, DEFAULT_LOCALE))
    meanings = {vocabulary(code).get(word) for code in others} - {None}
    return meanings.pop() if len(meanings) == 1 else None


def decimal(value: float) -> str:
    """``value`` with one decimal, written as the current language writes numbers ("12.3", "12,3"); never
    "-0.0"."""
    rounded = round(value, 1) or 0.0  # -0.0 is 0.0
    return str(format_decimal(rounded, format="#,##0.0", locale=_current.get()))


def percent(rate: float) -> str:
    """A rate (0–1) as a whole percentage, as the current language writes it ("45%", "45 %")."""
    return str(format_percent(round(rate, 2), locale=_current.get()))


__all__ = [
    "DEFAULT_LOCALE",
    "LANGUAGE_NAMES",
    "LOCALES",
    "N_",
    "_",
    "available_locales",
    "current_locale",
    "decimal",
    "fold",
    "from_discord",
    "in_locale",
    "listed_words",
    "ngettext",
    "normalise",
    "npgettext",
    "percent",
    "pgettext",
    "preload",
    "read_typed",
    "set_locale",
    "spellings",
    "translations",
    "use_locale",
]
