"""A round of play end to end: by buttons, by typed commands, autocomplete, private hands, public lines."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bot.engine import card_label, parse_card
from bot.service import Actor
from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser, InvalidInteraction


async def open_and_start(world: World, *, cpu: bool = False, preset: str = "classic") -> FakeMessage:
    # A high target: the match never ends after one round (a round can score above 100 with two 8s).
    board = await world.run(world.alice, "new", preset=preset, target=1000)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    if cpu:
        await (await world.fake.click(world.alice, board, label="Add CPU")).callback()
    await world.settle()
    hand = await (await world.fake.click(world.alice, board, label="Start")).reply()
    assert hand.ephemeral and "Your hand" in hand.content and "Your turn" in hand.content
    await world.settle()
    return hand


async def test_a_full_round_by_buttons(world: World) -> None:
    await open_and_start(world, cpu=True)
    moves = await world.play_round_by_buttons()
    assert moves > 0
    snapshot = await world.snapshot()
    assert snapshot.phase == "between_rounds"
    board = world.board()
    text = board.text()
    assert "Round 1 is over" in text and "Round 1 scores" in text
    for name in ("alice", "bob", "CPU 1"):
        assert name in text
    assert [b["label"] for b in board.buttons] == ["Next round", "My hand"]
    lines = world.public_texts()
    assert any(
        line.startswith("Round 1 scores (totals)") or "\nRound 1 scores (totals)" in line for line in lines
    )
    # Each turn line mentions the person to move, and no one else.
    for line in lines:
        assert line.count("<@") <= 1
    assert world.observer.checked > moves


async def test_the_board_is_one_message_kept_current_by_edits(world: World) -> None:
    await open_and_start(world)
    board = world.board()
    versions = len(board.versions)
    for _ in range(4):
        user = await world.human_to_act()
        assert user is not None
        await world.play_by_buttons(user)
    await world.settle()
    assert world.board().id == board.id
    assert len(world.board().versions) > versions
    snapshot = await world.snapshot()
    text = world.board().text()
    assert f"Stock: {snapshot.stock_size} card" in text
    assert snapshot.target_card is not None and card_label(parse_card(snapshot.target_card)) in text
    for seat in snapshot.seats:
        assert f"**{seat.name}**" in text and f"{seat.card_count} card" in text


async def test_my_turn_refreshes_my_hand_in_place(world: World) -> None:
    alice_hand = await open_and_start(world)
    bob_hand = await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    assert "Not your turn" in bob_hand.content and bob_hand.buttons == []
    # alice plays (and names a suit after an 8); when the turn passes, bob's hand message is refreshed.
    while (user := await world.human_to_act()) is world.alice:
        await world.play_by_buttons(world.alice)
    assert user is world.bob
    assert "Your turn" in bob_hand.content and bob_hand.buttons
    assert "Not your turn" in alice_hand.content
    # The turn line mentions bob without the "press My hand" hint: his hand was refreshed.
    assert world.public_texts()[-1].endswith(f"<@{world.bob.id}>, your turn.")


async def test_a_full_round_by_typed_commands(world: World) -> None:
    await open_and_start(world)
    for _ in range(400):
        user = await world.human_to_act()
        if user is None:
            break
        choices = await world.fake.autocomplete(user, world.channel, "eights play", "card", partial="")
        hand = await world.service.hand(await world.table_id(), user.id)
        assert sorted(c["value"] for c in choices) == sorted({c.code for c in hand.cards if c.playable})
        if hand.must_name_suit:
            reply = await world.run(user, "suit", suit=random.choice(["h", "Spades", "♦", "clubs"]))
        elif choices:
            card = choices[-1]["value"]
            if card.startswith("8"):
                reply = await world.run(user, "play", card=card.lower(), suit="hearts")
            else:
                reply = await world.run(user, "play", card=card.lower())
        elif hand.can_draw:
            reply = await world.run(user, "draw")
        else:
            reply = await world.run(user, "pass")
        assert reply.ephemeral and ("Your hand" in reply.content or "over" in reply.content), reply.content
    await world.settle()
    assert (await world.snapshot()).phase == "between_rounds"


async def test_autocomplete_offers_exactly_the_legal_cards_on_your_turn(world: World) -> None:
    await open_and_start(world)
    table_id = await world.table_id()
    hand = await world.service.hand(table_id, world.alice.id)
    choices = await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", partial="")
    playable = sorted({c.code for c in hand.cards if c.playable})
    assert sorted(c["value"] for c in choices) == playable
    for choice in choices:
        card = parse_card(choice["value"])
        assert choice["name"].startswith(card_label(card) + " ")  # "K♥ King of Hearts"
    # Off turn, and for someone without a seat: no choices at all.
    assert await world.fake.autocomplete(world.bob, world.channel, "eights play", "card", partial="") == []
    assert await world.fake.autocomplete(world.carol, world.channel, "eights play", "card", partial="k") == []
    # Typing narrows the choices.
    first = choices[0]["value"]
    narrowed = await world.fake.autocomplete(
        world.alice, world.channel, "eights play", "card", partial=first.lower()
    )
    assert first in [c["value"] for c in narrowed]


async def test_autocomplete_is_empty_on_your_turn_without_a_playable_card(world: World) -> None:
    # Without the referee's auto-draw (a table option the service has; /eights new keeps it on), a seeded deal
    # gives alice no playable card on her first turn.
    world.service.seed_deals(4)
    outcome = await world.service.open_table(
        world.guild.id, world.channel.id, Actor(world.alice.id, "alice"), preset="classic", auto_draw=False
    )
    world.publisher.publish(outcome)
    await world.service.join(outcome.table_id, Actor(world.bob.id, "bob"))
    world.publisher.publish(await world.service.start(outcome.table_id, Actor(world.alice.id, "alice")))
    await world.settle()
    hand = await world.service.hand(outcome.table_id, world.alice.id)
    assert hand.your_turn and not any(c.playable for c in hand.cards), "the seeded deal changed"
    assert await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", partial="") == []
    message = await (await world.fake.click(world.alice, world.board(), label="My hand")).reply()
    assert [b["label"] for b in message.buttons] == ["Draw"]


async def test_hands_stay_private(world: World) -> None:
    alice_hand = await open_and_start(world, cpu=True)
    with pytest.raises(InvalidInteraction):
        await world.fake.click(world.bob, alice_hand, alice_hand.buttons[0]["custom_id"])
    bob_hand = await (await world.fake.click(world.bob, world.board(), label="My hand")).reply()
    assert bob_hand.ephemeral and bob_hand.recipient is world.bob
    for message in world.fake.channel_messages(world.channel):
        assert "Your hand" not in message.text()


async def test_the_privacy_observer_catches_a_leak(world: World) -> None:
    await open_and_start(world)
    table_id = await world.table_id()
    bob_cards = (await world.service.hand(table_id, world.bob.id)).cards
    leak = FakeMessage(id=1, channel_id=world.channel.id, guild_id=world.guild.id, author=world.fake.bot_user)
    leak.content = f"psst: {bob_cards[0].label}"
    with pytest.raises(AssertionError, match="hidden cards"):
        world.observer(leak, None)  # public
    with pytest.raises(AssertionError, match="hidden cards"):
        world.observer(leak, world.alice)  # alice's ephemeral
    world.observer(leak, world.bob)  # bob may see his own card


def mentions(line: str) -> list[str]:
    return [part.split(">")[0] for part in line.split("<@")[1:]]


async def test_turn_lines_mention_only_the_player_to_move(world: World) -> None:
    await open_and_start(world, cpu=True)
    users: dict[int, FakeUser] = {u.id: u for u in (world.alice, world.bob)}
    for _ in range(6):
        user = await world.human_to_act()
        if user is None:
            break
        line = [text for text in world.public_texts() if "<@" in text][-1]
        assert mentions(line) == [str(user.id)]
        assert str(user.id) in map(str, users)
        await world.play_by_buttons(user)


async def check_plays_are_told_with_the_cpus_answers(world: World, cpus: int) -> None:
    """Alice opens a table with ``cpus`` easy CPU seats and plays: each of her moves that hands the turn on
    comes, with the CPU moves after it, as one line and one board edit (checked on up to three such moves)."""
    board = await world.run(world.alice, "new", target=1000)
    for _ in range(cpus):
        await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    await (await world.fake.click(world.alice, board, label="Start")).reply()
    await world.settle()
    checked = 0
    for _ in range(12):
        lines_before = len(world.public_texts())
        edits_before = len(world.board().versions)
        done = await world.play_by_buttons(world.alice)
        await world.settle()
        if (await world.snapshot()).phase != "playing":
            break
        if done == "draw" or "Name the suit" in world.last_hand(world.alice).content:
            continue  # alice's turn goes on
        await world.human_to_act()
        new_lines = world.public_texts()[lines_before:]
        # alice's move and the CPU moves after it: one message, one board edit.
        assert len(new_lines) == 1, new_lines
        assert "alice" in new_lines[0] and f"CPU {cpus}" in new_lines[0]
        assert len(world.board().versions) - edits_before == 1
        checked += 1
        if checked == 3:
            break
    assert checked > 0


async def test_cpu_moves_are_gathered_into_one_line_and_one_board_edit(world: World) -> None:
    world.publisher.gather_window = 2.0  # ends early anyway, when alice is to move again
    await check_plays_are_told_with_the_cpus_answers(world, cpus=3)


async def test_at_the_bots_own_wiring_a_play_and_the_cpus_answer_are_one_line_and_one_board_edit(
    world: World,
) -> None:
    # No gather window set by hand: the bot derives it from the CPU's delay (gather_window_for), so the
    # lanes wait for the CPU's answer instead of showing alice's play alone a moment before it.
    await world.stop()
    config = world.config
    world.config = lambda: dataclasses.replace(config(), cpu_delay=0.3)  # type: ignore[method-assign]
    await world.start()
    assert world.publisher.gather_window > 0.3 + 0.3
    await check_plays_are_told_with_the_cpus_answers(world, cpus=1)


async def test_a_typed_move_updates_the_hand_message_in_place_too(world: World) -> None:
    shown = await open_and_start(world)  # alice's hand, shown when she started the game
    choices = await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", partial="")
    assert choices  # auto-draw gives the player to move a playable card
    # The deal is random: prefer a plain card; when only 8s fit, name a suit in the same step.
    plain = [c["value"] for c in choices if not c["value"].startswith("8")]
    card = plain[0] if plain else choices[0]["value"]
    label = card_label(parse_card(card))
    assert label in shown.content
    suit = {} if plain else {"suit": "spades"}
    reply = await world.run(world.alice, "play", card=card, **suit)
    assert reply.id != shown.id and f"You played {label}." in reply.content

    def hand_line() -> str:
        return next(line for line in shown.content.splitlines() if line.startswith("**Your hand**"))

    # The earlier hand message shows the hand after the move (edited right after the reply).
    await world.fake.wait_for(lambda: label not in hand_line(), what="the earlier hand message updated")
    assert "Not your turn." in shown.content and shown.buttons == []


SEED = 1  # deals are random per table; this one's first round has both (seed 2's has not)


async def test_last_card_and_catch_by_typed_commands(world: World) -> None:
    """/eights last and /eights catch do what the hand's "Last card!" and "Catch" buttons do; the catch's
    autocomplete lists exactly who can be caught now."""
    world.service.seed_deals(SEED)  # a deal whose first round has both a call and a catch
    board = await world.run(world.alice, "new", preset="party")
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    nothing = await world.run(world.alice, "catch", player="bob")
    assert nothing.ephemeral and "Your hand" not in nothing.content  # no one to catch: a short refusal
    stranger = await world.run(world.alice, "catch", player="nobody")
    assert stranger.ephemeral and "No one called 'nobody'" in stranger.content
    called = caught = False
    for _ in range(400):
        user = await world.human_to_act()
        if user is None:
            break
        other = world.bob if user is world.alice else world.alice
        for person in (user, other):
            hand = await world.service.hand(await world.table_id(), person.id)  # what is possible right now
            choices = await world.fake.autocomplete(person, world.channel, "eights catch", "player")
            names = {seat.position: seat.name for seat in hand.snapshot.seats}
            assert [c["name"] for c in choices] == [names[p] for p in hand.catch_targets]
            if not caught and choices:
                target = choices[0]["name"]
                reply = await world.run(person, "catch", player=choices[0]["value"])
                assert reply.ephemeral and "Your hand" in reply.content
                await world.settle()
                texts = [*world.public_texts(), world.board().text()]
                assert any(f"caught {target}" in text for text in texts), texts[-4:]
                caught = True
            elif not called and hand.can_call_last:
                reply = await world.run(person, "last")
                assert reply.ephemeral and "Your hand" in reply.content
                await world.settle()
                texts = [*world.public_texts(), world.board().text()]
                assert any(f"{person.name}: Last card!" in text for text in texts), texts[-4:]
                called = True
        if called and caught:
            return
        if await world.human_to_act() is user:
            await world.play_by_buttons(user)
    pytest.fail(f"the round ended before both a call and a catch (called={called}, caught={caught})")


LAST_CARD_SEED = 1  # this deal's first player holds a playable card in a hand of two


async def test_an_uncalled_last_card_offers_catch_under_the_house_rule(world: World) -> None:
    """classic has no "last card"; the house rule adds it. An opponent who ends a turn with one card and
    does not call it: the hand message of a player whose turn it is not is refreshed with a Catch button."""
    world.service.seed_deals(LAST_CARD_SEED)
    board = await world.run(world.alice, "new", preset="classic", target=1000)
    await world.run(world.alice, "house", option="last_card", value="on")
    await world.run(world.alice, "house", option="hand_size", value="2")
    for person in (world.bob, world.carol):
        await (await world.fake.click(person, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    snapshot = await world.snapshot()
    assert snapshot.to_act is not None
    first = world.user_of(snapshot, snapshot.to_act)
    watcher = world.user_of(snapshot, (snapshot.to_act + 2) % 3)  # neither the one to move nor the next
    assert first is not None and watcher is not None
    shown = await world.hand_message(watcher)
    assert "Not your turn" in shown.content and shown.buttons == []
    assert await world.play_by_buttons(first) == "play"
    if await world.human_to_act() is first:  # an 8: the suit
        assert await world.play_by_buttons(first) == "suit"
    await world.settle()
    assert (await world.snapshot()).seats[snapshot.to_act].card_count == 1
    await world.fake.wait_for(
        lambda: f"Catch {first.name}" in [b["label"] for b in shown.buttons], what="Catch on the hand"
    )
