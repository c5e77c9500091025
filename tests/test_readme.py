"""README.md: the commands a newcomer copies are the ones CI runs, and the facts it states hold."""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
from pathlib import Path

import discord

from bot.cli import build_parser
from bot.config import VARIABLES
from bot.engine.rules import PRESETS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
CI = ROOT / ".ci" / "run"

SETUP = "(test -e .env || cp .env.example .env) && chmod 600 .env"
RUN_COMMAND = f"python3 -m venv .venv && .venv/bin/pip install -e . && {SETUP} && .venv/bin/python -m bot run"
TEST_COMMAND = (
    'python3 -m venv .venv && .venv/bin/pip install -e ".[test,dev]" && .venv/bin/python -m pytest -q -n 5'
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
    assert result.stdout == "python -m pytest -q -n 5"
    assert TEST_COMMAND.endswith(".venv/bin/" + result.stdout)
    assert '"$venv/bin/"$test_command' in script


def test_ci_installs_both_extras_and_runs_every_check() -> None:
    script = CI.read_text()
    assert script.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in script
    assert '-m venv "$venv"' in script and '-e ".[test,dev]"' in script
    for step in ('ruff" check .', 'ruff" format --check .', 'mypy"', 'uv" lock --check'):
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
        view_channel=True,
        send_messages=True,
        send_messages_in_threads=True,  # Send Messages does not cover threads and forum posts
        embed_links=True,
        attach_files=True,
        read_message_history=True,
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
    from bot.exts.tables._lobby import REQUIRED_PERMISSIONS

    required = discord.Permissions(**{name: True for name, _ in REQUIRED_PERMISSIONS})
    assert required | discord.Permissions(attach_files=True) == permissions


def test_docker_run_uses_an_env_file_and_a_volume() -> None:
    assert re.search(r"docker run .*--env-file \.env .*-v \S+:/data", README)


def test_the_set_up_command_makes_env_private(tmp_path: Path) -> None:
    # `check` warns about an .env other users can read: the token is in it. The newcomer's command makes it
    # private, whether it copies .env.example or keeps an .env that is there already.
    shutil.copy(ROOT / ".env.example", tmp_path / ".env.example")
    (tmp_path / ".env.example").chmod(0o644)
    for _ in range(2):
        subprocess.run(["bash", "-c", f"umask 022 && {SETUP}"], cwd=tmp_path, check=True, timeout=30)
        assert stat.S_IMODE((tmp_path / ".env").stat().st_mode) == 0o600
        assert (tmp_path / ".env").read_text() == (ROOT / ".env.example").read_text()
        (tmp_path / ".env").chmod(0o644)


def command_row(command: str) -> str:
    (row,) = re.findall(rf"^\| `/eights {command}[ `].*$", README, flags=re.M)
    return row


def test_who_may_start_a_table_or_add_a_cpu_and_how_many_seats() -> None:
    for command in ("start", "cpu"):
        assert "host or manager" in command_row(command), command  # as for house
    # More than 7 seats: only the presets that allow it, or with the max_players house rule.
    eight = sorted(name for name, ruleset in PRESETS.items() if ruleset.max_players >= 8)
    assert eight and len(eight) < len(PRESETS)
    row = command_row("new")
    assert "(2–8" in row and "`max_players`" in row and "at most 7" in row
    assert sorted(re.findall(r"`([a-z-]+)` seats 8", row)) == eight, row


def test_the_token_is_written_without_quotes_for_docker() -> None:
    # .env accepts DISCORD_TOKEN="…" (the bot strips the quotes), but `docker run --env-file` passes them on.
    assert "without quotes" in README and "--env-file" in README
    assert not re.search(r"DISCORD_TOKEN=[\"']", README)


def test_docker_restore_and_getting_a_backup_out_of_the_container() -> None:
    lines = code_lines()
    # The backup is copied out of the container to the host, and a restore goes into the named volume.
    assert any(re.match(r"docker cp eights:/data/\S+ \S+", line) for line in lines), "no docker cp out"
    restore = [line for line in lines if "-v eights-data:/data" in line]
    assert any("cp " in line and "/data/eights.sqlite3" in line for line in restore), restore
    assert any("eights.sqlite3-wal" in line and "-v eights-data:/data" in line for line in lines)
