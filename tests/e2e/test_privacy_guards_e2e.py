"""Privacy guards: what one player (or a spectator) may learn of another's cards, and what they may do for
someone else. End to end against the fake Discord (tests/e2e's ``world``, whose privacy observer fails a
test when a hand's card is shown to someone who may not see it).

README: "each player sees their own hand privately (an ephemeral message only they can see ...), while the
board and every play are public"; RULESETS.md (Elven Princess): "look at the top card of the draw pile
(privately)"; rules help: "A looked-at card stays private."
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import World, message_text
from tests.e2e.crazier_play import fresh_hand, inject, live_round, open_table, pick
from tests.e2e.test_hand_controls_e2e import two_player_classic
from tests.fakediscord import FakeMessage, FakeUser

pytestmark = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


class Recorder:
    """Every version of every message the bot creates or edits, with who may see it (None: everyone)."""

    def __init__(self) -> None:
        self.seen: list[tuple[int | None, str]] = []

    def __call__(self, message: FakeMessage, recipient: FakeUser | None) -> None:
        self.seen.append((recipient.id if recipient is not None else None, message_text(message)))

    def shown_to_others(self, owner: FakeUser, since: int = 0) -> list[str]:
        return [text for who, text in self.seen[since:] if who != owner.id]


async def test_an_elven_princess_look_is_told_to_its_controller_only(world: World) -> None:
    """RULESETS.md, Elven Princess: "At the beginning of your turn, look at the top card of the draw pile
    (privately)". alice's Princess looks at 9G; she keeps it on top and draws it. No public message (line,
    board, picture description) and nothing shown to bob may name 9G (the privacy observer of tests/e2e only
    checks hands, not the draw pile, so this is checked here)."""
    recorder = Recorder()
    world.fake.add_message_observer(recorder)
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    since = len(recorder.seen)
    hands = ["AB 2B 3O", "AO 2O 3P"]
    rnd = await inject(world, hands, "KG AG", in_play=["4B", ""], first=0, draw="9G 10G 3G")
    assert rnd.choice is not None and rnd.choice["kind"] == "look", rnd.choice
    hand = await fresh_hand(world, world.alice)
    assert "9G" in message_text(hand), hand.content  # alice is told (sanity: the look happened)
    await pick(world, world.alice, "pick", "keep")
    await world.settle()
    rnd = await live_round(world)
    assert "9G" in rnd.hands[0], rnd.hands  # alice drew the card she looked at
    leaks = [t for t in recorder.shown_to_others(world.alice, since) if "9G" in t]
    assert not leaks, leaks[:3]


async def test_a_copy_of_another_players_card_button_does_not_act_for_them(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "A control acts only on the table of the channel it is in", a button "acts on the hand as
    you saw it"; DESIGN: a use case takes "a user id and an intent". bob (not to move) sends alice's own K♥
    button (its custom_id copied, a tampered client) on his hand message: it must not play for alice, and
    bob's answer must not show alice's hand."""
    await two_player_classic(world, monkeypatch)
    alice_hand = await world.hand_message(world.alice)
    button = next(b for b in alice_hand.buttons if str(b["custom_id"]).endswith(":play:KH"))
    bob_hand = await world.hand_message(world.bob)
    before = await world.snapshot()
    pressed = await world.fake.craft_component(world.bob, world.channel, bob_hand, str(button["custom_id"]))
    answer = await pressed.reply()
    await world.settle()
    after = await world.snapshot()
    assert after.target_card == before.target_card == "9H"
    assert after.seats[0].card_count == before.seats[0].card_count
    assert answer.ephemeral
    assert "K♥" not in message_text(answer), answer.content


async def test_the_card_autocomplete_offers_nothing_to_a_spectator_or_a_player_off_turn(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bot/service/snapshots.py card_choices: "on the user's turn exactly their legal cards ...; nothing when
    it is not their turn". carol (not seated) and bob (waiting) type into /eights play's card option: they
    get no card (alice's K♥ and 9♣ least of all). Kept as a guard: the autocomplete is the one answer the
    privacy observer does not see."""
    await two_player_classic(world, monkeypatch)
    fake = world.fake
    for user in (world.carol, world.bob):
        for typed in ("", "K", "hearts", "9", "c"):
            choices = await fake.autocomplete(user, world.channel, "eights play", "card", partial=typed)
            assert choices == [], (user.name, typed, choices)
    mine = await fake.autocomplete(world.alice, world.channel, "eights play", "card", partial="")
    assert {c["value"] for c in mine} >= {"KH"}


async def test_crazier_autocompletes_offer_a_spectator_nothing(world: World) -> None:
    """A spectator (carol, not seated) at a crazier-abilities table types into /eights play card and
    /eights effect card/target/player: no card of anyone's hand is offered. Guard (as above)."""
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob])
    await inject(world, ["AB 2B 3O 9B", "AO 2O 3P"], "KG AG", in_play=["", "4P"], first=0, draw="9G 10G 3G")
    fake = world.fake
    alice_cards = set((await live_round(world)).hands[0])
    offered: list[Any] = []
    for command, option in (("eights play", "card"), ("eights effect", "card"), ("eights effect", "target")):
        for typed in ("", "2", "B", "9"):
            offered += await fake.autocomplete(world.carol, world.channel, command, option, partial=typed)
    leaked = [c for c in offered if any(card in str(c) for card in alice_cards)]
    assert not leaked and not offered, offered[:5]
