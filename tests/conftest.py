"""Fixtures every test folder may use: both store backends (tests/backends.py)."""

pytest_plugins = ["tests.backends"]
