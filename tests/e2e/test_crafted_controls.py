"""Components the bot did not put where they are pressed: a tampered client can send any custom id, on any
message, in any channel of a server it is in. A control acts only on the open table of the channel (and
server) it is pressed in; a reply carrying a hand never edits a public message; an id Discord's clients
would never send gets the usual short answer, not a traceback."""

from __future__ import annotations

import asyncio

from bot.engine.typed import TYPED_SHOWN
from bot.exts._group import MAX_TYPED, UNREADABLE_OPTION
from bot.exts.tables._controls import FINISHED_BUTTON
from bot.service import EXPIRED
from bot.service.replays import NO_MATCH
from tests.e2e.conftest import World
from tests.e2e.tampering import tampered
from tests.e2e.test_bad_input import start_two
from tests.fakediscord import FakeChannel, FakeMessage, FakeUser


def everything_public(world: World, *channels: FakeChannel) -> list[tuple[int, int]]:
    """Every public message of the channels, with its number of versions."""
    return [
        (m.id, len(m.versions))
        for channel in channels
        for m in world.fake.channel_messages(channel, include_deleted=True)
    ]


def play_button(hand: FakeMessage) -> str:
    return next(str(b["custom_id"]) for b in hand.buttons if ":play:" in str(b["custom_id"]))


async def test_a_card_button_pressed_in_another_tables_channel_does_nothing(world: World) -> None:
    world.service.seed_deals(1)  # alice leads with a card she can play
    hand = await start_two(world)
    table_a = await world.table_id()
    await world.run(world.carol, "new", channel=world.other_channel)
    await world.settle()
    board_b = next(m for m in world.fake.channel_messages(world.other_channel) if m.embeds)
    assert world.bot is not None
    moves = len(await world.bot.store.moves(table_a))
    before = everything_public(world, world.channel, world.other_channel)
    pressed = await world.fake.craft_component(world.alice, world.other_channel, board_b, play_button(hand))
    answer = await pressed.reply()
    assert answer.ephemeral and answer.content == EXPIRED  # as any button of a round no longer here
    await world.settle()
    assert everything_public(world, world.channel, world.other_channel) == before
    assert len(await world.bot.store.moves(table_a)) == moves


async def test_a_card_button_pressed_on_the_public_board_answers_privately(world: World) -> None:
    world.service.seed_deals(1)
    hand = await start_two(world)
    board = world.board()
    pressed = await world.fake.craft_component(world.alice, world.channel, board, play_button(hand))
    answer = await pressed.reply()
    assert answer.ephemeral and "Your hand" in answer.content and answer.id != board.id
    await world.settle()
    # The board was edited by the move it shows, never with the hand.
    assert all("Your hand" not in version.content for version in world.board().versions)
    assert world.board().id == board.id


async def test_a_join_pressed_in_another_server_seats_nobody(world: World) -> None:
    await world.run(world.alice, "new")
    await world.settle()
    table_id = await world.table_id()
    elsewhere = world.fake.create_guild("Elsewhere")
    channel = world.fake.create_channel(elsewhere, "cards")
    dave = world.fake.create_user("dave")
    world.fake.add_member(elsewhere, dave)
    # A message of that server: dave's own, with the Join of the table added by his client.
    message = await world.fake.post_user_message(dave, channel, "hello")
    before = everything_public(world, world.channel)
    pressed = await world.fake.craft_component(dave, channel, message, f"e8:{table_id}::join")
    answer = await pressed.reply()
    assert answer.ephemeral and answer.content == FINISHED_BUTTON
    await world.settle()
    assert [seat.user_id for seat in (await world.snapshot()).seats] == [world.alice.id]
    assert everything_public(world, world.channel) == before


async def test_a_table_id_beyond_any_integer_gets_the_short_answer(world: World) -> None:
    await world.run(world.alice, "new")
    await world.settle()
    before = everything_public(world, world.channel)
    for custom_id in (f"e8:{'9' * 40}::join", f"e8:{2**63}::hand", f"e8s:{'9' * 30}::hopt:0"):
        values = ["draw_limit"] if custom_id.startswith("e8s") else None
        pressed = await world.fake.craft_component(
            world.bob, world.channel, world.board(), custom_id, values=values
        )
        answer = await pressed.reply()
        assert answer.ephemeral and answer.content == FINISHED_BUTTON, answer.content
    await world.settle()
    assert everything_public(world, world.channel) == before


