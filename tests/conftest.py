"""Fixtures every test folder may use: both store backends (tests/backends.py), and a PostgreSQL server of
the test's own to stop and start (``own_postgres``, tests/service/db_faults.py).

Every test: the Crazier Eights hard CPU looks at every move (``HARD_TIME_BUDGET`` lifted), so that a seeded
match plays the same on a loaded machine as on an idle one (a test that checks the budget passes its own)."""

from collections.abc import Iterator

import pytest

from bot.engine.crazier import cpu as crazier_cpu

pytest_plugins = ["tests.backends", "tests.service.db_faults"]


@pytest.fixture(autouse=True)
def _crazier_hard_sees_every_move() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(crazier_cpu, "HARD_TIME_BUDGET", 60.0)
        yield
