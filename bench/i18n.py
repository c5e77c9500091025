"""The cost of the languages on a move's hot path: what one move renders (its public lines and turn line,
the board embed, the mover's hand), in each language, against English (where ``_()`` returns the code's
text). Also the parts: one ``_()`` lookup with placeholders, ``translations(locale)``, ``str.format``.

Figures are per second of this process's CPU time (``time.process_time``), so other load on a shared machine
does not count; the median of several runs is printed.

    .venv/bin/python bench/i18n.py [--runs 5] [--seconds 0.5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' snapshot builders

from bot.i18n import LOCALES, _, ngettext, npgettext, pgettext, translations, use_locale
from bot.service import TableEvent
from bot.ui import render
from tests.ui.snapshots import hand, snapshot

SNAP = snapshot()
HAND = hand(["KH", "9H", "8C", "2S", "QD", "10S", "AC"], {"9H", "8C", "2S", "10S"}, SNAP)
EVENTS = [
    TableEvent("played", 2, {"card": "9S"}, "engine"),
    TableEvent("drew", 1, {"count": 2}, "engine"),
    TableEvent("turn", 0, {}, "engine"),
]


def a_move() -> None:
    """What one move renders in the language in force."""
    render.event_lines(EVENTS, SNAP)
    render.turn_line(EVENTS, SNAP, hand_is_fresh=True)
    render.board_embed(SNAP).to_dict()
    render.hand_content(HAND)


def one_lookup() -> None:
    _("{who} played {card}", who="alice", card="K♥")


def the_catalogue() -> None:
    translations("de")


def a_format() -> None:
    "{who} played {card}".format(who="alice", card="K♥")


def lookups_per_move() -> int:
    """How many catalogue lookups (``_``, ``ngettext``, ``pgettext``, ``npgettext``) one move makes."""
    codes = {f.__code__ for f in (_, ngettext, pgettext, npgettext)}
    calls = 0

    def count(frame: object, event: str, _arg: object) -> None:
        nonlocal calls
        if event == "call" and getattr(frame, "f_code", None) in codes:
            calls += 1

    sys.setprofile(count)
    try:
        a_move()
    finally:
        sys.setprofile(None)
    return calls


def per_second(work: Callable[[], None], seconds: float) -> float:
    done = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _i in range(50):
            work()
        done += 50
    return done / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()

    def median(work: Callable[[], None]) -> float:
        return statistics.median(per_second(work, args.seconds) for _ in range(args.runs))

    # The languages in turn, run after run, so that the machine's drift falls on all alike.
    rates: dict[str, list[float]] = {locale: [] for locale in LOCALES}
    for locale in LOCALES:
        with use_locale(locale):
            a_move()  # the catalogue read once, as the bot does when a language is first needed
    for _run in range(args.runs):
        for locale in LOCALES:
            with use_locale(locale):
                rates[locale].append(per_second(a_move, args.seconds))
    english = statistics.median(rates[LOCALES[0]])
    print("a move rendered (lines, turn line, board embed, hand), median of", args.runs, "runs:")
    for locale in LOCALES:
        rate = statistics.median(rates[locale])
        print(
            f"  {locale:6} {rate:9,.0f} moves/s  {1e6 / rate:7.1f} µs/move  ({rate / english:.0%} of English)"
        )
    with use_locale("de"):
        lookups = lookups_per_move()
    print(f"the parts ({lookups} lookups per move):")
    with use_locale("de"):
        for name, work in (
            ("_() with 2 placeholders (de)", one_lookup),
            ("translations(locale) (cached)", the_catalogue),
            ("str.format with 2 placeholders", a_format),
        ):
            rate = median(work)
            print(f"  {name:32} {1e9 / rate:7.0f} ns")


if __name__ == "__main__":
    main()
