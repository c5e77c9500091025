"""Fixtures every test folder may use: both store backends (tests/backends.py), and a PostgreSQL server of
the test's own to stop and start (``own_postgres``, tests/service/db_faults.py)."""

pytest_plugins = ["tests.backends", "tests.service.db_faults"]
