"""README, *On the command line*: "2 a missing or malformed setting (one line naming it, never a traceback)
... Every failure is one line, never a traceback", and `check` "exit 0 if it would start, 1 if not";
*Troubleshooting*: a SHARD_COUNT Discord refuses stops `run` in one line naming SHARD_COUNT (exit 2).

A SHARD_COUNT no bot can have (here a server id pasted into the wrong variable) is accepted by the
configuration ("a number of shards, 1 or more", no upper bound), and then ``ShardSet.everything``
(bot/shards.py: ``set(range(self.count))``) and ``check``'s shard list (bot/cli.py: cmd_check,
``range(config.shard_count)`` joined into one string) build one object per shard: the process eats all the
memory it can get (without a limit, the kernel's OOM killer ends it). The tests cap the process's address
space at 2 GiB so that the machine is safe; the bot must answer in one line long before that."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

from tests.test_cli import bot

# A server id where a shard count belongs (DEV_GUILD_ID and SHARD_COUNT sit side by side in .env.example).
PASTED_ID = "123456789012345678"
MEMORY_CAP = 2 * 1024**3


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped_bot(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return bot(cwd, *args, env=env, timeout=120, preexec_fn=_capped)


def test_check_names_an_impossible_shard_count_instead_of_running_out_of_memory(tmp_path: Path) -> None:
    """Expected: `check` lists `PROBLEM SHARD_COUNT: …` and exits 1. Before: a MemoryError traceback while
    printing `shards: 0, 1, 2, …` (bot/cli.py cmd_check), `unexpected error`."""
    result = capped_bot(tmp_path, "check", DISCORD_TOKEN="x" * 59, SHARD_COUNT=PASTED_ID)
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr[-600:]
    assert result.returncode == 1, result.stdout + result.stderr[-600:]
    assert any(line.startswith("PROBLEM SHARD_COUNT") for line in result.stdout.splitlines()), result.stdout


def test_run_refuses_an_impossible_shard_count_in_one_line(tmp_path: Path) -> None:
    """Expected: exit 2, one line naming SHARD_COUNT, before anything is connected. Before: a MemoryError in
    ShardSet.everything (bot/shards.py) during the shard claim, a traceback and `unexpected error` (exit 1);
    and `check` with the same settings said "ready"."""
    env = {
        "DISCORD_TOKEN": "x" * 59,
        # Nothing listens on port 9: if the bot went as far as Discord it would fail there, not hang.
        "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10",
        "SHARD_COUNT": PASTED_ID,
        "SHARD_IDS": "0",
        "LOG_LEVEL": "ERROR",
    }
    checked = capped_bot(tmp_path, "check", **env)
    result = capped_bot(tmp_path, "run", **env)
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr[-600:]
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "SHARD_COUNT" in lines[0], result.stderr[-600:]
    assert checked.returncode == 1 and "SHARD_COUNT" in checked.stdout, checked.stdout
