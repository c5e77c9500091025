"""Shared pieces of the table-service tests: the real store of each backend (SQLite on a temp file, and
PostgreSQL: every service test runs on both), a fake clock, a
listener that records what it is pushed, and helpers that play a seat's turn the way a person clicking the
hand would."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.service import (
    Actor,
    FakeClock,
    Intent,
    Outcome,
    ServiceError,
    TableService,
    TableSnapshot,
)
from bot.store import Store

GUILD = 500
CHANNEL = 600
OTHER_CHANNEL = 601
CPU_DELAY = 2.0

ALICE = Actor(1, "Alice")
BOB = Actor(2, "Bob")
CAROL = Actor(3, "Carol")
STRANGER = Actor(8, "Stranger")
MANAGER = Actor(9, "Mod", can_manage=True)
PEOPLE = {a.user_id: a for a in (ALICE, BOB, CAROL)}


class Recorder:
    """The Discord layer's stand-in: keeps every outcome pushed to it."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    async def on_outcome(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    def kinds(self) -> list[str]:
        return [e.kind for o in self.outcomes for e in o.public_events]

    def events(self, kind: str) -> list[Any]:
        return [e for o in self.outcomes for e in o.public_events if e.kind == kind]


@pytest.fixture
def store(any_store: Store) -> Store:
    return any_store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def service(store: Store, clock: FakeClock, recorder: Recorder) -> TableService:
    return make_service(store, clock, recorder)


def make_service(store: Any, clock: FakeClock, recorder: Recorder, seed: int = 7) -> TableService:
    return TableService(
        store, clock=clock, cpu_delay=CPU_DELAY, listener=recorder, batch_window=0.0, rng=random.Random(seed)
    )


async def open_with(
    service: TableService, *people: Actor, cpus: tuple[str, ...] = (), start: bool = True, **options: Any
) -> int:
    """Open a table in CHANNEL hosted by the first person, seat the others and the CPUs, and start it."""
    host, *others = people
    outcome = await service.open_table(GUILD, CHANNEL, host, **options)
    table_id = outcome.table_id
    for person in others:
        await service.join(table_id, person)
    for level in cpus:
        await service.add_cpu(table_id, host, level)
    if start:
        await service.start(table_id, host)
    return table_id


def actor_to_move(snapshot: TableSnapshot) -> Actor | None:
    if snapshot.to_act is None:
        return None
    seat = snapshot.seats[snapshot.to_act]
    if seat.is_cpu or seat.user_id is None:
        return None
    return PEOPLE[seat.user_id]


async def take_turn(service: TableService, table_id: int, actor: Actor) -> Outcome:
    """One click of the person to move: a suit if one is owed, else the first playable card, else draw or
    pass."""
    view = await service.hand(table_id, actor.user_id)
    assert view.your_turn
    if view.must_name_suit:
        return await service.act(table_id, actor, Intent.name_suit("S"), view.round_token)
    playable = [card for card in view.cards if card.playable]
    if playable:
        card = playable[0]
        return await service.act(
            table_id, actor, Intent.play(card.code, "S" if card.wild else None), view.round_token
        )
    if view.can_draw:
        return await service.act(table_id, actor, Intent.draw(), view.round_token)
    assert view.can_pass
    return await service.act(table_id, actor, Intent.pass_(), view.round_token)


async def finish_turn(service: TableService, table_id: int, actor: Actor) -> TableSnapshot:
    """The person to move clicks (drawing as long as the rules make them) until their turn has passed;
    returns the table then. A turn always ends: by a play, or by a pass once nothing can be drawn."""
    for _ in range(200):
        await take_turn(service, table_id, actor)
        snap = await service.snapshot(table_id)
        if snap.phase != "playing" or actor_to_move(snap) is not actor:
            return snap
    raise AssertionError(f"{actor.display_name}'s turn never ended")


async def next_timer(clock: FakeClock) -> bool:
    """Run the earliest pending timer (moving time to it); False when none is left."""
    due = clock.pending()
    if not due:
        return False
    await clock.advance(max(0.0, due[0] - clock.now()))
    return True


async def drive(
    service: TableService,
    clock: FakeClock,
    table_id: int,
    *,
    until: Any,
    max_steps: int = 5000,
    sink: list[Outcome] | None = None,
) -> TableSnapshot | None:
    """Play the people's turns by click and let timers run the rest until ``until(snapshot)`` holds.
    Returns None if the table closed. The outcomes of the clicks go to ``sink``."""
    for _ in range(max_steps):
        try:
            snap = await service.snapshot(table_id)
        except ServiceError:
            return None
        if until(snap):
            return snap
        person = actor_to_move(snap) if snap.phase == "playing" else None
        if person is not None:
            outcome = await take_turn(service, table_id, person)
            if sink is not None:
                sink.append(outcome)
        elif not await next_timer(clock):
            raise AssertionError("nothing left to happen")
    raise AssertionError("the table never reached the expected state")


async def refused(coro: object, code: str | int) -> ServiceError:
    """Await a use case that must be refused with ``code``; returns the error."""
    with pytest.raises(ServiceError) as info:
        await coro  # type: ignore[misc]
    assert info.value.code == code, info.value
    return info.value
