"""Configuration parsing: defaults, .env and environment, good and bad values, and the token kept secret."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.config import (
    DEFAULT_DATABASE_URL,
    VARIABLES,
    Config,
    ConfigError,
    Secret,
    database_path,
    inspect_config,
    load_config,
    parse_env_file,
    setting_in_effect,
    unknown_variables,
)
from bot.store import parse_database_url

TOKEN = "MTA4OTk1NjE2NzE0NjM0MjQwMA.GxYzAb.abcdefghijklmnopqrstuvwxyz0123456789ABCD"
NO_FILE = None


def load(env: dict[str, str], env_file: Path | None = NO_FILE) -> Config:
    return load_config(env, env_file)


def test_defaults_with_nothing_set() -> None:
    config = load({})
    assert not config.token
    assert config.database_url.get() == DEFAULT_DATABASE_URL == "sqlite:///data/eights.sqlite3"
    assert config.api_base_url is None and config.gateway_url is None
    assert config.dev_guild_id is None and config.shard_count is None and config.shard_ids is None
    assert (config.log_level, config.log_format, config.cpu_delay) == ("INFO", "text", 1.0)


def test_every_variable_is_read() -> None:
    config = load(
        {
            "DISCORD_TOKEN": TOKEN,
            "DATABASE_URL": "sqlite:////srv/eights.db",
            "DISCORD_API_BASE_URL": "http://127.0.0.1:8080/api/v10/",
            "DISCORD_GATEWAY_URL": "ws://127.0.0.1:8080/gateway",
            "DEV_GUILD_ID": "123456789012345678",
            "SHARD_COUNT": "4",
            "SHARD_IDS": "1, 3",
            "LOG_LEVEL": "debug",
            "LOG_FORMAT": "JSON",
            "EIGHTS_CPU_DELAY": "0",
        }
    )
    assert config.token.get() == TOKEN
    assert config.database_url.get() == "sqlite:////srv/eights.db"
    assert config.api_base_url == "http://127.0.0.1:8080/api/v10"  # no trailing slash: Route adds "/..."
    assert config.gateway_url == "ws://127.0.0.1:8080/gateway"
    assert config.dev_guild_id == 123456789012345678
    assert (config.shard_count, config.shard_ids) == (4, (1, 3))
    assert (config.log_level, config.log_format, config.cpu_delay) == ("DEBUG", "json", 0.0)


def test_the_global_budget_and_the_metrics_port() -> None:
    config = load({})
    assert (config.global_rate, config.metrics_port, config.metrics_address) == (50, None, "127.0.0.1")
    raised = load({"DISCORD_GLOBAL_RATE": "250", "METRICS_PORT": "9108", "METRICS_ADDRESS": "0.0.0.0"})
    assert (raised.global_rate, raised.metrics_port, raised.metrics_address) == (250, 9108, "0.0.0.0")
    for value in ("proxy", "PROXY", "0"):
        proxied = load({"DISCORD_GLOBAL_RATE": value, "DISCORD_API_BASE_URL": "http://nirn:8080/api/v10"})
        assert proxied.global_rate is None, value
    assert load({"METRICS_ADDRESS": "::"}).metrics_address == "::"
    assert load({"METRICS_ADDRESS": "metrics.internal"}).metrics_address == "metrics.internal"


def test_database_paths_relative_and_absolute() -> None:
    assert database_path("sqlite:///data/eights.sqlite3") == Path("data/eights.sqlite3")
    assert database_path("sqlite:////srv/eights.db") == Path("/srv/eights.db")
    assert database_path("sqlite:////srv/eights.db").is_absolute()


def test_env_file_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={TOKEN}\nLOG_LEVEL=WARNING\nEIGHTS_CPU_DELAY=2.5\n")
    config = load({"LOG_LEVEL": "ERROR"}, env_file)
    assert config.token.get() == TOKEN  # from the file
    assert config.log_level == "ERROR"  # the environment wins
    assert config.cpu_delay == 2.5
    assert config.env_file == env_file


def test_an_empty_environment_variable_does_not_hide_the_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("LOG_FORMAT=json\n")
    assert load({"LOG_FORMAT": ""}, env_file).log_format == "json"


def test_an_env_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows editors save "UTF-8" with a BOM: the first line was refused though it was right."""
    env_file = tmp_path / ".env"
    env_file.write_bytes(b"\xef\xbb\xbf" + f"DISCORD_TOKEN={TOKEN}\nDATABASE_URL=sqlite:///x.db\n".encode())
    config = load({}, env_file)
    assert config.token.get() == TOKEN
    assert setting_in_effect("DATABASE_URL", {}, env_file) == ("sqlite:///x.db", str(env_file))
    assert unknown_variables(env_file) == []


