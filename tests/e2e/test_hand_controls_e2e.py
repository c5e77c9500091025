"""Hand messages and typed plays show and accept exactly what is legal now: a called last card takes the Catch
off the other hands, a suit typed with a plain card is refused, a typed suit symbol narrows the card
autocomplete, and a player in a same-rank run is not told they owe its draw."""

from __future__ import annotations

import pytest

from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser


async def click_card(world: World, user: FakeUser, code: str) -> FakeMessage:
    message = await world.hand_message(user)
    button = next(b for b in message.buttons if str(b["custom_id"]).endswith(f":play:{code}"))
    reply = await (await world.fake.click(user, message, str(button["custom_id"]))).reply()
    await world.settle()
    return reply


def labels(message: FakeMessage) -> list[str]:
    return [str(b["label"]) for b in message.buttons]


async def test_a_last_card_call_takes_the_catch_off_the_other_hands(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HandView / hand_view promise "every control that is legal now" ("one per legal action"); README: the
    hand message updates in place. Once alice calls "Last card!", nobody can catch her any more, so bob's
    and carol's hand messages stop offering "Catch alice"."""
    alice, bob, carol = world.alice, world.bob, world.carol
    # bob (next) holds a playable card, so the referee's auto-draw does not refresh the hands by chance.
    stack_classic_deal(monkeypatch, [["KH", "3C"], ["5H", "6D"], ["7S", "9S"]], "9H", leader=0)
    board = await world.run(alice, "new", preset="classic", target=1000)
    await world.run(alice, "house", option="last_card", value="on")
    await world.run(alice, "house", option="hand_size", value="2")
    for person in (bob, carol):
        await (await world.fake.click(person, board, label="Join")).callback()
    await world.run(alice, "start")
    await world.settle()
    carol_hand = await world.hand_message(carol)
    bob_hand = await world.hand_message(bob)
    alice_hand = await click_card(world, alice, "KH")
    await world.fake.wait_for(lambda: "Catch alice" in labels(carol_hand), what="Catch on carol's hand")
    assert "Catch alice" in labels(bob_hand)
    called = await (await world.fake.click(alice, alice_hand, label="Last card!")).reply()
    assert "Last card!" not in labels(called)
    await world.settle()
    assert "alice: Last card!" in world.public_texts()[-1]
    assert "Catch alice" not in labels(carol_hand), carol_hand.content
    assert "Catch alice" not in labels(bob_hand), bob_hand.content


TWO_HANDS = [["KH", "3C", "4C", "5C", "6C", "7C", "9C"], ["2D", "3D", "4D", "5D", "6D", "7D", "9D"]]


async def two_player_classic(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """alice and bob at classic, alice to move on 9♥ holding K♥ and 9♣ among clubs."""
    stack_classic_deal(monkeypatch, TWO_HANDS, "9H", leader=0)
    board = await world.run(world.alice, "new", preset="classic", target=1000)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()


async def test_a_suit_typed_with_a_plain_card_is_refused_and_changes_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RULESETS.md, the standard game: "905 you can't choose a suit now ... An illegal action changes
    nothing"; README: "name the suit when you play an 8". `/eights play card:KH suit:spades` asks for a
    plain card played with a named suit: it must be refused with 905 and K♥ stay in alice's hand (the
    crazier-abilities table already refuses a colour with a non-8 discard with 905)."""
    await two_player_classic(world, monkeypatch)
    reply = await world.run(world.alice, "play", card="KH", suit="spades")
    await world.settle()
    assert reply.ephemeral
    assert "(905)" in reply.content, reply.content
    snapshot = await world.snapshot()
    assert snapshot.target_card == "9H" and snapshot.seats[0].card_count == 7


async def test_the_card_autocomplete_narrows_to_a_typed_suit_symbol(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: cards are typed as "KH", "10♠"…; RULESETS.md: "Input is read liberally (case, T for 10, suit
    symbols ♣♦♥♠, names like "hearts")"; the autocomplete offers the legal cards "filtered by what is typed
    so far" (bot/service/snapshots.py card_choices). Typing "♥" (as typing "hearts" does) must offer the
    playable hearts: K♥ here."""
    await two_player_classic(world, monkeypatch)
    fake, alice = world.fake, world.alice
    by_name = await fake.autocomplete(alice, world.channel, "eights play", "card", partial="hearts")
    assert [c["value"] for c in by_name] == ["KH"]
    by_symbol = await fake.autocomplete(alice, world.channel, "eights play", "card", partial="♥")
    assert [c["value"] for c in by_symbol] == ["KH"], by_symbol


async def test_a_player_in_a_same_rank_run_is_not_told_they_owe_their_own_draw(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RULESETS.md, party: "2 makes the next player draw two and stacks, same-rank runs". After alice plays
    2♥ holding 2♠, her turn goes on (a run): the two cards are owed by the next player, not by her. Her
    hand message does not say "You owe 2 cards unless you can answer." but that she may play another card
    of that rank, or pass."""
    alice, bob, carol = world.alice, world.bob, world.carol
    hands = [
        ["2H", "2S", "3C", "5D", "6D", "7D", "9D", "10D"],
        ["3H", "4C", "5C", "6C", "7C", "9C", "10C", "JC"],
        ["3S", "4S", "5S", "6S", "7S", "9S", "10S", "JS"],
    ]
    stack_classic_deal(monkeypatch, hands, "5H", leader=0)
    board = await world.run(alice, "new", preset="party", target=1000)
    for person in (bob, carol):
        await (await world.fake.click(person, board, label="Join")).callback()
    await world.run(alice, "start")
    await world.settle()
    reply = await click_card(world, alice, "2H")
    assert labels(reply) == ["2♠", "Pass"], labels(reply)  # the run: another 2, or end the turn
    assert (await world.snapshot()).pending_draw == 2
    assert "You owe" not in reply.content, reply.content
    assert "Play another card of the same rank, or pass." in reply.content
