"""Which route removes a replaced board: ``/eights status`` posts the board again as its answer, and the old
board message goes through the interaction that posted it while that token lives (off the global limit),
else through the channel."""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import World

WEBHOOK_DELETE = "DELETE /api/v10/webhooks/{app}/{token}/messages/{message}"
CHANNEL_DELETE = "DELETE /api/v10/channels/{channel}/messages/{message}"


async def test_status_deletes_the_old_board_through_the_interaction_that_posted_it(world: World) -> None:
    first = await world.run(world.alice, "new")
    before = world.fake.requests_by_route.copy()
    again = await world.run(world.bob, "status")
    await world.fake.wait_for(lambda: first.deleted, what="the old board deleted")
    await world.settle()
    requests = world.fake.requests_by_route - before
    assert requests[WEBHOOK_DELETE] == 1 and requests[CHANNEL_DELETE] == 0
    assert world.board().id == again.id and not again.deleted
    # And again: the board /eights status posted goes through the token of that /eights status.
    before = world.fake.requests_by_route.copy()
    third = await world.run(world.alice, "status")
    await world.fake.wait_for(lambda: again.deleted, what="the second board deleted")
    requests = world.fake.requests_by_route - before
    assert requests[WEBHOOK_DELETE] == 1 and requests[CHANNEL_DELETE] == 0
    assert world.board().id == third.id
    assert world.fake.take_violations() == []


async def test_a_board_whose_token_ran_out_is_deleted_through_the_channel(world: World) -> None:
    first = await world.run(world.alice, "new")
    await asyncio.sleep(1.2)
    world.fake.token_lifetime = 1.0  # Discord's 15 minutes, scaled down: /eights new's token is spent
    before = world.fake.requests_by_route.copy()
    again = await world.run(world.bob, "status")
    await world.fake.wait_for(lambda: first.deleted, what="the old board deleted")
    requests = world.fake.requests_by_route - before
    # The token was tried (the bot counts 15 minutes; Discord may end it sooner), then the channel.
    assert requests[CHANNEL_DELETE] == 1
    assert world.board().id == again.id
    world.fake.take_violations()  # the refused token: what is checked is that the old board went