def test_unknown_variables_in_the_env_file_are_named_with_the_nearest_setting(tmp_path: Path) -> None:
    """A misspelt name was silently ignored; compose.yaml's POSTGRES_PASSWORD is no mistake."""
    env_file = tmp_path / ".env"
    env_file.write_text("DATABASE_ULR=sqlite:///x.db\nPOSTGRES_PASSWORD=pw\nLOG_LEVEL=INFO\nZZZ=1\n")
    assert unknown_variables(env_file) == [
        f"{env_file} sets DATABASE_ULR, which the bot does not read: did you mean DATABASE_URL?",
        f"{env_file} sets ZZZ, which the bot does not read",
    ]
    assert unknown_variables(tmp_path / "none.env") == []


def test_a_missing_env_file_is_fine(tmp_path: Path) -> None:
    config = load({}, tmp_path / "nope.env")
    assert config.env_file is None


def test_env_example_lists_every_variable_and_loads_as_the_defaults() -> None:
    example = Path(__file__).resolve().parents[1] / ".env.example"
    text = example.read_text()
    values = parse_env_file(text)
    assert set(values) == set(VARIABLES)
    # Each variable has a one-line comment right above it.
    lines = text.splitlines()
    for name in VARIABLES:
        index = next(i for i, line in enumerate(lines) if line.startswith(f"{name}="))
        assert lines[index - 1].startswith("# "), name
    # Copied as it is, it is a valid configuration with the safe defaults and no token.
    config = load({}, example)
    assert not config.token
    assert config.database_url.get() == DEFAULT_DATABASE_URL
    assert config.cpu_delay == 1.0 and config.log_level == "INFO" and config.log_format == "text"


def test_env_file_syntax() -> None:
    text = "\n".join(
        [
            "# a comment",
            "",
            "export A=1",
            "B = two words  # trailing comment",
            "C='single # not a comment'",
            'D="line\\nbreak \\"quoted\\""  # comment',
            "E=value#with-hash",
            "F=",
        ]
    )
    assert parse_env_file(text) == {
        "A": "1",
        "B": "two words",
        "C": "single # not a comment",
        "D": 'line\nbreak "quoted"',
        "E": "value#with-hash",
        "F": "",
    }


@pytest.mark.parametrize(
    "line",
    [f"just text {TOKEN}", f"1BAD={TOKEN}", f'DISCORD_TOKEN="{TOKEN}', f"DISCORD_TOKEN='{TOKEN}' extra"],
)
def test_malformed_env_file_line_names_the_line_but_not_its_content(tmp_path: Path, line: str) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"LOG_LEVEL=INFO\n{line}\n")
    with pytest.raises(ConfigError) as caught:
        load({}, env_file)
    assert caught.value.variable == f"{env_file} line 2"
    assert TOKEN not in str(caught.value)


BAD_VALUES = [
    ("DISCORD_TOKEN", f"Bot {TOKEN}"),
    ("DISCORD_TOKEN", f"{TOKEN[:20]} {TOKEN[20:]}"),
    ("DATABASE_URL", "postgresql://user:hunter22@db.example/"),
    ("DATABASE_URL", "mysql://db/eights"),
    ("DATABASE_URL", "data/eights.sqlite3"),
    ("DATABASE_URL", "sqlite://data.db"),
    ("DATABASE_URL", "sqlite:///data/"),
    ("DISCORD_API_BASE_URL", "ftp://example.com/api"),
    ("DISCORD_API_BASE_URL", "http:///api/v10"),
    ("DISCORD_API_BASE_URL", "https://example.com/api?x=secretish"),
    ("DISCORD_GATEWAY_URL", "https://gateway.example/"),
    ("DISCORD_GATEWAY_URL", "wss://gateway.example/?v=10&encoding=json"),
    ("DEV_GUILD_ID", "my-server"),
    ("DEV_GUILD_ID", "-5"),
    ("DEV_GUILD_ID", "0"),
    ("SHARD_COUNT", "0"),
    ("SHARD_COUNT", "two"),
    ("LOG_LEVEL", "LOUD"),
    ("LOG_FORMAT", "xml"),
    ("EIGHTS_CPU_DELAY", "-1"),
    ("EIGHTS_CPU_DELAY", "nan"),
    ("EIGHTS_CPU_DELAY", "inf"),
    ("EIGHTS_CPU_DELAY", "61"),
    ("EIGHTS_CPU_DELAY", "soon"),
    ("DISCORD_GLOBAL_RATE", "fast"),
    ("DISCORD_GLOBAL_RATE", "-50"),
    ("DISCORD_GLOBAL_RATE", "2.5"),
    ("DISCORD_GLOBAL_RATE", "proxy"),  # without DISCORD_API_BASE_URL: nothing would pace the bot
    ("METRICS_PORT", "0"),
    ("METRICS_PORT", "70000"),
    ("METRICS_PORT", "http"),
    ("METRICS_ADDRESS", "not an address!"),
    ("MOVE_LOG_RETENTION_DAYS", "0"),
    ("MOVE_LOG_RETENTION_DAYS", "forever"),
    ("MOVE_LOG_RETENTION_DAYS", "-3"),
    ("MOVE_LOG_RETENTION_DAYS", "nan"),
]


