"""The migration runner: numbered plain-SQL files applied in order, each in its own transaction.

Files are named ``NNNN_name.sql`` (``0001_initial.sql``), numbered 1, 2, 3 … without gaps. Each applied
file is recorded in ``schema_migrations`` (version, name, checksum, time) in the same transaction as its
statements, so a crash leaves a migration either wholly applied and recorded or not at all. The runner refuses
a database that has a migration this code does not know (the database is newer than the bot) or whose
recorded checksum no longer matches its file (someone edited an applied migration): both raise
:class:`MigrationError` with a one-line message.

A migration may also have a *data step*: Python that runs after its SQL, in the same transaction and before
its ledger row, for data work SQL cannot do (0009 rates the matches already played with OpenSkill, whose math
is Python). The backend passes its steps by version (``sqlite.DATA_STEPS``, ``postgres.DATA_STEPS``), so the
step is recorded by the migration's own ledger row: it runs exactly once, or not at all if the process dies,
on both backends alike, and a database is never at version 9 without its ratings. A step only runs with its
migration: a database migrated before would not run it again, which is why each step must also be safe to
run twice (0009's rates only the matches that have no rating yet).

SQLite's files are in ``migrations/``, PostgreSQL's in ``migrations/postgres/`` under the same numbers (the
SQL differs: types, triggers). The SQLite functions here are synchronous (the store runs them on its
connection's worker thread); ``migrate_postgres`` is async, and holds a PostgreSQL advisory lock while it
works, so that processes starting at once apply each migration once. Both return the schema version and how
many migrations they applied themselves, counted under their lock: a process that waited for another's
migration and found it done applied none (``migrate`` says so, whatever the version was before it waited).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import sys
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.store.base import MigrationError

if TYPE_CHECKING:
    import asyncpg

# migrations/ at the top of the repository (bot/store/migrations.py -> ../../migrations).
CHECKOUT_MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def find_migrations_dir(prefix: str = sys.prefix, checkout: Path = CHECKOUT_MIGRATIONS_DIR) -> Path:
    """The checkout's migrations/ (a clone, an editable install, the Docker image); in a wheel install, where
    pyproject.toml's data-files put them: <prefix>/share/crazy-eights-bot/migrations."""
    if checkout.is_dir():
        return checkout
    return Path(prefix) / "share" / "crazy-eights-bot" / "migrations"


DEFAULT_MIGRATIONS_DIR = find_migrations_dir()
POSTGRES_SUBDIR = "postgres"
MIGRATION_TIMEOUT = 7 * 24 * 3600.0  # seconds: no limit in practice (see ``migrate_postgres``)
DEFAULT_POSTGRES_MIGRATIONS_DIR = DEFAULT_MIGRATIONS_DIR / POSTGRES_SUBDIR

_FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

