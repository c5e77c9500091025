"""crazier-abilities at a table of the fake Discord: a stacked deal through the real lobby, a position set up
card by card at the running table, and the hand's controls."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine.crazier import DECK
from bot.engine.crazier.game import CrazierRound
from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser

PRESET = "crazier-abilities"


def stacked_deck(hands: list[str], starter: str, draw: str = "") -> list[str]:
    """A deck (top first) that deals ``hands`` (seven cards each, space-separated), then ``starter``, then
    ``draw`` (from its top), then every other card in the deck's order."""
    lists = [h.split() for h in hands]
    assert all(len(h) == 7 for h in lists), [len(h) for h in lists]
    top = draw.split()
    used = [c for h in lists for c in h] + [starter] + top
    assert len(used) == len(set(used)), "a card is used twice"
    assert set(used) <= set(DECK), set(used) - set(DECK)
    n = len(lists)
    order = [lists[s][i] for i in range(7) for s in range(n)] + [starter] + top
    return order + [c for c in DECK if c not in used]


def stack_deals(monkeypatch: pytest.MonkeyPatch, *deals: tuple[list[str], int]) -> None:
    """The next games dealt are these (deck top first, first player), one each, then the usual deals."""
    original = CrazierRound.new.__func__  # type: ignore[attr-defined]
    queue = list(deals)

    def new(cls: Any, rules: Any, n: int, *, seed: int, first: int | None = None, deck: Any = None) -> Any:
        if queue and deck is None:
            stacked, lead = queue.pop(0)
            return original(cls, rules, n, seed=seed, first=lead, deck=stacked)
        return original(cls, rules, n, seed=seed, first=first, deck=deck)

    monkeypatch.setattr(CrazierRound, "new", classmethod(new))


async def open_table(
    world: World, people: list[FakeUser], cpus: tuple[str, ...] = (), *, teams: bool = False
) -> None:
    """``people[0]`` opens a crazier-abilities table, the others join, CPUs sit down, and it starts."""
    host = people[0]
    board = await world.run(host, "new", preset=PRESET, **({"teams": True} if teams else {}))
    for user in people[1:]:
        await (await world.fake.click(user, board, label="Join")).callback()
    for level in cpus:
        await world.run(host, "cpu", level=level)
    await world.settle()
    await world.run(host, "start")
    await world.settle()


def select_of(message: FakeMessage, action: str) -> dict[str, Any] | None:
    return next((s for s in message.selects if f":{action}:" in str(s["custom_id"])), None)


def options_of(message: FakeMessage, action: str) -> list[dict[str, Any]]:
    select = select_of(message, action)
    return [] if select is None else list(select["options"])


async def pick(
    world: World, user: FakeUser, action: str, value: str, message: FakeMessage | None = None
) -> FakeMessage:
    """Choose ``value`` in the hand's select ``action`` (pick, disc, eff); the reply."""
    message = message or await fresh_hand(world, user)
    select = select_of(message, action)
    assert select is not None, (action, message.content, [s["custom_id"] for s in message.selects])
    values = [o["value"] for o in select["options"]]
    assert value in values, (value, values)
    reply = await (await world.fake.select(user, message, str(select["custom_id"]), [value])).reply()
    await world.settle()
    return reply


async def end_turn(world: World, user: FakeUser) -> FakeMessage | None:
    """Click End turn when the hand offers it (the bot ends a turn with nothing left to do by itself)."""
    message = await fresh_hand(world, user)
    if not any(b.get("label") == "End turn" for b in message.buttons):
        return None
    reply = await (await world.fake.click(user, message, label="End turn")).reply()
    await world.settle()
    return reply


async def live_round(world: World) -> CrazierRound:
    table_id = await world.table_id()
    live = world.service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    return live.crazier.round


def public(world: World) -> str:
    return "\n".join(world.public_texts())


async def inject(
    world: World,
    hands: list[str],
    discard: str,
    *,
    draw: str = "",
    in_play: list[str] | None = None,
    first: int = 0,
    rest: str | int = "draw",
) -> CrazierRound:
    """Replace the running game by a position set up card by card (tests/engine/crazier/support.py), at the
    beginning of ``first``'s turn, run to its first decision; the table's timers are set again."""
    from tests.engine.crazier.support import position

    table_id = await world.table_id()
    live = world.service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd, _events = position(
        hands,
        discard,
        draw=draw,
        in_play=in_play,
        first=first,
        rest=rest,
        teams=live.crazier.rules.teams,
        rules=live.crazier.rules,
    )
    live.crazier.round = rnd
    live.snapshot_of = None
    world.service._scheduler.schedule(live)
    await world.settle()
    return rnd


async def fresh_hand(world: World, user: FakeUser) -> FakeMessage:
    """The user's hand as /eights hand shows it now."""
    reply = await world.run(user, "hand")
    assert reply.ephemeral
    return reply
