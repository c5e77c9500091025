"""What /eights stats and /eights history show in a German server is German.

README, "Languages": "the tables' public messages (boards, turn lines, rankings, …) are in the server's
language"; /eights stats and /eights history are public answers (bot.exts.standings: ``use_locale`` of the
server's language), and a preset is named as the reader's Discord names it wherever it is shown (the fix of
3539712: "klassisch" in /eights history, the Replay select, on the board)."""

from __future__ import annotations

from typing import Any

from bot.store.base import Store
from tests.e2e.conftest import World
from tests.service.test_standings import record_match


def store_of(world: World) -> Store:
    assert world.bot is not None
    return world.bot.store


def fields(message: Any) -> dict[str, str]:
    (embed,) = message.embeds
    return {str(f["name"]): str(f["value"]) for f in embed.get("fields", [])}


async def test_stats_names_the_favourite_preset_in_the_servers_language(world: World) -> None:
    """/eights stats on a German server: the "Lieblingsvariante" (favourite preset) field names the preset as
    the board, /eights history and the Replay select of the same server do ("klassisch"), not by its English
    id "classic"."""
    world.guild.locale = "de"
    world.alice.locale = "de"
    await record_match(
        store_of(world),
        guild_id=world.guild.id,
        channel_id=world.channel.id,
        ranking=[(world.alice.id, "alice", 1, 0), (world.bob.id, "bob", 2, 20)],
        preset="classic",
    )
    history = await world.run(world.alice, "history")
    assert any(str(f["name"]).startswith("klassisch") for f in history.embeds[0]["fields"])  # as fixed there

    stats = await world.run(world.alice, "stats")
    assert not stats.ephemeral
    values = list(fields(stats).values())
    assert "classic" not in values, fields(stats)
    assert "klassisch" in values, fields(stats)


async def test_history_names_a_forgotten_player_in_the_servers_language(world: World) -> None:
    """After /eights forget (or ``forget-user``), past results "show you as a deleted player" (README,
    /eights forget; the German question itself promises "erscheinst du als gelöschter Spieler"). On a German
    server the public /eights history and its Replay select say so in German ("Gelöschter Spieler"); they
    read the English words "Deleted player", the placeholder the store keeps, in the middle of a German
    answer before."""
    world.guild.locale = "de"
    world.bob.locale = "de"
    store = store_of(world)
    await record_match(
        store,
        guild_id=world.guild.id,
        channel_id=world.channel.id,
        ranking=[(world.alice.id, "alice", 1, 0), (world.bob.id, "bob", 2, 20)],
        preset="classic",
    )
    await store.forget_user(world.alice.id)
    history = await world.run(world.bob, "history")
    assert not history.ephemeral
    text = " ".join(str(f["value"]) for f in history.embeds[0]["fields"])
    labels = [str(o["label"]) for s in history.selects for o in s["options"]]
    assert "Deleted player" not in text, text
    assert "Gelöschter Spieler" in text, text
    assert not any("Deleted player" in label for label in labels), labels
