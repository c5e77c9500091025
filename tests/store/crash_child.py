"""The processes test_crash_safety.py kills: each plays moves through the store as fast as it can, forever.

``python -m tests.store.crash_child DB_PATH`` starts a zygote: it imports everything once, then reads
commands on stdin — ``spawn SEED`` forks a player and answers ``pid N``; ``reap N`` waits for that
player to end and answers ``dead N STATUS``. Forking from an idle single-threaded process makes each of the
test's lives cost milliseconds instead of an interpreter start.

A player opens the store, migrates, writes ``ready N``, then keeps two tables (channels 1 and 2) going: a new
table whenever a channel has none open, one move per open table in turn, with seat changes, round results and
the match result committed in the same ``commit_move`` as the move causing them.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import traceback

from bot.store import MatchResult, MoveCommit, RankingEntry, RoundResult, SeatRecord
from bot.store.sqlite import SqliteStore
from tests.store.crash_game import Game, pick_game

GUILD = 77
CHANNELS = (1, 2)


def seats_for(table_id: int, channel_id: int) -> list[SeatRecord]:
    return [
        SeatRecord(0, 100 + channel_id, f"Host {channel_id}", joined_at=1.0),
        SeatRecord(1, None, "CPU", cpu_level="normal", joined_at=1.0),
        SeatRecord(2, 200 + table_id % 3, f"Guest {table_id % 3}", joined_at=1.0),
    ]


async def play(path: str, seed: int, game: Game) -> None:
    store = await SqliteStore.open(path)
    await store.migrate()
    rng = random.Random(seed)
    os.write(1, f"ready {os.getpid()}\n".encode())
    clock = 1000.0
    while True:
        tables = await store.load_open_tables()
        busy = {entry.table.channel_id for entry in tables}
        for channel_id in CHANNELS:
            if channel_id not in busy:
                game_seed = rng.randrange(2**31)
                await store.create_table(
                    guild_id=GUILD,
                    channel_id=channel_id,
                    host=seats_for(0, channel_id)[0],
                    ruleset={"name": "classic"},
                    options={"seed": game_seed},
                    turn_timeout=60.0,
                    state=game.new(game_seed),
                    deadline=None,
                    now=clock,
                )
        for entry in tables:
            clock += 1.0
            table, state = entry.table, entry.state
            action = game.choose(state.state, rng)
            step = game.apply(state.state, action)
            seats = seats_for(table.id, table.channel_id)
            round_result = None
            if step.round_result is not None:
                number, scores, winners = step.round_result
                round_result = RoundResult(number, scores, winners)
            match_result = None
            if step.ranking is not None:
                match_result = MatchResult(
                    preset="classic",
                    rounds_played=step.round_result[0] if step.round_result else 0,
                    ranking=[
                        RankingEntry(seat, seats[seat].user_id, seats[seat].display_name, place, total)
                        for place, seat, total in step.ranking
                    ],
                )
            await store.commit_move(
                MoveCommit(
                    table.id,
                    state.version,
                    actor_id=seats[0].user_id,
                    action=action,
                    events=step.events,
                    new_state=step.state,
                    deadline=clock + 60.0,
                    now=clock,
                    seats=seats if state.version == 0 else None,
                    status="finished" if match_result else ("playing" if state.version == 0 else None),
                    round_result=round_result,
                    match_result=match_result,
                )
            )


def player(path: str, seed: int, game: Game) -> None:
    """The forked child: play until killed. Never returns into the zygote's loop."""
    status = 1
    try:
        asyncio.run(play(path, seed, game))
    except BaseException:
        traceback.print_exc()
        os.write(1, f"failed {os.getpid()}\n".encode())
    finally:
        os._exit(status)


def zygote(path: str) -> None:
    game = pick_game()
    for line in sys.stdin:
        command, argument = line.split()
        if command == "spawn":
            pid = os.fork()
            if pid == 0:
                player(path, int(argument), game)
            os.write(1, f"pid {pid}\n".encode())
        elif command == "reap":
            _, status = os.waitpid(int(argument), 0)
            os.write(1, f"dead {argument} {status}\n".encode())


if __name__ == "__main__":
    zygote(sys.argv[1])
