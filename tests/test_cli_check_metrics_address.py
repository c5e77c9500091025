"""README, *On the command line*: ``check`` "validate[s] the settings and the database without changing
anything, print[s] what `run` would do; exit 0 if it would start, 1 if not", and *Troubleshooting*, "The bot
exits at once": "it names the setting that is missing or malformed (exit code 2). `python -m bot check` lists
every problem at once." A METRICS_ADDRESS that is not an address of this machine stops ``run`` with exit 2
naming METRICS_ADDRESS; ``check`` must then say not ready."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

from tests.test_cli import TOKEN, bot, env_against

# TEST-NET-1 (RFC 5737): never an address of this machine, so listening there fails at once (EADDRNOTAVAIL);
# nothing is sent anywhere.
NOT_OURS = "192.0.2.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_check_says_not_ready_when_run_would_exit_2_for_the_metrics_address(tmp_path: Path) -> None:
    """README: `check` exits 1 when `run` would not start, listing the problem; here `run` exits 2 naming
    METRICS_ADDRESS (bot/metrics.py: _cannot_listen), while `check` says "ready" and exits 0."""
    from tests.fakediscord import FakeDiscord

    port = str(free_port())
    async with FakeDiscord(token=TOKEN) as fake:
        env = env_against(fake, METRICS_PORT=port, METRICS_ADDRESS=NOT_OURS, LOG_LEVEL="ERROR")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            code = await asyncio.wait_for(process.wait(), timeout=60)
        finally:
            if process.returncode is None:
                process.terminate()
                await process.wait()
        assert process.stderr is not None
        stderr = (await process.stderr.read()).decode()
        # What run does with this setting: it stops at once, naming the setting (exit 2).
        assert code == 2 and "METRICS_ADDRESS" in stderr, stderr
        checked = await asyncio.to_thread(bot, tmp_path, "check", env=env)
    assert checked.returncode == 1, checked.stdout
    assert "METRICS_ADDRESS" in checked.stdout, checked.stdout
