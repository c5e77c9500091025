"""A number in a setting is read only as an admin writes one: ASCII digits, and a decimal point where the
setting takes a fraction. Python's own number syntax is not a setting's: float() and int() read ``1_0`` as
10, ``1e3`` as 1000, ``+5`` as 5, and other scripts' digits as digits, so a typo was taken for another
number instead of refused. Such a value is malformed: one line naming the setting (`run` exits 2), like any
other. Spaces around a value are still taken off, as for every setting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config
from tests.test_cli import TOKEN, bot

# Every setting that holds a number, with a value it takes: those that take a fraction, and whole numbers.
DECIMAL = {"EIGHTS_CPU_DELAY": "1.5", "MOVE_LOG_RETENTION_DAYS": "90"}
WHOLE = {
    "DATABASE_POOL_SIZE": "10",
    "DEV_GUILD_ID": "1234567890",
    "SHARD_COUNT": "2",
    "DISCORD_GLOBAL_RATE": "50",
    "METRICS_PORT": "9108",
}
NUMERIC = {**DECIMAL, **WHOLE}
# What float() reads (as 10, 10, 5, 10, 10, 25, 10: each within both settings' bounds) and no admin means
# as that number.
PYTHON_ONLY = ["1_0", "1e1", "+5", "\u0661\u0660", "\uff11\uff10", "2_5.0", "1.0e1"]


def load(environ: dict[str, str]) -> object:
    return load_config(environ, env_file=None)


@pytest.mark.parametrize("variable", list(DECIMAL))
@pytest.mark.parametrize("value", PYTHON_ONLY)
def test_python_only_number_syntax_is_a_malformed_setting(variable: str, value: str) -> None:
    """``1_0``, ``1e1``, ``+5``, Arabic-Indic or full-width digits…: refused in one line naming the setting,
    whatever Python's float() would make of them."""
    with pytest.raises(ConfigError) as raised:
        load({variable: value})
    assert raised.value.variable == variable
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("variable", list(WHOLE))
def test_whole_number_settings_refuse_python_only_syntax_too(variable: str) -> None:
    """The settings that take a whole number read ASCII digits only (so they did already): the same values,
    and a fraction, are refused."""
    for value in [*PYTHON_ONLY, "0x10", "2.0"]:
        with pytest.raises(ConfigError) as raised:
            load({variable: value})
        assert raised.value.variable == variable


def test_shard_ids_are_written_in_ascii_digits_too() -> None:
    with pytest.raises(ConfigError) as raised:
        load({"SHARD_COUNT": "20", "SHARD_IDS": "0,1_0"})
    assert raised.value.variable == "SHARD_IDS"


@pytest.mark.parametrize("variable", list(NUMERIC))
def test_the_numbers_readme_shows_are_still_read(variable: str) -> None:
    """The forms README and .env.example use (``1.0``, ``90``, ``9108``…) are read, padded with spaces or
    not."""
    value = NUMERIC[variable]
    environ = {variable: f"  {value} "}
    if variable == "DISCORD_GLOBAL_RATE":
        environ["DISCORD_API_BASE_URL"] = "https://proxy.example/api/v10"
    load(environ)


def test_decimal_settings_take_a_fraction_written_with_a_point() -> None:
    config = load_config({"EIGHTS_CPU_DELAY": "2.5", "MOVE_LOG_RETENTION_DAYS": "1.5"}, env_file=None)
    assert config.cpu_delay == 2.5 and config.move_log_retention == 1.5 * 86400
    assert load_config({"EIGHTS_CPU_DELAY": ".5"}, env_file=None).cpu_delay == 0.5
    assert load_config({"EIGHTS_CPU_DELAY": "0"}, env_file=None).cpu_delay == 0
    assert load_config({"EIGHTS_CPU_DELAY": "60"}, env_file=None).cpu_delay == 60


def test_run_with_an_underscore_in_the_cpu_delay_exits_2_in_one_line(tmp_path: Path) -> None:
    """README: exit 2 for "a missing or malformed setting (one line naming it, never a traceback)"; the CPU
    delay 1_0 is not read as 10 seconds."""
    result = bot(tmp_path, "run", env={"DISCORD_TOKEN": TOKEN, "EIGHTS_CPU_DELAY": "1_0"})
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "python -m bot: configuration error: EIGHTS_CPU_DELAY: a number of seconds from 0 to 60, e.g. 1.0"
    ]
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("max_age", ["1_0", "1e3", "+5"])
def test_health_max_age_is_written_as_a_setting_is(tmp_path: Path, max_age: str) -> None:
    """`health --max-age` takes seconds the way the settings do: Python's other spellings are a wrong
    command line (exit 2, one line), not 10 or 1000 seconds."""
    result = bot(tmp_path, "health", "--max-age", max_age)
    assert result.returncode == 2 and "expected a number of seconds above 0" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
