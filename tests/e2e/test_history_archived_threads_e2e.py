"""Review of replays and history limited to channels the viewer can read (e8b0ad1)."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread, update_thread
from tests.e2e.test_replays_e2e import play_match

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


async def _play_a_match(world: World) -> int:
    table_id, _ = await play_match(world, cpu=False)
    return table_id


async def _archived(world: World, thread: object) -> None:
    update_thread(world.fake, world.guild, thread, archived=True)  # type: ignore[arg-type]
    assert world.bot is not None
    for _ in range(500):
        if world.bot.get_channel(thread.id) is None:  # type: ignore[attr-defined]
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the bot kept the archived thread in its cache")


@SQLITE_ONLY
async def test_a_match_of_a_public_thread_stays_in_history_after_the_thread_is_archived(world: World) -> None:
    """A table played in a public thread of #eights, a channel everyone reads. Discord archives an idle
    thread on its own (after an hour to a week), and the bot's cache then no longer holds it (nor, after a
    restart, any archived thread). Everyone can still read it. ``channel_access._channel`` takes a channel
    missing from the cache for a deleted one "nobody may read": the match vanishes from /eights history
    (asked in the parent channel, or anywhere else), where it was listed before the change."""
    parent = world.channel
    thread = make_thread(world.fake, world.guild, parent, "cards", type=11, owner=world.alice)
    world.channel = thread
    await _play_a_match(world)
    listed = await world.run(world.carol, "history", channel=parent)
    assert f"<#{thread.id}>" in listed.text(), listed.text()  # listed while the thread is active

    await _archived(world, thread)
    history = await world.run(world.carol, "history", channel=parent)
    assert f"<#{thread.id}>" in history.text(), (
        f"the archived public thread's match is gone from /eights history: {history.text()[:300]!r}"
    )


@SQLITE_ONLY
async def test_a_match_of_a_public_thread_is_replayed_for_a_reader_after_the_thread_is_archived(
    world: World,
) -> None:
    """As above, the replay: carol, who reads #eights and its public thread, is told the match does not
    exist once the thread is archived."""
    parent = world.channel
    thread = make_thread(world.fake, world.guild, parent, "cards", type=11, owner=world.alice)
    world.channel = thread
    table_id = await _play_a_match(world)
    before = await (await world.fake.invoke(world.carol, parent, "eights replay", match=table_id)).reply()
    assert "Replay of match" in before.text(), before.text()  # replayed while the thread is active
    await _archived(world, thread)
    answer = await (await world.fake.invoke(world.carol, parent, "eights replay", match=table_id)).reply()
    assert "Replay of match" in answer.text(), f"carol cannot replay it: {answer.text()[:300]!r}"
