"""Engine speed: random playouts (uniform over legal actions) with legal_actions + choice + step.

Prints games/s and actions/s for 4-player classic and 2-player party, and the median of several runs.
Target: at least 200,000 actions/s on one core for 4-player classic. Rates are per second of this process's
CPU time (``time.process_time``), so other load on a shared machine does not count against the engine; the
wall-clock rate is shown beside it.

    .venv/bin/python bench/engine.py [--runs 5] [--seconds 2.0] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time

from bot.engine import Round, get_preset


def playouts(preset: str, seats: int, seconds: float, seed: int) -> tuple[int, int, float, float]:
    """Play random games for about ``seconds`` of CPU time; return (games, actions, cpu time, wall time)."""
    rs = get_preset(preset)
    rng = random.Random(seed)
    choice = rng.choice
    games = actions = 0
    wall = time.perf_counter()
    start = time.process_time()
    deadline = start + seconds
    g = 0
    while time.process_time() < deadline:
        for _ in range(20):
            r = Round.new(rs, seats, g % seats, seed=seed * 1_000_000 + g)
            g += 1
            legal = r.legal_actions
            step = r.step
            n = 0
            while r.to_act is not None:
                step(choice(legal()))
                n += 1
            games += 1
            actions += n
    return games, actions, time.process_time() - start, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--profile", action="store_true", help="profile one run of 4-player classic")
    args = parser.parse_args()
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        playouts("classic", 4, args.seconds, 1)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        return
    for preset, seats in (("classic", 4), ("party", 2)):
        rates = []
        for run in range(args.runs):
            games, actions, cpu, wall = playouts(preset, seats, args.seconds, run + 1)
            rates.append((games / cpu, actions / cpu))
            print(
                f"{preset:8} {seats}p run {run + 1}: {games / cpu:9.0f} games/s "
                f"{actions / cpu:10.0f} actions/s ({actions / max(games, 1):.1f} actions/game; "
                f"wall clock {actions / wall:.0f} actions/s)"
            )
        med_g = statistics.median(g for g, _ in rates)
        med_a = statistics.median(a for _, a in rates)
        print(f"{preset:8} {seats}p MEDIAN: {med_g:9.0f} games/s {med_a:10.0f} actions/s")


if __name__ == "__main__":
    main()
