"""``forget-user`` run from another process (README: "`forget-user` works from anywhere: it changes only
finished games and statistics"; "/eights forget asked in one guild forgets the player in both") while the
owning shard process records a match of the same person.

The match's transaction (bot/store/postgres_standings.py ``record_match``) reads each seat's rating from
player_stats (a plain SELECT, no row lock), computes the new ratings, then upserts the rows. A forget that
commits between that read and the upsert deletes the person's row; the upsert then inserts it again with the
rating computed from the forgotten one: the old ``rated_matches`` count plus one, the old skill history
(``recent``). What the person asked to delete comes back.

Staged deterministically: another session holds the first seat's statistics row, so the match's transaction
waits between its read and its writes; the forget of the second seat is asked then, and must wait for the
match (the guild's ratings lock, which match results take), then delete what the match wrote too."""

from __future__ import annotations

import asyncio
import time

import asyncpg

from bot.store import MatchResult, MoveCommit, RankingEntry, SeatRecord, Store, open_store
from tests.service.test_standings import record_match

GUILD = 7_000
ALICE, BOB = 71, 72


async def test_a_forget_committed_while_a_match_is_recorded_does_not_bring_the_rating_back(
    own_db: tuple[str, str],
) -> None:
    _, url = own_db
    owner = await open_store(url)  # the shard process that plays the guild's tables
    other = await open_store(url)  # another process, where forget-user is run
    holder = await asyncpg.connect(url)
    try:
        for _ in range(3):  # Bob has a history: three rated matches
            await record_match(owner, guild_id=GUILD, ranking=[(ALICE, "Alice", 1, 0), (BOB, "Bob", 2, 20)])
        before = await holder.fetchrow(
            "SELECT rated_matches, recent FROM player_stats WHERE guild_id = $1 AND user_id = $2", GUILD, BOB
        )
        assert before is not None and before["rated_matches"] == 3

        # The fourth match's table is open; its last move (the result) comes once the row is held.
        table = await owner.create_table(
            guild_id=GUILD,
            channel_id=8_000,
            host=SeatRecord(position=0, user_id=ALICE, display_name="Alice"),
            ruleset={"name": "classic"},
            options={"preset": "classic"},
            turn_timeout=90.0,
            state={},
            deadline=None,
            now=1_700_000_100.0,
        )
        tx = holder.transaction()
        await tx.start()
        await holder.fetch(
            "SELECT 1 FROM player_stats WHERE guild_id = $1 AND user_id = $2 FOR UPDATE", GUILD, ALICE
        )
        held_by = await holder.fetchval("SELECT txid_current()")
        match = asyncio.create_task(finish(owner, table.id))
        # Wait until the match's transaction is blocked on Alice's row (it has read the ratings).
        deadline = time.monotonic() + 10
        while not await holder.fetchval(
            "SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid' "
            "AND transactionid::text = $1",
            str(held_by),
        ):
            assert time.monotonic() < deadline and not match.done(), "the match did not block on the row"
            await asyncio.sleep(0.05)

        # Bob asks to be forgotten, through another process, while the match is being recorded: the forget
        # waits for the match (the guild's ratings lock), then deletes what the match wrote too.
        forgetting = asyncio.create_task(other.forget_user(BOB))
        await asyncio.sleep(0.5)
        assert not forgetting.done(), "the forget did not wait for the match being recorded"
        await tx.rollback()
        await asyncio.wait_for(match, 10)
        await asyncio.wait_for(forgetting, 10)

        after = await holder.fetchrow(
            "SELECT matches_played, rated_matches, recent FROM player_stats "
            "WHERE guild_id = $1 AND user_id = $2",
            GUILD,
            BOB,
        )
        assert after is None, (
            f"Bob's forgotten rating came back: matches_played={after['matches_played']}, "
            f"rated_matches={after['rated_matches']} (3 before the forget), recent={after['recent']}"
        )
        assert await other.player_stats(GUILD, BOB) is None
    finally:
        await holder.close()
        await other.close()
        await owner.close()


async def finish(store: Store, table_id: int) -> None:
    """The match's last move, as the service commits it: Alice first, Bob second."""
    entries = [
        RankingEntry(position=0, user_id=ALICE, display_name="Alice", place=1, total=0),
        RankingEntry(position=1, user_id=BOB, display_name="Bob", place=2, total=20),
    ]
    await store.commit_move(
        MoveCommit(
            table_id,
            0,
            actor_id=None,
            action={"kind": "end"},
            events=[],
            new_state={},
            deadline=None,
            now=1_700_000_200.0,
            status="finished",
            match_result=MatchResult(
                preset="classic",
                rounds_played=1,
                ranking=entries,
                round_wins={0: 1},
                round_points={0: 0, 1: 20},
            ),
        )
    )
