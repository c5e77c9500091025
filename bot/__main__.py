"""``python -m bot`` (and the ``crazy-eights`` console script): see bot/cli.py."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from bot.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