@pytest.mark.parametrize(("variable", "value"), BAD_VALUES)
def test_bad_value_names_the_variable_and_what_is_expected(variable: str, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load({variable: value})
    error = caught.value
    assert error.variable == variable
    message = str(error)
    assert message.startswith(f"{variable}: ") and "\n" not in message
    assert len(error.expected) > 5
    # Values are never echoed: some are secrets, some hold passwords.
    assert TOKEN not in message and "hunter22" not in message and "secretish" not in message


def test_shard_ids_need_a_shard_count_and_must_fit_in_it() -> None:
    with pytest.raises(ConfigError) as caught:
        load({"SHARD_IDS": "0"})
    assert caught.value.variable == "SHARD_IDS" and "SHARD_COUNT" in caught.value.expected
    with pytest.raises(ConfigError) as caught:
        load({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"})
    assert "0 to 1" in caught.value.expected
    with pytest.raises(ConfigError):
        load({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"})
    with pytest.raises(ConfigError):
        load({"SHARD_COUNT": "2", "SHARD_IDS": "0,,1"})
    assert load({"SHARD_COUNT": "2"}).shard_ids is None


def test_the_token_is_optional_until_a_command_needs_it() -> None:
    config = load({})
    with pytest.raises(ConfigError) as caught:
        config.require_token()
    assert caught.value.variable == "DISCORD_TOKEN"
    assert load({"DISCORD_TOKEN": f"  {TOKEN}  "}).require_token() == TOKEN


def test_inspect_config_collects_every_problem() -> None:
    config, errors = inspect_config({"LOG_LEVEL": "LOUD", "LOG_FORMAT": "xml", "DEV_GUILD_ID": "x"}, None)
    assert config is not None
    assert sorted(error.variable for error in errors) == ["DEV_GUILD_ID", "LOG_FORMAT", "LOG_LEVEL"]
    # load_config reports the first of them.
    with pytest.raises(ConfigError):
        load({"LOG_LEVEL": "LOUD"})


def test_secret_never_shows_its_value() -> None:
    secret = Secret(TOKEN)
    assert secret.get() == TOKEN
    for shown in (str(secret), repr(secret), f"{secret}", f"{secret!r}", f"{secret:>100}", "%s" % (secret,)):  # noqa: UP031
        assert TOKEN not in shown
        assert "*" in shown
    config = load({"DISCORD_TOKEN": TOKEN})
    assert TOKEN not in repr(config) and TOKEN not in str(config)
    assert len(secret) == len(TOKEN) and secret == Secret(TOKEN) and secret != Secret("other")
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    assert not Secret("") and str(Secret("")) == ""


def test_config_is_frozen() -> None:
    config = load({})
    with pytest.raises(AttributeError):
        config.cpu_delay = 5.0  # type: ignore[misc]


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(VARIABLES)), value=st.text(max_size=40))
def test_any_value_gives_a_config_or_a_config_error(name: str, value: str) -> None:
    # Never another exception (ValueError, IndexError…): those would end in a traceback.
    try:
        load({name: value})
    except ConfigError as error:
        assert error.variable == name


def test_the_database_password_of_any_length_never_shows() -> None:
    url = "postgresql://eights:pw7@db.example:5432/eights"
    config = load({"DATABASE_URL": url})
    assert config.database_url.get() == url
    for shown in (repr(config), str(config), str(config.database_url), repr(config.database_url)):
        assert "pw7" not in shown and "eights:***@db.example:5432/eights" in shown
    assert "pw7" not in repr(parse_database_url(url))
    assert config.database_url == load({"DATABASE_URL": url}).database_url


def test_the_move_log_retention_bounds_are_the_ones_readme_and_env_example_give() -> None:
    """The days README and .env.example allow for MOVE_LOG_RETENTION_DAYS are the ones the bot takes: the
    ends are accepted, one past them refused."""
    root = Path(__file__).resolve().parents[1]
    assert "(from 1 to 36,500, e.g. `90`)" in (root / "README.md").read_text()
    assert "from 1 to 36500, e.g. 90" in (root / ".env.example").read_text()
    assert load({"MOVE_LOG_RETENTION_DAYS": "1"}).move_log_retention == 86400.0
    assert load({"MOVE_LOG_RETENTION_DAYS": "36500"}).move_log_retention == 36500 * 86400.0
    for days in ("0.5", "36501"):
        with pytest.raises(ConfigError, match="from 1 to 36500"):
            load({"MOVE_LOG_RETENTION_DAYS": days})


def test_move_log_retention_is_days_and_keeps_everything_by_default() -> None:
    assert load({}).move_log_retention is None
    assert load({"MOVE_LOG_RETENTION_DAYS": "90"}).move_log_retention == 90 * 86400.0
    assert load({"MOVE_LOG_RETENTION_DAYS": "1.5"}).move_log_retention == 1.5 * 86400.0
