"""Party, Switch and uno-lite played through the hand message (buttons) and typed commands: an uncalled last
card stays open to a catch when the turn comes straight back to its player, a player facing a jack is told to
answer it or miss the turn, and an owed draw nobody can answer is told as a draw that ends the turn.

Situations are forced by stacking the deal (tests/e2e/classic_deals.py)."""

from __future__ import annotations

import pytest

from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser


def labels(message: FakeMessage) -> list[str]:
    return [str(b["label"]) for b in message.buttons]


async def click_card(world: World, user: FakeUser, code: str) -> FakeMessage:
    message = await world.hand_message(user)
    button = next(b for b in message.buttons if str(b["custom_id"]).endswith(f":play:{code}"))
    reply = await (await world.fake.click(user, message, str(button["custom_id"]))).reply()
    await world.settle()
    return reply


async def two_players(
    world: World, monkeypatch: pytest.MonkeyPatch, preset: str, hands: list[list[str]], starter: str
) -> FakeMessage:
    """alice and bob at ``preset``, dealt ``hands`` (house rule hand_size_two), ``starter`` turned; alice
    leads."""
    stack_classic_deal(monkeypatch, hands, starter, leader=0)
    board = await world.run(world.alice, "new", preset=preset, target=1000)
    await world.run(world.alice, "house", option="hand_size_two", value=str(len(hands[0])))
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    return board


@pytest.mark.parametrize(
    ("preset", "hands", "starter", "card"),
    [
        # party: alice's 4 (a skip) leaves her 9♣; bob is skipped, the turn comes back to alice, who cannot
        # play 9♣ on 4♠ and must draw.
        ("party", [["4S", "9C"], ["3D", "6D"]], "4H", "4S"),
        # switch: alice's J♥ leaves her 3♦; bob holds no J and misses the turn, alice cannot play 3♦ on J♥
        # and must draw.
        ("switch", [["JH", "3D"], ["5C", "6C"]], "9H", "JH"),
    ],
)
async def test_an_uncalled_last_card_can_be_caught_when_the_turn_comes_back_to_its_player(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    preset: str,
    hands: list[list[str]],
    starter: str,
    card: str,
) -> None:
    """RULESETS.md, last card: "a player whose turn ends with one card in hand must call it before the next
    player acts, else any opponent (not a partner) may catch them and they draw N".

    alice ends her turn with one card and does not call. The turn comes straight back to her (party: bob is
    skipped by her 4; switch: bob has no J to answer her jack and misses the turn), and she cannot play. The
    referee's auto-draw leaves that draw to her, as it does for any other seat while a last card may be
    caught: bob gets a Catch, and `/eights catch player:alice` catches her."""
    alice, bob = world.alice, world.bob
    await two_players(world, monkeypatch, preset, hands, starter)
    await click_card(world, alice, card)
    assert "alice: Last card!" not in "\n".join(world.public_texts())  # she did not call
    bob_hand = await world.service.hand(await world.table_id(), bob.id)
    assert bob_hand.catch_targets == (0,), world.public_texts()[-1]
    reply = await world.run(bob, "catch", player="alice")
    await world.settle()
    assert "(921)" not in reply.content, reply.content
    assert any("bob caught alice" in text for text in world.public_texts()), world.public_texts()[-2:]


async def test_a_player_facing_a_jack_is_told_to_answer_with_a_jack_or_miss_the_turn(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RULESETS.md, switch: "a J reverses the direction and the player now next must answer with a J or
    miss the turn". bot/ui/render.py hand_content: the hand message shows "the playable ones marked, and
    what to do now".

    After alice's J♥, bob's hand offers [J♠] [Pass] (his 5♥, a heart on a heart, is not playable), and it
    says why: he must answer with the same rank or pass and miss his turn (the engine's own 919 text)."""
    alice, bob = world.alice, world.bob
    hands = [["JH", "3C", "5C", "6C", "7C", "9C", "10C"], ["JS", "5H", "5D", "6D", "7D", "9D", "10D"]]
    await two_players(world, monkeypatch, "switch", hands, "9H")
    await click_card(world, alice, "JH")
    shown = await world.hand_message(bob)
    assert labels(shown) == ["J♠", "Pass"], labels(shown)
    assert "You must answer with the same rank, or pass and miss your turn." in shown.content, shown.content
    table_id = await world.table_id()
    assert (await world.service.hand(table_id, bob.id)).answer_rank == "J"
    assert (await world.service.hand(table_id, alice.id)).answer_rank is None  # not her turn


async def test_uno_lite_does_not_tell_a_player_they_may_answer_an_owed_draw(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RULESETS.md, uno-lite: "a 2 makes the next player draw two and lose the turn (no stacking)".
    bot/ui/render.py hand_content: the hand says "what to do now".

    uno-lite with the last-card house rule: alice plays 2♥ leaving one card, uncalled, so the referee
    leaves bob's draw to him (his catch window); his only choices are Draw and Catch. Nothing answers a 2 at
    uno-lite, so his hand does not offer an answer ("You owe 2 cards unless you can answer."): it says he
    must draw the 2 cards owed and that his turn then ends."""
    alice, bob, carol = world.alice, world.bob, world.carol
    stack_classic_deal(monkeypatch, [["2H", "KC"], ["3D", "4C"], ["3S", "4S"]], "5H", leader=0)
    board = await world.run(alice, "new", preset="uno-lite", target=1000)
    await world.run(alice, "house", option="hand_size", value="2")
    await world.run(alice, "house", option="last_card", value="on")
    for person in (bob, carol):
        await (await world.fake.click(person, board, label="Join")).callback()
    await world.run(alice, "start")
    await world.settle()
    await click_card(world, alice, "2H")
    shown = await world.hand_message(bob)
    assert labels(shown) == ["Draw", "Catch alice"], labels(shown)
    assert (await world.snapshot()).pending_draw == 2
    assert "unless you can answer" not in shown.content, shown.content
    assert "You must draw the 2 cards you owe; your turn then ends." in shown.content, shown.content
    assert "No card to play" not in shown.content, shown.content  # told once
