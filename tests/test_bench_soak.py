"""bench/soak.py runs (a few seconds of it, one table of each kind), so that it cannot rot unnoticed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOAK = Path(__file__).resolve().parents[1] / "bench" / "soak.py"


def test_the_soak_bench_prints_its_rows_and_the_bytes_per_match() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(SOAK),
            "--duration",
            "8",
            "--interval",
            "4",
            "--cpu-tables",
            "1",
            "--people-tables",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split() == [
        "minute",
        "rss",
        "MiB",
        "fds",
        "tasks",
        "loop",
        "p99",
        "ms",
        "open",
        "tables",
        "db",
        "MiB",
        "finished",
    ]
    rows = [line.split() for line in lines[2:] if not line.startswith("end:")]
    assert len(rows) == 2
    for row in rows:
        assert (
            float(row[1]) > 10 and int(row[2]) > 3 and int(row[3]) > 0 and int(row[5]) == 2
        )  # both tables open
    assert lines[-1].startswith("end: ") and "database" in lines[-1]
