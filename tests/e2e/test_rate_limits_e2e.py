"""Many busy tables against the fake Discord with Discord's limits on (a tight global limit, so that the
tables want more than it allows): the bot stays within its global budget (no global 429, no second over the
limit), and a storm of 5xx and shared 429 answers with gateway drops loses nothing. In both, every board
ends showing its table's latest state, every play is told in a line, and every person whose turn came was
mentioned (or had moved before any line went out, and the line after told it)."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any

from bot.service import Outcome, TableSnapshot
from bot.ui import render
from tests.e2e.conftest import World
from tests.fakediscord import DiscordLimits, FakeChannel, FakeMessage, FakeUser

# A line posted this soon after a turn began may have been on its way before (as bench/e2e.py judges).
IN_FLIGHT = 0.25
RATE = 8  # a tight global limit (Discord's is 50/s), so that a handful of tables want more than it allows


@dataclass
class Table:
    """One table of the test: its channel and its two people (each sits at this table only)."""

    view: World  # the world's helpers, looking at this table's channel
    people: tuple[FakeUser, FakeUser]

    @property
    def channel(self) -> FakeChannel:
        return self.view.channel


class Recorder:
    """Every outcome the publisher is given, and every line the channels got, by channel and timed."""

    def __init__(self, world: World) -> None:
        self.outcomes: dict[int, list[tuple[float, Outcome]]] = {}
        self.lines: dict[int, list[tuple[float, str]]] = {}
        loop = asyncio.get_running_loop()
        publisher = world.publisher
        original = publisher.publish

        def publish(outcome: Outcome, **kwargs: Any) -> None:
            self.outcomes.setdefault(outcome.snapshot.channel_id, []).append((loop.time(), outcome))
            original(outcome, **kwargs)

        def observe(message: FakeMessage, recipient: FakeUser | None) -> None:
            if recipient is None and not message.embeds and len(message.versions) == 1:
                self.lines.setdefault(message.channel_id, []).append((loop.time(), message.content))

        publisher.publish = publish  # type: ignore[method-assign]
        world.fake.add_message_observer(observe)


async def limited_world(world: World, **limits: Any) -> World:
    world.fake.enable_limits(DiscordLimits(global_limit=RATE, **limits))
    world.config_changes = {"global_rate": RATE}
    await world.restart()
    # The privacy observer knows the cards of one table: with several (each its own deck) the same labels are
    # in several hands at once, and it would take a player's own cards for another table's.
    world.observer.detach()
    return world


async def open_tables(world: World, count: int) -> list[Table]:
    tables = []
    for number in range(count):
        channel = world.fake.create_channel(world.guild, f"table-{number}")
        people = (world.fake.create_user(f"host{number}"), world.fake.create_user(f"guest{number}"))
        for person in people:
            world.fake.add_member(world.guild, person)
        view = copy.copy(world)
        view.channel = channel
        tables.append(Table(view, people))
    await asyncio.gather(*(seat_and_start(table) for table in tables))
    return tables


async def seat_and_start(table: Table) -> None:
    host, guest = table.people
    board = await table.view.run(host, "new", target=1000)
    await (await table.view.fake.click(guest, board, label="Join")).callback()
    await (await table.view.fake.click(host, board, label="Add CPU")).callback()
    await (await table.view.fake.click(host, board, label="Start")).reply()


async def person_to_act(table: Table) -> FakeUser | None:
    snapshot = await table.view.snapshot()
    if snapshot.phase != "playing" or snapshot.to_act is None:
        return None
    seat = snapshot.seats[snapshot.to_act]
    return next((p for p in table.people if p.id == seat.user_id and not seat.is_cpu), None)


async def play(table: Table, moves: int) -> None:
    """The table's people make ``moves`` moves by their hand messages' buttons, as fast as they can."""
    made = 0
    while made < moves:
        person = await person_to_act(table)
        if person is None:
            snapshot = await table.view.snapshot()
            if snapshot.phase != "playing":
                return
            await asyncio.sleep(0.005)  # the CPU seat is moving
            continue
        if not any("Your hand" in m.content for m in table.view.fake.ephemeral_messages(person)):
            # Their first hand message: "My hand" on the board, once the board shows the game (its edit
            # waits for the budget like every other).
            await table.view.until(
                lambda: has_hand_button(table.view.board()), "the board to show the game", timeout=30.0
            )
        # As a person does: act once the hand message says it is their turn (refreshed in place).
        await table.view.until(
            lambda person=person: hand_says_your_turn(table, person), "the hand to say 'your turn'"
        )
        await table.view.play_by_buttons(person)
        made += 1


async def hand_says_your_turn(table: Table, person: FakeUser) -> bool:
    hands = [m for m in table.view.fake.ephemeral_messages(person) if "Your hand" in m.content]
    if not hands:
        return True  # none yet: play_by_buttons asks for it
    return "**Your turn.**" in hands[-1].content or "Name the suit" in hands[-1].content


async def has_hand_button(board: FakeMessage) -> bool:
    return any(button.get("label") == "My hand" for button in board.buttons)


def public_lines(world: World, channel: FakeChannel) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(channel) if not m.embeds]


def board_fields(embed: dict[str, Any]) -> tuple[Any, ...]:
    return (embed.get("title"), embed.get("description"), embed.get("fields"))


async def assert_nothing_lost(world: World, recorder: Recorder, tables: list[Table]) -> None:
    for table in tables:
        name = table.channel.name
        outcomes = recorder.outcomes.get(table.channel.id, [])
        lines = recorder.lines.get(table.channel.id, [])
        assert outcomes, f"{name}: nothing was played"
        latest: TableSnapshot = await table.view.snapshot()
        # The board ends showing the latest state.
        expected = render.board_embed(latest).to_dict()
        assert board_fields(table.view.board().embeds[0]) == board_fields(expected), name  # type: ignore[arg-type]
        # Every play is told in a line posted after it.
        told = [(t, row) for t, content in lines for row in content.splitlines()]
        for at, outcome in outcomes:
            for event in outcome.public_events:
                if event.kind == "played":
                    text = render.describe_event(event, outcome.snapshot)
                    found = next((item for item in told if item[1] == text and item[0] >= at), None)
                    assert found is not None, f"{name}: {text!r} never told"
                    told.remove(found)
        # Every person whose turn came was mentioned in a line after it came, or, when no line went out while
        # their turn lasted (they moved at once; these people never wait), their move was told by a later
        # line: the mention was folded into it.
        starts = []
        previous = None
        for index, (at, outcome) in enumerate(outcomes):
            snapshot = outcome.snapshot
            seat = snapshot.seats[snapshot.to_act] if snapshot.to_act is not None else None
            person = (
                seat.user_id if seat is not None and not seat.is_cpu and snapshot.phase == "playing" else None
            )
            if person is not None and person != previous:
                starts.append((index, at, person))
            previous = person
        for n, (index, at, person) in enumerate(starts):
            turn_end = next((t for t, o in outcomes[index + 1 :] if _to_act(o) != person), float("inf"))
            next_start = next((t for _, t, p in starts[n + 1 :] if p == person), float("inf"))
            mentioned = any(at <= t < next_start and f"<@{person}>" in content for t, content in lines)
            folded = not any(at + IN_FLIGHT <= t < turn_end for t, _ in lines) and any(
                t >= turn_end for t, _ in lines
            )
            assert mentioned or folded, (
                f"{name}: the turn of {person} at {at:.2f} (until {turn_end:.2f}) was never announced",
                [(round(t, 2), c) for t, c in lines if at - 1 < t < at + 5],
                [
                    (round(t, 2), _to_act(o), [e.kind for e in o.public_events])
                    for t, o in outcomes
                    if at - 1 < t < at + 5
                ],
            )


def _to_act(outcome: Outcome) -> int | None:
    snapshot = outcome.snapshot
    if snapshot.phase != "playing" or snapshot.to_act is None:
        return None
    seat = snapshot.seats[snapshot.to_act]
    return None if seat.is_cpu else seat.user_id


async def test_many_busy_tables_stay_within_the_global_limit(world: World) -> None:
    await limited_world(world)
    # Recorded from the lobby on: the first turn's line may go out before anyone moves.
    recorder = Recorder(world)
    tables = await open_tables(world, 6)
    counters = world.fake.limits.counters  # type: ignore[union-attr]
    before = counters.global_offered
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.gather(*(play(table, 20) for table in tables))
    await world.settle(timeout=30.0)
    elapsed = loop.time() - started
    offered = counters.global_offered - before
    assert counters.global_429 == 0 and counters.route_429 == 0
    assert max(offered for offered, _ in counters.per_second.values()) <= RATE  # in every second of Discord's
    # Every outcome wanted its board edited: far more than the budget allowed, which was used, not exceeded.
    outcomes = sum(1 for recorded in recorder.outcomes.values() for at, _ in recorded if at >= started)
    assert outcomes > 2 * offered
    assert offered <= RATE * (elapsed + 1.2)
    assert counters.exempt > offered  # hands and lines went through the players' interactions
    await assert_nothing_lost(world, recorder, tables)
    assert world.bot is not None and world.bot.budget.invalid.count() == 0


async def test_a_storm_of_5xx_and_429_answers_and_gateway_drops_loses_nothing(world: World) -> None:
    # Every channel takes one message per 5 s from everyone (shared 429s on the lines that go to the channel),
    # one REST call in six is answered 5xx, and the gateway drops (the client resumes, the fake replays).
    await limited_world(world, shared_channel_writes=1)
    recorder = Recorder(world)
    tables = await open_tables(world, 3)
    # 5xx answers reach interaction callbacks too: discord.py retries them after 1 s, 3 s... so a click may be
    # answered after Discord's 3 s. The fake accepts it (Discord would drop it; the player would click
    # again): what is checked here is that the moves made are all shown.
    world.fake.callback_deadline = world.fake.wait_timeout = 60.0
    world.fake.server_errors.rate = 1 / 6

    async def drops() -> None:
        for kind in ("abrupt", "reconnect"):
            await asyncio.sleep(0.5)
            await world.fake.drop_gateway(kind=kind)

    await asyncio.gather(drops(), *(play(table, 6) for table in tables))
    await world.settle(timeout=90.0)
    assert len(world.fake.resumes) >= 2
    world.fake.server_errors.rate = 0.0
    counters = world.fake.limits.counters  # type: ignore[union-attr]
    assert world.fake.server_errors.count > 0
    assert counters.global_429 == 0
    await assert_nothing_lost(world, recorder, tables)
