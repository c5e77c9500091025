"""A preset is named in the reader's language wherever it is shown, as on the board ("klassisch"): in
/eights history, the Replay select and the House rules panel, not by its English id ("classic")."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.language_play import board, play_match


async def _finished_match(world: World) -> None:
    world.service.seed_deals(3)
    await world.run(world.alice, "new", preset="classic", target=1)
    await world.run(world.alice, "cpu", level="easy")
    await world.run(world.alice, "start")
    await world.settle()
    await play_match(world)
    await world.settle()


async def test_history_names_the_preset_in_the_servers_language(world: World) -> None:
    world.guild.locale = "de"
    world.alice.locale = "de"
    await _finished_match(world)
    history = await world.run(world.alice, "history")
    assert not history.ephemeral
    names = [field["name"] for field in history.embeds[0]["fields"]]
    assert names and all(name.startswith("klassisch") for name in names), names


async def test_replay_select_names_the_preset_in_the_servers_language(world: World) -> None:
    world.guild.locale = "de"
    world.alice.locale = "de"
    await _finished_match(world)
    history = await world.run(world.alice, "history")
    labels = [o["label"] for s in history.selects for o in s["options"]]
    assert labels and all("klassisch" in label for label in labels), labels


async def test_house_rules_panel_names_the_preset_in_the_readers_language(world: World) -> None:
    world.guild.locale = "en-US"
    world.alice.locale = "de"
    await world.run(world.alice, "new", preset="classic")
    await world.settle()
    b = board(world)
    house = next(c for c in b.buttons if c["custom_id"].endswith(":house"))
    panel = await (await world.fake.click(world.alice, b, house["custom_id"])).reply()
    assert panel.ephemeral
    assert panel.content.startswith("**Hausregeln** — klassisch"), panel.content
