"""House-rule refusals that quote what the host typed (``/eights house``, the House rules form, ``/eights
settings house_option/house_value``): the quoted text must read as typed, not as markup or mentions, and a
right-to-left override in it must not reverse the rest of the answer."""

from __future__ import annotations

import discord

from bot.ui.names import shown_name
from tests.e2e.conftest import World

FSI, PDI = "\u2068", "\u2069"


def typed_markup(world: World) -> str:
    # Short enough that the refusal quotes it whole (``typed_shown`` keeps 40 characters).
    return f"**x** <@{world.carol.id}> ||s||"


def assert_quoted_as_text(content: str, typed: str, world: World) -> None:
    assert "**x**" not in content, content
    assert f"<@{world.carol.id}>" not in content, content  # a live mention pill of carol
    assert "||s||" not in content, content


async def test_house_command_refusal_quotes_the_typed_value_as_text(world: World) -> None:
    """The standard of the brief: "A name a user chose is data: escape markdown and mentions, isolate
    right-to-left text, wherever it is shown", error messages that quote input included (the same rule the
    project already applies to `/eights catch`'s "No one called '…'", tests/e2e/test_error_quotes_e2e.py).

    Found: `/eights house option:draw_limit value:**x** <@carol> ||s||` is answered "That house rule can't
    be used: Draw limit: '**x** <@…> ||s||' is not a whole number from 1 to 20." with the text pasted raw:
    bold, a spoiler and a live mention pill of carol. An unknown option and a rank do the same."""
    await world.run(world.alice, "new", preset="classic")
    typed = typed_markup(world)
    for option, value in (("draw_limit", typed), ("wild_rank", typed), (typed, "3")):
        answer = await world.run(world.alice, "house", option=option, value=value)
        assert answer.ephemeral and "can't be used" in answer.content, answer.content
        assert_quoted_as_text(answer.content, typed, world)


async def test_house_form_refusal_quotes_the_typed_value_as_text(world: World) -> None:
    """README, House rules: "a form where a number or ranks are typed … an impossible combination is refused
    privately with the reason". The reason quotes the typed text raw (markdown, mentions), as above."""
    await world.run(world.alice, "new", preset="classic")
    panel = await (await world.fake.click(world.alice, world.board(), label="House rules")).reply()
    page = next(s for s in panel.selects if any(o["value"] == "hand_size" for o in s["options"]))
    shown = await (await world.fake.select(world.alice, panel, str(page["custom_id"]), ["hand_size"])).reply()
    opened = await world.fake.click(world.alice, shown, label="Type a value")
    assert await opened.callback() == 9
    typed = typed_markup(world)
    refused = await (await world.fake.submit_modal(world.alice, opened, value=typed)).reply()
    assert refused.ephemeral and "whole number" in refused.content, refused.content
    assert_quoted_as_text(refused.content, typed, world)


async def test_house_refusal_isolates_right_to_left_text(world: World) -> None:
    """Standard: "isolate right-to-left text (U+2068 … U+2069) so it cannot reorder the surrounding line"
    (bot/ui/names.py does so for names and for the catch refusal). Found: `/eights house option:wild_rank
    value:אבג 5` answers "… 'אבג 5' is not a rank (A, 2–10, J, Q, K)." with the Hebrew text not isolated:
    the digit and the quote marks join its right-to-left run and show out of place."""
    await world.run(world.alice, "new", preset="classic")
    hebrew = "\u05d0\u05d1\u05d2 5"
    answer = await world.run(world.alice, "house", option="wild_rank", value=hebrew)
    assert answer.ephemeral and "not a rank" in answer.content, answer.content
    start = answer.content.index("\u05d0")
    assert answer.content.rfind(FSI, 0, start) != -1, repr(answer.content)
    assert answer.content.find(PDI, start) != -1, repr(answer.content)


async def test_settings_house_rule_refusal_quotes_the_typed_value_as_text(world: World) -> None:
    """`/eights settings house_option:… house_value:…` (Manage Server) refuses with the same raw quote."""
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=discord.Permissions(manage_guild=True).value)
    typed = typed_markup(world)
    answer = await world.run(admin, "settings", house_option="draw_limit", house_value=typed)
    assert "whole number" in answer.content, answer.content
    assert_quoted_as_text(answer.content, typed, world)
    # What the project's own helper would show for the same text.
    assert shown_name(typed) != typed
