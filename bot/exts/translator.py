"""The slash commands in the players' languages: discord.py's ``app_commands.Translator`` over our catalogues.

discord.py hands every command, group and option name, description and choice name to ``translate`` for each
Discord locale when the tree is synced; we answer from the catalogue of that locale (``bot.i18n``), with a
message context by kind ("slash command name" …), so that a command named "play" and a button saying "Play"
can be translated differently. English is the text in the code; a missing translation, or one Discord would
refuse (names: 1–32 lowercase letters, digits, "-" and "_"; descriptions and choices: 100 characters), leaves
Discord's English: one bad translation must not fail the whole sync.
"""

from __future__ import annotations

import re

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.i18n import DEFAULT_LOCALE, LANGUAGE_NAMES, from_discord, translations

#: Discord's pattern for command and option names (lowercase where a script has case).
NAME_PATTERN = re.compile(r"^[-_\w]{1,32}$")

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
    return bool(NAME_PATTERN.match(text)) and text == text.lower()


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


class CatalogueTranslator(app_commands.Translator):
    """Installed on the bot's tree in ``setup_hook`` (``await tree.set_translator(...)``)."""

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
        return translate_text(string.message, kind, ours)
