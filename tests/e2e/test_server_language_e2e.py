"""The server's language in Discord outlives a restart of the bot, and follows the server's changes.

README, "Languages": the tables' public messages (boards, turn lines, …) "are in the server's language:
`/eights settings language:` when a manager chose one, else the server's language in Discord (its community
locale), else English". Discord tells a bot the server's language in every GUILD_CREATE (the guild's
``preferred_locale``), and it is the same value as an interaction's ``guild_locale`` ("the guild's preferred
locale", Discord's Interaction object). The bot learned it only from interactions before: after a
restart, a German server's running table had its board rewritten in English at once, and the lines a timer
produces (a turn running out) were English, until some player happened to click something.

A server that changes its language in Discord to one the bot has no catalogue for (Italian) gets English:
the bot kept the last language it could use, German, until it restarted.
"""

from __future__ import annotations

from tests.e2e.conftest import World, message_text
from tests.e2e.language_play import board
from tests.e2e.test_hand_messages_e2e import fire

ENGLISH = ("Crazy Eights —", "ran out of time", "your turn", "to move", "Stock:", "Seats:")


async def _german_table(world: World) -> None:
    world.guild.locale = "de"
    world.alice.locale = world.bob.locale = "de"
    world.service.seed_deals(1)  # alice (the host) leads
    opened = await world.run(world.alice, "new")
    join = next(b["custom_id"] for b in opened.buttons if b["custom_id"].endswith(":join"))
    await (await world.fake.click(world.bob, opened, custom_id=join)).callback()
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    assert message_text(board(world)).startswith("Verrückte Achten"), message_text(board(world))


async def test_board_stays_german_after_a_restart(world: World) -> None:
    await _german_table(world)
    await world.restart()
    await world.settle()
    text = message_text(board(world))
    assert text.startswith("Verrückte Achten"), text
    assert not [word for word in ENGLISH if word in text], text


async def test_timeout_line_after_a_restart_is_german(world: World) -> None:
    await _german_table(world)
    before = len(world.fake.channel_messages(world.channel))
    await world.restart()
    await world.settle()
    await fire(world, "_on_turn_timeout")  # alice's turn runs out; nobody has clicked since the restart
    await world.settle()
    lines = "\n".join(m.content for m in world.fake.channel_messages(world.channel)[before:] if m.content)
    assert lines, "no line after the timeout"
    assert not [word for word in ENGLISH if word in lines], lines


async def test_a_server_switched_to_a_language_without_catalogue_gets_english(world: World) -> None:
    world.guild.locale = "de"
    first = await world.run(world.alice, "new")
    assert message_text(first).startswith("Verrückte Achten"), message_text(first)
    await world.run(world.alice, "end")
    await world.settle()

    world.guild.locale = "it"  # the server's language in Discord is now Italian: no catalogue
    world.alice.locale = "it"
    again = await world.run(world.alice, "new")
    text = message_text(again)
    assert text.startswith("Crazy Eights — classic"), text
