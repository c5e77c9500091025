"""crazier-abilities' public lines when a person's beginning-of-turn ability waits for their choice, and when
their time runs out in the middle of such choices, as the channel reads them and as a replay tells each move
(RULESETS.md, "A turn" 1 and 4; bot/ui/crazier_text.py: an effect or ability "and what it did on one line",
e.g. "Angel of Hope: Ben draws a card", "Devious Dragon: …'s Castle is destroyed")."""

from __future__ import annotations

from bot.service.models import TableEvent
from bot.ui import render
from tests.e2e.conftest import World
from tests.e2e.crazier_play import end_turn, fresh_hand, inject, open_table, pick
from tests.e2e.race_steps import fire_turn_timeout
from tests.e2e.test_replays_e2e import store_of


def rows(world: World, since: int = 0) -> list[str]:
    return [row for text in world.public_texts()[since:] for row in text.splitlines()]


async def replay_rows(world: World, since: int) -> list[list[str]]:
    """Each stored move's public lines from move ``since`` on (the table's move log), told as a replay tells a
    step (``bot.service.replays``: a move's events with no recipient)."""
    table_id = await world.table_id()
    moves = await store_of(world).moves(table_id)
    snapshot = await world.service.snapshot(table_id)
    told = []
    for move in moves[since:]:
        public = [
            TableEvent(str(e["kind"]), e.get("seat"), dict(e.get("data") or {}))
            for e in move.events
            if e.get("to") is None and "to_seat" not in e
        ]
        told.append(render.event_lines(public, snapshot))
    return told


async def _alices_turn_begins(world: World, in_play: str) -> int:
    """alice (seat 0) controls ``in_play``, bob a Castle, carol a Mordred; carol ends her turn and alice's
    begins. Returns how many public messages there were before."""
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob, world.carol])
    await fresh_hand(world, world.alice)
    await inject(
        world, ["AB 2B", "AO 2O", "AP 2P"], "KG AG", in_play=[in_play, "6O", "QP"], first=2, draw="9G 10G 3G"
    )
    before = len(world.public_texts())
    await end_turn(world, world.carol)
    return before


async def test_a_persons_devious_dragon_is_told_with_what_it_destroyed_on_one_line(world: World) -> None:
    """alice's Devious Dragon asks her which card in play to destroy; she picks bob's Castle. The channel
    reads one line "Devious Dragon: bob's Castle is destroyed" (as it does when a CPU's Dragon destroys one),
    not a bare "Devious Dragon" line followed later by "bob's Castle is destroyed" with no word of why; a
    replay tells the two moves the same way (carol's end of turn: no bare "Devious Dragon"; alice's choice:
    the one line)."""
    before = await _alices_turn_begins(world, "JB")
    moves_before = len(await store_of(world).moves(await world.table_id()))
    await pick(world, world.alice, "pick", "6O")
    told = rows(world, before)
    assert "Devious Dragon" not in told, told
    assert any(row.startswith("Devious Dragon") and "bob's Castle is destroyed" in row for row in told), told
    (choice,) = await replay_rows(world, moves_before)
    assert "Devious Dragon: bob's Castle is destroyed" in choice, choice
    replayed = [row for move in await replay_rows(world, 0) for row in move]
    assert "Devious Dragon" not in replayed and "bob's Castle is destroyed" not in replayed, replayed


async def test_a_persons_angel_of_hope_is_told_with_who_draws_on_one_line(world: World) -> None:
    """alice's Angel of Hope asks her for a player; she names carol: "Angel of Hope: carol draws a card" on
    one line, not "Angel of Hope" alone and then "carol draws a card"."""
    before = await _alices_turn_begins(world, "5B")
    await pick(world, world.alice, "pick", "2")
    told = rows(world, before)
    assert "Angel of Hope" not in told, told
    assert any(row.startswith("Angel of Hope") and "carol draws a card" in row for row in told), told


async def test_a_timeout_mid_choice_is_told_before_the_next_players_turn(world: World) -> None:
    """alice orders her Devious Dragon first and lets her time run out at its choice: the referee makes her
    choices and ends her turn, and bob's turn begins (he draws). "alice ran out of time" belongs to alice's
    turn: it is told right after the referee's moves of her turn (the Dragon's line among them, with its
    name) and before bob's draw and bob's call, not after "bob drew 1 card" as if it happened in bob's
    turn; the move log a replay reads has that order too."""
    await _alices_turn_begins(world, "4B 5B JB")
    await pick(world, world.alice, "pick", "JB")  # the order: the Dragon first; it now asks for a card
    before = len(world.public_texts())
    moves_before = len(await store_of(world).moves(await world.table_id()))
    await fire_turn_timeout(world)
    await world.settle()
    told = rows(world, before)
    ran_out = next(i for i, row in enumerate(told) if row == "alice ran out of time")
    bob_drew = next(i for i, row in enumerate(told) if row.startswith("bob drew"))
    assert ran_out < bob_drew, told
    assert told[0].startswith("Devious Dragon: ") and "is destroyed" in told[0], told
    assert told[ran_out - 1] == "alice drew 1 card", told  # her turn's own draw, its last move told
    (timeout,) = await replay_rows(world, moves_before)
    assert timeout.index("alice ran out of time") < next(
        i for i, row in enumerate(timeout) if row.startswith("bob drew")
    ), timeout
