"""The command line against PostgreSQL: migrate, check, health, backup, forget-user and copy-db, with a
password in the URL that must never be printed (the test server trusts every password, so one is given)."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import socket
import struct
import subprocess
import threading
from pathlib import Path

import pytest

from bot.store import open_store
from tests.store.test_copy import fill
from tests.store.test_postgres_migrations import LATEST, copy_migrations, fetch, migrate
from tests.test_cli import TOKEN, bot

PASSWORD = "hunter2-not-shown"


def with_password(url: str) -> str:
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@")


def assert_masked(*outputs: str) -> None:
    for output in outputs:
        assert PASSWORD not in output


def test_migrate_check_and_health_on_postgres(tmp_path: Path, pg_schema_url: str) -> None:
    env = {"DATABASE_URL": with_password(pg_schema_url), "DISCORD_TOKEN": TOKEN}
    health = bot(tmp_path, "health", env=env)
    assert health.returncode == 1 and "unhealthy" in health.stdout
    migrated = bot(tmp_path, "migrate", env=env)
    assert migrated.returncode == 0, migrated.stderr
    assert "postgres:***@" in migrated.stdout and "applied" in migrated.stdout
    checked = bot(tmp_path, "check", env=env)
    assert checked.returncode == 0, checked.stdout
    assert (
        "database: PostgreSQL postgresql://postgres:***@" in checked.stdout and "up to date" in checked.stdout
    )
    assert not (tmp_path / "data").exists()  # nothing SQLite was created
    health = bot(tmp_path, "health", env=env)
    assert health.returncode == 1 and "not written a heartbeat" in health.stdout

    async def beat() -> None:
        store = await open_store(pg_schema_url)
        try:
            import time

            await store.write_heartbeat(time.time())
        finally:
            await store.close()

    asyncio.run(beat())
    health = bot(tmp_path, "health", env=env)
    assert health.returncode == 0 and health.stdout.startswith("healthy")
    forgot = bot(tmp_path, "forget-user", "1234", env=env)
    assert forgot.returncode == 0 and "forgot user 1234" in forgot.stdout
    assert_masked(migrated.stdout, migrated.stderr, checked.stdout, health.stdout, forgot.stdout)


def test_unreachable_postgres_is_one_line_without_the_password(tmp_path: Path) -> None:
    env = {"DATABASE_URL": f"postgresql://eights:{PASSWORD}@127.0.0.1:1/eights", "DISCORD_TOKEN": TOKEN}
    for command in ("migrate", "check", "health", "forget-user"):
        args = [command, "5"] if command == "forget-user" else [command]
        result = bot(tmp_path, *args, env=env)
        assert result.returncode == 1, (command, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr and "eights:***@127.0.0.1:1" in result.stdout + result.stderr
        assert_masked(result.stdout, result.stderr)


def test_backup_on_postgres_says_how_to_use_pg_dump(tmp_path: Path, pg_url: str) -> None:
    result = bot(tmp_path, "backup", "eights.dump", env={"DATABASE_URL": with_password(pg_url)})
    assert result.returncode == 1
    assert "pg_dump --format=custom --file=eights.dump" in result.stderr and "pg_restore" in result.stderr
    assert_masked(result.stdout, result.stderr)
    assert not (tmp_path / "eights.dump").exists()


def _password_catcher() -> tuple[int, list[str]]:
    """A server that asks for a cleartext password once and records what the client sends."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[str] = []

    def serve() -> None:
        server.settimeout(20)
        try:
            conn, _ = server.accept()
            with conn:
                (length,) = struct.unpack("!I", conn.recv(4))
                body = conn.recv(length - 4)
                if struct.unpack("!I", body[:4])[0] == 80877103:  # SSLRequest: no
                    conn.sendall(b"N")
                    (length,) = struct.unpack("!I", conn.recv(4))
                    conn.recv(length - 4)
                conn.sendall(b"R" + struct.pack("!II", 8, 3))  # AuthenticationCleartextPassword
                conn.recv(1)
                (length,) = struct.unpack("!I", conn.recv(4))
                received.append(conn.recv(length - 4).rstrip(b"\0").decode())
        except OSError:
            pass
        finally:
            server.close()

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1], received


