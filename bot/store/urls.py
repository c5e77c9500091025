"""DATABASE_URL: which backend, which file or server, and how to show it without its password.

``sqlite:///relative/path.sqlite3`` (relative to the working directory), ``sqlite:////abs/path.sqlite3``,
``sqlite:///:memory:`` (tests); a query string (``?cache=shared``) is not part of the file name: the store
sets its own connection options, so SQLite parameters in the URL are ignored.
``postgresql://user:password@host:5432/dbname`` (or ``postgres://``) selects PostgreSQL; its query string
(``?sslmode=require``) is passed on to the driver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from bot.store.base import UnsupportedDatabaseError

Backend = Literal["sqlite", "postgresql"]
POSTGRES_SCHEMES = ("postgresql", "postgres")
PASSWORD_MASK = "***"
_SQLITE_PREFIX = "sqlite:///"
EXAMPLES = "sqlite:///data/eights.sqlite3 or postgresql://user:password@host:5432/dbname"


@dataclass(frozen=True, slots=True)
class DatabaseTarget:
    backend: Backend
    url: str = field(repr=False)  # as given (may hold a password: never print it; print ``shown``)
    shown: str  # the URL with its password masked, for logs, `check` and errors
    path: str | None = None  # SQLite: the file path, or ":memory:"
    password: str | None = field(default=None, repr=False)  # PostgreSQL, decoded: so that logs can redact it

    @property
    def is_memory(self) -> bool:
        return self.path == ":memory:"

    @property
    def secrets(self) -> list[str]:
        """The URL and its password, as written in the URL (percent-encoded) and decoded."""
        written = urlsplit(self.url).password if self.password else None
        return [value for value in (self.url, self.password, written) if value]

    def scrub(self, text: str) -> str:
        """``text`` (an error message) with the URL and the password masked."""
        text = text.replace(self.url, self.shown)
        for secret in self.secrets[1:]:
            text = text.replace(secret, PASSWORD_MASK)
        return text


def mask_password(url: str) -> str:
    """The URL with the password (if any) replaced by ``***``; the user, host and database stay readable."""
    if "://" not in url:
        # Not a URL, but what comes before an @ may still be someone's credentials.
        return f"{PASSWORD_MASK}@{url.rsplit('@', 1)[-1]}" if "@" in url else url
    try:
        parts = urlsplit(url)
    except ValueError:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://{PASSWORD_MASK}@{rest.rsplit('@', 1)[-1]}" if "@" in rest else url
    if "@" not in parts.netloc:
        return url
    credentials, host = parts.netloc.rsplit("@", 1)
    if ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:{PASSWORD_MASK}@{host}"))


def parse_database_url(url: str) -> DatabaseTarget:
    """Read a DATABASE_URL; raise UnsupportedDatabaseError (never showing a password) when it names no
    backend this bot has. The message does not name the setting: the caller knows which one it read
    (DATABASE_URL, copy-db's --from or --to)."""
    text = url.strip()
    shown = mask_password(text)
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme in POSTGRES_SCHEMES:
        try:
            parts = urlsplit(text)
            password = unquote(parts.password) if parts.password else None
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
