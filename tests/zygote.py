"""A zygote child process driven by lines, for the kill -9 tests (tests/store/test_crash_safety.py,
tests/service/test_outbox_crash.py): ``python -m MODULE ARGS`` imports everything once and forks the
processes the test kills. Commands go to its stdin, one a line; its answers (``word pid …``) come on its
stdout; its stderr goes to a log file."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class ZygoteProcess:
    def __init__(self, module: str, args: Sequence[str], log: Path) -> None:
        self._stderr = log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )

    def _send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def _read(self) -> list[str]:
        """The next line's words."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the zygote died"
        return line.split()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)
        self._stderr.close()
