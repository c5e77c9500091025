"""House rules as hosts set them, end to end: a change survives a restart even when it sets a rule back to
the preset's value (the stored differences are from the preset, not from the rules as opened); the seats
follow the rules ("fewest players" above the table's seats is refused, "most players" raised seats that many
at a table opened without a number of seats); the autocompletes read and speak the host's language."""

from __future__ import annotations

from typing import Any

import discord

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage


def house_field(board: FakeMessage) -> str:
    fields = board.embeds[0].get("fields", [])
    return next((f["value"] for f in fields if f["name"] == "House rules"), "")


async def live_ruleset(world: World) -> Any:
    table_id = await world.table_id()
    live = world.service._registry.get(table_id)
    assert live is not None
    return live.ruleset


# ------------------------------------------------------------------------------------------- restarts
async def test_target_set_back_to_the_presets_value_survives_a_restart(world: World) -> None:
    await world.run(world.alice, "new", preset="classic", target=50)
    reply = await world.run(world.alice, "house", option="target", value="100")
    assert "House rule changed" in reply.content
    assert (await live_ruleset(world)).target == 100
    await world.restart()
    assert (await live_ruleset(world)).target == 100, "the host's target 100 became 50 again"


async def test_server_default_rule_undone_by_the_host_survives_a_restart(world: World) -> None:
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=discord.Permissions(manage_guild=True).value)
    await world.run(admin, "settings", house_option="reshuffle", house_value="off")
    await world.run(world.alice, "new", preset="classic")
    assert (await live_ruleset(world)).reshuffle is False
    await world.run(world.alice, "house", option="reshuffle", value="on")
    assert (await live_ruleset(world)).reshuffle is True
    await world.settle()
    assert "as it is" in house_field(world.board())
    await world.restart()
    await world.settle()
    assert (await live_ruleset(world)).reshuffle is True, "reshuffle is off again after the restart"


# ------------------------------------------------------------------------------------------- seat limits
async def test_fewest_players_above_the_tables_seats_is_refused(world: World) -> None:
    await world.run(world.alice, "new", preset="classic", seats=3)
    reply = await world.run(world.alice, "house", option="min_players", value="4")
    # A table of 3 seats that needs 4 players can never start: refused, nothing changed.
    assert "House rule changed" not in reply.content and "at least 4 players" in reply.content, reply.content
    assert (await world.snapshot()).house_rules == ()


async def test_most_players_raised_to_eight_seats_eight(world: World) -> None:
    await world.run(world.alice, "new", preset="classic")
    reply = await world.run(world.alice, "house", option="max_players", value="8")
    assert "House rule changed" in reply.content
    await (await world.fake.click(world.bob, world.board(), label="Join")).callback()
    await (await world.fake.click(world.carol, world.board(), label="Join")).callback()
    for _ in range(4):
        await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    last = await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    # Opened without a number of seats: as many as the rules allow once changed (it said "full" at 7).
    assert "full" not in last.content, last.content
    assert len((await world.snapshot()).seats) == 8


# ------------------------------------------------------------------------------------------- languages
async def test_option_autocomplete_in_french_without_accents(world: World) -> None:
    world.alice.locale = "fr"
    await world.run(world.alice, "new", preset="classic")
    found = await world.fake.autocomplete(
        world.alice, world.channel, "eights house", "option", partial="equipes"
    )
    assert [c["value"] for c in found] == ["partnership"], found


async def test_value_autocomplete_in_french_shows_french_labels(world: World) -> None:
    world.alice.locale = "fr"
    await world.run(world.alice, "new", preset="classic")
    values = await world.fake.autocomplete(
        world.alice, world.channel, "eights house", "value", partial="", option="decks"
    )
    # As the panel shows them (the French catalogue's words), not in English.
    assert "deux jeux au-delà de 2 joueurs" in [c["name"] for c in values], values