_CREATE_LEDGER = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at REAL NOT NULL
)
"""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str  # the file name, e.g. "0001_initial.sql"
    sql: str
    checksum: str  # sha256 of the text with line endings normalised, so a CRLF checkout is not "changed"


@dataclass(frozen=True, slots=True)
class Migrated:
    """What one run of the runner did: the schema version after it, and how many migrations this run applied
    (each committed with its ledger row, under the runner's lock; none that another process applied)."""

    version: int
    applied: int


@dataclass(frozen=True, slots=True)
class AppliedMigration:
    version: int
    name: str
    checksum: str
    applied_at: float


def checksum(sql: str) -> str:
    return hashlib.sha256(sql.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def discover(directory: Path) -> list[Migration]:
    """Every migration file in ``directory``, in order. Other files (README.md) are ignored."""
    if not directory.is_dir():
        raise MigrationError(f"migrations folder {directory} does not exist")
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise MigrationError(f"migration file {path.name} is not named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"migrations {found[version].name} and {path.name} share version {version}")
        sql = path.read_text(encoding="utf-8")
        found[version] = Migration(version, path.name, sql, checksum(sql))
    migrations = [found[v] for v in sorted(found)]
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise MigrationError(f"migration {expected:04d} is missing (found {migration.name} instead)")
    return migrations


_TABLE_DDL = re.compile(
    r"\b(CREATE|DROP)\s+TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([a-z_][a-z0-9_]*)", re.IGNORECASE
)


def created_tables(migrations: list[Migration]) -> set[str]:
    """The tables a database has once ``migrations`` (in order) are applied: those they create and do not
    drop. A database at an older version lacks the tables of the later ones, and is not damaged for it."""
    tables: set[str] = set()
    for migration in migrations:
        for verb, table in _TABLE_DDL.findall(_strip_comments(migration.sql)):
            if verb.upper() == "CREATE":
                tables.add(table.lower())
            else:
                tables.discard(table.lower())
    return tables


def applied(conn: sqlite3.Connection) -> list[AppliedMigration]:
    """What the database records as applied; empty for a new database."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if exists is None:
        return []
    rows = conn.execute(
        "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version"
    ).fetchall()
    return [AppliedMigration(int(v), str(n), str(c), float(t)) for v, n, c, t in rows]


def check(known: list[Migration], done: list[AppliedMigration]) -> None:
    """Raise MigrationError when the database cannot be used with the migrations this code knows."""
    by_version = {m.version: m for m in known}
    for record in done:
        migration = by_version.get(record.version)
        if migration is None or migration.name != record.name:
            raise MigrationError(
                f"the database has migration {record.name}, which this version of the bot does not know; "
                "run the bot version that created it or restore an older backup"
            )
        if migration.checksum != record.checksum:
            raise MigrationError(
                f"migration {record.name} was changed after it was applied to this database "
                "(checksum differs); restore the original file and put changes in a new migration"
            )


def split_statements(sql: str) -> list[str]:
    """Split a script into statements at the semicolons that end one (triggers' inner ones do not)."""
    statements: list[str] = []
    buffer = ""
    for piece in sql.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if _strip_comments(buffer).strip(" \t\r\n;"):
                statements.append(buffer.strip())
            buffer = ""
    rest = buffer[:-1]  # drop the ";" the loop added after the last piece
    if _strip_comments(rest).strip():
        raise MigrationError(f"migration ends with an unterminated statement: {rest.strip()[:60]!r}")
    return statements


def _strip_comments(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


SqliteDataSteps = Mapping[int, Callable[[sqlite3.Connection], object]]


def migrate(
    conn: sqlite3.Connection, known: list[Migration], data_steps: SqliteDataSteps | None = None
) -> Migrated:
    """Apply the pending migrations in order, each in its own transaction (with its data step, if it has
    one); return the schema version and how many this call applied (each found pending under the write lock).

    ``conn`` must be in autocommit mode (isolation_level=None): transactions here are explicit.
    """
    conn.execute(_CREATE_LEDGER)
    check(known, applied(conn))
    count = 0
    for migration in known:
        # BEGIN IMMEDIATE takes the write lock before reading the ledger, so two processes starting at once
        # cannot both apply the same migration. Taken even with nothing to apply: a start on a file another
        # process is writing to (past the busy timeout) stops here in one line, not later with every move
        # failing; `check` tries the same lock (Store.check_writable).
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = applied(conn)
            check(known, done)
            if any(record.version == migration.version for record in done):
                conn.execute("COMMIT")
                continue
            for statement in split_statements(migration.sql):
                conn.execute(statement)
            step = (data_steps or {}).get(migration.version)
            if step is not None:
                step(conn)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                (migration.version, migration.name, migration.checksum, time.time()),
            )
            conn.execute("COMMIT")
            count += 1
        except MigrationError:
            conn.execute("ROLLBACK")
            raise
        except sqlite3.Error as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise MigrationError(f"migration {migration.name} failed and was rolled back: {error}") from error
    return Migrated(schema_version(conn), count)


def schema_version(conn: sqlite3.Connection) -> int:
    done = applied(conn)
    return done[-1].version if done else 0


# --- PostgreSQL ---------------------------------------------------------------------------------------------

_CREATE_PG_LEDGER = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at DOUBLE PRECISION NOT NULL
)
"""


def advisory_lock_key(schema: str) -> int:
    """The advisory lock that serialises migrations of one schema (a signed 64-bit number)."""
    return (0x45_69_67_68 << 32) | zlib.crc32(f"crazy-eights migrations {schema}".encode())


async def applied_postgres(conn: asyncpg.Connection) -> list[AppliedMigration]:
    if await conn.fetchval("SELECT to_regclass('schema_migrations')") is None:
        return []
    rows = await conn.fetch(
        "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version"
    )
    return [AppliedMigration(int(r[0]), str(r[1]), str(r[2]), float(r[3])) for r in rows]


async def schema_version_postgres(conn: asyncpg.Connection) -> int:
    done = await applied_postgres(conn)
    return done[-1].version if done else 0


PostgresDataSteps = Mapping[int, Callable[["asyncpg.Connection"], Awaitable[object]]]


async def migrate_postgres(
    conn: asyncpg.Connection, known: list[Migration], data_steps: PostgresDataSteps | None = None
) -> Migrated:
    """Apply the pending migrations in order, each in its own transaction with its ledger row; return the
    schema version and how many this call applied. A session advisory lock (per schema) makes a second
    process wait, then find the work done (and apply none)."""
    import asyncpg

    schema = str(await conn.fetchval("SELECT current_schema()"))
    key = advisory_lock_key(schema)
    # Waiting for another process's migration, and a migration's statements, take as long as they take:
    # the pool's limit on a statement (a minute) would stop a process starting beside a long data migration,
    # and roll back a migration longer than that at every start.
    await conn.execute("SELECT pg_advisory_lock($1)", key, timeout=MIGRATION_TIMEOUT)
    count = 0
    try:
        await conn.execute(_CREATE_PG_LEDGER)
        for migration in known:
            async with conn.transaction():
                done = await applied_postgres(conn)
                check(known, done)
                if any(record.version == migration.version for record in done):
                    continue
                try:
                    await conn.execute(migration.sql, timeout=MIGRATION_TIMEOUT)
                    step = (data_steps or {}).get(migration.version)
                    if step is not None:
                        await step(conn)
                except asyncpg.PostgresError as error:
                    raise MigrationError(
                        f"migration {migration.name} failed and was rolled back: {error}"
                    ) from error
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) "
                    "VALUES ($1, $2, $3, $4)",
                    migration.version,
                    migration.name,
                    migration.checksum,
                    time.time(),
                )
            count += 1  # committed with its ledger row
        check(known, await applied_postgres(conn))
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", key)
    return Migrated(await schema_version_postgres(conn), count)
