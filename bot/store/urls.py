"""DATABASE_URL: which backend, which file or server, and how to show it without its password.

``sqlite:///relative/path.sqlite3`` (relative to the working directory), ``sqlite:////abs/path.sqlite3``,
``sqlite:///:memory:`` (tests); a query string (``?cache=shared``) is not part of the file name: the store
sets its own connection options, so SQLite parameters in the URL are ignored.
``postgresql://user:password@host:5432/dbname`` (or ``postgres://``) selects PostgreSQL; its query string
(``?sslmode=require``) is passed on to the driver.

A password can hide in more places than ``user:password@``: a ``password=`` (or ``sslpassword=``) parameter,
libpq's keyword form (``host=… password=…``), or a password typed with an unencoded ``/``, ``#`` or ``?``
that a URL parser takes for the path, fragment or query. Masking finds all of them without parsing the URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

from bot.store.base import UnsupportedDatabaseError

Backend = Literal["sqlite", "postgresql"]
POSTGRES_SCHEMES = ("postgresql", "postgres")
PASSWORD_MASK = "***"
_SQLITE_PREFIX = "sqlite:///"
EXAMPLES = "sqlite:///data/eights.sqlite3 or postgresql://user:password@host:5432/dbname"
# A password parameter, in a URL's query (after ? or &) or in libpq's keyword form (after a space), its value
# quoted (libpq's quoting) or not: the groups hold the value without its quotes.
_PASSWORD_PARAM = re.compile(
    r"(?<![^?&\s])(?:ssl)?password\s*=\s*(?:'((?:[^'\\]|\\.)*)'?|\"((?:[^\"\\]|\\.)*)\"?|([^&\s]*))",
    re.IGNORECASE,
)
_ENCODE = "/ as %2F, # as %23, ? as %3F, @ as %40"
MAX_PORT = 65_535

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class DatabaseTarget:
    backend: Backend
    url: str = field(repr=False)  # as given (may hold a password: never print it; print ``shown``)
    shown: str  # the URL with its password masked, for logs, `check` and errors
    path: str | None = None  # SQLite: the file path, or ":memory:"
    # PostgreSQL, decoded, from user:password@ or else a password= parameter: so that logs can redact it
    password: str | None = field(default=None, repr=False)

    @property
    def is_memory(self) -> bool:
        return self.path == ":memory:"

    @property
    def secrets(self) -> list[str]:
        """What a log line must not show: the URL when it holds a password, then every password in it (as
        written, and decoded), longest first. A URL without one is no secret: the logs name the database by
        it, as ``shown`` does (a URL redacted whole would hide which server failed)."""
        url = [self.url] if self.url != self.shown else []
        return [*url, *self._passwords]

    @property
    def _passwords(self) -> list[str]:
        found = {self.password or "", *_written_passwords(self.url)}
        found |= {unquote(value) for value in found}
        return sorted((value for value in found if value), key=len, reverse=True)

    def scrub(self, text: str) -> str:
        """``text`` (an error message) with the URL and the password masked."""
        text = text.replace(self.url, self.shown)
        for secret in self._passwords:
            text = text.replace(secret, PASSWORD_MASK)
        return text


def _param_spans(text: str) -> list[Span]:
    """Where the values of the password parameters are (without their quotes)."""
    spans = []
    for match in _PASSWORD_PARAM.finditer(text):
        group = next(g for g in (1, 2, 3) if match.group(g) is not None)
        spans.append(match.span(group))
    return spans


def _userinfo(text: str, outside: list[Span]) -> tuple[int, int] | None:
    """The start of ``user:password`` in a URL and the index of the @ after it: everything between :// and
    the last @ (that is not in a password parameter), when it holds a ``:``. The last @, not the URL
    parser's reading: a password may hold an unencoded / # or ?, which the parser takes for the path."""
    start = text.find("://")
    if start < 0:
        return None
    start += 3
    ats = [i for i, char in enumerate(text) if char == "@" and i >= start]
    at = next((i for i in reversed(ats) if not any(a <= i < b for a, b in outside)), None)
    if at is None or ":" not in text[start:at]:
        return None
    return start, at


def _secret_spans(text: str) -> list[Span]:
    params = _param_spans(text)
    userinfo = _userinfo(text, params)
    if userinfo is None:
        return params
    start, at = userinfo
    return [(text.index(":", start) + 1, at), *params]


def _written_passwords(url: str) -> list[str]:
    """Every password in ``url`` as written; a quoted parameter's also with its escapes undone."""
    found = [url[a:b] for a, b in _secret_spans(url)]
    return found + [re.sub(r"\\(.)", r"\1", value) for value in found if "\\" in value]


def mask_password(url: str) -> str:
    """The URL with the password (if any) replaced by ``***``; the user, host and database stay readable."""
    spans = sorted(_secret_spans(url))
    shown, end = [], 0
    for a, b in spans:
        if b < end:  # inside a span already masked
            continue
        shown.append(url[end : max(a, end)] + PASSWORD_MASK)
        end = b
    text = "".join(shown) + url[end:]
    if "://" not in text and "@" in text:
        # Not a URL, but what comes before an @ may still be someone's credentials.
        return f"{PASSWORD_MASK}@{text.rsplit('@', 1)[-1]}"
    return text


