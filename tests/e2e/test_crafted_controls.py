"""Components the bot did not put where they are pressed: a tampered client can send any custom id, on any
message, in any channel of a server it is in. A control acts only on the open table of the channel (and
server) it is pressed in; a reply carrying a hand never edits a public message; an id Discord's clients
would never send gets the usual short answer, not a traceback."""

from __future__ import annotations

from bot.exts.tables._controls import FINISHED_BUTTON
from bot.service import EXPIRED
from tests.e2e.conftest import World
from tests.e2e.test_bad_input import start_two
from tests.fakediscord import FakeChannel, FakeMessage


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
