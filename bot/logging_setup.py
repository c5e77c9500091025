"""Logging: text lines or JSON lines on stderr, with the secrets (token, database password, a URL holding
one) redacted from every record, and at DEBUG none of what discord.py would log of the traffic itself: the
gateway's events (the clicked hand message is in each interaction), the REST payloads, and the interactions'
tokens (each lets anyone post as the bot in its channel for 15 minutes)."""

from __future__ import annotations

import json
import logging
import re
import sys
import traceback
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TextIO

REDACTED = "[REDACTED]"
TEXT_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"

# Attributes every LogRecord has; anything else was passed with ``extra=`` and goes into the JSON line.
_STANDARD_ATTRIBUTES = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


# An interaction's token in a webhook or callback URL, or in a gateway payload.
_INTERACTION_TOKEN = re.compile(r"(/(?:webhooks|interactions)/\d+/)[^/\s?'\"]+|('token': ')[^']+")
# discord.py's DEBUG lines that carry a payload, by logger and format: which argument is the payload.
_PAYLOAD_ARGUMENT = {
    ("discord.gateway", "For Shard ID %s: WebSocket Event: %s"): 1,
    ("discord.http", "%s %s with %s has returned %s"): 2,
    ("discord.http", "%s %s has received %s"): 2,
}


def _event_summary(event: object) -> str:
    """A gateway event without its data: what happened, not what it said."""
    if isinstance(event, dict):
        return f"op {event.get('op')} {event.get('t') or ''} seq {event.get('s')}".rstrip()
    return "(payload)"


class PayloadFilter(logging.Filter):
    """Keeps the traffic's contents out of every record: discord.py's DEBUG lines of gateway events and
    REST payloads are written without their payload, and interaction tokens are masked wherever they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        at = _PAYLOAD_ARGUMENT.get((record.name, str(record.msg)))
        if at is not None and isinstance(record.args, tuple) and len(record.args) > at:
            args = list(record.args)
            args[at] = _event_summary(args[at]) if record.name == "discord.gateway" else "(payload)"
            record.args = tuple(args)
        # Every logger's records: a network error (aiohttp's) names the webhook URL it failed on, and the
        # bot's own lines write such errors as they are.
        message = record.getMessage()
        masked = _mask_tokens(message)
        if masked != message:
            record.msg, record.args = masked, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if record.exc_text:
            record.exc_text = _mask_tokens(record.exc_text)
        return True


def _mask_tokens(text: str) -> str:
    return _INTERACTION_TOKEN.sub(lambda m: (m.group(1) or m.group(2)) + "{token}", text)


class RedactFilter(logging.Filter):
    """Replaces each secret with ``[REDACTED]`` in a record's message, traceback and extra fields.

    It sits on the handler, so records of every library (discord.py, aiohttp, …) pass through it."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        # Every length: a short database password is still a password (it may blank out a common word
        # elsewhere in a line, a price worth paying). Longest first, so that a URL goes before its password.
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secrets:
            return True
        message = record.getMessage()
        record.msg, record.args = self.redact(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        for key, value in list(vars(record).items()):
            if key not in _STANDARD_ATTRIBUTES and isinstance(value, str):
                setattr(record, key, self.redact(value))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, extra fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRIBUTES and key not in entry:
                plain = isinstance(value, str | int | float | bool | type(None))
                entry[key] = value if plain else repr(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False)


def setup_logging(
    level: str = "INFO",
    log_format: str = "text",
    *,
    secrets: Iterable[str] = (),
    stream: TextIO | None = None,
) -> logging.Handler:
    """Send every logger's records to ``stream`` (stderr) at ``level``; returns the handler it installed."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(PayloadFilter())
    handler.addFilter(RedactFilter(secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
