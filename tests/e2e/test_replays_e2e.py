"""Replays end to end (issue 27): a match played through the fake Discord, then stepped through with
/eights replay by a player and by an onlooker, every step checked against the hands the engine held at that
moment (the table service's observer records each committed state): the viewer's own hand is shown exactly,
and no card another player held then appears anywhere in the message (cards the round made public excepted).
Also: the Replay select under /eights history, the replay's buttons after a restart, the autocomplete, and a
match whose moves retention deleted."""

from __future__ import annotations

from typing import Any

from bot.engine import Match, card_label, parse_card
from bot.store.base import Store
from tests.e2e.conftest import EMOJI_CARD, LABEL, World, _public_codes, message_text
from tests.fakediscord import FakeMessage, FakeUser


class StateLog:
    """Every match state the table service committed, in order (the observer sees each commit once)."""

    def __init__(self) -> None:
        self.states: list[dict[str, Any]] = []
        self._last: Match | None = None

    def __call__(self, table_id: int, user_ids: tuple[int | None, ...], match: Match | None) -> None:
        if match is not None and match is not self._last:
            self._last = match
            self.states.append(match.to_json())


def store_of(world: World) -> Store:
    assert world.bot is not None
    return world.bot.store


async def play_match(world: World, *, cpu: bool = True) -> tuple[int, StateLog]:
    """Alice hosts, Bob joins, an easy CPU sits down (``cpu``); target 1: the first round that scores ends
    the match."""
    log = StateLog()
    world.service.observe(log)
    board = await world.run(world.alice, "new", preset="classic", target=1)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    if cpu:
        await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    table_id = await world.table_id()
    await world.run(world.alice, "start")
    await world.settle()
    for _ in range(20):
        await world.play_round_by_buttons()
        if await world.service.table_in_channel(world.channel.id) is None:
            return table_id, log
        await (await world.fake.click(world.alice, world.board(), label="Next round")).callback()
        await world.settle()
    raise AssertionError("the match did not end")


def shown_cards(message: FakeMessage) -> set[str]:
    text = message_text(message)
    return set(LABEL.findall(text)) | {card_label(parse_card(code)) for code in EMOJI_CARD.findall(text)}


def hand_field(message: FakeMessage) -> set[str] | None:
    (embed,) = message.embeds
    for field in embed.get("fields", []):
        if str(field["name"]).startswith("Your hand then"):
            value = str(field["value"])
            return set(LABEL.findall(value)) | {card_label(parse_card(c)) for c in EMOJI_CARD.findall(value)}
    return None


def check_step(message: FakeMessage, truth: dict[str, Any], seat_of_viewer: int | None) -> None:
    """The step shows the viewer's own hand then, exactly, and no card another seat held then."""
    match = Match.from_json(truth)
    rnd = match.round
    public = {card_label(parse_card(code)) for code in _public_codes(rnd.history)}
    others: set[str] = set()
    for seat in range(match.num_seats):
        if seat != seat_of_viewer:
            others |= {card_label(card) for card in rnd.hand(seat)}
    leaked = (shown_cards(message) & others) - public
    assert not leaked, f"the replay shows {sorted(leaked)}, held by another player then"
    own = hand_field(message)
    if seat_of_viewer is None:
        assert own is None
    else:
        assert own == {card_label(card) for card in rnd.hand(seat_of_viewer)}


async def replay(world: World, user: FakeUser, table_id: int) -> FakeMessage:
    """/eights replay match:<table_id> as ``user``: the bot's answer."""
    return await (await world.fake.invoke(user, world.channel, "eights replay", match=table_id)).reply()


def disabled(message: FakeMessage, label: str) -> bool:
    return bool(message.component(label=label).get("disabled"))


async def step_through(
    world: World, viewer: FakeUser, table_id: int, log: StateLog, seat: int | None
) -> None:
    message = await replay(world, viewer, table_id)
    assert message.ephemeral
    final = await store_of(world).get_state(table_id)
    assert final is not None
    truths = [*log.states, final.state["match"]]
    title = str(message.embeds[0]["title"])
    count = int(title.rsplit(" of ", 1)[1])
    # One step per committed move from the deal; the last one closed the table.
    assert count == len(truths), (count, len(truths))
    for index, truth in enumerate(truths):
        assert f"step {index + 1} of {count}" in str(message.embeds[0]["title"])
        check_step(message, truth, seat)
        if index < count - 1:
            message = await (await world.fake.click(viewer, message, label="Next")).reply()
    assert disabled(message, "Next") and disabled(message, "Last")
    assert any(field["name"] == "Final ranking" for field in message.embeds[0].get("fields", []))


async def test_a_replay_steps_through_a_match_showing_only_what_the_viewer_may_see(world: World) -> None:
    table_id, log = await play_match(world)
    assert len(log.states) > 3
    await step_through(world, world.bob, table_id, log, seat=1)
    await step_through(world, world.carol, table_id, log, seat=None)  # watched, did not play

    # First / Back / Last / Next round move within the same private message.
    message = await replay(world, world.alice, table_id)
    assert disabled(message, "First") and disabled(message, "Back") and not disabled(message, "Next")
    message = await (await world.fake.click(world.alice, message, label="Last")).reply()
    last_title = str(message.embeds[0]["title"])
    message = await (await world.fake.click(world.alice, message, label="Back")).reply()
    assert str(message.embeds[0]["title"]) != last_title
    message = await (await world.fake.click(world.alice, message, label="First")).reply()
    assert "step 1 of" in str(message.embeds[0]["title"])
    check_step(message, log.states[0], 0)
    rounds = {Match.from_json(state).round_number for state in log.states}
    if disabled(message, "Next round"):
        assert rounds == {1}
    else:
        message = await (await world.fake.click(world.alice, message, label="Next round")).reply()
        assert "· round 2 ·" in str(message.embeds[0]["title"])
    # The board picture of the step, described for screen readers.
    assert message.attachments and "Target" in str(message.attachments[0].get("description", ""))


async def test_history_offers_a_replay_that_keeps_turning_after_a_restart(world: World) -> None:
    table_id, log = await play_match(world)
    history = await world.run(world.bob, "history")
    assert not history.ephemeral
    picked = await world.fake.select(world.bob, history, "eights-replay-pick", [str(table_id)])
    message = await picked.reply()
    assert message.ephemeral and "step 1 of" in str(message.embeds[0]["title"])
    check_step(message, log.states[0], 1)

    await world.restart()
    message = await (await world.fake.click(world.bob, message, label="Next")).reply()
    assert "step 2 of" in str(message.embeds[0]["title"])
    check_step(message, log.states[1], 1)

    choices = await world.fake.autocomplete(world.bob, world.channel, "eights replay", "match", "")
    assert [choice["value"] for choice in choices] == [table_id]
    assert "alice" in choices[0]["name"] and "bob" in choices[0]["name"]


async def test_a_match_whose_moves_were_pruned_says_so(world: World) -> None:
    table_id, _ = await play_match(world)
    store = store_of(world)
    record = await store.get_table(table_id)
    assert record is not None
    while await store.prune_closed_moves(record.updated_at + 1, 500, record.updated_at + 2):
        pass
    answer = await replay(world, world.bob, table_id)
    assert answer.ephemeral and "deleted" in answer.content and not answer.embeds
    # A match of another server, or none at all: a short private answer too.
    answer = await replay(world, world.bob, 99999)
    assert answer.ephemeral and "no finished match" in answer.content
