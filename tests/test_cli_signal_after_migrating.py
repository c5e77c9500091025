"""A stop signal between the migration and the bot's start stops `run` cleanly, as at any other moment.

README (run): "SIGTERM or Ctrl+C stops it cleanly: … exit 0 within 10 seconds". ``_run`` handles the signals
while it claims and migrates, ``_serve`` once the bot runs; between them (discord.py's first import, about
half a second, and building the bot) the bot used to have no handler at all: a SIGTERM there killed it
(exit -15), and in a container, where the bot is PID 1 and a signal without a handler is ignored, `docker
stop` waited 10 s for its SIGKILL.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from bot.config import VARIABLES
from tests.test_cli import TOKEN, env_against

SIGTERM_BIT = 1 << (signal.SIGTERM - 1)

# `python -m bot run`, sending itself SIGNUM at MOMENT: "migrated" (as _migrate returns) or "building" (in
# EightsBot's constructor, after discord.py's import): both after _run's start-up work, before _serve.
SIGNAL_AT = """
import os, signal, sys
import bot.cli as cli

moment, signum = sys.argv[1], int(sys.argv[2])
if moment == "migrated":
    migrate = cli._migrate

    async def migrate_then_signal(config):
        done = await migrate(config)
        os.kill(os.getpid(), signum)
        return done

    cli._migrate = migrate_then_signal
else:
    from bot.client import EightsBot

    build = EightsBot.__init__

    def build_then_signal(self, *args, **kwargs):
        build(self, *args, **kwargs)
        os.kill(os.getpid(), signum)

    EightsBot.__init__ = build_then_signal
sys.exit(cli.main(["run"]))
"""


@pytest.mark.parametrize(
    ("moment", "signum"),
    [("migrated", signal.SIGTERM), ("building", signal.SIGTERM), ("building", signal.SIGINT)],
)
async def test_a_signal_after_the_migration_stops_the_bot_before_it_connects(
    tmp_path: Path, moment: str, signum: signal.Signals
) -> None:
    """SIGTERM (or Ctrl+C's SIGINT) that arrives once the database is migrated, before the bot serves, is
    not lost and does not kill the process: the bot stops without connecting to Discord, exit 0, no
    traceback, the database migrated."""
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(token=TOKEN) as fake:
        fake.create_guild("Cards")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            SIGNAL_AT,
            moment,
            str(int(signum)),
            cwd=tmp_path,
            env=env_against(fake, EIGHTS_CPU_DELAY="0"),
            stderr=asyncio.subprocess.PIPE,
        )
        assert process.stderr is not None
        stderr = (await asyncio.wait_for(process.stderr.read(), 60)).decode()
        code = await asyncio.wait_for(process.wait(), 30)
        assert code == 0, f"{signum.name} once {moment}: exit {code}; stderr: {stderr[-800:]!r}"
        assert "Traceback" not in stderr and f"{signum.name} received while starting" in stderr, stderr
        assert not fake.identifies  # stopped before connecting
        assert (tmp_path / "data" / "eights.sqlite3").is_file()
        fake.assert_clean()


def _catches_sigterm(pid: int) -> bool | None:
    """Whether process ``pid`` has a handler for SIGTERM now (/proc's SigCgt); None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    caught = re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.MULTILINE)
    return None if caught is None else bool(int(caught.group(1), 16) & SIGTERM_BIT)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/PID/status")
async def test_from_its_first_handler_until_connected_run_never_stops_catching_sigterm(
    tmp_path: Path,
) -> None:
    """The real `python -m bot run`, watched from outside (its signal handlers in /proc/PID/status): once it
    catches SIGTERM, it catches it at every moment until it has connected to Discord (no gap between the
    start-up handler and the serving one), and the SIGTERM sent then stops it cleanly, exit 0 within 10 s."""
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(token=TOKEN) as fake:
        fake.create_guild("Cards")
        env = {name: value for name, value in os.environ.items() if name not in VARIABLES}
        env.update(env_against(fake, EIGHTS_CPU_DELAY="0"))
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        assert process.stderr is not None

        def watch() -> str:
            """ "connected", or where the watch ended: "gap" (no handler after one), "gone", "timeout"."""
            deadline = time.monotonic() + 60
            seen_handler = False
            while time.monotonic() < deadline:
                caught = _catches_sigterm(process.pid)
                if caught is None:
                    return "gone"
                if caught:
                    seen_handler = True
                    if fake.identifies:
                        return "connected"
                elif seen_handler:
                    return "gap"
                time.sleep(0.002)  # the gap this looks for lasted half a second
            return "timeout"

        where = await asyncio.to_thread(watch)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        stderr = (await asyncio.wait_for(process.stderr.read(), 30)).decode()
        code = await asyncio.wait_for(process.wait(), 30)
        took = time.monotonic() - signalled
        fake.take_violations()
        assert where == "connected", f"watch ended at {where!r}; stderr: {stderr[-500:]!r}"
        assert code == 0 and took < 10, f"exit {code} after {took:.1f} s; stderr: {stderr[-500:]!r}"
        assert "Traceback" not in stderr
