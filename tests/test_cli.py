"""The command line, run as a newcomer or Docker would: ``python -m bot …`` in a fresh working directory."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.cli import handle_signals, main
from bot.config import VARIABLES
from bot.shards import ShardSet
from bot.store import open_store
from bot.store.claims import claim_shards

if TYPE_CHECKING:
    from tests.fakediscord import FakeDiscord

TOKEN = "MTA4OTk1NjE2NzE0NjM0MjQwMA.GxYzAb.abcdefghijklmnopqrstuvwxyz0123456789ABCD"
COMMANDS = ["run", "sync", "migrate", "check", "backup", "health", "forget-user", "copy-db"]


def bot(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m bot ARGS`` in ``cwd`` with none of the bot's variables set except ``env``."""
    environ = {name: value for name, value in os.environ.items() if name not in VARIABLES}
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec_fn,
    )


async def check_and_run_while_held(
    cwd: Path, env: dict[str, str], url: str, shards: ShardSet
) -> subprocess.CompletedProcess[str]:
    """``check``, then ``run``, with ``env`` while another process holds ``shards`` of ``url``; asserts that
    ``check`` says what ``run`` does (refused, exit 1) and returns how ``run`` ended."""
    running = await claim_shards(url, shards)
    try:
        checked = await asyncio.to_thread(bot, cwd, "check", env=env)
        ran = await asyncio.to_thread(bot, cwd, "run", env=env)
    finally:
        await running.release()
    assert ran.returncode == 1, ran.stderr
    assert checked.returncode == 1, (
        f"check exits {checked.returncode} and says {checked.stdout.strip().splitlines()[-1]!r}, "
        f"while run with the same settings exits 1: {ran.stderr.strip()!r}"
    )
    return ran


def env_against(fake: FakeDiscord, **extra: str) -> dict[str, str]:
    """The environment of ``python -m bot`` against ``fake``: none of the bot's variables set but the token,
    the fake's addresses and ``extra``."""
    env = {name: value for name, value in os.environ.items() if name not in VARIABLES}
    env.update(
        DISCORD_TOKEN=TOKEN,
        DISCORD_API_BASE_URL=fake.api_base_url,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        **extra,
    )
    return env


def files_in(directory: Path) -> list[str]:
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*"))


def write_heartbeat(database: Path, when: float) -> None:
    async def write() -> None:
        store = await open_store(f"sqlite:///{database}")
        try:
            await store.write_heartbeat(when)
        finally:
            await store.close()

    asyncio.run(write())


def test_run_without_a_token_exits_2_naming_the_variable(tmp_path: Path) -> None:
    for args in ([], ["run"], ["sync"]):
        result = bot(tmp_path, *args)
        assert result.returncode == 2, args
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0], result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""
    assert files_in(tmp_path) == []  # nothing was created before giving up


def test_the_newcomer_flow_stops_with_a_clear_message_until_the_token_is_set(tmp_path: Path) -> None:
    # `(test -e .env || cp .env.example .env) && python -m bot run`, before the token is filled in.
    example = Path(__file__).resolve().parents[1] / ".env.example"
    (tmp_path / ".env").write_text(example.read_text())
    result = bot(tmp_path, "run")
    assert result.returncode == 2
    assert "DISCORD_TOKEN" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [("LOG_FORMAT", "xml"), ("DATABASE_URL", "postgresql://u:hunter22@/nohost"), ("EIGHTS_CPU_DELAY", "-2")],
)
def test_a_malformed_variable_exits_2_with_one_line_and_no_token(
    tmp_path: Path, variable: str, value: str
) -> None:
    result = bot(tmp_path, "run", env={"DISCORD_TOKEN": TOKEN, variable: value})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and variable in lines[0] and "Traceback" not in result.stderr
    assert TOKEN not in result.stderr + result.stdout


def test_a_malformed_env_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={TOKEN}\nthis is not a setting\n")
    result = bot(tmp_path, "migrate")
    assert result.returncode == 2
    assert ".env line 2" in result.stderr and TOKEN not in result.stderr


