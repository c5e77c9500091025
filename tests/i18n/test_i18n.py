"""bot.i18n and the pieces around it: Discord's locales, one language per task, the slash commands'
translator, and which language a server's public text is in."""

from __future__ import annotations

import asyncio

import discord
import pytest
from discord import app_commands

from bot.exts._group import EightsGroup
from bot.exts.translator import CatalogueTranslator, translate_text
from bot.i18n import _, current_locale, from_discord, ngettext, normalise, use_locale
from bot.service.models import CardDisplay
from bot.ui.appearance import Appearance
from tests.i18n.fixtures import Writer, catalogues  # noqa: F401  (the fixture)


@pytest.mark.parametrize(
    ("discord_locale", "ours"),
    [
        (discord.Locale.american_english, "en"),
        (discord.Locale.british_english, "en"),
        (discord.Locale.german, "de"),
        (discord.Locale.french, "fr"),
        (discord.Locale.spain_spanish, "es"),
        (discord.Locale.latin_american_spanish, "es"),
        (discord.Locale.brazil_portuguese, "pt_BR"),
        (discord.Locale.japanese, None),
        ("pt-BR", "pt_BR"),
        (None, None),
    ],
)
def test_discord_locales_map_to_catalogues(discord_locale: object, ours: str | None) -> None:
    assert from_discord(discord_locale) == ours
    assert normalise(ours or "ja") == (ours or "en")


async def test_each_task_keeps_its_own_language(catalogues: Writer) -> None:  # noqa: F811
    catalogues("de", {"Not your turn.": "Du bist nicht dran."})
    catalogues("fr", {"Not your turn.": "Ce n'est pas ton tour."})
    said: dict[str, str] = {}

    async def player(locale: str) -> None:
        with use_locale(locale):
            await asyncio.sleep(0)  # the other player's task runs in between
            said[locale] = _("Not your turn.")

    await asyncio.gather(player("de"), player("fr"), player("en"))
    assert said == {"de": "Du bist nicht dran.", "fr": "Ce n'est pas ton tour.", "en": "Not your turn."}
    assert current_locale() == "en"


def test_plurals_and_placeholders(catalogues: Writer) -> None:  # noqa: F811
    catalogues("de", {"{n} card": ("{n} Karte", "{n} Karten"), "{who} played {card}": "{who} spielte {card}"})
    with use_locale("de"):
        assert ngettext("{n} card", "{n} cards", 1) == "1 Karte"
        assert ngettext("{n} card", "{n} cards", 5) == "5 Karten"
        assert _("{who} played {card}", who="Ana", card="K♥") == "Ana spielte K♥"
        assert _("Not your turn.") == "Not your turn."  # untranslated: English


async def test_slash_strings_are_translated_and_bad_names_left_english(catalogues: Writer) -> None:  # noqa: F811
    catalogues(
        "de",
        {
            ("slash command name", "new"): "neu",
            ("slash command name", "hand"): "Meine Hand",  # not a name Discord accepts: English stays
            (
                "slash command description",
                "Open a Crazy Eights table in this channel.",
            ): "Öffne einen Tisch hier.",
        },
    )
    assert translate_text("new", "slash command name", "de") == "neu"
    assert translate_text("hand", "slash command name", "de") is None
    assert translate_text("new", "slash command name", "en") is None

    from bot.exts.slash_strings import _feature_cogs  # the cogs' commands, as the extractor reads them

    group = EightsGroup()
    for cog in _feature_cogs():
        for command in cog.__cog_app_commands__:
            if group.get_command(command.name) is None:
                group.add_command(command)
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    payload = await group.get_translated_payload(tree, CatalogueTranslator())
    new = next(o for o in payload["options"] if o["name"] == "new")
    hand = next(o for o in payload["options"] if o["name"] == "hand")
    assert new["name_localizations"] == {"de": "neu"}
    assert new["description_localizations"] == {"de": "Öffne einen Tisch hier."}
    assert hand["name_localizations"] == {}


async def test_a_servers_public_language() -> None:
    settings: dict[int, CardDisplay] = {1: CardDisplay(language="fr"), 2: CardDisplay()}

    async def load(guild_id: int) -> CardDisplay:
        return settings.get(guild_id, CardDisplay())

    appearance = Appearance(load_switches=load)
    appearance.note_guild_locale(1, discord.Locale.german)
    appearance.note_guild_locale(2, discord.Locale.spain_spanish)
    appearance.note_guild_locale(3, discord.Locale.japanese)  # no catalogue: nothing noted
    assert await appearance.language(1) == "fr"  # chosen in /eights settings
    assert await appearance.language(2) == "es"  # Discord's server language
    assert await appearance.language(3) == "en"
    appearance.set_switches(2, CardDisplay(language="pt_BR"))
    assert appearance.cached_language(2) == "pt_BR"


def test_a_slash_translation_discord_would_refuse_stays_english(catalogues: Writer) -> None:  # noqa: F811
    too_long = "x" * 101
    catalogues("fr", {("slash command description", "Open a Crazy Eights table in this channel."): too_long})
    assert (
        translate_text("Open a Crazy Eights table in this channel.", "slash command description", "fr")
        is None
    )


async def test_the_board_picture_is_drawn_in_the_callers_language(catalogues: Writer) -> None:  # noqa: F811
    from bot.ui.art.board import BoardRenderer, board_key
    from tests.ui.snapshots import snapshot

    catalogues("de", {"Crazy Eights table, round {number}.": "Tisch der Verrückten Achten, Runde {number}."})
    renderer = BoardRenderer()
    snap = snapshot()
    with use_locale("de"):
        german = await renderer.render_async(snap)  # in the renderer's thread, or made here
        german_key = board_key(snap)
    english = await renderer.render_async(snap)
    assert german is not None and english is not None
    assert german.alt_text.startswith("Tisch der Verrückten Achten, Runde 1.")
    assert english.alt_text.startswith("Crazy Eights table, round 1.")
    assert german_key != board_key(snap) and renderer.drawn == 2  # one picture per language


def test_a_player_whose_language_we_lack_reads_the_servers() -> None:
    from types import SimpleNamespace

    from bot.ui.locales import use_player_locale

    appearance = Appearance()
    appearance.set_switches(5, CardDisplay(language="fr"))
    client = SimpleNamespace(appearance=appearance)
    with use_locale("en"):
        japanese = SimpleNamespace(client=client, guild_id=5, locale="ja", guild_locale="ja")
        assert use_player_locale(japanese) == "fr"  # the server's choice
        german = SimpleNamespace(client=client, guild_id=5, locale="de", guild_locale="es-ES")
        assert use_player_locale(german) == "de"  # their own
        assert appearance.cached_language(5) == "fr"  # noted "es", but the settings' choice wins
        alone = SimpleNamespace(client=client, guild_id=6, locale="ja", guild_locale="es-419")
        assert use_player_locale(alone) == "es"  # Discord's server language
