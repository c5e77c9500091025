"""Gateway close codes after which Discord says not to reconnect (Gateway, "Opcodes and Status Codes": 4004
Authentication failed, 4011 Sharding required, 4013 Invalid intent(s), 4014 Disallowed intent(s):
"Reconnect: false"), met by a bot that has been playing a while (a token reset in the portal, an intent
withdrawn), not at its first IDENTIFY (``test_cli_admin_mistakes.py`` closes there): `python -m bot run` stops
in one line with the documented exit code, never loops reconnecting and never prints a traceback."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from tests.test_cli import TOKEN, env_against


@pytest.mark.parametrize(
    ("code", "exit_code", "starts"),
    [
        (4004, 2, "python -m bot: configuration error: DISCORD_TOKEN: "),
        (4011, 2, "python -m bot: configuration error: SHARD_COUNT: "),
        (4013, 1, "python -m bot: "),
        (4014, 1, "python -m bot: Discord refused the gateway intents (close code 4014"),
    ],
    ids=["4004-token-reset-while-running", "4011-while-running", "4013", "4014-disallowed-intents"],
)
async def test_a_fatal_close_of_a_running_session_stops_run_in_one_line(
    tmp_path: Path, code: int, exit_code: int, starts: str
) -> None:
    """README (*On the command line*): "Every failure is one line, never a traceback"; exit 2 for a setting
    (one line naming it), 1 for Discord. 4014 comes out of discord.py as ``PrivilegedIntentsRequired`` (a
    ClientException, not ConnectionClosed): Discord refused the intents, exit 1 in one line saying so (README,
    *Troubleshooting*), not "unexpected error" with a traceback."""
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(token=TOKEN) as fake:
        fake.create_guild("Cards")
        env = env_against(fake, SHARD_COUNT="1", LOG_LEVEL="ERROR")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            await fake.wait_for(lambda: fake.identifies, what="IDENTIFY", timeout=60)
            await asyncio.sleep(2.0)  # READY, GUILD_CREATE: the bot plays
            assert process.returncode is None
            assert await fake.drop_gateway(code=code) == 1
            _, stderr_bytes = await asyncio.wait_for(process.communicate(), timeout=30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        identifies = len(fake.identifies)
    stderr = stderr_bytes.decode()
    assert identifies == 1 and not fake.resumes, "the bot tried the gateway again after a fatal close"
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(starts) and "unexpected error" not in lines[0], stderr
    assert TOKEN not in stderr
    assert process.returncode == exit_code, stderr