def test_run_with_an_unreachable_api_fails_without_showing_the_token(tmp_path: Path) -> None:
    # Port 9 on localhost: nothing listens, the connection is refused at once.
    env = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10", "LOG_LEVEL": "DEBUG"}
    result = bot(tmp_path, "run", env=env)
    assert result.returncode == 1, result.stderr
    assert TOKEN not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def main_output(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``python -m bot ARGS`` in this process, for what never gets past argument parsing (fast)."""
    try:
        code = main(list(args))
    except SystemExit as exit:
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", COMMANDS)
def test_help_on_each_command(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = main_output(capsys, command, "--help")
    assert code == 0
    assert out.startswith(f"usage: python -m bot {command}")
    assert len(out) > 150


def test_top_level_help_lists_commands_and_variables(tmp_path: Path) -> None:
    result = bot(tmp_path, "--help")  # once through the real entry point
    assert result.returncode == 0
    for word in [*COMMANDS, *VARIABLES]:
        assert word in result.stdout


def test_unknown_command_and_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_output(capsys, "dance")[0] == 2
    code, _, err = main_output(capsys, "forget-user", "not-a-number")
    assert code == 2 and "USER_ID" in err
    code, _, err = main_output(capsys, "backup")
    assert code == 2 and "PATH" in err


def test_check_on_a_fresh_directory_reports_and_changes_nothing(tmp_path: Path) -> None:
    result = bot(tmp_path, "check")
    assert result.returncode == 1  # run would stop: no token
    assert "PROBLEM DISCORD_TOKEN" in result.stdout
    assert "does not exist yet" in result.stdout and "schema version" in result.stdout
    assert files_in(tmp_path) == []

    result = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN, "DEV_GUILD_ID": "42"})
    assert result.returncode == 0, result.stdout
    assert TOKEN not in result.stdout + result.stderr
    assert "DISCORD_TOKEN: set (**********" in result.stdout
    assert "server 42" in result.stdout and result.stdout.rstrip().endswith("with these settings")
    assert "at most 50 requests per second" in result.stdout and "metrics: off" in result.stdout
    assert files_in(tmp_path) == []

    proxied = {"DISCORD_API_BASE_URL": "http://nirn:8080/api/v10", "DISCORD_GLOBAL_RATE": "proxy"}
    result = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN, "METRICS_PORT": "9108", **proxied})
    assert "paced by the shared REST proxy" in result.stdout
    assert "metrics: http://127.0.0.1:9108/metrics" in result.stdout


def test_check_lists_every_bad_variable(tmp_path: Path) -> None:
    result = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN, "LOG_LEVEL": "LOUD", "SHARD_COUNT": "x"})
    assert result.returncode == 1
    assert "PROBLEM LOG_LEVEL" in result.stdout and "PROBLEM SHARD_COUNT" in result.stdout
    assert TOKEN not in result.stdout


def test_migrate_creates_the_folder_and_database_then_is_idempotent(tmp_path: Path) -> None:
    result = bot(tmp_path, "migrate")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "eights.sqlite3").is_file()
    assert result.stdout.startswith("schema version ") and "applied" in result.stdout
    version = int(result.stdout.split()[2])
    assert version >= 1
    again = bot(tmp_path, "migrate")
    assert again.returncode == 0 and f"schema version {version} (already up to date)" in again.stdout

    checked = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN})
    assert checked.returncode == 0 and f"schema version {version} of {version} (up to date)" in checked.stdout


def test_absolute_database_url(tmp_path: Path) -> None:
    database = tmp_path / "elsewhere" / "eights.db"
    result = bot(tmp_path, "migrate", env={"DATABASE_URL": f"sqlite:///{database}"})
    assert result.returncode == 0, result.stderr
    assert database.is_file() and not (tmp_path / "data").exists()


def test_health_needs_a_fresh_heartbeat(tmp_path: Path) -> None:
    result = bot(tmp_path, "health")
    assert result.returncode == 1 and "no database" in result.stdout
    assert not (tmp_path / "data").exists()  # health never creates the database

    assert bot(tmp_path, "migrate").returncode == 0
    result = bot(tmp_path, "health")
    assert result.returncode == 1 and "not written a heartbeat" in result.stdout

    database = tmp_path / "data" / "eights.sqlite3"
    write_heartbeat(database, time.time() - 5)
    result = bot(tmp_path, "health")
    assert result.returncode == 0 and result.stdout.startswith("healthy")

    write_heartbeat(database, time.time() - 90)
    result = bot(tmp_path, "health")
    # The subprocess takes a moment to start: the age it reports is 90 s or a little more.
    age = re.search(r"last heartbeat (\d+) s ago", result.stdout)
    assert result.returncode == 1 and age is not None and 90 <= int(age.group(1)) < 110
    assert bot(tmp_path, "health", "--max-age", "120").returncode == 0


@pytest.mark.parametrize("max_age", ["nan", "inf", "-5", "0", "soon"])
def test_health_refuses_a_max_age_that_is_not_a_number_of_seconds(tmp_path: Path, max_age: str) -> None:
    """`health --max-age` takes a finite number of seconds above 0, else exits 2 with one line: "nan" or
    "inf" (a templated HEALTHCHECK whose variable was empty) would call a bot dead for an hour healthy, so
    Docker never restarts it, and "-5" would call every bot unhealthy, a restart loop."""
    assert bot(tmp_path, "migrate").returncode == 0
    write_heartbeat(tmp_path / "data" / "eights.sqlite3", time.time() - 3600)
    assert bot(tmp_path, "health").returncode == 1  # a bot killed an hour ago
    result = bot(tmp_path, "health", "--max-age", max_age)
    assert result.returncode == 2, f"--max-age {max_age}: exit {result.returncode}, {result.stdout.strip()!r}"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "max-age" in lines[0] and "Traceback" not in result.stderr


def test_backup_copies_the_database(tmp_path: Path) -> None:
    result = bot(tmp_path, "backup", "copy.sqlite3")
    assert result.returncode == 1 and "no database" in result.stderr

    assert bot(tmp_path, "migrate").returncode == 0
    write_heartbeat(tmp_path / "data" / "eights.sqlite3", 1234.5)
    result = bot(tmp_path, "backup", "backups/copy.sqlite3")
    assert result.returncode == 0, result.stderr
    copy = tmp_path / "backups" / "copy.sqlite3"

    async def read_copy() -> float | None:
        store = await open_store(f"sqlite:///{copy}")
        try:
            return await store.read_heartbeat()
        finally:
            await store.close()

    assert asyncio.run(read_copy()) == 1234.5  # the copy holds the data

    refused = bot(tmp_path, "backup", "backups/copy.sqlite3")
    assert refused.returncode == 1 and "--force" in refused.stderr
    assert bot(tmp_path, "backup", "--force", "backups/copy.sqlite3").returncode == 0
    itself = bot(tmp_path, "backup", "--force", "data/eights.sqlite3")
    assert itself.returncode == 1


def test_forget_user(tmp_path: Path) -> None:
    result = bot(tmp_path, "forget-user", "1234")
    assert result.returncode == 1 and "no database" in result.stderr
    assert bot(tmp_path, "migrate").returncode == 0
    result = bot(tmp_path, "forget-user", "1234", "--guild", "99")
    assert result.returncode == 0, result.stderr
    assert "forgot user 1234 in server 99" in result.stdout


def test_console_script_entry_point_is_the_same_main() -> None:
    from importlib.metadata import entry_points

    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "crazy-eights"]
    assert script.value == "bot.__main__:main"


async def test_run_against_a_fake_discord_then_sigterm_exits_0_within_10_s(tmp_path: Path) -> None:
    """The whole path a deployment takes, real cogs included: `python -m bot run` in its own process, reaching
    Discord through DISCORD_API_BASE_URL and DISCORD_GATEWAY_URL, stopped by SIGTERM as `docker stop` does."""
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(token=TOKEN) as fake:
        fake.create_guild("Cards")
        env = env_against(
            fake,
            EIGHTS_CPU_DELAY="0",
            LOG_LEVEL="DEBUG",  # the chattiest logs (HTTP, gateway) must not hold the token either
        )

        async def run_until_connected() -> tuple[int, str, float]:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
            )
            assert process.stderr is not None
            identified = len(fake.identifies)
            try:
                await fake.wait_for(
                    lambda: len(fake.identifies) > identified, what="the bot's IDENTIFY", timeout=30
                )
            finally:
                signalled = time.monotonic()
                process.send_signal(signal.SIGTERM)
                stderr = (await asyncio.wait_for(process.stderr.read(), 30)).decode()
                code = await asyncio.wait_for(process.wait(), 30)
            return code, stderr, time.monotonic() - signalled

        code, stderr, took = await run_until_connected()
        assert code == 0, stderr
        assert took < 10
        assert "Traceback" not in stderr and TOKEN not in stderr
        assert "synced" in stderr and fake.synced_commands()  # first start: the commands were sent
        assert (tmp_path / "data" / "eights.sqlite3").is_file()

        code, stderr, took = await run_until_connected()
        assert code == 0 and took < 10, stderr
        assert "unchanged since the last sync" in stderr  # second start: nothing to send
        # Stopped cleanly, the bot is not healthy any more: at once, not after the heartbeat's 60 s.
        health = bot(tmp_path, "health")
        assert health.returncode == 1 and "stopped" in health.stdout, health.stdout
        fake.assert_clean()


async def test_sync_sends_the_commands_without_connecting_to_the_gateway(tmp_path: Path) -> None:
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(token=TOKEN) as fake:
        guild = fake.create_guild("Cards")
        env = env_against(
            fake,
            DEV_GUILD_ID=str(guild.id),
        )

        async def sync() -> tuple[int, str, str]:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                "sync",
                cwd=tmp_path,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
            return await process.wait(), stdout.decode(), stderr.decode()

        for _ in range(2):  # the second time too: sync forces it even though nothing changed
            code, stdout, stderr = await sync()
            assert code == 0, stderr
            assert stdout.strip() == f"application commands synced to server {guild.id}"
            assert re.search(rf"synced \d+ application commands to server {guild.id}", stderr), stderr
            assert TOKEN not in stdout + stderr
        assert fake.synced_commands(guild) and not fake.synced_commands()
        assert fake.identifies == []  # no gateway connection
        fake.assert_clean()


async def test_sync_beside_a_running_bot_leaves_its_heartbeat_alone(tmp_path: Path) -> None:
    """sync is a one-shot command run beside the running bot: it neither writes that bot's heartbeat row
    (the same key: the same SHARD_COUNT and SHARD_IDS) nor marks it stopped at its exit, so `health` (Docker's
    HEALTHCHECK) still answers healthy for the running bot. Its beat is written here directly, so that no
    next beat can hide a change."""
    from tests.fakediscord import FakeDiscord

    running_pid = 4242
    assert bot(tmp_path, "migrate").returncode == 0
    database = f"sqlite:///{tmp_path / 'data' / 'eights.sqlite3'}"
    store = await open_store(database)
    try:
        await store.write_heartbeat(time.time(), "all", pid=running_pid, host="bot-host")  # every shard's
    finally:
        await store.close()
    async with FakeDiscord(token=TOKEN) as fake:
        env = env_against(fake, LOG_LEVEL="ERROR")
        synced = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "sync", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        _, errors = await asyncio.wait_for(synced.communicate(), timeout=60)
        assert synced.returncode == 0, errors.decode()
    health = await asyncio.to_thread(bot, tmp_path, "health")
    store = await open_store(database)
    try:
        beat = await store.heartbeat("all")
    finally:
        await store.close()
    assert beat is not None
    assert (beat.pid, beat.host, beat.stopped_at) == (running_pid, "bot-host", None), beat
    assert health.returncode == 0, health.stdout


async def test_a_token_discord_rejects_exits_2_naming_the_variable(tmp_path: Path) -> None:
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(token="the-real-token") as fake:
        env = env_against(fake)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        _, stderr_bytes = await asyncio.wait_for(process.communicate(), 30)
        stderr = stderr_bytes.decode()
        assert process.returncode == 2
        assert stderr.strip().splitlines()[-1].endswith("DISCORD_TOKEN: Discord rejected the token")
        assert "Traceback" not in stderr and TOKEN not in stderr
        fake.take_violations()  # the 401 is what this test is about


async def test_a_signal_reaches_a_busy_loop_whose_wakeup_socket_is_full() -> None:
    """asyncio's ``add_signal_handler`` learns of a signal only from a byte in the loop's wakeup socket,
    which other threads' ``call_soon_threadsafe`` fill too: a late loop's full socket lost a SIGTERM (seen at
    1,000 busy tables). The bot's handler is called on the loop all the same."""
    loop = asyncio.get_running_loop()
    called: list[int] = []
    restore = handle_signals(loop, (signal.SIGUSR1,), called.append)
    try:
        wakeup = loop._csock  # type: ignore[attr-defined]
        while True:  # as a late loop's, full
            try:
                wakeup.send(b"\0")
            except BlockingIOError:
                break
        os.kill(os.getpid(), signal.SIGUSR1)
        for _ in range(50):
            await asyncio.sleep(0)
            if called:
                break
        assert called == [signal.SIGUSR1]
    finally:
        restore()
    assert signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL  # put back as it was


async def test_sigterm_while_starting_stops_at_once(tmp_path: Path) -> None:
    """In a container the bot is PID 1, which ignores a signal without a handler: SIGTERM while it waits for
    its database (here a server that accepts and never answers) must stop it, not wait for SIGKILL."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    accepted: list[socket.socket] = []
    try:
        env = {name: value for name, value in os.environ.items() if name not in VARIABLES}
        env.update(
            DISCORD_TOKEN=TOKEN,
            DATABASE_URL=f"postgresql://eights@127.0.0.1:{silent.getsockname()[1]}/eights",
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        assert process.stderr is not None
        loop = asyncio.get_running_loop()
        connection, _ = await asyncio.wait_for(loop.run_in_executor(None, silent.accept), 30)
        accepted.append(connection)  # the bot is connecting: starting
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 30)
        took = time.monotonic() - signalled
        stderr = (await process.stderr.read()).decode()
        assert code == 0 and took < 5, (code, took, stderr)
        assert "Traceback" not in stderr and "received while starting" in stderr
    finally:
        for connection in accepted:
            connection.close()
        silent.close()
