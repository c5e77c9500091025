"""The slash commands' localizations against Discord's documented rules (``bot.exts.translator``).

Discord's "Application Command Naming": a name and each of its localizations match
``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`` (lowercase where a letter has a lowercase form); sibling
options or subcommands have distinct names in every locale; one command's names, descriptions and choice
values (the longest localization of each counted) stay within 8,000 characters. A payload breaking any of
these is refused as a whole (400 Invalid Form Body) and no command syncs, so the translator leaves English
whatever would break them, and these tests check that the shipped catalogues need no such rescue.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from bot.exts._group import EightsGroup
from bot.exts.slash_strings import _feature_cogs
from bot.exts.translator import (
    CatalogueTranslator,
    name_collisions,
    sibling_names,
    translate_text,
    valid_name,
)
from tests.i18n.catalogues import shipped
from tests.i18n.fixtures import Writer, catalogues  # noqa: F401  (the fixture)

DISCORD_LOCALES = ("de", "fr", "es-ES", "es-419", "pt-BR", "en-GB", "en-US", "ja", "zh-CN")


def _group() -> EightsGroup:
    """The ``/eights`` group with every feature's commands, as the bot syncs it."""
    group = EightsGroup()
    for cog in _feature_cogs():
        for command in cog.__cog_app_commands__:
            if group.get_command(command.name) is None:
                group.add_command(command)
    return group


async def _payload() -> dict[str, Any]:
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    return await _group().get_translated_payload(tree, CatalogueTranslator())


def _name(node: dict[str, Any], locale: str) -> str:
    return (node.get("name_localizations") or {}).get(locale, node["name"])


def _duplicates(node: dict[str, Any], path: str = "/eights") -> list[str]:
    """Sibling options or subcommands of ``node`` shown with the same name in some Discord locale."""
    found = []
    options = node.get("options") or []
    for locale in DISCORD_LOCALES:
        seen: dict[str, str] = {}
        for option in options:
            shown = _name(option, locale)
            if shown in seen:
                found.append(f"{path} [{locale}]: {seen[shown]!r} and {option['name']!r} are both {shown!r}")
            seen[shown] = option["name"]
    for option in options:
        found += _duplicates(option, f"{path} {option['name']}")
    return found


def test_a_name_translation_ending_in_a_newline_stays_english(catalogues: Writer) -> None:  # noqa: F811
    """A name translated "neu\\n" (a msgstr ending in a newline, which Babel and the catalogue checks accept)
    is not a name Discord accepts: the command keeps its English name instead of Discord refusing the whole
    sync (Python's ``$`` matches before a final newline, so the name pattern is matched in full)."""
    catalogues("de", {("slash command name", "new"): "neu\n"})
    assert not valid_name("neu\n")
    assert translate_text("new", "slash command name", "de") is None


@pytest.mark.parametrize("name", ["खेलें", "เล่น", "नया-खेल", "เล่น_ใหม่"])
def test_a_devanagari_or_thai_name_discord_accepts_is_accepted(name: str) -> None:
    """Discord admits Devanagari and Thai names ("खेलें" and "เล่น", play), vowel signs included (combining
    marks, which Python's ``\\w`` leaves out): a Hindi or Thai catalogue's correct names are sent, not left
    English, and the catalogue checks accept them."""
    assert valid_name(name)


@pytest.mark.parametrize("name", ["Neu", "neu zeug", "", "x" * 33, "neu!", "neu\n", "\nneu", "खेलें।"])
def test_a_name_discord_refuses_is_refused(name: str) -> None:
    """Capitals, spaces, punctuation, a newline at either end, an empty or over-long name: not a Discord
    name (nor the Devanagari full stop, "।", which is punctuation)."""
    assert not valid_name(name)


