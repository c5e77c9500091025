"""A double tap on the lobby board's "Add CPU" button.

Board buttons carry no token (``bot/ui/controls.py``, ``board_view``: ``Control(table, "", CPU)``), so both
presses of a double tap reach ``LobbyUseCases.add_cpu`` as two requests and both seat a CPU player. The
host wanted one; the second one cannot be removed (``/eights kick`` takes a server member, and CPU seats have
none): the only way back is to end the table and open a new one.
"""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import World


async def test_a_double_tap_on_add_cpu_seats_one_cpu_player(world: World) -> None:
    board = await world.run(world.alice, "new")
    first = await world.fake.click(world.alice, board, label="Add CPU")
    second = await world.fake.click(world.alice, board, label="Add CPU")
    await asyncio.gather(first.callback(), second.callback())
    await world.settle()

    # The product's promise: "Bad input from anyone — ... two clicks at once ... — gets a clear, short answer
    # and changes nothing" (README says the same of a hand's buttons: "pressed twice at once (a double tap)
    # ... answers 'That move is no longer possible.' privately and changes nothing"). One press applies.
    seats = [seat.name for seat in (await world.snapshot()).seats]
    assert seats == ["alice", "CPU 1"], f"one double tap seated {len(seats) - 1} CPU players: {seats}"
