"""Configuration: read from the environment and from a ``.env`` file in the working directory.

The environment wins over ``.env``. Every variable is checked here, once, so that a mistake is reported as one
line naming the variable and what is expected (``ConfigError``) instead of a traceback somewhere later.
The token is wrapped in ``Secret``, the database URL in ``DatabaseUrl`` (its password masked), so that neither
can end up in a log line, a repr or an error by accident.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar, cast
from urllib.parse import parse_qs, urlsplit

from bot.store.base import UnsupportedDatabaseError
from bot.store.urls import mask_password, parse_database_url

DEFAULT_DATABASE_URL = "sqlite:///data/eights.sqlite3"
DEFAULT_POOL_SIZE = 10  # PostgreSQL connections per process; the server allows 100 by default
MAX_POOL_SIZE = 100
DEFAULT_CPU_DELAY = 1.0
DEFAULT_GLOBAL_RATE = 50  # Discord's global limit for a bot, per second
MAX_GLOBAL_RATE = 100_000
DEFAULT_METRICS_ADDRESS = "127.0.0.1"
MAX_CPU_DELAY = 60.0
# Seconds between a table's public lines, and between its board edits (each in the channel's buckets of
# about 5 per 5 s; a 429 there counts toward Discord's invalid-request ban). Not a setting, and whatever the
# CPU's delay: a channel gets no more than this. Tests that want every line at once build their Config with 0.
PUBLIC_INTERVAL = 1.0
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
LogFormat = Literal["text", "json"]
_T = TypeVar("_T")
MIN_RETENTION_DAYS = 1.0
MAX_RETENTION_DAYS = 36500.0

# Every variable the bot reads, with the one-line description .env.example and `check` use.
VARIABLES: dict[str, str] = {
    "DISCORD_TOKEN": "the bot token from the Discord developer portal (required to run; a secret)",
    "DATABASE_URL": "where the database is: sqlite:///relative/path, sqlite:////absolute/path or "
    "postgresql://user:password@host:5432/dbname",
    "DATABASE_POOL_SIZE": f"PostgreSQL only: connections this process may open (default {DEFAULT_POOL_SIZE})",
    "DISCORD_API_BASE_URL": "optional: base URL of Discord's REST API, e.g. for an HTTP proxy of the API",
    "DISCORD_GATEWAY_URL": "optional: gateway URL without a query string, e.g. wss://gateway.example/",
    "DEV_GUILD_ID": "optional: a server id; commands are synced to that server only, instantly",
    "SHARD_COUNT": "optional: total number of shards (default: the number Discord recommends)",
    "SHARD_IDS": "optional: comma-separated shard ids this process runs (needs SHARD_COUNT)",
    "LOG_LEVEL": "DEBUG, INFO, WARNING, ERROR or CRITICAL",
    "LOG_FORMAT": "text or json (one JSON object per line)",
    "EIGHTS_CPU_DELAY": "seconds a CPU player waits before moving",
    "DISCORD_GLOBAL_RATE": "requests/s Discord allows the bot in all (50), or proxy (a REST proxy paces)",
    "METRICS_PORT": "optional: serve Prometheus metrics on this port (off when empty)",
    "METRICS_ADDRESS": "the address the metrics port listens on (127.0.0.1; 0.0.0.0 in a container)",
    "EIGHTS_CARD_COLOURS": "four (each suit its own colour, the default) or classic (red and black)",
    "EIGHTS_ART_CACHE": "optional: folder for the drawn card art (default: art/ beside the SQLite file)",
    "MOVE_LOG_RETENTION_DAYS": "optional: days to keep the move logs of finished matches (results and "
    "statistics are kept forever; empty: keep everything)",
}
CARD_COLOURS = ("four", "classic")
# Names a .env may hold for other programs (compose.yaml reads these), not mistaken for misspellings.
OTHER_PROGRAMS_VARIABLES = ("POSTGRES_PASSWORD",)


class ConfigError(Exception):
    """A variable is missing or malformed. ``str()`` is one line naming the variable and what is expected;
    it never contains the variable's value (the value may be a secret)."""

    def __init__(self, variable: str, expected: str) -> None:
        super().__init__(f"{variable}: {expected}")
        self.variable = variable
        self.expected = expected


