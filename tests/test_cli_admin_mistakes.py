"""The command line given an admin's mistakes (issue 23): an id out of range, a backup path that cannot be
written, a mistyped copy-db source, a malformed DATABASE_URL in the environment, a metrics port in use, a
password the URL holds in an unusual place, a port out of range, copy-db on a database in use, a misspelt
variable in .env, a data folder that is a file, a SHARD_COUNT Discord refuses. Each is one line naming what is
wrong, with the documented exit code, no traceback, no password, and nothing changed."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.shards import ShardSet
from bot.store import claim_shards
from tests.test_cli import TOKEN, bot, env_against, files_in


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
            env = env_against(
                fake,
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


SECRET = "S3cretPart"
COPY = "sqlite:///copy.sqlite3"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://eights@127.0.0.1:1/eights?password={SECRET}",
        f"postgresql://eights:pa/{SECRET}@127.0.0.1:1/eights",
        f"postgresql://eights:pa#{SECRET}@127.0.0.1:1/eights",
        f"postgresql://eights:pa?{SECRET}@127.0.0.1:1/eights",
        f"host=127.0.0.1 port=1 user=eights password={SECRET} dbname=eights",
    ],
    ids=["query-password", "slash", "hash", "question-mark", "keyword-form"],
)
def test_a_database_password_is_never_printed_wherever_the_url_holds_it(tmp_path: Path, url: str) -> None:
    """A password= parameter, a password with an unencoded / # or ?, libpq's keyword form: all masked."""
    env = {"DATABASE_URL": url, "DISCORD_TOKEN": TOKEN}
    for args in (("check",), ("migrate",), ("health",), ("forget-user", "5")):
        result = bot(tmp_path, *args, env=env)
        assert result.returncode != 0, (args, result.stdout, result.stderr)
        assert SECRET not in result.stdout + result.stderr, (args, result.stdout, result.stderr)
    copied = bot(tmp_path, "copy-db", "--from", "sqlite:///nothere.sqlite3", "--to", url)
    assert SECRET not in copied.stdout + copied.stderr


def test_a_password_with_an_unencoded_slash_is_refused_saying_how_to_encode_it(tmp_path: Path) -> None:
    """asyncpg would read pa/… as the path: refused up front, with the percent-encoding to use."""
    result = bot(
        tmp_path, "migrate", env={"DATABASE_URL": f"postgresql://eights:pa/{SECRET}@db.example/eights"}
    )
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert "DATABASE_URL" in line and "%2F" in line and SECRET not in line, line


def test_a_postgres_port_out_of_range_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """Port 99999 made asyncpg raise OverflowError, which open() did not catch."""
    for url in (
        f"postgresql://eights:{SECRET}@127.0.0.1:99999/eights",
        f"postgresql://eights:{SECRET}@127.0.0.1:5432,127.0.0.2:99999/eights",  # every host's port
    ):
        for args in (("migrate",), ("forget-user", "5")):
            result = bot(tmp_path, *args, env={"DATABASE_URL": url})
            assert result.returncode == 2, result.stderr
            line = one_line(result.stderr)
            assert "DATABASE_URL" in line and "65535" in line and SECRET not in line, line


def test_copy_db_refuses_a_database_whose_shards_a_running_bot_holds(tmp_path: Path) -> None:
    """copy-db promises that a database in use is refused: it must take the shard claim run holds."""
    assert bot(tmp_path, "migrate").returncode == 0
    database = tmp_path / "data" / "eights.sqlite3"

    async def copy_while_claimed() -> subprocess.CompletedProcess[str]:
        # What run holds while it runs (bot/cli.py _run): the claim of every shard of its database.
        claim = await claim_shards(f"sqlite:///{database}", ShardSet(None, None))
        try:
            return await asyncio.to_thread(
                bot, tmp_path, "copy-db", "--from", "sqlite:///data/eights.sqlite3", "--to", COPY
            )
        finally:
            await claim.release()

    result = asyncio.run(copy_while_claimed())
    assert "a database in use is refused" in result.stdout
    assert result.returncode == 1, result.stdout
    line = one_line(result.stderr)
    assert "--from" in line and "running bot" in line, line
    assert not (tmp_path / "copy.sqlite3").exists()
    # Once the bot has stopped, the same copy goes ahead (copy-db released its own claim too).
    assert bot(tmp_path, "copy-db", "--from", "sqlite:///data/eights.sqlite3", "--to", COPY).returncode == 0
    assert not (tmp_path / "data" / "eights.sqlite3.lock").exists()


