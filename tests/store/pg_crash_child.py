"""A process that commits moves to a PostgreSQL store as fast as it can until it is killed (for
test_postgres_crash.py). Each move sets the state to {"n": version}; the fifth move of a table finishes it
with a match result for players 11 and 12, and a new table opens in its channel."""

from __future__ import annotations

import asyncio
import random
import sys

from bot.store import MatchResult, MoveCommit, RankingEntry, SeatRecord, open_store

CHANNELS = (1, 2, 3)
FINISH_AT = 5


async def play(url: str) -> None:
    store = await open_store(url, pool_size=3)
    rng = random.Random()
    announced = False

    async def one_channel(channel: int) -> None:
        nonlocal announced
        while True:
            table = await store.open_table_in_channel(channel)
            if table is None:
                table = await store.create_table(
                    guild_id=1, channel_id=channel, host=SeatRecord(0, 11, "P11", joined_at=1.0),
                    ruleset={}, options={}, turn_timeout=60.0, state={"n": 0}, deadline=None, now=1.0,
                )  # fmt: skip
            state = await store.get_state(table.id)
            assert state is not None
            version = state.version
            finish = version + 1 == FINISH_AT
            await store.commit_move(MoveCommit(
                table.id, version, actor_id=11, action={"n": version + 1, "finish": finish}, events=[],
                new_state={"n": version + 1}, deadline=float(version), now=float(version),
                status="finished" if finish else "playing",
                seats=[SeatRecord(0, 11, "P11"), SeatRecord(1, 12, "P12")] if version == 0 else None,
                match_result=MatchResult(
                    "classic", 1, [RankingEntry(0, 11, "P11", 1, 0), RankingEntry(1, 12, "P12", 2, 9)]
                ) if finish else None,
            ))  # fmt: skip
            if not announced:
                announced = True
                print("ready", flush=True)
            await asyncio.sleep(rng.random() * 0.002)

    await asyncio.gather(*(one_channel(channel) for channel in CHANNELS))


if __name__ == "__main__":
    asyncio.run(play(sys.argv[1]))