class Secret:
    """A string that does not show itself: ``str``, ``repr`` and f-strings give a mask; ``get()`` reads it."""

    __slots__ = ("_value",)
    MASK = "**********"

    def __init__(self, value: str) -> None:
        self._value = value

    def get(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __len__(self) -> int:
        return len(self._value)

    def __str__(self) -> str:
        return self.MASK if self._value else ""

    def __repr__(self) -> str:
        return f"Secret({self.MASK!r})" if self._value else "Secret('')"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling would write the value out in clear; nothing here needs it.
        raise TypeError("a Secret cannot be pickled")


class DatabaseUrl(Secret):
    """The DATABASE_URL: it shows itself with its password masked (the user, host and database stay
    readable); ``get()`` reads it."""

    __slots__ = ()

    def __str__(self) -> str:
        return mask_password(self._value)

    def __repr__(self) -> str:
        return f"DatabaseUrl({str(self)!r})"

    def secrets(self) -> list[str]:
        """What a log line must never show: the URL's password (as written, and decoded), and the URL itself
        when it holds one (see ``DatabaseTarget.secrets``); a URL that cannot be read, whole."""
        try:
            return parse_database_url(self._value).secrets
        except UnsupportedDatabaseError:
            return [self._value]


@dataclass(frozen=True)
class Config:
    token: Secret = field(default_factory=lambda: Secret(""))
    database_url: DatabaseUrl = field(default_factory=lambda: DatabaseUrl(DEFAULT_DATABASE_URL))
    database_pool_size: int = DEFAULT_POOL_SIZE
    api_base_url: str | None = None
    gateway_url: str | None = None
    dev_guild_id: int | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    log_level: str = "INFO"
    log_format: LogFormat = "text"
    cpu_delay: float = DEFAULT_CPU_DELAY
    public_interval: float = PUBLIC_INTERVAL
    # Requests per second the bot allows itself in all; None: a shared REST proxy paces them (see
    # bot/delivery/budget.py).
    global_rate: int | None = DEFAULT_GLOBAL_RATE
    metrics_port: int | None = None
    metrics_address: str = DEFAULT_METRICS_ADDRESS
    card_colours: str = "four"
    art_cache: Path | None = None  # None: art/ beside the SQLite database, or data/art
    # Seconds to keep the move logs of closed matches; None: keep everything.
    move_log_retention: float | None = None
    env_file: Path | None = None  # the .env file that was read, if any (for `check`)

    def __post_init__(self) -> None:
        # A Config built by hand (tests, benchmarks) may give the URL as a plain string.
        if isinstance(self.database_url, str):
            object.__setattr__(self, "database_url", DatabaseUrl(self.database_url))

    def secrets(self) -> list[str]:
        """Every value the log filter must remove: the token, the database URL's password (and the URL when
        it holds one)."""
        return [value for value in (self.token.get(), *self.database_url.secrets()) if value]

    def require_token(self) -> str:
        """The token's value, or ConfigError when it is not set (only run and sync need it)."""
        if not self.token:
            raise ConfigError("DISCORD_TOKEN", "not set; expected the bot token (in .env or the environment)")
        return self.token.get()


# --- .env ---------------------------------------------------------------------------------------------------

_ENV_LINE = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


def parse_env_file(text: str, *, source: str = ".env") -> dict[str, str]:
    """Parse ``KEY=VALUE`` lines: blank lines and ``#`` comments are skipped, ``export`` is allowed, values
    may be quoted with ' or " (double quotes understand \\n, \\" and \\\\), and an unquoted value ends
    at `` #``."""
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _ENV_LINE.match(line)
        if match is None:
            # The line itself is not shown: it may hold a secret.
            raise ConfigError(f"{source} line {number}", "expected NAME=value (or a # comment)")
        name, value = match.group(1), match.group(2).strip()
        values[name] = _unquote(value, f"{source} line {number}")
    return values


def _unquote(value: str, where: str) -> str:
    if value[:1] in ("'", '"'):
        quote = value[0]
        end = _closing_quote(value, quote)
        if end is None:
            raise ConfigError(where, f"a closing {quote} for the quoted value")
        rest = value[end + 1 :].strip()
        if rest and not rest.startswith("#"):
            raise ConfigError(where, "nothing but a # comment after the quoted value")
        inner = value[1:end]
        if quote == '"':
            inner = re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), inner)
        return inner
    # An unquoted value ends where a comment starts (a # preceded by whitespace).
    comment = re.search(r"\s#", value)
    return (value[: comment.start()] if comment else value).strip()


