"""Instructions per finished match, with and without the rating update, counted by valgrind (callgrind):
a figure that a loaded machine does not disturb, unlike the rates and CPU times of bench/store.py.

    .venv/bin/python bench/store_instructions.py [--warm 1000] [--matches 500]

Each figure is the difference between two runs of a child process that records ``--warm`` matches (as
bench/store.py records them, SQLite) and then ``--matches`` more or none, divided by ``--matches``: what one
match result costs the process, its start and the warm-up taken out. Needs valgrind; takes about a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


async def child(rated: bool, warm: int, matches: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import store as bench  # bench/store.py

    with tempfile.TemporaryDirectory() as folder:
        store = await bench.fresh_store(Path(folder) / "count.sqlite3")
        try:
            store._rates = rated  # type: ignore[attr-defined]
            await bench.record_matches(store, warm, 5000)
            if matches:
                await bench.record_matches(store, matches, 5000, seed=warm)
        finally:
            await store.close()


def instructions(rated: bool, warm: int, matches: int) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
         "--child", str(int(rated)), "--warm", str(warm), "--matches", str(matches)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no count: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--child", type=int, choices=(0, 1), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        asyncio.run(child(bool(args.child), args.warm, args.matches))
        return
    per_match = {}
    for rated in (False, True):
        base = instructions(rated, args.warm, 0)
        per_match[rated] = (instructions(rated, args.warm, args.matches) - base) / args.matches
    print(
        f"instructions per finished match: {per_match[True] / 1e6:.3f} M with the rating update, "
        f"{per_match[False] / 1e6:.3f} M without ({100 * (per_match[True] / per_match[False] - 1):+.1f}%; "
        f"after {args.warm} matches, {args.matches} counted)"
    )


if __name__ == "__main__":
    main()
