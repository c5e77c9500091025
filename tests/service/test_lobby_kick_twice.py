"""A moderator's second `/eights kick` of a member already removed from the running match is refused and
changes nothing.

README, Commands: `/eights kick member` — "remove a player; a CPU takes over their seat …"; bad input gets a
clear short answer and changes nothing. After the first kick the member no longer plays that seat (a CPU
does), though the seat keeps their id for the match's results. Kicking them again (a double tap, or a second
moderator who did not see the first) is refused privately with "That member is not seated at this table."
Before, ``TableService.kick`` found the seat by that kept id, added the member to ``kicked`` again and
committed a second public "kicked" event: the channel was told twice, and the move log held a second removal.
"""

from __future__ import annotations

from bot.service import TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, CAROL, MANAGER, open_with, refused


async def test_kicking_an_already_kicked_player_is_refused_and_changes_nothing(
    service: TableService, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL)
    first = await service.kick(table_id, MANAGER, BOB.user_id)
    assert [e.kind for e in first.public_events].count("kicked") == 1
    before = await service.snapshot(table_id)
    moves = await store.moves(table_id)
    live = service._registry.get(table_id)
    assert live is not None and live.doc["kicked"] == [BOB.user_id]

    error = await refused(service.kick(table_id, MANAGER, BOB.user_id), "not_seated")
    assert error.message == "That member is not seated at this table."
    # The host's own second kick is refused alike.
    await refused(service.kick(table_id, ALICE, BOB.user_id), "not_seated")

    assert (await service.snapshot(table_id)).seats == before.seats
    live = service._registry.get(table_id)
    assert live is not None and live.doc["kicked"] == [BOB.user_id]
    assert await store.moves(table_id) == moves


async def test_a_member_kicked_from_the_lobby_cannot_be_kicked_again(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL, start=False)
    await service.kick(table_id, ALICE, CAROL.user_id)
    await refused(service.kick(table_id, ALICE, CAROL.user_id), "not_seated")
    live = service._registry.get(table_id)
    assert live is not None and live.doc["kicked"] == [CAROL.user_id]
