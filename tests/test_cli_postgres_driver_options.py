"""A PostgreSQL URL whose driver option holds a word the driver does not take (``?sslmode=bogus``) is a
malformed DATABASE_URL: exit 2 in one line naming it, as README's exit codes say ("2 a missing or malformed
setting"), not exit 1 as a database failure once the driver refuses it at connect. The line says which
words the option takes, never the value (a URL may hold a password). copy-db's --from and --to alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config
from tests.test_cli import TOKEN, bot

SERVER = "postgresql://eights:hunter22@127.0.0.1:1/eights"  # nothing listens there: nothing may connect

MALFORMED = {
    "sslmode=bogus": "?sslmode= one of disable, allow, prefer, require, verify-ca or verify-full",
    "sslmode=REQUIRE": "?sslmode= one of",
    "sslmode=require&sslmode=bogus": "?sslmode= one of",
    "target_session_attrs=writable": "?target_session_attrs= one of any, primary",
    "sslnegotiation=tls": "?sslnegotiation= one of postgres or direct",
    "gsslib=kerberos": "?gsslib= one of gssapi or sspi",
    "ssl_min_protocol_version=TLSv9": "?ssl_min_protocol_version= one of TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3",
    "sslmode": "driver options after the ? as name=value",
    "sslmode=require&": "driver options after the ? as name=value",
}


@pytest.mark.parametrize(("query", "said"), MALFORMED.items())
def test_a_driver_option_the_driver_refuses_is_a_malformed_database_url(query: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config({"DATABASE_URL": f"{SERVER}?{query}"}, env_file=None)
    assert raised.value.variable == "DATABASE_URL"
    message = str(raised.value)
    assert said in message and "\n" not in message
    assert "hunter22" not in message and "bogus" not in message


@pytest.mark.parametrize(
    "query",
    [
        "sslmode=require",
        "sslmode=verify-full&target_session_attrs=read-write",
        "sslnegotiation=direct&sslmode=require",
        "ssl_min_protocol_version=TLSv1.3",
        "application_name=eights&search_path=cards",  # not the driver's: passed on to the server
        "sslmode=",  # empty: as if not given
    ],
)
def test_the_driver_options_it_takes_are_accepted(query: str) -> None:
    url = f"{SERVER}?{query}"
    assert load_config({"DATABASE_URL": url}, env_file=None).database_url.get() == url


@pytest.mark.parametrize("command", ["migrate", "run", "health", "forget-user 42"])
def test_a_bogus_sslmode_exits_2_in_one_line(tmp_path: Path, command: str) -> None:
    result = bot(
        tmp_path, *command.split(), env={"DISCORD_TOKEN": TOKEN, "DATABASE_URL": f"{SERVER}?sslmode=bogus"}
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "python -m bot: configuration error: DATABASE_URL: ?sslmode= one of disable, allow, prefer, require, "
        "verify-ca or verify-full"
    ]


def test_check_names_the_bogus_sslmode_as_a_problem(tmp_path: Path) -> None:
    result = bot(tmp_path, "check", env={"DISCORD_TOKEN": TOKEN, "DATABASE_URL": f"{SERVER}?sslmode=bogus"})
    assert result.returncode == 1
    assert "PROBLEM DATABASE_URL: ?sslmode= one of" in result.stdout, result.stdout
    assert "hunter22" not in result.stdout


@pytest.mark.parametrize("option", ["--from", "--to"])
def test_copy_db_refuses_a_bogus_sslmode_in_either_url(tmp_path: Path, option: str) -> None:
    bogus, other = f"{SERVER}?sslmode=bogus", "sqlite:///data/eights.sqlite3"
    urls = {"--from": bogus, "--to": other} if option == "--from" else {"--from": other, "--to": bogus}
    result = bot(tmp_path, "copy-db", "--from", urls["--from"], "--to", urls["--to"])
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"python -m bot: {option}: ?sslmode= one of disable, allow, prefer, require, verify-ca or verify-full"
    ]
    assert not (tmp_path / "data").exists()
