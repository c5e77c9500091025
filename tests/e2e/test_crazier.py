"""crazier-abilities end to end through the fake Discord (issue 25): two people and a CPU play a match to the
end using effects and choices — alice by her hand message's selects and buttons, bob by typed commands —
with a restart in the middle of a turn (after a discard, before the effect); and a team game of four. On
both backends (the world's database)."""

from __future__ import annotations

import re

from bot.ui.art.emoji_set import crazier_card_key, emoji_name
from tests.e2e.conftest import World
from tests.e2e.test_art import board_picture, emojis_ready
from tests.fakediscord import FakeMessage, FakeUser

PRESET = "crazier-abilities"


def _select(message: FakeMessage, action: str) -> dict[str, object] | None:
    return next((s for s in message.selects if f":{action}:" in str(s["custom_id"])), None)


async def click_move(world: World, user: FakeUser) -> str:
    """One decision through the hand message: answer the choice waiting, else discard, else play a card for
    its effect, else End turn. Returns what was done."""
    message = await world.hand_message(user)
    for action, done in (("pick", "choice"), ("disc", "discard"), ("eff", "effect")):
        select = _select(message, action)
        if select is not None:
            options = list(select["options"])  # type: ignore[call-overload]
            # Each option says what the card does (Discord's limits: 100 characters, 25 options).
            assert all(len(o["label"]) <= 100 and len(o.get("description") or "") <= 100 for o in options)
            assert len(options) <= 25
            value = options[-1 if action == "pick" else 0]["value"]
            reply = await (await world.fake.select(user, message, str(select["custom_id"]), [value])).reply()
            assert reply.ephemeral, reply.content
            return done
    reply = await (await world.fake.click(user, message, label="End turn")).reply()
    assert reply.ephemeral, reply.content
    return "end"


async def typed_move(world: World, user: FakeUser) -> str:
    """One decision by slash commands, from their autocompletes: /eights effect (an answer to a choice, or a
    card for its effect with the player or card in play it chooses), else /eights play, else /eights pass."""
    auto = world.fake.autocomplete
    effects = await auto(user, world.channel, "eights effect", "card", partial="")
    if effects:
        value = str(effects[0]["value"])
        if str(effects[0]["name"]).startswith("Choose:"):
            reply = await world.run(user, "effect", card=value)
            done = "choice"
        else:
            options: dict[str, str] = {}
            if value[:-1] == "2":
                players = await auto(user, world.channel, "eights effect", "player", partial="", card=value)
                options["player"] = str(players[-1]["value"])
            if value[:-1] in ("9", "10"):
                targets = await auto(user, world.channel, "eights effect", "target", partial="", card=value)
                options["target"] = str(targets[0]["value"])
            reply = await world.run(user, "effect", card=value, **options)
            done = "effect"
    else:
        discards = await auto(user, world.channel, "eights play", "card", partial="")
        if discards:
            value = str(discards[0]["value"])
            reply = await world.run(
                user, "play", card=value, **({"suit": "blue"} if value[:-1] == "8" else {})
            )
            done = "discard"
        else:
            reply = await world.run(user, "pass")
            done = "end"
    assert reply.ephemeral, reply.content
    assert "Traceback" not in reply.content
    return done


async def play_match(world: World, typed: set[str], restart_after_discard: bool = False) -> dict[str, int]:
    """Play until the table closes: people by ``click_move`` (or ``typed_move`` for the names in ``typed``),
    the next game by its button. Returns how often each kind of decision was made."""
    done: dict[str, int] = {"restarts": 0}
    for _ in range(3000):
        user = await world.human_to_act()
        if user is None:
            await world.settle()
            if await world.service.table_in_channel(world.channel.id) is None:
                return done
            snapshot = await world.snapshot()
            if snapshot.phase == "between_rounds":
                await (await world.fake.click(world.alice, world.board(), label="Next round")).reply()
                await world.settle()
            continue
        move = await (typed_move(world, user) if user.name in typed else click_move(world, user))
        done[move] = done.get(move, 0) + 1
        table_id = await world.service.table_in_channel(world.channel.id)
        if restart_after_discard and not done["restarts"] and move == "discard" and table_id is not None:
            hand = await world.service.hand(table_id, user.id)
            c = hand.crazier
            if hand.your_turn and c is not None and c.discards_left == 0 and any(x.can_play for x in c.cards):
                before = [x.card.code for x in c.cards]
                await world.restart()
                done["restarts"] += 1
                after = await world.service.hand(table_id, user.id)
                assert after.your_turn and [x.card.code for x in after.crazier.cards] == before  # type: ignore[union-attr]
    raise AssertionError("the match did not end")