def _find(node: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The option or subcommand ``name`` anywhere under ``node``."""
    for option in node.get("options") or []:
        if option["name"] == name:
            return option
        found = _find(option, name) if option.get("type") in (1, 2) else None
        if found is not None:
            return found
    return None


async def test_a_translation_colliding_with_a_sibling_leaves_those_names_english(
    catalogues: Writer,  # noqa: F811
) -> None:
    """Two subcommands translated to the same German name ("leave" and "kick" both "gehen"), one translated
    to a sibling's English name ("join" as "new", while "new" has no German name), or two options of one
    command translated alike (/eights house's "option" and "value" both "wert") would have Discord refuse
    the whole command, and with it every command of the bot. Those names stay English in German; the
    others keep their translation, and the other languages are untouched."""
    catalogues(
        "de",
        {
            ("slash command name", "leave"): "gehen",
            ("slash command name", "kick"): "gehen",
            ("slash command name", "join"): "new",  # a sibling's English name
            ("slash command name", "hand"): "karten",
            ("slash option name", "option"): "wert",  # /eights house's two options
            ("slash option name", "value"): "wert",
        },
    )
    catalogues("fr", {("slash command name", "leave"): "partir"})
    payload = await _payload()
    assert _duplicates(payload) == []
    by_name = {option["name"]: option for option in payload["options"]}
    for name in ("leave", "kick", "join"):
        assert "de" not in by_name[name]["name_localizations"], name
    assert by_name["hand"]["name_localizations"]["de"] == "karten"
    assert by_name["leave"]["name_localizations"]["fr"] == "partir"
    house = _find(payload, "house")
    assert house is not None
    for option in house["options"]:
        assert "de" not in (option.get("name_localizations") or {}), option["name"]


def test_names_left_english_to_end_a_collision_do_not_make_another(catalogues: Writer) -> None:  # noqa: F811
    """A name left English because of one collision may then collide with a third sibling translated to that
    English name ("leave" and "kick" both "gehen", "hand" translated "leave"): that one stays English too,
    until no two siblings are shown alike; a name colliding with none ("new" as "neu") keeps its
    translation."""
    catalogues(
        "de",
        {
            ("slash command name", "leave"): "gehen",
            ("slash command name", "kick"): "gehen",
            ("slash command name", "hand"): "leave",
            ("slash command name", "new"): "neu",
        },
    )
    names = ["leave", "kick", "hand", "new"]
    assert sibling_names(names, "slash command name", "de") == {
        "leave": None,
        "kick": None,
        "hand": None,
        "new": "neu",
    }
    assert name_collisions(names, "slash command name", "de") == {
        "leave": "gehen",
        "kick": "gehen",
        "hand": "leave",
    }


def _sibling_sets(group: app_commands.Group) -> list[tuple[str, str, list[str]]]:
    """(where, context, English names) of each set of siblings in the tree: a group's subcommands, a
    command's options."""
    found = [(f"/{group.qualified_name}", "slash command name", [child.name for child in group.commands])]
    for child in group.commands:
        if isinstance(child, app_commands.Group):
            found += _sibling_sets(child)
        else:
            names = [parameter.display_name for parameter in child.parameters]
            found.append((f"/{child.qualified_name}", "slash option name", names))
    return found


@pytest.mark.parametrize("locale", shipped())
def test_no_two_sibling_names_collide_in_the_shipped_catalogues(locale: str) -> None:
    """Guard: in each shipped catalogue, no two subcommands of a group, nor two options of a command, are
    translated to the same name or to a sibling's English name. The translator would leave them English (the
    sync goes through); this names the careless translation so that it gets fixed."""
    problems = []
    for where, context, names in _sibling_sets(_group()):
        for name, refused in name_collisions(names, context, locale).items():
            problems.append(f"{where} {name!r} -> {refused!r}")
    assert problems == [], f"{locale}: names colliding with a sibling's: {problems}"


async def test_no_two_siblings_share_a_localized_name_in_any_locale() -> None:
    """Guard: the payload synced with the shipped catalogues has no two sibling options or subcommands shown
    under one name in any Discord locale (Discord would refuse every command)."""
    assert _duplicates(await _payload()) == []


async def test_the_command_stays_within_discords_combined_size_in_every_locale() -> None:
    """Guard (about 5,200 of 8,000 in 2026): Discord counts, for one command and all its subcommands, options
    and choices, the longest localization of each name and description plus each choice value; over 8,000
    the command is refused. All the subcommands are one /eights command, so every German or French
    description added counts against the same budget."""

    def longest(node: dict[str, Any], field: str) -> int:
        texts = [node.get(field) or "", *(node.get(f"{field}_localizations") or {}).values()]
        return max(len(t) for t in texts)

    def size(node: dict[str, Any]) -> int:
        total = longest(node, "name") + longest(node, "description")
        for choice in node.get("choices") or []:
            total += longest(choice, "name") + len(str(choice["value"]))
        return total + sum(size(option) for option in node.get("options") or [])

    assert size(await _payload()) <= 8000
