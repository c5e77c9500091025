"""The refusal of /eights new where the bot lacks a permission is in the player's language, for any number
of permissions (README, Languages: "Each player reads their own messages (private replies, their hand,
refusals) in the language of their Discord client"), and every plural message of the code is a plural entry
of every catalogue (a ``_()`` nested among ``ngettext``'s arguments had made the extractor record it as a
singular message, shown in English)."""

from __future__ import annotations

import pytest

from bot.i18n import ngettext, use_locale
from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread
from tests.e2e.test_thread_permissions_e2e import OLDER_INVITE, _grant_the_bot

SINGULAR = "I can't run a table in this channel: I'm missing the permission {permissions}."
PLURAL = "I can't run a table in this channel: I'm missing the permissions {permissions}."
# How each catalogue already begins the sentence (its singular translation).
OPENINGS = {
    "fr": "Je ne peux pas",
    "es-ES": "No puedo",
    "de": "Ich kann",
    "pt-BR": "Não posso",
}


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("locale", sorted(OPENINGS))
async def test_the_missing_permission_refusal_is_in_the_players_language(world: World, locale: str) -> None:
    """A player whose client is French (Spanish, German, Portuguese) reads the refusal of /eights new in a
    thread without Send Messages in Threads in their language, on a server in another language."""
    world.guild.locale = "en-US"  # a server in English: the player still reads their own language
    world.alice.locale = locale
    _grant_the_bot(world, OLDER_INVITE)
    thread = make_thread(world.fake, world.guild, world.channel, "cards", type=11, owner=world.alice)
    answer = await world.run(world.alice, "new", channel=thread)
    assert answer.ephemeral
    assert not answer.content.startswith("I can't run a table"), answer.content
    assert answer.content.startswith(OPENINGS[locale]), answer.content


@pytest.mark.parametrize("code", ["de", "fr", "es", "pt_BR"])
@pytest.mark.parametrize("count", [0, 1, 2, 5, 21, 1_000_000])
def test_the_missing_permissions_sentence_is_translated_for_every_count(code: str, count: int) -> None:
    """Whatever the number of missing permissions, the sentence is the catalogue's, not English."""
    with use_locale(code):
        said = ngettext(SINGULAR, PLURAL, count, permissions="X")
    assert said not in (SINGULAR.format(permissions="X"), PLURAL.format(permissions="X")), (code, count, said)


def test_every_plural_message_of_the_code_is_a_plural_message_of_the_catalogues() -> None:
    """Every ``ngettext``/``npgettext`` call of the code with literal texts finds a plural entry (same
    singular and plural) in messages.pot and in every language's catalogue; else it is shown in English."""
    import ast
    from pathlib import Path

    from bot.i18n import LOCALES_DIR, catalogue_path
    from tests.i18n.catalogues import read

    root = Path(__file__).resolve().parents[2]
    catalogues = {"template": read(LOCALES_DIR / "messages.pot")}
    catalogues |= {code: read(catalogue_path(code), code) for code in ("de", "fr", "es", "pt_BR")}
    problems = []
    for path in sorted((root / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name == "ngettext" and len(texts) >= 2:
                context, singular, plural = None, texts[0], texts[1]
            elif name == "npgettext" and len(texts) >= 3:
                context, singular, plural = texts[0], texts[1], texts[2]
            else:
                continue
            for where, catalogue in catalogues.items():
                found = catalogue.get(singular, context=context)
                if found is None or not isinstance(found.id, tuple) or tuple(found.id) != (singular, plural):
                    problems.append(f"{path.relative_to(root)}:{node.lineno} {where}: {singular[:50]!r}")
    assert not problems, "\n".join(problems)
