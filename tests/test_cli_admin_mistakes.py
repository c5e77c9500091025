"""The command line given an admin's mistakes (issue 23): an id out of range, a backup path that cannot be
written, a mistyped copy-db source, a malformed DATABASE_URL in the environment, a metrics port in use. Each
is one line naming what is wrong, with the documented exit code, no traceback, and nothing changed."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from bot.config import VARIABLES
from tests.test_cli import TOKEN, bot, files_in


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


def test_forget_user_refuses_an_id_outside_discords_range_in_one_line(tmp_path: Path) -> None:
    assert bot(tmp_path, "migrate").returncode == 0
    before = (tmp_path / "data" / "eights.sqlite3").read_bytes()
    for user_id in ("99999999999999999999999999", str(2**63)):
        result = bot(tmp_path, "forget-user", user_id)
        assert result.returncode == 2, result.stderr
        line = one_line(result.stderr)
        assert "USER_ID" in line and user_id in line and result.stdout == ""
    result = bot(tmp_path, "forget-user", "1234", "--guild", str(2**64))
    assert result.returncode == 2 and "--guild" in one_line(result.stderr)
    assert (tmp_path / "data" / "eights.sqlite3").read_bytes() == before
    # The largest id SQLite can hold is still a Discord id.
    assert bot(tmp_path, "forget-user", str(2**63 - 1)).returncode == 0


def test_backup_to_a_path_that_cannot_be_written_fails_in_one_line_leaving_nothing(tmp_path: Path) -> None:
    assert bot(tmp_path, "migrate").returncode == 0
    (tmp_path / "a-file").write_text("not a folder")
    before = files_in(tmp_path)
    # /proc refuses new files even to root (a read-only folder would not stop root); a file is no folder.
    for path in ("/proc/eights-backup.sqlite3", "a-file/copy.sqlite3"):
        result = bot(tmp_path, "backup", path)
        assert result.returncode == 1, result.stderr
        line = one_line(result.stderr)
        assert path in line and "cannot write" in line, line
        assert not Path("/proc/eights-backup.sqlite3.partial").exists()
    assert files_in(tmp_path) == before


def test_copy_db_refuses_a_source_that_does_not_exist_and_creates_nothing(tmp_path: Path) -> None:
    result = bot(
        tmp_path, "copy-db", "--from", "sqlite:///data/nothere.sqlite3", "--to", "sqlite:///copy.sqlite3"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    line = one_line(result.stderr)
    assert "--from" in line and "data/nothere.sqlite3" in line and "no database" in line
    assert "DATABASE_URL" not in result.stdout + result.stderr
    assert files_in(tmp_path) == []  # neither the source (nor its folder) nor the target


def test_copy_db_names_the_option_whose_url_is_wrong(tmp_path: Path) -> None:
    assert bot(tmp_path, "migrate").returncode == 0
    good = "sqlite:///data/eights.sqlite3"
    for option, args in (("--from", ("mysql://a", "sqlite:///copy.sqlite3")), ("--to", (good, "mysql://a"))):
        result = bot(tmp_path, "copy-db", "--from", args[0], "--to", args[1])
        assert result.returncode == 2, result.stderr
        line = one_line(result.stderr)
        assert line.startswith(f"python -m bot: {option}: ") and "mysql://a" in line, line
        assert "DATABASE_URL" not in line
    assert not (tmp_path / "copy.sqlite3").exists()


def test_check_reports_the_database_url_in_effect_from_the_environment(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={TOKEN}\nDATABASE_URL=sqlite:///data/fromfile.sqlite3\n")
    result = bot(tmp_path, "check", env={"DATABASE_URL": "mysql://eights:s3cr@db.example/eights"})
    assert result.returncode == 1
    assert "PROBLEM DATABASE_URL" in result.stdout
    # The value run would use (the environment's), its password masked; not a database run would not open.
    assert "mysql://eights:***@db.example/eights" in result.stdout and "environment" in result.stdout
    assert "fromfile" not in result.stdout and "does not exist yet" not in result.stdout
    assert "s3cr" not in result.stdout + result.stderr
    assert files_in(tmp_path) == [".env"]


async def test_a_metrics_port_in_use_stops_run_with_exit_2_naming_the_port(tmp_path: Path) -> None:
    from tests.fakediscord import FakeDiscord

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with FakeDiscord(token=TOKEN) as fake:
            env = {name: value for name, value in os.environ.items() if name not in VARIABLES}
            env.update(
                DISCORD_TOKEN=TOKEN,
                DISCORD_API_BASE_URL=fake.api_base_url,
                DISCORD_GATEWAY_URL=fake.gateway_url,
                METRICS_PORT=str(port),
                LOG_LEVEL="ERROR",
            )
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
            )
            exited = asyncio.create_task(process.wait())
            identified = asyncio.create_task(
                fake.wait_for(lambda: fake.identifies, what="IDENTIFY", timeout=60)
            )
            await asyncio.wait({exited, identified}, return_when=asyncio.FIRST_COMPLETED)
            connected = identified.done() and identified.exception() is None
            if not exited.done():
                process.terminate()
            identified.cancel()
            await asyncio.gather(identified, return_exceptions=True)
            code = await exited
            assert process.stderr is not None
            stderr = (await process.stderr.read()).decode()
            # sync is a one-shot command beside the running bot (which holds the port): it serves no metrics.
            synced = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "sync", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
            )
            _, sync_errors = await synced.communicate()
            assert synced.returncode == 0, sync_errors.decode()
    assert not connected, "the bot went on to the gateway without its metrics"
    assert code == 2, stderr
    line = one_line(stderr)
    assert "METRICS_PORT" in line and str(port) in line and TOKEN not in stderr
