"""bot.exts.tree.unreadable_option: a slash command's options checked against what the command declares,
before discord.py reads them (the end-to-end cases: tests/e2e/test_tampered_input_e2e.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.exts.tree import unreadable_option


@app_commands.command(name="sample", description="A command with one option of each kind.")
@app_commands.choices(level=[app_commands.Choice(name=n, value=n) for n in ("easy", "hard")])
async def sample(
    interaction: discord.Interaction,
    text: app_commands.Range[str, None, 5],
    count: app_commands.Range[int, 1, 10] | None = None,
    ratio: app_commands.Range[float, 0.0, 1.0] | None = None,
    free: int | None = None,
    flag: bool | None = None,
    member: discord.User | None = None,
    level: str | None = None,
) -> None:
    """Never run."""


TYPES = {"text": 3, "count": 4, "ratio": 10, "free": 4, "flag": 5, "member": 6, "level": 3}


COMMAND = discord.InteractionType.application_command


def invoked(kind: discord.InteractionType = COMMAND, **values: Any) -> Any:
    options = [{"type": TYPES[name], "name": name, "value": value} for name, value in values.items()]
    return SimpleNamespace(command=sample, type=kind, data={"name": "sample", "type": 1, "options": options})


@pytest.mark.parametrize(
    "values",
    [
        {"text": "abcde"},
        {"text": "", "count": 10, "ratio": 0.5, "free": -(2**53 - 1), "flag": False},
        {"text": "a", "ratio": 1, "member": "123456789012345678", "level": "hard"},
    ],
)
def test_values_as_declared_are_readable(values: dict[str, Any]) -> None:
    assert not unreadable_option(invoked(**values))


@pytest.mark.parametrize(
    "values",
    [
        {"text": "abcdef"},  # longer than declared
        {"text": 5},
        {},  # the required option left out
        {"text": "a", "count": "7"},
        {"text": "a", "count": 11},
        {"text": "a", "count": True},
        {"text": "a", "count": 7.0},
        {"text": "a", "ratio": float("nan")},
        {"text": "a", "ratio": 1.5},
        {"text": "a", "ratio": "0.5"},
        {"text": "a", "free": 2**63},  # beyond Discord's integers, though nothing is declared
        {"text": "a", "flag": "yes"},
        {"text": "a", "member": "abc"},
        {"text": "a", "member": "1" * 40},
        {"text": "a", "level": "medium"},  # not one of the choices
    ],
)
def test_values_a_tampered_client_sends_are_unreadable(values: dict[str, Any]) -> None:
    assert unreadable_option(invoked(**values))


def test_an_option_of_another_type_than_declared_is_unreadable() -> None:
    interaction = invoked(text="a")
    interaction.data["options"][0]["type"] = 4
    assert unreadable_option(interaction)


def test_an_autocomplete_may_hold_anything_in_its_focused_option_only() -> None:
    typing = invoked(discord.InteractionType.autocomplete, count="1x")  # the required text not there yet
    typing.data["options"][0]["focused"] = True
    assert not unreadable_option(typing)
    beside = invoked(discord.InteractionType.autocomplete, count="1x", member="abc")
    beside.data["options"][0]["focused"] = True
    assert unreadable_option(beside)


def test_options_of_a_subcommand_are_those_checked() -> None:
    interaction = invoked(text="abcdef")
    interaction.data["options"] = [{"type": 1, "name": "sample", "options": interaction.data["options"]}]
    assert unreadable_option(interaction)
    interaction.data["options"][0]["options"][0]["value"] = "abc"
    assert not unreadable_option(interaction)
