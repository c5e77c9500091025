"""Interactions without a server: a DM with the bot (no guild, no member, ``user`` instead)."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import World
from tests.e2e.contexts import make_dm, raw_click, raw_command
from tests.e2e.test_bad_input import start_two


def leaves(world: World) -> list[tuple[str, dict[str, Any]]]:
    group = next(c for c in world.fake.synced_commands() if c["name"] == "eights")
    found: list[tuple[str, dict[str, Any]]] = []

    def walk(prefix: str, node: dict[str, Any]) -> None:
        subs = [o for o in node.get("options", []) if o["type"] in (1, 2)]
        if not subs and prefix:
            found.append((prefix, node))
        for sub in subs:
            walk(f"{prefix} {sub['name']}".strip(), sub)

    walk("", group)
    return found


def fill(world: World, leaf: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for option in leaf.get("options", []):
        if not option.get("required"):
            continue
        if option.get("choices"):
            options[option["name"]] = option["choices"][0]["value"]
        elif option["type"] == 3:
            options[option["name"]] = "8S"
        elif option["type"] == 4:
            options[option["name"]] = option.get("min_value", 1)
        elif option["type"] == 5:
            options[option["name"]] = True
        elif option["type"] == 6:
            options[option["name"]] = world.bob
        else:
            raise AssertionError(f"option type {option['type']}")
    return options


def assert_short_private(text: str, ephemeral: bool, what: str) -> None:
    assert ephemeral, f"{what}: public answer {text!r}"
    assert "went wrong" not in text and "Traceback" not in text, f"{what}: {text!r}"
    assert 0 < len(text) < 300, f"{what}: {text!r}"


async def test_every_command_from_a_dm_says_it_works_only_in_a_server(world: World) -> None:
    fake = world.fake
    dm = make_dm(fake, world.alice)
    problems: list[str] = []
    for path, leaf in leaves(world):
        handle = await raw_command(
            fake, world.alice, dm, path, schema_guild=world.guild, guild=None, **fill(world, leaf)
        )
        try:
            kind = await handle.callback()
            if kind in (8, 9):
                continue
            answer = await handle.reply()
            text = answer.text()
            limit = 3000 if path == "rules" else 300
            misleading = "/eights new" in text  # cannot be followed in a DM
            if misleading or not answer.ephemeral or "went wrong" in text or not (0 < len(text) < limit):
                problems.append(f"/eights {path}: ephemeral={answer.ephemeral} {text[:150]!r}")
        except AssertionError as error:
            problems.append(f"/eights {path}: no answer ({str(error)[:120]})")
    assert not problems, "\n".join(problems)


async def test_a_board_button_from_a_dm_answers_briefly_and_changes_nothing(world: World) -> None:
    await start_two(world)
    fake = world.fake
    dm = make_dm(fake, world.carol)
    board = world.board()
    before = [(m.id, len(m.versions)) for m in fake.channel_messages(world.channel)]
    problems = []
    for button in board.buttons:
        handle = await raw_click(fake, world.carol, dm, board, button["custom_id"], guild=None)
        try:
            answer = await handle.reply()
            text = answer.text()
            if not answer.ephemeral or "went wrong" in text or not (0 < len(text) < 300):
                problems.append(f"{button.get('label')}: ephemeral={answer.ephemeral} {text[:150]!r}")
        except AssertionError as error:
            problems.append(f"{button.get('label')}: no answer ({str(error)[:120]})")
    await world.settle()
    assert not problems, "\n".join(problems)
    assert [(m.id, len(m.versions)) for m in fake.channel_messages(world.channel)] == before