@pytest.mark.skipif(shutil.which("pg_dump") is None, reason="pg_dump is not installed")
def test_the_pg_dump_command_backup_prints_logs_in_with_pgpassword(tmp_path: Path) -> None:
    """A printed user:***@ made libpq send *** instead of PGPASSWORD, which the advice says to use."""
    port, received = _password_catcher()
    url = f"postgresql://eights:{PASSWORD}@127.0.0.1:{port}/eights?sslmode=disable&password={PASSWORD}"
    advice = bot(tmp_path, "backup", "eights.dump", env={"DATABASE_URL": url})
    assert_masked(advice.stdout, advice.stderr)
    command = next(line.strip() for line in advice.stderr.splitlines() if line.strip().startswith("pg_dump "))
    assert f"'postgresql://eights@127.0.0.1:{port}/eights?sslmode=disable'" in command  # as README shows it
    subprocess.run(
        shlex.split(command),
        cwd=tmp_path,
        env={"PGPASSWORD": PASSWORD, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        timeout=30,
    )
    assert received == [PASSWORD], f"pg_dump sent {received!r}; the printed command: {command}"


def test_copy_db_moves_a_sqlite_database_to_postgres(tmp_path: Path, pg_schema_url: str) -> None:
    async def make() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'data' / 'eights.sqlite3'}")
        try:
            await store.migrate()
            await fill(store)
        finally:
            await store.close()

    asyncio.run(make())
    target = with_password(pg_schema_url)
    copied = bot(tmp_path, "copy-db", "--from", "sqlite:///data/eights.sqlite3", "--to", target)
    assert copied.returncode == 0, copied.stderr
    assert "copied and verified by counts: 3 table(s) (1 open)" in copied.stdout
    again = bot(tmp_path, "copy-db", "--from", "sqlite:///data/eights.sqlite3", "--to", target)
    assert again.returncode == 1 and "not empty" in again.stderr
    assert_masked(copied.stdout, copied.stderr, again.stdout, again.stderr)
    checked = bot(tmp_path, "check", env={"DATABASE_URL": target, "DISCORD_TOKEN": TOKEN})
    assert checked.returncode == 0 and "up to date" in checked.stdout


def test_health_checks_each_shard_process_on_its_own(tmp_path: Path, pg_url: str) -> None:
    async def beat() -> None:
        import time

        store = await open_store(pg_url)
        try:
            await store.write_heartbeat(time.time() - 2, "0/2", pid=10, host="a")
            await store.write_heartbeat(time.time() - 300, "1/2", pid=11, host="b")
        finally:
            await store.close()

    asyncio.run(beat())
    env = {"DATABASE_URL": pg_url, "SHARD_COUNT": "2"}
    first = bot(tmp_path, "health", env={**env, "SHARD_IDS": "0"})
    assert first.returncode == 0 and first.stdout.startswith("healthy (shard 0 of 2)")
    second = bot(tmp_path, "health", env={**env, "SHARD_IDS": "1"})
    assert second.returncode == 1 and "unhealthy (shard 1 of 2): last heartbeat 30" in second.stdout
    everything = bot(tmp_path, "health", env=env)  # a process running both shards has its own heartbeat
    assert everything.returncode == 1 and "has not written a heartbeat" in everything.stdout


def test_the_printed_pg_dump_command_works_with_the_documented_synchronous_commit_option(
    pg_database: str, tmp_path: Path
) -> None:
    """README ("PostgreSQL") suggests `?synchronous_commit=on`: a server setting that asyncpg sends, not a
    libpq parameter, so the printed URL keeps only what libpq takes (pg_dump refuses any other: "invalid URI
    query parameter")."""
    url = f"{with_password(pg_database)}?synchronous_commit=on"
    advice = bot(tmp_path, "backup", "eights.dump", env={"DATABASE_URL": url})
    assert advice.returncode == 1, advice.stderr
    assert_masked(advice.stdout, advice.stderr)
    line = next(line.strip() for line in advice.stderr.splitlines() if line.strip().startswith("pg_dump "))
    if shutil.which("pg_dump") is None:
        pytest.skip("pg_dump is not installed")
    command = shlex.split(line)
    dumped = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert dumped.returncode == 0, f"{line}: {dumped.stderr}"
    assert (tmp_path / "eights.dump").stat().st_size > 0


