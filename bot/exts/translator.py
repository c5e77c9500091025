"""The slash commands in the players' languages: discord.py's ``app_commands.Translator`` over our catalogues.

discord.py hands every command, group and option name, description and choice name to ``translate`` for each
Discord locale when the tree is synced; we answer from the catalogue of that locale (``bot.i18n``), with a
message context by kind ("slash command name" …), so that a command named "play" and a button saying "Play"
can be translated differently. English is the text in the code; a missing translation, or one Discord would
refuse (names: 1–32 lowercase letters, digits, "-" and "_"; descriptions and choices: 100 characters), leaves
Discord's English: one bad translation must not fail the whole sync.

Discord also refuses a command whose sibling subcommands, or sibling options, share a name in some locale
(two translated alike, or one translated to a sibling's English name). The translator is asked one string at
a time, but discord.py hands it the command or option it names: a name is checked against its siblings' in
the same locale, and those that collide stay English there (``sibling_names``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.i18n import DEFAULT_LOCALE, LANGUAGE_NAMES, from_discord, translations

log = logging.getLogger(__name__)

#: Discord's pattern for command and option names, ``^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$``
#: (lowercase where a script has case), used with ``fullmatch``: Python's ``$`` also matches before a final
#: newline. ``\w`` is letters, digits and "_", but not the combining vowel signs of Devanagari and Thai,
#: hence those scripts' letters and signs by code point (their punctuation and currency sign left out).
NAME_PATTERN = re.compile(r"[-_\w\u0900-\u0963\u0966-\u097f\u0e01-\u0e3a\u0e40-\u0e5b]{1,32}")

#: The message context of each kind of string (the .pot groups them so translators see what each is).
CONTEXTS: dict[Where, str] = {
    Where.command_name: "slash command name",
    Where.group_name: "slash command name",
    Where.command_description: "slash command description",
    Where.group_description: "slash command description",
    Where.parameter_name: "slash option name",
    Where.parameter_description: "slash option description",
    Where.choice_name: "slash choice",
}
NAME_CONTEXTS = frozenset({"slash command name", "slash option name"})
#: Discord refuses a whole sync over one localization too long: such a translation stays English.
MAX_LENGTHS = {"slash command description": 100, "slash option description": 100, "slash choice": 100}
#: Shown as they are in every language: each language's own name (a /eights settings language choice).
UNTRANSLATED = frozenset(LANGUAGE_NAMES.values())


def valid_name(text: str) -> bool:
    """Whether Discord accepts ``text`` as a command or option name."""
    return NAME_PATTERN.fullmatch(text) is not None and text == text.lower()


def translate_text(text: str, context: str, locale: str) -> str | None:
    """``text`` (a slash string of kind ``context``) in our catalogue ``locale``; None when it is English,
    untranslated, or (for a name) not a name Discord accepts."""
    if locale == DEFAULT_LOCALE:
        return None
    translated = translations(locale).pgettext(context, text)
    if translated == text:
        return None
    if context in NAME_CONTEXTS and not valid_name(translated):
        return None
    if len(translated) > MAX_LENGTHS.get(context, 100) or not translated.strip():
        return None
    return translated


def sibling_names(names: Iterable[str], context: str, locale: str) -> dict[str, str | None]:
    """Each of sibling ``names`` (the English names of one command's subcommands, or of its options) in
    ``locale``, as ``translate_text`` gives it, except that names which would be shown alike stay English
    (None), and so on until no two are: one careless translation ("leave" and "kick" both "verlassen", or
    "join" as "new") leaves those names English instead of Discord refusing the whole command."""
    shown = {name: translate_text(name, context, locale) for name in names}
    while True:
        holders: dict[str, list[str]] = {}
        for name, translated in shown.items():
            holders.setdefault(translated or name, []).append(name)
        clashing = [n for same in holders.values() if len(same) > 1 for n in same if shown[n] is not None]
        if not clashing:
            return shown
        for name in clashing:
            shown[name] = None


def name_collisions(names: Iterable[str], context: str, locale: str) -> dict[str, str]:
    """The translations of sibling ``names`` in ``locale`` that ``sibling_names`` leaves English because they
    collide (English name -> the refused translation)."""
    kept = sibling_names(names, context, locale)
    refused = {}
    for name, shown in kept.items():
        translated = translate_text(name, context, locale)
        if shown is None and translated is not None:
            refused[name] = translated
    return refused


def _siblings(context: app_commands.TranslationContextTypes) -> list[str] | None:
    """The English names of the command, group or option being named and of its siblings (None when it has
    none we know of: a top-level command)."""
    data: Any = context.data
    if context.location is Where.parameter_name and isinstance(data, app_commands.Parameter):
        return [parameter.display_name for parameter in data.command.parameters]
    if context.location in (Where.command_name, Where.group_name):
        parent = getattr(data, "parent", None)
        if isinstance(parent, app_commands.Group):
            return [child.name for child in parent.commands]
    return None


class CatalogueTranslator(app_commands.Translator):
    """Installed on the bot's tree in ``setup_hook`` (``await tree.set_translator(...)``)."""

    def __init__(self) -> None:
        super().__init__()
        self._told: set[tuple[str, str, str]] = set()  # (locale, context, name): each collision logged once

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        ours = from_discord(locale)
        kind = CONTEXTS.get(context.location)
        if ours is None or kind is None or string.message in UNTRANSLATED:
            return None
        translated = translate_text(string.message, kind, ours)
        siblings = _siblings(context) if translated is not None and kind in NAME_CONTEXTS else None
        if translated is None or not siblings or string.message not in siblings:
            return translated
        if sibling_names(siblings, kind, ours)[string.message] is not None:
            return translated
        if (ours, kind, string.message) not in self._told:
            self._told.add((ours, kind, string.message))
            log.warning(
                "%s %r: the %s translation %r collides with a sibling's name; left English",
                kind,
                string.message,
                ours,
                translated,
            )
        return None
