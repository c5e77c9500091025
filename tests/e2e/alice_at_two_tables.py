"""Steps for the tests of one person seated at two tables (tests/e2e/test_two_tables_guards_e2e.py, …)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.e2e.several_tables import open_and_start
from tests.fakediscord import FakeChannel, FakeMessage, FakeUser

# Alice's cards differ from table to table (clubs at A, hearts at B), so any card shown tells its table.
A_ALICE = ["2C", "3C", "4C", "5C", "6C", "7C", "9C"]
A_OTHER = ["2D", "3D", "4D", "5D", "6D", "7D", "9D"]
B_ALICE = ["2H", "3H", "4H", "5H", "6H", "7H", "9H"]
B_OTHER = ["2S", "3S", "4S", "5S", "6S", "7S", "9S"]
CLUBS = {"♣"}
HEARTS = {"♥"}


async def stacked_table(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    channel: FakeChannel,
    host: FakeUser,
    other: FakeUser,
    hands: list[list[str]],
    starter: str,
    *,
    leader: int = 0,
    **options: Any,
) -> int:
    """A two-seat classic table in ``channel`` (``host`` in seat 0, ``other`` in seat 1), dealt ``hands``
    with ``starter``, seat ``leader`` to move first."""
    stack_classic_deal(monkeypatch, hands, starter, leader=leader)
    return await open_and_start(world, channel, host, other, target=1000, **options)


async def alice_at_two(
    world: World, monkeypatch: pytest.MonkeyPatch, *, b_leader: int = 0, alice_hosts_b: bool = True
) -> tuple[int, int]:
    """Table A in world.channel (alice hosts, bob; alice holds clubs, K♣ turned, alice to move) and table B in
    world.other_channel (alice and carol; alice holds hearts, K♥ turned; ``b_leader`` to move)."""
    a = await stacked_table(
        world, monkeypatch, world.channel, world.alice, world.bob, [A_ALICE, A_OTHER], "KC"
    )
    if alice_hosts_b:
        b = await stacked_table(
            world,
            monkeypatch,
            world.other_channel,
            world.alice,
            world.carol,
            [B_ALICE, B_OTHER],
            "KH",
            leader=b_leader,
        )
    else:
        b = await stacked_table(
            world,
            monkeypatch,
            world.other_channel,
            world.carol,
            world.alice,
            [B_OTHER, B_ALICE],
            "KH",
            leader=b_leader,
        )
    assert a != b
    return a, b


def hand_messages(world: World, user: FakeUser, channel: FakeChannel) -> list[FakeMessage]:
    """The user's private messages in ``channel`` that showed a hand (in any of their versions)."""
    return [
        m
        for m in world.fake.ephemeral_messages(user)
        if m.channel_id == channel.id and any("Your hand" in v.content for v in m.versions)
    ]


def suits_shown(text: str) -> set[str]:
    return {c for c in text if c in "♣♦♥♠"}
