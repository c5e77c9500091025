"""A replay of a match one of whose players was forgotten (/eights forget, or forget-user) shows that
player's seat as the channel saw it, under the name "Deleted player": a person's seat, never a CPU's; a seat
a CPU took over from them reads as taken over from the step the channel was told so, as it did live."""

from __future__ import annotations

from tests.e2e.conftest import World, message_text
from tests.e2e.replay_steps import open_replay_at, play_to_the_end, started_table, step_index, step_lines
from tests.e2e.test_replays_e2e import replay
from tests.e2e.test_standings_e2e import play_match, store_of

TAKEOVER = "A CPU player now plays for"


def seat_lines(text: str, name: str) -> list[str]:
    """The board's seat lines (each "N name — K cards") that name ``name``."""
    return [line for line in text.splitlines() if name in line and "—" in line]


async def test_a_forgotten_players_seat_reads_as_a_deleted_person_not_a_cpu(world: World) -> None:
    """Alice and Bob play a match; Alice confirms /eights forget; Bob replays the match. Alice's seat reads
    "Deleted player" (as /eights history shows her), with no CPU tag: no CPU sat at that table."""
    await play_match(world, "classic")
    await world.settle()
    (match,) = await store_of(world).recent_matches(world.guild.id, limit=5)
    question = await world.run(world.alice, "forget")
    await (await world.fake.click(world.alice, question, label="Delete my statistics")).reply()

    step = await world.run(world.bob, "replay", match=match.table_id)
    seats = seat_lines(message_text(step), "Deleted player")
    assert seats, message_text(step)
    assert all("CPU" not in line for line in seats), f"the forgotten person is shown as a CPU: {seats}"


async def test_a_forgotten_players_seat_reads_as_taken_over_only_from_the_takeover_on(world: World) -> None:
    """Bob leaves during the match and a CPU plays his seat to the end; bob is then forgotten. Alice's replay
    shows his seat as a person's ("Deleted player", no CPU tag) until the step that tells the takeover, and
    as played by the CPU ("CPU plays") from that step on, as the channel's board showed it."""
    table_id = await started_table(world)
    await world.run(world.bob, "leave")
    await world.settle()
    await play_to_the_end(world)

    await store_of(world).forget_user(world.bob.id)
    await world.restart()  # a replay built before is not reused
    message = await replay(world, world.alice, table_id)
    before = seat_lines(message_text(message), "Deleted player")
    assert before and all("CPU" not in line for line in before), before
    for _ in range(200):
        if any(TAKEOVER in line for line in step_lines(message)):
            break
        message = await (await world.fake.click(world.alice, message, label="Next")).reply()
    taken = step_index(message)
    after = seat_lines(message_text(message), "Deleted player")
    assert after and all("CPU plays" in line for line in after), after
    just_before = await open_replay_at(world, world.alice, table_id, taken - 1)
    earlier = seat_lines(message_text(just_before), "Deleted player")
    assert earlier and all("CPU" not in line for line in earlier), earlier