def without_password(url: str) -> str:
    """A PostgreSQL URL (one ``parse_database_url`` accepted) with no password at all: ``user@`` without
    ``:password``, no password parameters. For a command printed for the admin to run with PGPASSWORD,
    which a password in the URL would override."""
    start = url.index("://") + 3
    netloc = urlsplit(url).netloc
    if "@" in netloc:
        credentials = netloc.rpartition("@")[0]
        url = url[:start] + credentials.partition(":")[0] + url[start + len(credentials) :]
    base, _, query = url.partition("?")
    kept = [item for item in query.split("&") if item and not _PASSWORD_PARAM.match(item)]
    return f"{base}?{'&'.join(kept)}" if kept else base


# The query parameters libpq (pg_dump, psql) accepts in a URL: its connection keywords up to PostgreSQL 17,
# less the password ones (PGPASSWORD or ~/.pgpass give it) and replication (not a dump's connection). libpq
# refuses a URL with any other ("invalid URI query parameter"): synchronous_commit and the like are server
# settings, which asyncpg sends at connect and a dump does not need.
LIBPQ_PARAMETERS = frozenset({
    "application_name", "channel_binding", "client_encoding", "connect_timeout", "dbname",
    "fallback_application_name", "gssdelegation", "gssencmode", "gsslib", "host", "hostaddr", "keepalives",
    "keepalives_count", "keepalives_idle", "keepalives_interval", "krbsrvname", "load_balance_hosts",
    "options", "passfile", "port", "require_auth", "requirepeer", "service", "ssl_max_protocol_version",
    "ssl_min_protocol_version", "sslcert", "sslcertmode", "sslcompression", "sslcrl", "sslcrldir", "sslkey",
    "sslmode", "sslnegotiation", "sslrootcert", "sslsni", "target_session_attrs", "tcp_user_timeout", "user",
})  # fmt: skip


def for_libpq(url: str) -> str:
    """A PostgreSQL URL (one ``parse_database_url`` accepted) as pg_dump and pg_restore take it: without a
    password (``without_password``) and without the query parameters libpq does not know."""
    base, _, query = without_password(url).partition("?")
    kept = [item for item in query.split("&") if unquote(item.partition("=")[0]) in LIBPQ_PARAMETERS]
    return f"{base}?{'&'.join(kept)}" if kept else base


def _check_postgres_url(text: str, shown: str) -> None:
    """Refuse what the driver would mis-read: credentials with an unencoded reserved character (it splits
    them at the first @, and a URL parser ends them at a / # or ?), a port that is not one. The messages
    show the masked URL only."""
    netloc = urlsplit(text).netloc
    userinfo = _userinfo(text, _param_spans(text))
    misread = netloc.count("@") > 1
    if "@" not in netloc and userinfo is not None:
        credentials = text[userinfo[0] : userinfo[1]]
        colon = credentials.index(":")
        cut = min((credentials.find(c) for c in "/?#" if c in credentials), default=len(credentials))
        # host:5432/db?a=b@c holds no password: that @ belongs to the query.
        misread = colon < cut and not credentials[colon + 1 : cut].isdigit()
    if misread:
        raise UnsupportedDatabaseError(
            f"the user or password in PostgreSQL URL {shown!r} holds a reserved character: {_ENCODE}",
            f"a user and password with their reserved characters percent-encoded: {_ENCODE}",
        )
    hosts = netloc.rpartition("@")[2]
    ports = [_port_of(host) for host in hosts.split(",")] if hosts else []
    ports += ",".join(parse_qs(urlsplit(text).query).get("port", [])).split(",")
    for port in ports:
        if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= MAX_PORT):
            raise UnsupportedDatabaseError(
                f"PostgreSQL URL {shown!r}: port {port!r} is not a number from 1 to {MAX_PORT}",
                f"each port a number from 1 to {MAX_PORT} (e.g. db.example:5432), not {port!r}",
            )


def _port_of(host: str) -> str:
    """The port written after a host (``h:5432``, ``[::1]:5432``); "" when none."""
    if host.startswith("["):
        return host.partition("]")[2].removeprefix(":")
    return "" if host.startswith("/") else unquote(host.partition(":")[2])


def parse_database_url(url: str) -> DatabaseTarget:
    """Read a DATABASE_URL; raise UnsupportedDatabaseError (never showing a password) when it names no
    backend this bot has. The message does not name the setting: the caller knows which one it read
    (DATABASE_URL, copy-db's --from or --to)."""
    text = url.strip()
    shown = mask_password(text)
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme in POSTGRES_SCHEMES:
        try:
            _check_postgres_url(text, shown)
            parts = urlsplit(text)
            query_password = parse_qs(parts.query).get("password", [""])[-1]
            password = unquote(parts.password) if parts.password else query_password or None
            database = parts.path.lstrip("/")
        except ValueError as error:
            raise UnsupportedDatabaseError(f"malformed PostgreSQL URL {shown!r}: {error}") from None
        if not parts.hostname and "host=" not in parts.query:
            raise UnsupportedDatabaseError(f"PostgreSQL URL {shown!r} names no host; e.g. {EXAMPLES}")
        if not database:
            raise UnsupportedDatabaseError(f"PostgreSQL URL {shown!r} names no database; e.g. {EXAMPLES}")
        return DatabaseTarget("postgresql", text, shown, password=password)
    if not text.lower().startswith(_SQLITE_PREFIX):
        raise UnsupportedDatabaseError(f"unsupported database URL {shown!r}; use {EXAMPLES}")
    path = text[len(_SQLITE_PREFIX) :].split("?", 1)[0].split("#", 1)[0]
    if not path or path.endswith("/"):
        raise UnsupportedDatabaseError(
            f"database URL {shown!r} names no file after sqlite:///; use {EXAMPLES}"
        )
    return DatabaseTarget("sqlite", text, shown, path=path)
