"""CPU player tournaments: win rates with 95% Wilson intervals and decision times per level.

    .venv/bin/python bench/cpu.py                       # classic, 2,000 games per pairing
    .venv/bin/python bench/cpu.py --preset switch --games 1000 --jobs 2
    .venv/bin/python bench/cpu.py --quick               # 200 games per pairing, every pairing
    .venv/bin/python bench/cpu.py --first-game 2000     # other deals: games 2,000 to 3,999
    .venv/bin/python bench/cpu.py --preset crazier-abilities --pairing hard-vs-normal --games 1000
    .venv/bin/python bench/cpu.py --loop                # the event loop's lateness while hard CPUs search

``--loop``: the bot runs the hard level in a thread beside its event loop (``TableScheduler._cpu_choice``);
what matters to the other tables is how late the loop wakes while searches run (a click needs several
wake-ups). Printed: the lateness of a 2 ms timer, p50/p99/max, idle and with 1 and 2 searches at once.

A game is one round (one deal) of the preset. Seats are rotated: game g gives seat s the lineup's entry
(s + g) mod n, and the dealer is seat (g // n) mod n, so every level plays every position. A game's win is
shared equally by its winners (a blocked round can tie). Out-of-turn moves (calling one's own last card,
catching) are asked of every seat after each action.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine import Round, crazier, get_preset
from bot.engine.cpu import choose_action, react
from bot.engine.crazier import cpu as crazier_cpu

PAIRINGS: dict[str, tuple[str, ...]] = {
    "normal-vs-easy": ("normal", "easy"),
    "hard-vs-normal": ("hard", "normal"),
    "hard-vs-3-normal": ("hard", "normal", "normal", "normal"),
}


@dataclass
class Tally:
    games: int = 0
    wins: float = 0.0  # share of wins of the lineup's first level (the one measured)
    turns: int = 0
    capped: int = 0
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.wins += other.wins
        self.turns += other.turns
        self.capped += other.capped
        for level, values in other.times.items():
            self.times[level].extend(values)


def play_crazier_game(lineup: tuple[str, ...], game: int) -> Tally:
    """A game of crazier-abilities (its own engine): seats rotated as below, the first player rotating too."""
    n = len(lineup)
    g = crazier.CrazierRound.new(crazier.get_preset(crazier.PRESET_NAME), n, seed=game, first=(game // n) % n)
    levels = [lineup[(s + game) % n] for s in range(n)]
    tally = Tally(games=1)
    decision = 0
    while not g.over:
        seat = g.acting[0]
        decision += 1
        start = time.perf_counter()
        move = crazier_cpu.choose_action(g, seat, levels[seat], seed=game * 100_003 + decision)
        tally.times[levels[seat]].append(time.perf_counter() - start)
        g.apply(move)
    tally.turns = g.turn
    tally.capped = int(g.reason == "turn_cap")
    measured = [s for s in g.winners if levels[s] == lineup[0]]
    tally.wins = len(measured) / len(g.winners)
    return tally


def play_game(preset: str, lineup: tuple[str, ...], game: int, time_budget: float | None) -> Tally:
    if preset == crazier.PRESET_NAME:
        return play_crazier_game(lineup, game)
    ruleset = get_preset(preset)
    n = len(lineup)
    # Seats rotate with every game and the dealer with every n games, so each level plays every position
    # relative to the dealer (rotating both by one each game would keep them in step).
    rnd = Round.new(ruleset, n, dealer=(game // n) % n, seed=game)
    levels = [lineup[(s + game) % n] for s in range(n)]
    tally = Tally(games=1)
    decision = 0
    actions = 0
    while not rnd.over:
        seat = rnd.to_act
        assert seat is not None
        decision += 1
        level = levels[seat]
        start = time.perf_counter()
        action = choose_action(rnd, seat, level, seed=game * 100_003 + decision, time_budget=time_budget)
        tally.times[level].append(time.perf_counter() - start)
        rnd.apply(action)
        actions += 1
        if actions > 5_000:
            tally.capped += 1
            break
        for offset in range(n):
            other = (seat + offset) % n
            if rnd.over:
                break
            reaction = react(rnd, other, levels[other], seed=game * 100_003 + decision * 7 + offset)
            if reaction is not None:
                rnd.apply(reaction)
    tally.turns = rnd.turn_number
    if rnd.over:
        winners = rnd.winners
        measured = [s for s in winners if levels[s] == lineup[0]]
        if winners:
            tally.wins = len(measured) / len(winners)
    return tally


def play_games(preset: str, lineup: tuple[str, ...], games: range, time_budget: float | None) -> Tally:
    total = Tally()
    for game in games:
        total.add(play_game(preset, lineup, game, time_budget))
    return total


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def run_pairing(
    preset: str,
    name: str,
    lineup: tuple[str, ...],
    games: int,
    jobs: int,
    time_budget: float | None,
    first: int = 0,
) -> Tally:
    chunks = [range(first + start, first + games, jobs) for start in range(jobs)]
    total = Tally()
    if jobs == 1:
        total.add(play_games(preset, lineup, chunks[0], time_budget))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(play_games, preset, lineup, chunk, time_budget) for chunk in chunks]
            for future in futures:
                total.add(future.result())
    return total


def loop_lateness(seconds: float = 3.0) -> None:
    """Print how late the event loop wakes, idle and while 1 and 2 hard searches run in threads as the
    scheduler runs them."""
    import asyncio

    from bot.engine.cpu.hard import candidates
    from bot.engine.cpu.knowledge import knowledge_of
    from bot.service.scheduler import TableScheduler

    tick = 0.002
    searching: list[Round] = []
    for game in range(400):
        rnd = Round.new(get_preset("classic"), 4, game % 4, seed=game)
        for _step in range(1 + game % 12):
            seat = rnd.to_act
            if rnd.over or seat is None:
                break
            rnd.apply(choose_action(rnd, seat, "normal", seed=game))
        seat = rnd.to_act
        if seat is None or rnd.over:
            continue
        if len(candidates(rnd, seat, rnd.legal_actions(seat), knowledge_of(rnd.ruleset))) > 1:
            searching.append(rnd)
    searching = searching[:40]

    async def lateness(span: float) -> list[float]:
        late: list[float] = []
        end = time.perf_counter() + span
        while time.perf_counter() < end:
            started = time.perf_counter()
            await asyncio.sleep(tick)
            late.append(time.perf_counter() - started - tick)
        return late

    async def measure(searches: int) -> list[float]:
        stop = asyncio.Event()

        async def table(k: int) -> None:
            while not stop.is_set():
                rnd = searching[k % len(searching)]
                k += searches
                assert rnd.to_act is not None
                await TableScheduler._cpu_choice(rnd, rnd.to_act, "hard", k)

        workers = [asyncio.create_task(table(i)) for i in range(searches)]
        await asyncio.sleep(0.05)
        try:
            return await lateness(seconds)
        finally:
            stop.set()
            await asyncio.gather(*workers)

    async def run() -> None:
        print(
            f"event loop lateness of a {tick * 1000:.0f} ms timer, {seconds:.0f} s each "
            f"({len(searching)} positions)"
        )
        for searches in (0, 1, 2):
            late = await measure(searches) if searches else await lateness(seconds)
            print(
                f"  {searches} hard searches: p50 {percentile(late, 0.50) * 1000:6.2f} ms  "
                f"p99 {percentile(late, 0.99) * 1000:6.2f} ms  max {max(late) * 1000:6.2f} ms  "
                f"({len(late)} wake-ups)",
                flush=True,
            )

    asyncio.run(run())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--games", type=int, default=2_000, help="games per pairing (default 2,000)")
    parser.add_argument("--quick", action="store_true", help="200 games per pairing")
    parser.add_argument("--pairing", action="append", choices=sorted(PAIRINGS), help="default: all")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (the machine has 2 cores)")
    parser.add_argument("--first-game", type=int, default=0, help="first game number (its seed)")
    parser.add_argument("--time-budget", type=float, default=None, help="hard's seconds per decision")
    parser.add_argument(
        "--loop", action="store_true", help="the event loop's lateness while hard searches run"
    )
    args = parser.parse_args(argv)
    if args.loop:
        loop_lateness()
        return 0
    games = 200 if args.quick else args.games
    names = args.pairing or list(PAIRINGS)
    print(
        f"preset {args.preset}: {games} games per pairing (games {args.first_game} to "
        f"{args.first_game + games - 1}), seats rotated, jobs={args.jobs}",
        flush=True,
    )
    times: dict[str, list[float]] = defaultdict(list)
    for name in names:
        lineup = PAIRINGS[name]
        start = time.perf_counter()
        tally = run_pairing(args.preset, name, lineup, games, args.jobs, args.time_budget, args.first_game)
        low, high = wilson(tally.wins, tally.games)
        rate = tally.wins / max(1, tally.games)
        parity = 1 / len(lineup)
        print(
            f"{name:18s} {lineup[0]} wins {rate:6.1%}  95% CI [{low:6.1%}, {high:6.1%}]  "
            f"(parity {parity:.0%}, {tally.games} games, {tally.turns / max(1, tally.games):.0f} turns/game, "
            f"{tally.capped} capped, {time.perf_counter() - start:.0f} s)",
            flush=True,
        )
        for level, values in tally.times.items():
            times[level].extend(values)
    for level in ("easy", "normal", "hard"):
        values = times.get(level)
        if not values:
            continue
        print(
            f"decision time {level:6s} p50 {percentile(values, 0.50) * 1000:7.2f} ms  "
            f"p99 {percentile(values, 0.99) * 1000:7.2f} ms  max {max(values) * 1000:7.2f} ms  "
            f"mean {statistics.fmean(values) * 1000:6.2f} ms  ({len(values)} decisions)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
