"""Replays of Crazier Eights matches end to end (issue 27): a crazier-abilities match played through the fake
Discord, then stepped through with /eights replay by a player and by an onlooker; every step checked against
the hands the engine held at that moment: the viewer's own hand shown exactly, the board of this game (top
card, colour to follow, draw pile), and no card another player held then anywhere in the message unless an
earlier step had shown it. A team game too."""

from __future__ import annotations

import re
from typing import Any

from bot.engine.crazier import CrazierMatch
from tests.e2e.conftest import CRAZIER_CARD, World, message_text
from tests.e2e.test_art import board_picture, emojis_ready
from tests.e2e.test_crazier import PRESET, play_match
from tests.e2e.test_replays_e2e import disabled, replay, store_of
from tests.fakediscord import FakeMessage, FakeUser


class StateLog:
    """Every crazier-abilities match state the table service committed, in order."""

    def __init__(self) -> None:
        self.states: list[dict[str, Any]] = []
        self._last: object = None

    def __call__(self, table_id: int, user_ids: tuple[int | None, ...], match: object) -> None:
        if isinstance(match, CrazierMatch) and match is not self._last:
            self._last = match
            self.states.append(match.to_json())


def hand_field(message: FakeMessage) -> set[str] | None:
    (embed,) = message.embeds
    for field in embed.get("fields", []):
        if str(field["name"]).startswith("Your hand then"):
            return set(CRAZIER_CARD.findall(str(field["value"])))
    return None


def check_step(message: FakeMessage, truth: dict[str, Any], seat: int | None, seen_before: set[str]) -> None:
    """The step shows the viewer's own hand then, exactly, this game's board, and no card another seat held
    then that no earlier step showed."""
    match = CrazierMatch.from_json(truth)
    rnd = match.round
    text = message_text(message)
    others = {card for s in range(match.num_seats) if s != seat for card in rnd.hands[s]}
    leaked = (set(CRAZIER_CARD.findall(text)) & others) - seen_before
    assert not leaked, f"the replay shows {sorted(leaked)}, held by another player then"
    own = hand_field(message)
    if seat is None:
        assert own is None
    else:
        assert own == set(rnd.hands[seat])
    if not rnd.over:
        assert "Top card" in text and rnd.top() in text and "colour to follow" in text and "Draw pile" in text


def step_number(message: FakeMessage) -> int:
    """The step a replay message shows (1-based), from its title "… · step 12 of 80"."""
    return int(str(message.embeds[0]["title"]).split("step ", 1)[1].split(" ", 1)[0])


async def step_through(
    world: World, viewer: FakeUser, table_id: int, log: StateLog, seat: int | None
) -> None:
    message = await replay(world, viewer, table_id)
    assert message.ephemeral
    final = await store_of(world).get_state(table_id)
    assert final is not None
    truths = [*log.states, final.state["match"]]
    count = int(str(message.embeds[0]["title"]).rsplit(" of ", 1)[1])
    assert step_number(message) == 1
    assert count == len(truths), (count, len(truths))
    seen_before: set[str] = set()
    for index, truth in enumerate(truths):
        assert f"step {index + 1} of {count}" in str(message.embeds[0]["title"])
        assert "Traceback" not in message_text(message)
        check_step(message, truth, seat, seen_before)
        seen_before |= set(CRAZIER_CARD.findall(message_text(message)))
        if index < count - 1:
            message = await (await world.fake.click(viewer, message, label="Next")).reply()
    assert disabled(message, "Next") and disabled(message, "Last")
    assert any(field["name"] == "Final ranking" for field in message.embeds[0].get("fields", []))


async def test_a_crazier_match_replays_showing_only_what_the_viewer_may_see(world: World) -> None:
    log = StateLog()
    world.service.observe(log)
    world.service.seed_deals(11)
    board = await world.run(world.alice, "new", preset=PRESET, target=15)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="normal")
    await world.settle()
    table_id = await world.table_id()
    await world.run(world.alice, "start")
    await world.settle()
    done = await play_match(world, typed=set())
    assert done.get("effect") and done.get("discard")
    assert len(log.states) > 3
    await step_through(world, world.bob, table_id, log, seat=1)
    await step_through(world, world.carol, table_id, log, seat=None)  # watched, did not play
    # Next round goes to the first step of the match's next game.
    message = await replay(world, world.alice, table_id)
    assert {CrazierMatch.from_json(state).number for state in log.states} >= {1, 2}
    message = await (await world.fake.click(world.alice, message, label="Next round")).reply()
    assert "· round 2 ·" in str(message.embeds[0]["title"])
    check_step(message, log.states[step_number(message) - 1], 0, set())


async def test_a_crazier_team_game_replays_with_each_members_own_hand(world: World) -> None:
    log = StateLog()
    world.service.observe(log)
    world.service.seed_deals(5)
    board = await world.run(world.alice, "new", preset=PRESET, teams=True, target=15)
    for user in (world.bob, world.carol):
        await (await world.fake.click(user, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    table_id = await world.table_id()
    await world.run(world.alice, "start")
    await world.settle()
    await play_match(world, typed=set())
    await step_through(world, world.carol, table_id, log, seat=2)
    message = await replay(world, world.alice, table_id)
    assert "Teams" in message.text()


CRAZIER_EMOJI = re.compile(r"<:e8z\d+_((?:10|[2-9AJQK])[BGOP]):\d+>")


async def test_a_crazier_replay_shows_each_steps_picture_and_card_emojis(world: World) -> None:
    """As the standard replays: each step carries the board picture as it was then (described for screen
    readers), and the cards of the lines and of the viewer's hand carry their emojis; a card emoji counts as
    showing the card, so none of another player's hand appears that way either."""
    await emojis_ready(world)
    log = StateLog()
    world.service.observe(log)
    world.service.seed_deals(11)
    board = await world.run(world.alice, "new", preset=PRESET, target=15)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="normal")
    await world.settle()
    table_id = await world.table_id()
    await world.run(world.alice, "start")
    await world.settle()
    await play_match(world, typed=set())
    final = await store_of(world).get_state(table_id)
    assert final is not None
    truths = [*log.states, final.state["match"]]
    message = await replay(world, world.bob, table_id)
    pictures = set()
    for index, truth in enumerate(truths):
        match = CrazierMatch.from_json(truth)
        text = message_text(message)
        # The last plays were told in the channel (a card played then may be in a hand now, dealt again).
        told = [str(f["value"]) for f in message.embeds[0]["fields"] if str(f["name"]) == "Last plays"]
        for value in told:
            text = text.replace(value, "")
        others = {card for seat in (0, 2) for card in match.round.hands[seat]}
        assert not set(CRAZIER_EMOJI.findall(text)) & others
        assert not world.fake.emojis.unknown_in(text)
        own = next(f for f in message.embeds[0]["fields"] if str(f["name"]).startswith("Your hand then"))
        assert set(CRAZIER_EMOJI.findall(str(own["value"]))) == set(match.round.hands[1])
        picture = board_picture(world, message)
        if index < len(truths) - 1:  # the last step shows the final ranking, as a finished table does
            assert picture is not None and picture["content_type"] == "image/png", index
            description = str(picture["description"])
            assert description.startswith(f"Crazier Eights table, game {match.number}."), description
            assert "Top card:" in description and "bob" in description
            pictures.add(description)
            message = await (await world.fake.click(world.bob, message, label="Next")).reply()
    assert len(pictures) > 3  # each step its own board, not one picture over and over
    assert re.search(r"<:e8z\d+_\w+:\d+>", message_text(message)) or match.round.over
