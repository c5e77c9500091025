"""The migration runner: fresh databases, upgrades from every earlier version, and the refusals."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.store import MigrationError
from bot.store.migrations import DEFAULT_MIGRATIONS_DIR, discover, split_statements
from bot.store.sqlite import SqliteStore

REAL = discover(DEFAULT_MIGRATIONS_DIR)
LATEST = REAL[-1].version


def copy_migrations(
    destination: Path, upto: int | None = None, source: Path = DEFAULT_MIGRATIONS_DIR
) -> Path:
    """The migrations of ``source`` (SQLite's by default) up to version ``upto``, in ``destination``."""
    destination.mkdir(parents=True, exist_ok=True)
    for migration in discover(source):
        if upto is None or migration.version <= upto:
            shutil.copy(source / migration.name, destination / migration.name)
    return destination


async def migrate(db: Path, migrations_dir: Path) -> int:
    store = await SqliteStore.open(str(db), migrations_dir=migrations_dir)
    try:
        return await store.migrate()
    finally:
        await store.close()


def schema(db: Path) -> set[tuple[str, str, str]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
        return {(kind, name, sql or "") for kind, name, sql in rows}
    finally:
        conn.close()


def ledger(db: Path) -> list[tuple[int, str, str]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT version, name, checksum FROM schema_migrations ORDER BY version"
        ).fetchall()
    finally:
        conn.close()


def test_the_shipped_migrations_are_numbered_without_gaps() -> None:
    assert [m.version for m in REAL] == list(range(1, len(REAL) + 1))
    assert REAL[0].name == "0001_initial.sql"


async def test_fresh_database_gets_every_migration_recorded(tmp_path: Path) -> None:
    db = tmp_path / "fresh.sqlite3"
    assert await migrate(db, DEFAULT_MIGRATIONS_DIR) == LATEST
    assert ledger(db) == [(m.version, m.name, m.checksum) for m in REAL]
    # Running again applies nothing and changes nothing.
    before = schema(db)
    assert await migrate(db, DEFAULT_MIGRATIONS_DIR) == LATEST
    assert schema(db) == before and len(ledger(db)) == len(REAL)


@pytest.mark.parametrize("start", range(LATEST))
async def test_upgrade_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    await migrate(fresh, DEFAULT_MIGRATIONS_DIR)
    old = tmp_path / "old.sqlite3"
    assert await migrate(old, copy_migrations(tmp_path / "old_code", upto=start)) == start
    if start >= 1:
        # Data written under the old schema survives the upgrade.
        conn = sqlite3.connect(old)
        conn.execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')")
        conn.commit()
        conn.close()
    assert await migrate(old, DEFAULT_MIGRATIONS_DIR) == LATEST
    assert schema(old) == schema(fresh)
    assert [row[:2] for row in ledger(old)] == [(m.version, m.name) for m in REAL]
    if start >= 1:
        conn = sqlite3.connect(old)
        assert conn.execute("SELECT value FROM meta WHERE key = 'kept'").fetchone() == ("yes",)
        conn.close()


async def test_a_migration_the_code_does_not_know_is_refused(tmp_path: Path) -> None:
    newer = copy_migrations(tmp_path / "newer_code")
    future = f"{LATEST + 1:04d}_from_the_future.sql"
    (newer / future).write_text("CREATE TABLE from_the_future (id INTEGER PRIMARY KEY);\n")
    db = tmp_path / "bot.sqlite3"
    assert await migrate(db, newer) == LATEST + 1
    with pytest.raises(MigrationError) as raised:
        await migrate(db, DEFAULT_MIGRATIONS_DIR)
    message = str(raised.value)
    assert future in message and "does not know" in message
    assert "\n" not in message


async def test_a_changed_migration_is_refused(tmp_path: Path) -> None:
    code = copy_migrations(tmp_path / "code")
    db = tmp_path / "bot.sqlite3"
    await migrate(db, code)
    first = code / REAL[0].name
    first.write_text(first.read_text() + "\nCREATE TABLE sneaked_in (id INTEGER);\n")
    with pytest.raises(MigrationError) as raised:
        await migrate(db, code)
    message = str(raised.value)
    assert REAL[0].name in message and "checksum" in message
    assert "\n" not in message
    assert "sneaked_in" not in {name for _, name, _ in schema(db)}


async def test_line_endings_do_not_count_as_a_change(tmp_path: Path) -> None:
    code = copy_migrations(tmp_path / "code")
    db = tmp_path / "bot.sqlite3"
    await migrate(db, code)
    for migration in REAL:
        path = code / migration.name
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert await migrate(db, code) == LATEST


async def test_a_failing_migration_is_rolled_back_whole(tmp_path: Path) -> None:
    code = copy_migrations(tmp_path / "code")
    broken = code / f"{LATEST + 1:04d}_broken.sql"
    broken.write_text("CREATE TABLE half_done (id INTEGER);\nINSERT INTO no_such_table VALUES (1);\n")
    db = tmp_path / "bot.sqlite3"
    with pytest.raises(MigrationError, match="rolled back"):
        await migrate(db, code)
    assert "half_done" not in {name for _, name, _ in schema(db)}
    assert len(ledger(db)) == LATEST  # the earlier migrations committed on their own
    broken.write_text("CREATE TABLE half_done (id INTEGER);\n")
    assert await migrate(db, code) == LATEST + 1


@pytest.mark.parametrize(
    ("files", "complaint"),
    [
        ({"0001_a.sql": "", "0003_c.sql": ""}, "0002 is missing"),
        ({"0001_a.sql": "", "1_b.sql": ""}, "not named"),
        ({"0001_a.sql": "", "0001_b.sql": ""}, "share version"),
    ],
)
def test_badly_numbered_files_are_refused(tmp_path: Path, files: dict[str, str], complaint: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(MigrationError, match=complaint):
        discover(tmp_path)


def test_statements_split_at_top_level_semicolons_only() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (v TEXT DEFAULT 'a;b');
    CREATE TRIGGER t_guard BEFORE DELETE ON t BEGIN SELECT RAISE(ABORT, 'no; never'); END;
    INSERT INTO t VALUES ('x'); INSERT INTO t VALUES ('y');
    -- trailing comment
    """
    statements = split_statements(script)
    assert len(statements) == 4
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    conn = sqlite3.connect(":memory:")
    for statement in statements:
        conn.execute(statement)
    assert conn.execute("SELECT v FROM t ORDER BY v").fetchall() == [("x",), ("y",)]


def test_an_unterminated_statement_is_refused() -> None:
    with pytest.raises(MigrationError, match="unterminated"):
        split_statements("CREATE TABLE t (v TEXT DEFAULT 'oops);\n")


async def test_two_processes_migrating_at_once_apply_each_migration_once(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    stores = [await SqliteStore.open(str(db)) for _ in range(3)]
    try:
        versions = await asyncio.gather(*(store.migrate() for store in stores))
    finally:
        for store in stores:
            await store.close()
    assert versions == [LATEST] * 3
    assert [row[0] for row in ledger(db)] == [m.version for m in REAL]


def test_a_wheel_install_finds_the_migrations_under_its_prefix(tmp_path: Path) -> None:
    from bot.store.migrations import CHECKOUT_MIGRATIONS_DIR, find_migrations_dir

    assert find_migrations_dir(str(tmp_path)) == CHECKOUT_MIGRATIONS_DIR  # a checkout: its own folder
    installed = tmp_path / "share" / "crazy-eights-bot" / "migrations"
    installed.mkdir(parents=True)
    for migration in discover(CHECKOUT_MIGRATIONS_DIR):
        shutil.copy(CHECKOUT_MIGRATIONS_DIR / migration.name, installed)
    found = find_migrations_dir(str(tmp_path), checkout=tmp_path / "no-checkout")
    assert found == installed
    assert [m.version for m in discover(found)] == [m.version for m in discover(CHECKOUT_MIGRATIONS_DIR)]
    # pyproject.toml ships every migration file there.
    pyproject = (CHECKOUT_MIGRATIONS_DIR.parent / "pyproject.toml").read_text()
    assert '"share/crazy-eights-bot/migrations" = ["migrations/*.sql"]' in pyproject