def test_check_points_out_a_misspelt_variable_in_env_as_a_note(tmp_path: Path) -> None:
    """A misspelt name in .env was silently ignored: check names it and the setting it probably meant."""
    (tmp_path / ".env").write_text(
        f"DISCORD_TOKEN={TOKEN}\nDATABASE_ULR=postgresql://eights:pw@db.example/eights\nMETRICS_PROT=9108\n"
        "POSTGRES_PASSWORD=for-compose\n"
    )
    result = bot(tmp_path, "check")
    assert result.returncode == 0, result.stdout  # a note: run would still start
    assert "DATABASE_ULR" in result.stdout and "did you mean DATABASE_URL?" in result.stdout
    assert "METRICS_PROT" in result.stdout and "did you mean METRICS_PORT?" in result.stdout
    assert "POSTGRES_PASSWORD" not in result.stdout  # compose.yaml's, not a mistake


def test_check_is_not_ready_when_the_data_folder_is_a_file(tmp_path: Path) -> None:
    """check walked to the first existing ancestor without seeing it was a file, and said ready."""
    (tmp_path / "data").write_text("a file where the data folder should be\n")
    checked = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN})
    ran = bot(
        tmp_path, "run", env={"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10"}
    )
    assert ran.returncode == 1, ran.stderr  # run cannot start here ...
    assert checked.returncode == 1, checked.stdout  # ... so check must not say it would
    data = tmp_path.resolve() / "data"
    assert (
        f"PROBLEM DATABASE_URL: cannot create data/eights.sqlite3: {data} is not a folder" in checked.stdout
    )
    # The card art cannot be cached there either: a note, as run would start without its cache.
    assert f"note: the card art cannot be cached in data/art ({data} is not a folder)" in checked.stdout


@pytest.mark.parametrize("command", ["migrate", "run"])
def test_run_and_migrate_say_the_data_folder_is_a_file(tmp_path: Path, command: str) -> None:
    """The commands an admin runs first say what check says ("… is not a folder"), not what creating the
    folder or the lock file in it met ("File exists", as a FileExistsError's traceback or line)."""
    (tmp_path / "data").write_text("a file where the data folder should be\n")
    env = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10"}
    result = bot(tmp_path, command, env=env)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert f"{tmp_path.resolve() / 'data'} is not a folder" in last, result.stderr
    assert (tmp_path / "data").read_text() == "a file where the data folder should be\n"


@pytest.mark.parametrize(
    ("code", "variable"),
    [(4011, "SHARD_COUNT"), (4010, "SHARD_COUNT"), (4004, "DISCORD_TOKEN")],
    ids=["sharding-required", "invalid-shard", "authentication-failed"],
)
async def test_a_gateway_closed_for_a_setting_stops_run_with_exit_2_naming_it(
    tmp_path: Path, code: int, variable: str
) -> None:
    """Close codes after which discord.py gives up (ConnectionClosed out of the client) and that a setting
    causes: 4011 "Sharding required" for a SHARD_COUNT too low for the bot's servers (grown past 2,500 a
    shard, e.g. compose.yaml's "2" kept), 4010 for an invalid shard, 4004 for a token reset since the login.
    Each is a setting to change: one line naming it, exit 2 (README, *On the command line*), no traceback."""
    from tests.fakediscord import FakeDiscord

    class ClosingGateway(FakeDiscord):
        """Discord's answer to every IDENTIFY: the close code."""

        async def _identify(self, ws: Any, data: dict[str, Any]) -> None:
            self.identifies.append(tuple(data.get("shard") or [0, 1]))
            await ws.close(code=code, message=b"refused")

    async with ClosingGateway(token=TOKEN) as fake:
        env = env_against(fake, SHARD_COUNT="1", LOG_LEVEL="ERROR")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            _, stderr_bytes = await asyncio.wait_for(process.communicate(), timeout=60)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    stderr = stderr_bytes.decode()
    assert fake.identifies, "the bot never reached the gateway"
    assert process.returncode == 2, stderr
    assert one_line(stderr).startswith(f"python -m bot: configuration error: {variable}: "), stderr
    assert TOKEN not in stderr
