"""README.md: the commands a newcomer copies are the ones CI runs, and the facts it states hold."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import discord

from bot.cli import build_parser
from bot.config import VARIABLES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
CI = ROOT / ".ci" / "run"

RUN_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && (test -e .env || cp .env.example .env)"
    " && .venv/bin/python -m bot run"
)
TEST_COMMAND = (
    'python3 -m venv .venv && .venv/bin/pip install -e ".[test,dev]" && .venv/bin/python -m pytest -q'
)


def code_lines() -> list[str]:
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", README, flags=re.M | re.S)
    return [line for block in blocks for line in block.splitlines()]


def test_the_two_newcomer_commands_are_in_the_readme() -> None:
    lines = code_lines()
    assert lines.count(RUN_COMMAND) == 1
    assert lines.count(TEST_COMMAND) == 1


def test_ci_runs_the_readme_test_command() -> None:
    # .ci/run reads the test command from README.md; ask it which command it found, without running anything.
    script = CI.read_text()
    extract = script[script.index("test_line=") : script.index('if [ -n "${CI_VENV:-}" ]')]
    result = subprocess.run(
        ["bash", "-c", f'set -euo pipefail; cd "$1"; {extract}\nprintf "%s" "$test_command"', "_", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert result.stdout == "python -m pytest -q"
    assert TEST_COMMAND.endswith(".venv/bin/" + result.stdout)
    assert '"$venv/bin/"$test_command' in script


def test_ci_installs_both_extras_and_runs_every_check() -> None:
    script = CI.read_text()
    assert script.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in script
    assert '-m venv "$venv"' in script and '-e ".[test,dev]"' in script
    for step in ('ruff" check .', 'ruff" format --check .', 'mypy"'):
        assert step in script
    # Nothing may swallow a failure (pytest's exit 5 for "no tests" included).
    assert "|| true" not in script.split("test_line=", 1)[1].split("\n", 1)[1]
    assert "set +e" not in script


def test_every_variable_and_command_is_documented() -> None:
    for name in VARIABLES:
        assert f"`{name}`" in README, name
    parser = build_parser()
    subcommands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for command in subcommands:
        assert re.search(rf"^\| `{re.escape(command)}[ `]", README, flags=re.M), command
    assert set(subcommands) == {
        "run",
        "sync",
        "migrate",
        "check",
        "backup",
        "health",
        "forget-user",
        "copy-db",
    }


def test_the_invite_url_and_permissions_integer() -> None:
    permissions = discord.Permissions(
        view_channel=True, send_messages=True, embed_links=True, attach_files=True, read_message_history=True
    )
    assert f"scope=bot+applications.commands&permissions={permissions.value}" in README
    assert f"**{permissions.value}**" in README
    # Each permission in the table with its own value, and they add up.
    rows = re.findall(r"^\| ([A-Z][A-Za-z ]+) \| (\d+) \| ", README, flags=re.M)
    assert sum(int(value) for _, value in rows) == permissions.value
    for name, value in rows:
        flag = name.lower().replace(" ", "_")
        assert getattr(discord.Permissions, flag).flag == int(value), name
    assert not permissions.administrator and not permissions.manage_messages
    # The set the /eights new command checks before opening a table, and Attach Files for the board picture
    # (optional: without it the board is text only).
    from bot.cogs.lobby import REQUIRED_PERMISSIONS

    required = discord.Permissions(**{name: True for name, _ in REQUIRED_PERMISSIONS})
    assert required | discord.Permissions(attach_files=True) == permissions


def test_docker_run_uses_an_env_file_and_a_volume() -> None:
    assert re.search(r"docker run .*--env-file \.env .*-v \S+:/data", README)
