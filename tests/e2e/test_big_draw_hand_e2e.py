"""A player who takes a big stacked draw: their hand message must still show their hand.

Forced: a stacked deal at a three-player classic table with two decks, 2s that make the next player draw 20
(``draw_ranks 2:20``), stacking, and drawing allowed with a legal play; three 2s are stacked (60 owed) and
the first player takes the 60 cards with Draw.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
BROKEN_EMOJI = re.compile(r"<a?:\w*:?\d*…")


async def _click_card(world: World, user: FakeUser, code: str) -> FakeMessage:
    message = await world.hand_message(user)
    button = next(b for b in message.buttons if str(b["custom_id"]).endswith(f":play:{code}"))
    reply = await (await world.fake.click(user, message, str(button["custom_id"]))).reply()
    await world.settle()
    return reply


async def test_a_hand_after_a_sixty_card_draw_still_shows_the_hand(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README (Cards, emojis): "The emoji stands beside the text label — ... in the hand", and render.py's
    promise: "A hand too long to show with emojis is shown as text"; Discord caps content at 2,000
    characters. After drawing 60 cards the player's hand message must still list their hand and say it is
    not their turn, and must not hold an emoji's markup cut in half.

    Before, the "You drew …" note kept its 60 card emojis (about 35 characters each) while only the hand was
    turned to text, and the whole was clipped at 2,000 characters: the note was cut inside an emoji's markup
    and the hand itself (and "Not your turn.") was gone. Now the note is text too (and, longer still, counts
    the cards: tests/ui)."""
    alice, bob, carol = world.alice, world.bob, world.carol
    board = await world.run(alice, "new", preset="classic")
    for option, value in (
        ("decks", "two-above-2"),
        ("draw_ranks", "2:20"),
        ("stacking", "on"),
        ("draw_with_legal_play", "on"),
    ):
        reply = await world.run(alice, "house", option=option, value=value)
        assert "House rule changed" in reply.content, reply.content
    for user in (bob, carol):
        await (await world.fake.click(user, board, label="Join")).callback()
    await world.settle()
    hands = [
        ["2H", "2C", "3S", "4S", "5S"],
        ["2S", "6C", "7C", "9C", "10C"],
        ["2D", "6D", "7D", "9D", "10D"],
    ]
    # The 60 cards drawn: none of the labels Ben and Cleo keep (two decks: the privacy observer tells
    # cards by their labels).
    # Then a J♦ (both copies kept out of the 60), which Ben draws next and plays on the 2♦.
    kept = set(hands[1][1:] + hands[2][1:]) | {"JD"}
    pool = [r + s for _copy in range(2) for s in "CDHS" for r in RANKS]
    for code in [c for h in hands for c in h] + ["9H"]:
        pool.remove(code)
    drawn = [c for c in pool if c not in kept][:60]
    assert len(drawn) == 60
    stack_classic_deal(monkeypatch, hands, "9H", leader=0, stock_top=[*drawn, "JD"])
    assert world.bot is not None and await world.bot.card_emojis.wait()
    await world.run(alice, "start")
    await world.settle()
    await _click_card(world, alice, "2H")
    await _click_card(world, bob, "2S")
    await _click_card(world, carol, "2D")
    snap = await world.snapshot()
    assert snap.pending_draw == 60 and snap.to_act == 0
    hand = await world.hand_message(alice)
    reply = await (await world.fake.click(alice, hand, label="Draw")).reply()
    await world.settle()
    assert (await world.snapshot()).seats[0].card_count == 64
    content = reply.content
    assert len(content) <= 2000
    assert "You drew" in content
    assert not BROKEN_EMOJI.search(content), content[-200:]
    assert "**Your hand** (64 cards)" in content, content[-300:]
    assert "Not your turn." in content, content[-300:]
