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
            "--warmup",
            "4",
            "--settle",
            "0",  # the descriptors' check is not what this test is for: keep-alive sockets close in a minute
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    out = done.stdout + done.stderr
    assert done.returncode in (0, 1) and "Traceback" not in out, out  # 1: a target failed, said below
    lines = done.stdout.splitlines()
    assert lines[1].startswith("baseline (no table open): ") and "asyncio tasks" in lines[1], out
    assert lines[2].split() == [
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
    end = next(i for i, line in enumerate(lines) if line.startswith("end: "))
    rows = [line.split() for line in lines[3:end]]
    assert len(rows) == 2
    for row in rows:
        assert (
            float(row[1]) > 10 and int(row[2]) > 3 and int(row[3]) > 0 and int(row[5]) == 2
        )  # both tables open
    assert "database" in lines[end]
    targets = [line for line in lines[end:] if line.startswith("target: ")]
    assert [t.split(":")[1].split()[0] for t in targets] == ["RSS", "asyncio", "file", "every"], targets
    assert all(t.endswith((": PASS", ": FAIL")) for t in targets), targets
    assert targets[-1].endswith("every table closed: 0 still open: PASS")
    assert done.returncode == (1 if any(t.endswith("FAIL") for t in targets) else 0)
