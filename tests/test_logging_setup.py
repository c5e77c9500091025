"""Logging: the token is redacted from every record, and JSON lines are one object each."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from bot.logging_setup import REDACTED, setup_logging

TOKEN = "MTA4OTk1NjE2NzE0NjM0MjQwMA.GxYzAb.abcdefghijklmnopqrstuvwxyz0123456789ABCD"


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def log_everywhere(logger: logging.Logger) -> None:
    logger.info("token is %s", TOKEN)
    logger.warning(f"headers: {{'Authorization': 'Bot {TOKEN}'}}")
    logger.info("extra field", extra={"detail": f"x{TOKEN}y"})
    try:
        raise RuntimeError(f"login failed with {TOKEN}")
    except RuntimeError:
        logger.exception("request failed")


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_the_token_never_reaches_the_output(restore_root_logger: None, log_format: str) -> None:
    stream = io.StringIO()
    setup_logging("DEBUG", log_format, secrets=[TOKEN], stream=stream)
    # Records of any library pass the same handler.
    log_everywhere(logging.getLogger("discord.http"))
    output = stream.getvalue()
    assert TOKEN not in output
    # Message, pre-formatted message, traceback; JSON also shows the extra field.
    assert output.count(REDACTED) >= (4 if log_format == "json" else 3)
    assert "RuntimeError" in output and "request failed" in output


def test_json_lines_are_one_object_per_record(restore_root_logger: None) -> None:
    stream = io.StringIO()
    setup_logging("INFO", "json", secrets=[TOKEN], stream=stream)
    logger = logging.getLogger("bot.test")
    logger.debug("not shown at INFO")
    logger.info("table %d opened", 7, extra={"table_id": 7})
    try:
        1 / 0  # noqa: B018
    except ZeroDivisionError:
        logger.error("it broke", exc_info=True)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["message"] == "table 7 opened" and first["level"] == "INFO" and first["logger"] == "bot.test"
    assert first["table_id"] == 7 and first["time"].endswith("+00:00")
    assert second["level"] == "ERROR" and "ZeroDivisionError" in second["exception"]


def test_text_format_and_level(restore_root_logger: None) -> None:
    stream = io.StringIO()
    setup_logging("WARNING", "text", secrets=[], stream=stream)
    logging.getLogger("bot.x").info("hidden")
    logging.getLogger("bot.x").warning("shown %s", "here")
    output = stream.getvalue()
    assert "hidden" not in output
    assert "WARNING" in output and "bot.x: shown here" in output


@pytest.mark.parametrize("password", ["pw7", "p@ss"])
def test_a_database_password_of_any_length_never_reaches_the_output(
    restore_root_logger: None, password: str
) -> None:
    from urllib.parse import quote

    from bot.config import load_config

    url = f"postgresql://eights:{quote(password, safe='')}@db.example/eights"
    config = load_config({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url}, None)
    stream = io.StringIO()
    setup_logging("DEBUG", "text", secrets=config.secrets(), stream=stream)
    logger = logging.getLogger("asyncpg")
    logger.info("connecting to %s", url)
    logger.info("password authentication failed (password %s)", password)
    output = stream.getvalue()
    assert password not in output and quote(password, safe="") not in output and TOKEN not in output
    assert output.count(REDACTED) >= 2 and "connecting to" in output


def test_rest_payloads_are_left_out_of_the_debug_lines(restore_root_logger: None) -> None:
    # discord.py logs each REST call with what it sent and received: a board, a line, a member's data.
    stream = io.StringIO()
    setup_logging("DEBUG", stream=stream)
    http = logging.getLogger("discord.http")
    http.debug(
        "%s %s with %s has returned %s", "POST", "https://x/channels/1/messages", '{"content": "A♣"}', 200
    )
    http.debug("%s %s has received %s", "POST", "https://x/channels/1/messages", {"content": "A♣"})
    written = stream.getvalue()
    assert "A♣" not in written and written.count("(payload)") == 2 and "returned 200" in written


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://eights@db.example:5432/eights", "postgresql://eights@db.example:5432/eights"),
        ("sqlite:///data/eights.sqlite3", "sqlite:///data/eights.sqlite3"),
        ("postgresql://eights:pw7@db.example:5432/eights", "postgresql://eights:***@db.example:5432/eights"),
    ],
)
def test_a_log_line_names_the_database_as_shown(restore_root_logger: None, url: str, shown: str) -> None:
    """README (Configuration, DATABASE_URL): "logs, check and errors show user:***@host". A URL without a
    password (PGPASSWORD or ~/.pgpass; trust, peer or certificate authentication) holds no secret: the line
    names the server, so that the admin can tell which one failed."""
    from bot.config import load_config
    from bot.store.urls import parse_database_url

    config = load_config({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url}, None)
    stream = io.StringIO()
    setup_logging("INFO", "text", secrets=config.secrets(), stream=stream)
    logging.getLogger("bot.service.outage").warning(
        "the database is unavailable (%s cannot be used now: TimeoutError)", parse_database_url(url).shown
    )
    output = stream.getvalue()
    assert f"unavailable ({shown} cannot be used now" in output, output
    assert "pw7" not in output
