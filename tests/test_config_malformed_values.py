"""Settings that are malformed are refused where they are read, in one line naming the variable, so that
`check` says "not ready" and `run` exits 2 instead of meeting a less clear failure later.

README, "On the command line": exit "2 a missing or malformed setting (one line naming it, never a
traceback)"; `check` "validate[s] the settings ... exit 0 if it would start, 1 if not".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config, parse_env_file
from tests.test_cli import TOKEN, bot

HUGE = "9" * 5000  # past the 4,300 digits Python reads as a number at all


def test_a_token_still_in_quotes_is_named_as_malformed() -> None:
    """README, "Creating the Discord application": `docker run --env-file .env` and compose's `env_file` pass
    quotes on "as part of the token, and Discord rejects it". A Discord token never holds a quote: a token in
    quotes (from the environment: .env's own quotes are taken off) is a ConfigError naming DISCORD_TOKEN that
    says to write it without quotes, never showing the token, instead of a token Discord rejects with "Discord
    rejected the token", which the README's troubleshooting reads as "the token was reset or mistyped" (the
    admin would reset a good token)."""
    for quoted in (f'"{TOKEN}"', f"'{TOKEN}'", f'"{TOKEN}', f"{TOKEN}'", f"\u201c{TOKEN}\u201d"):
        with pytest.raises(ConfigError) as raised:
            load_config({"DISCORD_TOKEN": quoted}, env_file=None)
        assert raised.value.variable == "DISCORD_TOKEN"
        assert "without quotes" in str(raised.value)
        assert TOKEN not in str(raised.value)
    # .env's quotes are the file's syntax, taken off when it is read: DISCORD_TOKEN="…" there is the token.
    assert load_config(parse_env_file(f'DISCORD_TOKEN="{TOKEN}"\n'), env_file=None).token.get() == TOKEN


@pytest.mark.parametrize("token", [f"{TOKEN},", f"{TOKEN[:10]}/{TOKEN[10:]}", f"{TOKEN}=", f"<{TOKEN}>"])
def test_a_token_with_characters_no_token_has_is_refused(token: str) -> None:
    """A token is "one line of letters, digits, '.', '-' and '_'", as the message says: anything else (a
    pasted comma, a slash, a bracket) is refused, never shown."""
    with pytest.raises(ConfigError) as raised:
        load_config({"DISCORD_TOKEN": token}, env_file=None)
    assert raised.value.variable == "DISCORD_TOKEN" and TOKEN not in str(raised.value)
    assert load_config({"DISCORD_TOKEN": TOKEN}, env_file=None).token.get() == TOKEN


def test_check_is_not_ready_with_a_token_in_quotes_from_the_environment(tmp_path: Path) -> None:
    """The same through `check`, as `docker exec eights python -m bot check` sees a container started with
    `--env-file .env` holding `DISCORD_TOKEN="…"`: exit 1 with a PROBLEM line naming DISCORD_TOKEN (it said
    "ready"), and `run` exits 2 with that line; the token is never printed."""
    checked = bot(tmp_path, "check", env={"DISCORD_TOKEN": f'"{TOKEN}"'})
    assert TOKEN not in checked.stdout + checked.stderr
    assert checked.returncode == 1, checked.stdout.strip().splitlines()[-1]
    assert "PROBLEM DISCORD_TOKEN: write the token without quotes" in checked.stdout
    ran = bot(tmp_path, "run", env={"DISCORD_TOKEN": f'"{TOKEN}"'})
    assert ran.returncode == 2 and TOKEN not in ran.stdout + ran.stderr
    assert "DISCORD_TOKEN: write the token without quotes" in ran.stderr


def test_a_dev_guild_id_that_is_no_discord_id_is_refused() -> None:
    """DEV_GUILD_ID is "a server id" (README, Configuration). Discord ids are 64-bit snowflakes, at most
    2**63 - 1 as `forget-user` takes them: `DEV_GUILD_ID=99999999999999999999999` (a pasted id with extra
    digits) is a ConfigError naming DEV_GUILD_ID; it passed `check` ("ready") and `run` synced the commands
    to a server that cannot exist. The largest id is still one."""
    for value in ("99999999999999999999999", str(2**63), HUGE):
        with pytest.raises(ConfigError) as raised:
            load_config({"DEV_GUILD_ID": value}, env_file=None)
        assert raised.value.variable == "DEV_GUILD_ID"
    assert load_config({"DEV_GUILD_ID": str(2**63 - 1)}, env_file=None).dev_guild_id == 2**63 - 1


@pytest.mark.parametrize(
    "variable", ["DEV_GUILD_ID", "SHARD_COUNT", "DATABASE_POOL_SIZE", "DISCORD_GLOBAL_RATE", "METRICS_PORT"]
)
def test_a_number_too_long_to_read_is_a_malformed_setting(variable: str) -> None:
    """A number of over 4,300 digits, which Python refuses to read (ValueError, a traceback: "unexpected
    error"), is a malformed setting like any number out of range."""
    with pytest.raises(ConfigError) as raised:
        load_config({variable: HUGE}, env_file=None)
    assert raised.value.variable == variable
    with pytest.raises(ConfigError) as raised:
        load_config({"SHARD_COUNT": "2", "SHARD_IDS": f"0,{HUGE}"}, env_file=None)
    assert raised.value.variable == "SHARD_IDS"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://postgres@127.0.0.1:5432/somedb?host=/nonexistent", "one host"),
        ("postgresql://eights:pw@db.example/eights?host=other.example", "one host"),
        ("postgresql://eights:pw@db.example/eights?port=5433", "the port after the host"),
        ("postgresql://eights:pw@db.example:5432/eights?port=5433", "the port after the host"),
        ("postgresql://eights:pw@db.example/eights?user=postgres", "one user"),
        ("postgresql://eights:pw@db.example/eights?dbname=other", "one database"),
        ("postgres://eights:pw@db.example/eights?sslmode=require&database=other", "?database="),
    ],
)
def test_a_postgres_url_that_names_its_server_twice_is_refused(url: str, said: str) -> None:
    """A host, port, user or database both in the URL's own place and as a query parameter: asyncpg (the
    bot) connects with the URL's own and ignores the parameter, libpq (the pg_dump command `backup` prints,
    psql) lets the parameter win. With `...@127.0.0.1:5432/somedb?host=/nonexistent` the bot used
    127.0.0.1 while check and the logs showed the URL with `host=/nonexistent` and pg_dump dumped through
    that socket. Refused naming DATABASE_URL, without the password."""
    with pytest.raises(ConfigError) as raised:
        load_config({"DATABASE_URL": url}, env_file=None)
    assert raised.value.variable == "DATABASE_URL" and said in str(raised.value)
    assert "pw" not in str(raised.value).replace("pg_dump", "")
    # Each said once, the URL is taken as it is.
    for once in (
        "postgresql:///eights?host=/run/postgresql&port=5433",  # a socket and its port, as parameters only
        "postgresql://eights:pw@db.example:5433/eights?sslmode=require&application_name=eights",
        "postgresql://db.example/eights?user=eights",  # no user before the @: the parameter is the user
    ):
        assert load_config({"DATABASE_URL": once}, env_file=None).database_url.get() == once


def test_check_and_copy_db_refuse_a_url_naming_two_hosts(tmp_path: Path) -> None:
    """`check` says not ready with the DATABASE_URL line, and copy-db refuses such a --from or --to (exit 2),
    before connecting anywhere."""
    url = "postgresql://postgres@127.0.0.1:5432/somedb?host=/nonexistent"
    checked = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url})
    assert checked.returncode == 1 and "PROBLEM DATABASE_URL: one host" in checked.stdout, checked.stdout
    copied = bot(tmp_path, "copy-db", "--from", "sqlite:///data/eights.sqlite3", "--to", url)
    assert copied.returncode == 2 and "--to: one host" in copied.stderr, copied.stderr
    assert not (tmp_path / "data").exists()