# A database made by an older bot (README "PostgreSQL" step 1 makes an empty one): `run` migrates it at start,
# as it does an SQLite file, so the other commands take it as one to migrate, not as a damaged one.
OLD_VERSION = 8


def old_schema(url: str, tmp_path: Path) -> None:
    assert asyncio.run(migrate(url, copy_migrations(tmp_path / "old_code", upto=OLD_VERSION))) == OLD_VERSION


def test_check_is_ready_on_an_empty_postgres_database(pg_schema_url: str, tmp_path: Path) -> None:
    env = {"DISCORD_TOKEN": TOKEN, "DATABASE_URL": with_password(pg_schema_url)}
    checked = bot(tmp_path, "check", env=env)
    expected = f"schema version 0 of {LATEST} (run will apply {LATEST} migration(s))"
    assert expected in checked.stdout, checked.stdout
    assert checked.returncode == 0, checked.stdout  # run would start: it migrates first
    assert_masked(checked.stdout)


def test_check_is_ready_on_a_postgres_database_of_an_older_schema(pg_schema_url: str, tmp_path: Path) -> None:
    old_schema(pg_schema_url, tmp_path)
    checked = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN, "DATABASE_URL": pg_schema_url})
    assert f"schema version {OLD_VERSION} of {LATEST}" in checked.stdout, checked.stdout
    assert checked.returncode == 0, checked.stdout


def test_forget_user_migrates_an_older_postgres_database(pg_schema_url: str, tmp_path: Path) -> None:
    old_schema(pg_schema_url, tmp_path)
    result = bot(tmp_path, "forget-user", "5", env={"DATABASE_URL": pg_schema_url})
    assert result.returncode == 0, result.stderr
    assert asyncio.run(fetch(pg_schema_url, "SELECT max(version) FROM schema_migrations")) == [(LATEST,)]


def test_copy_db_from_an_older_postgres_database(pg_schema_url: str, tmp_path: Path) -> None:
    old_schema(pg_schema_url, tmp_path)
    result = bot(tmp_path, "copy-db", "--from", pg_schema_url, "--to", "sqlite:///copy.sqlite3")
    assert result.returncode == 0, result.stderr
    assert f"schema version {LATEST}" in result.stdout


def test_a_table_of_the_schema_that_cannot_be_read_is_named_and_no_sqlite_file_is_blamed(
    pg_schema_url: str, tmp_path: Path
) -> None:
    """Each table is read on its own: the one missing is named, not every table after it ("current
    transaction is aborted"). forget-user refuses it in PostgreSQL's words."""
    assert asyncio.run(migrate(pg_schema_url)) == LATEST
    asyncio.run(fetch(pg_schema_url, "DROP TABLE ratings"))
    url = with_password(pg_schema_url)
    checked = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url})
    assert checked.returncode == 1, checked.stdout
    problem = next(line for line in checked.stdout.splitlines() if line.startswith("PROBLEM"))
    assert problem.endswith(': ratings: relation "ratings" does not exist'), problem
    forgot = bot(tmp_path, "forget-user", "5", env={"DATABASE_URL": url})
    assert forgot.returncode == 1, forgot.stderr
    assert "failed its check: ratings: relation" in forgot.stderr and "SQLite" not in forgot.stderr
    assert_masked(checked.stdout, forgot.stderr)


def test_check_says_run_would_not_start_on_a_read_only_postgres_session(
    pg_schema_url: str, tmp_path: Path
) -> None:
    """run migrates first, which writes (a standby after a failover, a user or database whose transactions
    are read-only by default): check tries whether it may, writing nothing."""
    assert asyncio.run(migrate(pg_schema_url)) == LATEST
    url = f"{with_password(pg_schema_url)}&default_transaction_read_only=on"
    env = {"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url, "DISCORD_API_BASE_URL": "http://127.0.0.1:9/api/v10"}
    checked = bot(tmp_path, "check", env=env)
    ran = bot(tmp_path, "run", env=env)
    assert ran.returncode == 1 and "read-only transaction" in ran.stderr, ran.stderr
    assert checked.returncode == 1, checked.stdout
    assert "accepts no writes" in checked.stdout and "run would exit 1" in checked.stdout, checked.stdout
    assert_masked(checked.stdout, ran.stderr)
