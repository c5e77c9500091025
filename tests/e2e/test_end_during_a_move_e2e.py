"""/eights end lands while a player's move is being answered.

``TableCog.play_move`` commits the move, publishes it, then shows the player their hand
(``HandMessages.show``), which waits for the player's hand lock (held while the publisher refreshes that hand)
and reads the hand again. When the host's /eights end is committed in between, the hand is gone and
``HandMessages._show`` words the news from the *move's* outcome, which says "playing": the player is told the
match is over and to look for a final ranking that was never posted.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_hand_messages_e2e import two_people


async def test_a_move_answered_after_the_host_ended_the_table_says_the_table_is_closed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await two_people(world)
    # alice plays her first card: it is bob's turn.
    await world.play_by_buttons(world.alice)
    assert await world.human_to_act() is world.bob
    bob_hand = await world.hand_message(world.bob)
    card = next(b for b in bob_hand.buttons if ":play:" in b["custom_id"])

    # bob's play is committed; while his answer waits for his hand, alice (the host) ends the table.
    hands = world.publisher.hands
    show = hands.show
    ended: list[str] = []

    async def show_after_the_end(*args: Any, **kwargs: Any) -> None:
        if not ended:
            ended.append((await world.run(world.alice, "end")).content)
            # The publisher shows the end in bob's hand message first (it holds his hand lock meanwhile).
            await world.fake.wait_for(lambda: bob_hand.content == "The table is closed.", what="the end")
        await show(*args, **kwargs)

    monkeypatch.setattr(hands, "show", show_after_the_end)
    answer = await (await world.fake.click(world.bob, bob_hand, card["custom_id"])).reply()
    await world.settle()
    assert ended == ["The table is closed."]
    assert any("bob played" in t for t in world.public_texts())  # his move stands, and was told
    assert any("The table was ended" in t for t in world.public_texts())  # the table was abandoned

    # No match ended and no ranking was posted: the player must be told the table is closed (as the
    # publisher tells every other hand message of an ended table: "The table is closed.").
    assert not any("ranking" in t.lower() for t in world.public_texts())
    shown = [version.content for version in answer.versions] + [answer.content]
    assert not any("final ranking" in text for text in shown), shown
    assert "The table is closed." in answer.content, answer.content
