"""Refusals that quote what was typed: the quoted text is shown as text, not as markup."""

from __future__ import annotations

from tests.e2e.conftest import World


async def test_catch_quotes_a_typed_player_name_as_text(world: World) -> None:
    """The brief's rule: "A name a user chose is data: escape markdown and mentions … wherever it is shown",
    error messages quoting input included; README: a name "written as a mention (`<@…>`), with markdown …
    reads as typed and is neither".

    Found: `/eights catch player:` with a name nobody at the table has is answered "No one called '…' sits
    at this table." with the typed name pasted in raw: "**x**" shows bold and "<@&…>" / "<@…>" show as
    live role and member mentions (pills, with the members' names) in the answer. Expected the name as
    ``shown_name`` writes it. Cause: bot/exts/tables/_play.py, ``catch`` (and ``effect``'s ``player``) format
    ``player.strip()[:40]`` with ``{name!r}`` and no escaping (the engine's refusals quoting ``typed_shown``
    text, e.g. "unknown house rule '…'", do the same)."""
    await world.run(world.alice, "new")
    typed = f"**x** <@&456> <@{world.carol.id}>"
    answer = await world.run(world.alice, "catch", player=typed)
    assert answer.ephemeral
    assert "No one called" in answer.content, answer.content
    assert "**x**" not in answer.content and "<@&456>" not in answer.content, answer.content
    assert f"<@{world.carol.id}>" not in answer.content, answer.content