SOMETHING_WENT_WRONG = "Something went wrong"
SUPERSCRIPT_TWO = "\u00b2"  # "²": str.isdigit() is True of it, int() refuses it


async def test_a_typed_seat_number_in_superscript_gets_a_short_answer(world: World) -> None:
    """/eights catch and /eights effect take "seat:N" (what their autocomplete sends); a user types
    "seat:²" by hand with an ordinary client."""
    await start_two(world)
    before = everything_public(world, world.channel)
    for command, options in (
        ("catch", {"player": f"seat:{SUPERSCRIPT_TWO}"}),
        ("effect", {"card": "KH", "player": f"seat:{SUPERSCRIPT_TWO}"}),
    ):
        answer = await world.run(world.bob, command, **options)
        assert answer.ephemeral
        assert SOMETHING_WENT_WRONG not in answer.content, f"/eights {command}: {answer.content!r}"
    await world.settle()
    assert everything_public(world, world.channel) == before


async def test_a_crafted_catch_control_with_a_superscript_seat_gets_a_short_answer(world: World) -> None:
    world.service.seed_deals(1)
    hand = await start_two(world)
    table_id = await world.table_id()
    token = str(hand.buttons[0]["custom_id"]).split(":")[2]
    before = everything_public(world, world.channel)
    pressed = await world.fake.craft_component(
        world.alice, world.channel, world.board(), f"e8:{table_id}:{token}:catch:{SUPERSCRIPT_TWO}"
    )
    answer = await pressed.reply()
    assert answer.ephemeral
    assert SOMETHING_WENT_WRONG not in answer.content, answer.content
    await world.settle()
    assert everything_public(world, world.channel) == before


async def _replay_answer(world: World, user: FakeUser, custom_id: str, values: list[str] | None) -> str:
    pressed = await world.fake.craft_component(user, world.channel, world.board(), custom_id, values=values)
    try:
        answer = await pressed.reply(timeout=5.0)
    except AssertionError:
        return "<no answer at all: 'This interaction failed'>"
    assert answer.ephemeral
    return answer.content


async def test_crafted_replay_controls_with_odd_numbers_get_the_short_answer(world: World) -> None:
    """The replay controls' custom ids carry a match number, as the table controls' do: one beyond any
    stored integer, or a digit int() refuses, gets the usual short answer (it reached the store, or no
    answer at all)."""
    await world.run(world.alice, "new")
    await world.settle()
    before = everything_public(world, world.channel)
    answers = {
        custom_id + (f" {values}" if values else ""): await _replay_answer(
            world, world.bob, custom_id, values
        )
        for custom_id, values in (
            (f"eights-replay:{'9' * 30}:0:next", None),
            ("eights-replay-pick", ["9" * 30]),
            ("eights-replay-pick", [SUPERSCRIPT_TWO]),
        )
    }
    await world.settle()
    assert everything_public(world, world.channel) == before
    wrong = {k: v for k, v in answers.items() if v not in (NO_MATCH, "Choose a match to replay.")}
    assert not wrong, wrong


async def test_a_long_house_rule_name_gets_a_short_answer(world: World) -> None:
    """The host types a long text as the house rule: the refusal quotes a short part of it (quoted whole, the
    answer passed Discord's 2,000 characters and the host was never answered). Discord's client sends at most
    the option's declared length; a tampered client's longer text is refused as unreadable."""
    await world.run(world.alice, "new")
    await world.settle()
    handle = await world.fake.invoke(
        world.alice, world.channel, "eights house", option="x" * MAX_TYPED, value="1"
    )
    await asyncio.sleep(0)
    try:
        answer = await handle.reply(timeout=5.0)
    except AssertionError as error:
        raise AssertionError(f"the host got no answer: {str(error)[:200]}") from None
    assert answer.ephemeral and len(answer.content) < 300, len(answer.content)
    assert "x" * (TYPED_SHOWN + 1) not in answer.content, answer.content
    handle = await tampered(world, world.alice, "house", option="x" * 1990, value="1")
    answer = await handle.reply(timeout=5.0)
    assert answer.ephemeral and answer.content == UNREADABLE_OPTION, answer.content