async def test_two_people_and_a_cpu_play_a_match_with_a_restart_mid_turn(world: World) -> None:
    world.service.seed_deals(11)
    board = await world.run(world.alice, "new", preset=PRESET)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="normal")
    await world.settle()
    hand = await world.run(world.alice, "start")
    assert "Your hand" in hand.content and "—" in hand.content  # each card with what it does
    await world.settle()
    # The privacy observer knows this game's hands: every card held is hidden from the channel.
    assert len(world.observer.hidden_from(None)) >= 10
    text = world.board().text()
    assert "Top card" in text and "colour to follow" in text and "Draw pile" in text

    done = await play_match(world, typed={"bob"}, restart_after_discard=True)
    assert done["restarts"] == 1
    assert done.get("effect") and done.get("discard") and done.get("choice")
    public = "\n".join(world.public_texts())
    assert " played " in public and "Game over" in public and "Final ranking" in public
    # An effect is told with what it did, on one line.
    assert any(" played " in line and ": " in line for line in public.splitlines())
    assert "Traceback" not in public


async def start_team_game_of_four(world: World) -> None:
    """alice and carol against bob and an easy CPU, dealt from a fixed seed."""
    world.service.seed_deals(5)
    board = await world.run(world.alice, "new", preset=PRESET, teams=True)
    for user in (world.bob, world.carol):
        await (await world.fake.click(user, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()


async def test_a_team_game_of_four(world: World) -> None:
    await start_team_game_of_four(world)
    assert "Teams" in world.board().text()
    done = await play_match(world, typed=set())
    assert done.get("discard")
    public = "\n".join(world.public_texts())
    assert "Final ranking" in public
    # The match counts for each member of both teams.
    for user in (world.alice, world.bob, world.carol):
        stats = await world.run(user, "stats")
        assert "Matches: 1 played" in stats.text()


async def test_the_rules_of_the_preset_list_every_card(world: World) -> None:
    await world.run(world.alice, "rules", preset=PRESET)
    await world.settle()
    shown = "\n".join(m.content for m in world.fake.ephemeral_messages(world.alice))
    assert all(len(m.content) <= 2000 for m in world.fake.ephemeral_messages(world.alice))
    for name in ("Forbidden Knowledge", "Potion of Vitality", "Elven Princess", "Angel of Hope", "Castle"):
        assert name in shown
    for name in ("Resurrection", "Death", "Crown of Kings", "Devious Dragon", "Mordred", "King Arthur"):
        assert name in shown


async def test_bad_input_gets_a_short_private_answer(world: World) -> None:
    board = await world.run(world.alice, "new", preset=PRESET)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    snapshot = await world.snapshot()
    mover = world.user_of(snapshot, snapshot.to_act or 0)
    waiting = world.bob if mover is world.alice else world.alice
    assert mover is not None
    before = await world.snapshot()
    for user, command, options in (
        (waiting, "pass", {}),  # out of turn
        (mover, "effect", {"card": "zz"}),  # not a card
        (mover, "play", {"card": "KO", "suit": "mauve"}),  # no such colour (or a card not held)
        (mover, "draw", {}),  # a move of the standard game
        (mover, "suit", {"suit": "♠"}),
    ):
        reply = await world.run(user, command, **options)
        assert reply.ephemeral and 0 < len(reply.content) <= 200, (command, reply.content)
        assert "Traceback" not in reply.content
    await world.settle()
    after = await world.snapshot()
    assert after.crazier == before.crazier and [s.card_count for s in after.seats] == [
        s.card_count for s in before.seats
    ]


async def test_the_board_carries_its_picture_and_the_hand_its_card_emojis(world: World) -> None:
    await emojis_ready(world)
    world.service.seed_deals(11)
    board = await world.run(world.alice, "new", preset=PRESET)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="normal")
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    picture = board_picture(world)
    assert picture is not None and picture["content_type"] == "image/png"
    description = str(picture["description"])
    assert description.startswith("Crazier Eights table, game 1.") and "Top card:" in description
    assert "alice" in description and "bob" in description
    # The board's text shows the top card's face and the colour's badge, each an emoji of the app.
    top = next(f["value"] for f in world.board().embeds[0]["fields"] if f["name"] == "Top card")
    assert re.search(r"<:e8z1_\w+:\d+>", top), top
    assert not world.fake.emojis.unknown_in(world.board().text())
    # The hand of whoever is to act: each option of its selects shows its card's face.
    user = await world.human_to_act()
    assert user is not None
    hand = await world.hand_message(user)
    options = [o for s in hand.selects for o in s["options"]]  # type: ignore[attr-defined]
    assert options
    for option in options:
        name = emoji_name(crazier_card_key(str(option["value"]).split("/")[0]))
        assert option["emoji"]["name"] == name, option
        assert world.fake.emojis.items[int(option["emoji"]["id"])]["name"] == name
    assert re.search(r"<:e8z1_\w+:\d+>", hand.content) and not world.fake.emojis.unknown_in(hand.content)
    # The server's switch turns the picture off (the board goes on as text).
    await world.run(world.fake.owner, "settings", board_picture=False)
    await click_move(world, user)
    await world.settle()
    assert board_picture(world) is None
