"""The scale bench's judgement of what the bot showed (bench/e2e.py), on made-up timelines."""

from __future__ import annotations

from bench.e2e import Shown, Traced, Verdict, judge_boards, judge_plays, judge_turns

ALICE, BOB = 11, 22


def outcome(t: float, board: str, to_act: int | None = None, plays: list[str] | None = None) -> Traced:
    return Traced(t, board, to_act, plays or [])


def test_a_board_shows_a_move_when_it_shows_that_state_or_a_later_one() -> None:
    traced = [outcome(1.0, "s1"), outcome(2.0, "s2"), outcome(3.0, "s3"), outcome(4.0, "s4")]
    # The board skips s1 and s2 (coalesced), shows s3 at 3.5, and never s4.
    shown = Shown(boards=[(0.5, "s0", ""), (3.5, "s3", "")])
    verdict = Verdict()
    judge_boards(traced, shown, 0.0, 10.0, verdict)
    assert verdict.board_lag == [2.5, 1.5, 0.5]
    assert verdict.boards_not_shown == 1


def test_a_board_showing_an_old_state_again_does_not_count_as_showing_newer_moves() -> None:
    traced = [outcome(1.0, "A"), outcome(2.0, "B"), outcome(3.0, "A")]
    shown = Shown(boards=[(2.5, "A", "")])  # "A" at 2.5 can only be the first outcome's state
    verdict = Verdict()
    judge_boards(traced, shown, 0.0, 10.0, verdict)
    assert verdict.board_lag == [1.5]
    assert verdict.boards_not_shown == 2


def test_turn_mentions_delivered_folded_and_lost_and_the_hand_refresh() -> None:
    traced = [
        outcome(1.0, "x", ALICE),  # alice's turn: a line mentions her at 1.5
        outcome(3.0, "x", BOB),  # bob's turn: he moves at 3.4, before any line: folded
        outcome(3.4, "x", ALICE),  # alice's turn: a line at 4.0 names nobody, none later: lost
        outcome(6.0, "x", None),
    ]
    shown = Shown(
        lines=[(1.5, f"▶ <@{ALICE}>, your turn."), (4.0, "bob played 7♣"), (7.0, "alice played 2♦")],
        hands={ALICE: [(1.01, True), (3.0, False), (3.45, True)], BOB: [(3.02, True)]},
    )
    verdict = Verdict()
    judge_turns(traced, shown, 0.0, 10.0, verdict)
    assert (verdict.mentions, verdict.mentions_delivered) == (3, 1)
    assert (verdict.mentions_folded, verdict.mentions_lost) == (1, 1)
    assert [round(lag, 3) for lag in verdict.hand_lag] == [0.01, 0.02, 0.05]
    assert verdict.hands_not_refreshed == 0


def test_a_hand_never_saying_your_turn_is_counted() -> None:
    traced = [outcome(1.0, "x", ALICE), outcome(2.0, "x", BOB)]
    shown = Shown(hands={ALICE: [(0.5, False)]}, lines=[(1.2, f"<@{ALICE}>"), (2.2, f"<@{BOB}>")])
    verdict = Verdict()
    judge_turns(traced, shown, 0.0, 10.0, verdict)
    assert verdict.hands_not_refreshed == 2 and verdict.mentions_delivered == 2


def test_every_play_must_be_in_a_line_after_it_or_on_a_later_board() -> None:
    traced = [
        outcome(1.0, "x", plays=["alice played 7♣"]),
        outcome(2.0, "x", plays=["alice played 7♣"]),  # the same words again: needs a line of its own
        outcome(3.0, "x", plays=["bob played 2♦"]),  # only on a board
        outcome(4.0, "x", plays=["bob played K♠"]),  # nowhere
    ]
    shown = Shown(
        lines=[(0.5, "bob played K♠"), (1.5, "alice played 7♣\n▶ bob to move")],
        boards=[(3.5, "x", "alice played 7♣\nbob played 2♦")],
    )
    verdict = Verdict()
    judge_plays(traced, shown, 0.0, 10.0, verdict)
    assert verdict.plays == 4
    # The second 7♣ is on the board at 3.5 (after it): shown; K♠ was only in a line before it was played.
    assert verdict.plays_lost == 1


def test_the_scale_scenario_runs_and_reports_without_a_failed_line() -> None:
    # A few seconds of the real thing (bot process, fake Discord, people), so that the bench cannot rot
    # unnoticed: once its trace of the publisher's sends fell behind a changed signature, and every line
    # failed.
    import subprocess
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "bench" / "e2e.py"
    done = subprocess.run(
        [
            *(sys.executable, str(bench), "--scenario", "scale", "--active", "3", "--open-tables", "3"),
            *("--duration", "6", "--catch-up", "20", "--pace", "300-600"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in out and "could not post" not in out, out
    assert "ms per committed move" in out and "LOST 0" in out, out


def test_the_scale_scenario_runs_as_two_shard_processes_on_one_postgresql_database() -> None:
    # --processes 2: two shard processes of the bot (SHARD_COUNT=2, SHARD_IDS=0 and 1, each at half the
    # global rate) on a PostgreSQL database the bench makes and drops, a guild per shard, the tables spread
    # over both; each process's moves counted apart. Skipped locally without a PostgreSQL server, failed in
    # CI (tests/backends.py).
    import asyncio
    import re
    import subprocess
    import sys
    from pathlib import Path

    import asyncpg

    from tests.backends import SERVER_URL, unreachable

    async def databases() -> set[str]:
        conn = await asyncpg.connect(SERVER_URL, timeout=5)
        try:
            return {row["datname"] for row in await conn.fetch("SELECT datname FROM pg_database")}
        finally:
            await conn.close()

    try:
        asyncio.run(databases())
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        unreachable(error)
    bench = Path(__file__).resolve().parents[1] / "bench" / "e2e.py"
    done = subprocess.run(
        [
            *(sys.executable, str(bench), "--scenario", "scale", "--active", "4", "--open-tables", "4"),
            *("--duration", "6", "--catch-up", "20", "--pace", "300-600"),
            *("--processes", "2", "--postgres-server", SERVER_URL),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in out and "could not post" not in out, out
    assert "LOST 0" in out and "429s in the run: global 0 " in out, out
    assert "DISCORD_GLOBAL_RATE=25 each" in out and "active tables per shard: 2, 2" in out, out
    # Each process played its own guild's tables: both committed moves, counted apart.
    for shard in (0, 1):
        found = re.search(rf"shard {shard} of 2 \(pid \d+, 2 active tables.*?\((\d+) moves", out)
        assert found is not None and int(found.group(1)) > 0, out
    assert "bot processes (2, all together)" in out and "ms per committed move" in out, out
    database = re.search(r"PostgreSQL database (bench_e2e_\w+)", out)
    assert database is not None, out
    assert database.group(1) not in asyncio.run(databases()), "the run's database was not dropped"
