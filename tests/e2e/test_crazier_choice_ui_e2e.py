"""crazier-abilities: a beginning-of-turn choice as the chooser meets it through Discord: the hand shown
before a restart still answers it, the open hand message shows it when it comes, ``/eights effect`` answers it
(the player by name too) and, given a card to play instead, says to make the choice first; the chooser
leaving or kicked hands it to the CPU."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.crazier_play import end_turn, fresh_hand, inject, live_round, open_table, select_of


async def _angel_waits(world: World) -> None:
    """alice (seat 0) controls an Angel of Hope; carol ends her turn and alice's begins: the Angel asks her
    for a player (alice, bob or carol)."""
    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob, world.carol])
    await fresh_hand(world, world.alice)
    await inject(
        world,
        ["AB 2B 3O", "AO 2O 3P", "AP 2P 3G"],
        "KG AG",
        in_play=["5B", "", ""],
        first=2,
        draw="9G 10G 4G",
    )
    await end_turn(world, world.carol)
    rnd = await live_round(world)
    assert rnd.choice is not None and rnd.choice["kind"] == "player" and rnd.choice["by"] == 0


async def test_a_pending_choice_is_answered_from_the_hand_shown_before_a_restart(world: World) -> None:
    """README: "Buttons of a hand that did not change keep working, also after the bot restarts". alice's
    hand message shows the Angel's choice; the bot restarts; her pick in that message is applied."""
    await _angel_waits(world)
    message = await fresh_hand(world, world.alice)
    assert "Your choice" in message.content
    select = select_of(message, "pick")
    assert select is not None
    await world.restart()
    await world.settle()
    reply = await (await world.fake.select(world.alice, message, str(select["custom_id"]), ["1"])).reply()
    await world.settle()
    rnd = await live_round(world)
    assert rnd.choice is None and len(rnd.hands[1]) == 4, reply.content
    assert "Traceback" not in reply.content


async def test_the_open_hand_message_shows_the_choice_when_it_comes(world: World) -> None:
    """README: "the hand message updates in place". alice opened her hand during carol's turn; when her own
    turn begins with the Angel's choice, that message shows the choice and its select without her asking."""
    await _angel_waits(world)
    shown = world.last_hand(world.alice)
    assert "Your choice" in shown.content, shown.content
    assert select_of(shown, "pick") is not None


async def test_the_typed_answer_may_name_the_player(world: World) -> None:
    """README: "/eights effect card [player] [target] — ... when one of your cards asks a choice, `card` is
    your answer (the lists offer what you may do now)". The list offers "Choose: bob"; typing bob (as the
    player option and /eights catch take a name) is that very answer: bob draws a card."""
    await _angel_waits(world)
    offered = await world.fake.autocomplete(world.alice, world.channel, "eights effect", "card", partial="bo")
    assert [o["name"] for o in offered] == ["Choose: bob"], offered
    reply = await world.run(world.alice, "effect", card="bob")
    await world.settle()
    rnd = await live_round(world)
    assert rnd.choice is None and len(rnd.hands[1]) == 4, reply.content


async def test_a_typed_answer_naming_no_option_is_not_offered(world: World) -> None:
    """A typed answer that is neither an option nor a player's name (nor a card of alice's hand) is answered
    "That choice is not offered." and changes nothing."""
    await _angel_waits(world)
    before = (await live_round(world)).to_json()
    reply = await world.run(world.alice, "effect", card="dave")
    await world.settle()
    assert reply.ephemeral and "That choice is not offered" in reply.content, reply.content
    assert (await live_round(world)).to_json() == before


async def test_the_chooser_leaving_hands_the_choice_to_the_cpu(world: World) -> None:
    """README: "/eights leave — leave the table (during a game a CPU takes over your seat)". alice leaves
    while her Angel waits for her choice: the CPU makes it and the game goes on (not stuck until the
    timer)."""
    await _angel_waits(world)
    left = await world.run(world.alice, "leave")
    assert left.ephemeral
    await world.settle()
    rnd = await live_round(world)
    assert rnd.choice is None, rnd.choice


async def test_the_chooser_kicked_hands_the_choice_to_the_cpu(world: World) -> None:
    """README: "/eights kick member — remove a player; a CPU takes over their seat": the CPU makes the choice
    that waited for the kicked player."""
    await _angel_waits(world)
    answer = await world.run(world.fake.owner, "kick", member=world.alice)
    await world.settle()
    rnd = await live_round(world)
    assert rnd.choice is None, (rnd.choice, answer.content)


async def test_an_effect_typed_while_a_choice_waits_says_to_make_the_choice_first(world: World) -> None:
    """Bad input "gets a clear short answer and changes nothing": while alice's Angel waits for her player,
    /eights effect with a card of her hand (Forbidden Knowledge, 2B), alone or with its player, is answered
    "Make the choice you are asked for first." (935, as /eights pass is), not "That choice is not offered.";
    her choice still waits and 2B stays in her hand."""
    await _angel_waits(world)
    passed = await world.run(world.alice, "pass")
    assert "Make the choice you are asked for first" in passed.content, passed.content
    with_player = await world.run(world.alice, "effect", card="2B", player="bob")
    alone = await world.run(world.alice, "effect", card="2b")
    await world.settle()
    rnd = await live_round(world)
    assert rnd.choice is not None and "2B" in rnd.hands[0]
    for reply in (with_player, alone):
        assert "Make the choice you are asked for first" in reply.content, reply.content
