"""The PostgreSQL tests without a server: skipped with the reason locally, failed in CI (CI=true)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_races(ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["EIGHTS_TEST_POSTGRES_URL"] = "postgresql://postgres@127.0.0.1:1/test"  # nothing listens there
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/store/test_races.py",
         "-k", "one_store"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_without_a_server_postgres_tests_are_skipped_with_the_reason() -> None:
    result = run_races(None)
    assert result.returncode == 0, result.stdout
    assert "1 passed, 1 skipped" in result.stdout
    assert "PostgreSQL test server not reachable at postgresql://postgres@127.0.0.1:1/test" in result.stdout


def test_in_ci_a_missing_server_fails_the_run() -> None:
    result = run_races("true")
    assert result.returncode == 1, result.stdout
    assert "CI requires the PostgreSQL tests" in result.stdout and "1 passed" in result.stdout