def _closing_quote(value: str, quote: str) -> int | None:
    index = 1
    while index < len(value):
        char = value[index]
        if char == "\\" and quote == '"':
            index += 2
            continue
        if char == quote:
            return index
        index += 1
    return None


# --- variables ----------------------------------------------------------------------------------------------


def load_config(environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")) -> Config:
    """Read the configuration; raise ConfigError for the first missing or malformed variable.

    ``environ`` defaults to ``os.environ``; ``env_file`` (relative to the working directory) is read when it
    exists, and the environment wins over it. An empty value counts as unset.
    """
    config, errors = inspect_config(environ, env_file)
    if errors:
        raise errors[0]
    assert config is not None
    return config


def inspect_config(
    environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> tuple[Config | None, list[ConfigError]]:
    """Like ``load_config``, but collects every problem instead of stopping at the first (for ``check``).
    Returns the configuration when there is none."""
    # An empty value counts as unset everywhere, so an empty variable in the environment does not hide .env.
    env = {
        name: value for name, value in (os.environ if environ is None else environ).items() if value.strip()
    }
    file_values: dict[str, str] = {}
    used_file: Path | None = None
    if env_file is not None and env_file.is_file():
        try:
            # utf-8-sig: a byte-order mark (Windows editors write one) would stick to the first name.
            file_values = parse_env_file(env_file.read_text(encoding="utf-8-sig"), source=str(env_file))
        except (OSError, UnicodeDecodeError) as error:
            return None, [ConfigError(str(env_file), f"a readable UTF-8 file ({type(error).__name__})")]
        except ConfigError as error:
            return None, [error]
        used_file = env_file
    values = {**file_values, **env}
    errors: list[ConfigError] = []

    def get(name: str) -> str | None:
        value = values.get(name, "").strip()
        return value or None

    def checked(parse: Callable[[], _T], fallback: _T) -> _T:
        try:
            return parse()
        except ConfigError as error:
            errors.append(error)
            return fallback

    shard_count = checked(lambda: _shard_count(get("SHARD_COUNT")), None)
    config = Config(
        token=checked(lambda: _token(values.get("DISCORD_TOKEN", "")), Secret("")),
        database_url=checked(
            lambda: _database_url(get("DATABASE_URL") or DEFAULT_DATABASE_URL),
            DatabaseUrl(DEFAULT_DATABASE_URL),
        ),
        database_pool_size=checked(lambda: _pool_size(get("DATABASE_POOL_SIZE")), DEFAULT_POOL_SIZE),
        api_base_url=checked(lambda: _api_base_url(get("DISCORD_API_BASE_URL")), None),
        gateway_url=checked(lambda: _gateway_url(get("DISCORD_GATEWAY_URL")), None),
        dev_guild_id=checked(lambda: _discord_id("DEV_GUILD_ID", get("DEV_GUILD_ID"), "a server id"), None),
        shard_count=shard_count,
        shard_ids=checked(lambda: _shard_ids(get("SHARD_IDS"), shard_count), None),
        log_level=checked(lambda: _log_level(get("LOG_LEVEL")), "INFO"),
        log_format=checked(lambda: _log_format(get("LOG_FORMAT")), "text"),
        cpu_delay=checked(lambda: _cpu_delay(get("EIGHTS_CPU_DELAY")), DEFAULT_CPU_DELAY),
        global_rate=checked(
            lambda: _global_rate(get("DISCORD_GLOBAL_RATE"), get("DISCORD_API_BASE_URL")),
            cast(int | None, DEFAULT_GLOBAL_RATE),
        ),
        metrics_port=checked(lambda: _metrics_port(get("METRICS_PORT")), None),
        metrics_address=checked(lambda: _metrics_address(get("METRICS_ADDRESS")), DEFAULT_METRICS_ADDRESS),
        card_colours=checked(lambda: _card_colours(get("EIGHTS_CARD_COLOURS")), "four"),
        art_cache=Path(art) if (art := get("EIGHTS_ART_CACHE")) else None,
        move_log_retention=checked(lambda: _retention(get("MOVE_LOG_RETENTION_DAYS")), None),
        env_file=used_file,
    )
    return config, errors


def unknown_variables(env_file: Path | None = Path(".env")) -> list[str]:
    """One note per name set in ``env_file`` that no one reads (a misspelling is otherwise silently
    ignored), with the nearest known name. Only the file: the environment holds every program's names."""
    if env_file is None or not env_file.is_file():
        return []
    try:
        names = parse_env_file(env_file.read_text(encoding="utf-8-sig"), source=str(env_file))
    except (OSError, UnicodeDecodeError, ConfigError):
        return []  # inspect_config reports an unreadable file
    known = [*VARIABLES, *OTHER_PROGRAMS_VARIABLES]
    notes = []
    for name in names:
        if name in known:
            continue
        nearest = difflib.get_close_matches(name, known, n=1)
        guess = f": did you mean {nearest[0]}?" if nearest else ""
        notes.append(f"{env_file} sets {name}, which the bot does not read{guess}")
    return notes


def setting_in_effect(
    name: str, environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> tuple[str | None, str]:
    """The raw value ``name`` has for the bot (the environment wins over ``.env``, as in ``inspect_config``)
    and where it comes from, for ``check`` to report on a value that failed its check. Unset: (None, "")."""
    value = (os.environ if environ is None else environ).get(name, "").strip()
    if value:
        return value, "the environment"
    if env_file is not None and env_file.is_file():
        try:
            value = parse_env_file(env_file.read_text(encoding="utf-8-sig"), source=str(env_file)).get(
                name, ""
            )
        except (OSError, UnicodeDecodeError, ConfigError):
            return None, ""
        if value.strip():
            return value.strip(), str(env_file)
    return None, ""


def database_path(database_url: str) -> Path:
    """The SQLite file a ``sqlite:///`` URL names: three slashes, relative to the working directory; four,
    absolute."""
    return Path(database_url[len("sqlite:///") :].split("?", 1)[0])


def _token(raw: str) -> Secret:
    value = raw.strip()
    if not value:
        return Secret("")
    # The message never repeats the value: it is (or nearly is) the secret.
    if value.lower().startswith("bot "):
        raise ConfigError("DISCORD_TOKEN", "the token alone, without the 'Bot ' prefix")
    if value[0] in _QUOTES or value[-1] in _QUOTES:
        # .env's own quotes are taken off when it is read: these came through the environment, where
        # `docker run --env-file` and compose's env_file pass them on as part of the value.
        raise ConfigError(
            "DISCORD_TOKEN",
            "write the token without quotes (docker's --env-file and compose's env_file keep them as part of "
            "the value)",
        )
    if _TOKEN.fullmatch(value) is None:
        raise ConfigError("DISCORD_TOKEN", "the bot token: one line of letters, digits, '.', '-' and '_'")
    return Secret(value)


_QUOTES = ('"', "'", "\u201c", "\u201d", "\u2018", "\u2019")  # and the typographic ones an editor puts in
# What Discord's tokens are made of: base64url parts joined by dots.
_TOKEN = re.compile(r"[A-Za-z0-9._-]+")


def _database_url(value: str) -> DatabaseUrl:
    try:
        parse_database_url(value)
    except UnsupportedDatabaseError as error:
        # Not the store's message: that one shows the URL (masked), and a ConfigError never shows a value.
        raise ConfigError(
            "DATABASE_URL",
            error.expected
            or "sqlite:///relative/path, sqlite:////absolute/path or "
            "postgresql://user:password@host:5432/dbname (e.g. sqlite:///data/eights.sqlite3)",
        ) from None
    if (twice := postgres_url_conflict(value)) is not None:
        raise ConfigError("DATABASE_URL", twice)
    if (option := postgres_option_problem(value)) is not None:
        raise ConfigError("DATABASE_URL", option)
    return DatabaseUrl(value)


# A query parameter that says again what a PostgreSQL URL already says in its own place. The drivers read
# them differently: asyncpg (the bot) keeps the URL's own host, port, user and database and ignores the
# parameter, libpq (the pg_dump command `backup` prints, psql) lets the parameter win. With both, the bot
# would use one server or database while `check` and the logs show the URL with the other in it, and the dump
# would be taken of the other. Each: the part of the URL that gives it already, and the line that says so.
_RESTATED = {
    "host": (
        "hosts",
        "one host: after the @ or as ?host=, not both (the bot connects to the URL's own host, pg_dump and "
        "psql to ?host=; a Unix socket alone: postgresql:///dbname?host=/run/postgresql)",
    ),
    "port": (
        "hosts",
        "the port after the host (host:5433), not as ?port=: with a host after the @ the bot ignores ?port= "
        "(and uses 5432 when the host names no port), pg_dump and psql do not",
    ),
    "user": (
        "user",
        "one user: before the @ or as ?user=, not both (the bot uses the URL's own, pg_dump and psql ?user=)",
    ),
    "dbname": (
        "database",
        "one database: after the host's / or as ?dbname=, not both (the bot uses the URL's own, pg_dump and "
        "psql ?dbname=)",
    ),
    "database": (
        "database",
        "the database after the host's / only, not as ?database= too (the bot and pg_dump ignore it)",
    ),
}


def postgres_url_conflict(url: str) -> str | None:
    """Why a PostgreSQL URL says one thing twice (its host, port, user or database both in its own place and
    as a query parameter), in words that never show a value; None when it does not (or is not PostgreSQL)."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("postgresql", "postgres") or not parts.query:
        return None
    credentials, _, hosts = parts.netloc.rpartition("@")
    user = credentials.partition(":")[0]
    given = {"hosts": bool(hosts), "user": bool(user), "database": bool(parts.path[1:])}
    for name in parse_qs(parts.query):
        restated = _RESTATED.get(name)
        if restated is not None and given[restated[0]]:
            return restated[1]
    return None


# The driver options of a PostgreSQL URL that take one of a few words, and those words: asyncpg (the bot)
# refuses any other when it connects, as libpq (pg_dump, psql) does. Checked with the setting, so that a
# mistyped one is a malformed setting (exit 2, in one line), not a failure to connect.
_POSTGRES_CHOICES = {
    "sslmode": ("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
    "sslnegotiation": ("postgres", "direct"),
    "target_session_attrs": ("any", "primary", "standby", "prefer-standby", "read-write", "read-only"),
    "gsslib": ("gssapi", "sspi"),
    "ssl_min_protocol_version": ("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"),
    "ssl_max_protocol_version": ("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"),
}


def postgres_option_problem(url: str) -> str | None:
    """Why the driver would refuse a PostgreSQL URL's options (a query it cannot read, an option above with a
    word it does not take), in words that never show a value; None when it would not (or the URL is not
    PostgreSQL's)."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("postgresql", "postgres") or not parts.query:
        return None
    try:
        options = parse_qs(parts.query, strict_parsing=True)
    except ValueError:
        return "driver options after the ? as name=value, joined by & (e.g. ?sslmode=require)"
    for name, values in options.items():
        choices = _POSTGRES_CHOICES.get(name)
        if choices is not None and any(value not in choices for value in values):
            return f"?{name}= one of {', '.join(choices[:-1])} or {choices[-1]}"
    return None


def _pool_size(value: str | None) -> int:
    if value is None:
        return DEFAULT_POOL_SIZE
    size = _whole(value)
    if size is None or not 1 <= size <= MAX_POOL_SIZE:
        raise ConfigError("DATABASE_POOL_SIZE", f"a number of connections from 1 to {MAX_POOL_SIZE}, e.g. 10")
    return size


def url_problem(value: str, schemes: tuple[str, ...]) -> str | None:
    """Why ``value`` cannot be a Discord endpoint (the REST API's base, the gateway) with one of ``schemes``:
    ``"scheme"`` (another scheme, or no host), ``"query"`` (a query string or a fragment: the client adds its
    own), or None when it can. The one check, for the configuration and ``bot.delivery.endpoints`` alike."""
    parts = urlsplit(value)
    if parts.scheme not in schemes or not parts.hostname:
        return "scheme"
    if parts.query or parts.fragment or "?" in value:
        return "query"
    return None


def _api_base_url(value: str | None) -> str | None:
    if value is None:
        return None
    if url_problem(value, ("http", "https")) is not None:
        raise ConfigError(
            "DISCORD_API_BASE_URL",
            "an http:// or https:// URL without a query, e.g. https://proxy.example/api/v10",
        )
    return value.rstrip("/")


def _gateway_url(value: str | None) -> str | None:
    if value is None:
        return None
    problem = url_problem(value, ("ws", "wss"))
    if problem == "scheme":
        raise ConfigError("DISCORD_GATEWAY_URL", "a ws:// or wss:// URL, e.g. wss://gateway.example/")
    if problem == "query":
        raise ConfigError("DISCORD_GATEWAY_URL", "the URL without a query string (the client adds ?v=10&…)")
    return value


def _whole(value: str) -> int | None:
    """``value`` as a whole number written in ASCII digits, or None when it is not one. Over 30 digits (above
    every bound here) is None too: Python refuses to read one of over 4,300 digits."""
    if not (value.isascii() and value.isdigit()) or len(value.lstrip("0")) > 30:
        return None
    return int(value)


# A number of seconds or days as an admin writes it: ASCII digits, with a decimal point or not. Not what
# Python's float() takes besides (1_0 for 10, 1e3, +5, inf, other scripts' digits), which would read a typo
# as another number instead of refusing it.
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def decimal(value: str) -> float | None:
    """``value`` as a number written with ASCII digits and at most one decimal point (``1``, ``2.5``,
    ``.5``), or None when it is not one. (Too many digits for a float read as infinity: above every bound.)"""
    return float(value) if _DECIMAL.fullmatch(value) is not None else None


def _positive_int(name: str, value: str | None, expected: str) -> int | None:
    if value is None:
        return None
    number = _whole(value)
    if number is None or number < 1:
        raise ConfigError(name, expected)
    return number


# Discord ids are 64-bit snowflakes, stored as signed 64-bit integers (as `forget-user` takes them).
MAX_DISCORD_ID = 2**63 - 1


def _discord_id(name: str, value: str | None, what: str) -> int | None:
    """A Discord id (a server's, a user's): a number from 1 to MAX_DISCORD_ID; None when unset."""
    expected = f"{what} (a Discord id: a number from 1 to {MAX_DISCORD_ID}, like 1234567890)"
    found = _positive_int(name, value, expected)
    if found is not None and found > MAX_DISCORD_ID:
        raise ConfigError(name, expected)
    return found


# Far above any bot's need (Discord asks one shard per 1,000 servers or so), far below a pasted server id.
MAX_SHARD_COUNT = 65_535


def _shard_count(value: str | None) -> int | None:
    expected = f"a number of shards from 1 to {MAX_SHARD_COUNT:,}"
    count = _positive_int("SHARD_COUNT", value, expected)
    if count is not None and count > MAX_SHARD_COUNT:
        raise ConfigError("SHARD_COUNT", expected)
    return count


def _shard_ids(value: str | None, shard_count: int | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    if shard_count is None:
        raise ConfigError("SHARD_IDS", "to be used with SHARD_COUNT (set SHARD_COUNT too)")
    items = [item.strip() for item in value.split(",")]
    numbers = [_whole(item) for item in items]
    if not items or None in numbers:
        raise ConfigError("SHARD_IDS", "comma-separated shard numbers, e.g. 0,1")
    ids = tuple(number for number in numbers if number is not None)
    if any(shard >= shard_count for shard in ids):
        raise ConfigError(
            "SHARD_IDS", f"shard numbers from 0 to {shard_count - 1} (SHARD_COUNT is {shard_count})"
        )
    if len(set(ids)) != len(ids):
        raise ConfigError("SHARD_IDS", "each shard number once")
    return ids


def _log_level(value: str | None) -> str:
    if value is None:
        return "INFO"
    level = value.upper()
    if level == "WARN":
        level = "WARNING"
    if level not in LOG_LEVELS:
        raise ConfigError("LOG_LEVEL", "one of " + ", ".join(LOG_LEVELS))
    return level


def _log_format(value: str | None) -> LogFormat:
    if value is None:
        return "text"
    lowered = value.lower()
    if lowered == "text":
        return "text"
    if lowered == "json":
        return "json"
    raise ConfigError("LOG_FORMAT", "text or json")


def _cpu_delay(value: str | None) -> float:
    if value is None:
        return DEFAULT_CPU_DELAY
    delay = decimal(value)
    if delay is None or not 0 <= delay <= MAX_CPU_DELAY:
        raise ConfigError("EIGHTS_CPU_DELAY", f"a number of seconds from 0 to {MAX_CPU_DELAY:g}, e.g. 1.0")
    return delay


def _retention(value: str | None) -> float | None:
    """MOVE_LOG_RETENTION_DAYS in seconds; None (keep everything) when unset."""
    if value is None:
        return None
    days = decimal(value)
    if days is None or not MIN_RETENTION_DAYS <= days <= MAX_RETENTION_DAYS:
        raise ConfigError(
            "MOVE_LOG_RETENTION_DAYS",
            f"a number of days from {MIN_RETENTION_DAYS:g} to {MAX_RETENTION_DAYS:g}, e.g. 90, or empty to "
            "keep every move log",
        )
    return days * 86400.0


def _global_rate(value: str | None, api_base_url: str | None) -> int | None:
    if value is None:
        return DEFAULT_GLOBAL_RATE
    if value.lower() in ("proxy", "0"):
        if api_base_url is None:
            # Unpaced straight at Discord is how a busy bot gets its IP banned.
            raise ConfigError(
                "DISCORD_GLOBAL_RATE",
                "proxy only with DISCORD_API_BASE_URL set to the shared REST proxy (e.g. nirn-proxy)",
            )
        return None
    rate = _whole(value)
    if rate is None or not 1 <= rate <= MAX_GLOBAL_RATE:
        raise ConfigError(
            "DISCORD_GLOBAL_RATE",
            f"requests per second, 1 to {MAX_GLOBAL_RATE} (Discord's: {DEFAULT_GLOBAL_RATE}), or proxy",
        )
    return rate


def _metrics_port(value: str | None) -> int | None:
    if value is None:
        return None
    port = _whole(value)
    if port is None or not 1 <= port <= 65_535:
        raise ConfigError("METRICS_PORT", "a TCP port number, 1 to 65535 (e.g. 9108), or empty for none")
    return port


def _metrics_address(value: str | None) -> str:
    if value is None:
        return DEFAULT_METRICS_ADDRESS
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        pass
    if re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?", value) is None:
        raise ConfigError(
            "METRICS_ADDRESS", "an IP address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0"
        )
    return value


def _card_colours(value: str | None) -> str:
    if value is None:
        return "four"
    if value.lower() not in CARD_COLOURS:
        raise ConfigError("EIGHTS_CARD_COLOURS", "four or classic")
    return value.lower()


def art_cache_dir(config: Config) -> Path:
    """Where the drawn card art is cached: EIGHTS_ART_CACHE, else art/ beside the SQLite database."""
    if config.art_cache is not None:
        return config.art_cache
    url = config.database_url.get()
    if url.startswith("sqlite:///"):
        return database_path(url).parent / "art"
    return Path("data") / "art"
