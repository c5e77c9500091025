"""The slash commands' strings for the message template: a Babel extraction method (``babel.cfg``).

The names, descriptions, options and choices live in discord.py's decorators, not in ``_()`` calls, and some
are built in code (the preset choices). So rather than reading the source, this builds the ``/eights`` group
with every feature's commands and asks discord.py for its translated payload through a translator that only
records what it is asked: exactly the strings ``bot.exts.translator`` will be asked for at sync time, each
with its context.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Iterator
from typing import Any

import discord
from discord import app_commands

from bot.exts._group import EightsGroup, FeatureCog
from bot.exts.translator import CONTEXTS, NAME_CONTEXTS, UNTRANSLATED

FEATURES = ("bot.exts.tables", "bot.exts.standings", "bot.exts.replays", "bot.exts.server")
NAME_COMMENT = "A Discord name: 1-32 characters, lowercase letters, digits, - or _ (no spaces)."


class _Recorder(app_commands.Translator):
    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], None] = {}

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        kind = CONTEXTS.get(context.location)
        if kind is not None and string.message not in UNTRANSLATED:
            self.seen.setdefault((kind, string.message), None)
        return None


def _feature_cogs() -> list[type[FeatureCog]]:
    for name in FEATURES:
        importlib.import_module(name)
    found: list[type[FeatureCog]] = []
    todo: list[type[FeatureCog]] = [FeatureCog]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            found.append(sub)
            todo.append(sub)
    return found


def slash_strings() -> list[tuple[str, str]]:
    """(context, text) of every slash string, in the tree's order."""
    group = EightsGroup()
    for cog in _feature_cogs():
        for command in cog.__cog_app_commands__:
            if group.get_command(command.name) is None:
                group.add_command(command)
    recorder = _Recorder()

    async def walk() -> None:
        client = discord.Client(intents=discord.Intents.none())
        tree = app_commands.CommandTree(client)
        await group.get_translated_payload(tree, recorder)

    asyncio.run(walk())
    return list(recorder.seen)


def extract(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel's extraction method: each slash string as a ``pgettext`` message (the file itself is unused)."""
    for context, text in slash_strings():
        comments = [NAME_COMMENT] if context in NAME_CONTEXTS else []
        yield 1, "pgettext", (context, text), comments
