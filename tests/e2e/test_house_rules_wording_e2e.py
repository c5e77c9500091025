"""House rules as a host sets them (``/eights house``, the House rules panel, ``/eights settings``), end to
end through the fake Discord: the words the board shows for them, and the values typed as the lists show
them. Each test states the promise it checks."""

from __future__ import annotations

import discord

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage


def house_field(board: FakeMessage) -> str:
    fields = board.embeds[0].get("fields", [])
    return next((f["value"] for f in fields if f["name"] == "House rules"), "")


def match_field(board: FakeMessage) -> str:
    fields = board.embeds[0].get("fields", [])
    return next((f["value"] for f in fields if f["name"] == "Match"), "")


async def test_stacking_cap_on_aces_reads_with_the_rank_as_written(world: World) -> None:
    """README, House rules: "The board and /eights rules show what differs from the preset in words". A cap
    on stacked aces must name the ace (A), as every other house-rule sentence does ("A makes the next player
    draw 2"); ``str.capitalize`` lowercased the rank codes, so the board read "Stacked as make at most 6
    cards owed; stacked ks …" — "as" and "ks" are not ranks."""
    await world.run(world.alice, "new", preset="classic")
    first = await world.run(world.alice, "house", option="draw_ranks", value="A:2 K:3")
    assert "House rule changed" in first.content, first.content
    reply = await world.run(world.alice, "house", option="draw_caps", value="A:6 K:9")
    assert "House rule changed" in reply.content, reply.content
    await world.settle()
    field = house_field(world.board())
    assert "A makes the next player draw 2" in field, field
    caps = next(line for line in field.splitlines() if "at most 6" in line)
    assert "Stacked as make" not in caps and "stacked ks make" not in caps, caps


async def test_no_target_in_a_match_of_rounds_is_not_shown_as_none_points(world: World) -> None:
    """README, House rules: the board shows the changed rules "in words". A match of 3 rounds with no
    target (``target`` none: "no target (a match of a set number of rounds)", as the value list offers it)
    must not read "Target: None points" on the board, in the panel, or in /eights rules."""
    await world.run(world.alice, "new", preset="classic")
    for option, value in (("rounds", "3"), ("match_end", "rounds"), ("target", "none")):
        reply = await world.run(world.alice, "house", option=option, value=value)
        assert "House rule changed" in reply.content, (option, reply.content)
    await world.settle()
    field = house_field(world.board())
    rules = await world.run(world.alice, "rules")
    assert "None" not in field, field
    assert "None" not in rules.text(), rules.text()


async def test_the_match_end_and_its_count_are_set_in_either_order(world: World) -> None:
    """A number of rounds set while the match ends on a target makes it a match of that many rounds (the
    answer "3 rounds" is then what the game does, and the board's Match field says it); a match of rounds
    chosen before any number is a match of 5 rounds, not refused; a target set in a match of rounds makes it
    a match to that target again."""
    await world.run(world.alice, "new", preset="classic")
    reply = await world.run(world.alice, "house", option="rounds", value="3")
    assert "House rule changed: 3 rounds" in reply.content, reply.content
    back = await world.run(world.alice, "house", option="target", value="150")
    assert "House rule changed" in back.content, back.content
    await world.run(world.alice, "house", option="rounds", value="none")
    chosen = await world.run(world.alice, "house", option="match_end", value="rounds")
    assert "The match is 5 rounds" in chosen.content, chosen.content
    await world.run(world.alice, "house", option="rounds", value="3")
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    board = world.board()
    assert match_field(board) == "3 rounds; lowest total wins", match_field(board)


async def test_wild_rank_none_typed_by_its_label_is_accepted(world: World) -> None:
    """README, Languages: house-rule values are typed "a choice by its label". The value list of Wild rank
    offers "no wild cards" (its label): typed as shown, it is read as every other choice is (e.g. Decks' "one
    deck"); it was refused before ("'no wild cards' is not a rank")."""
    await world.run(world.alice, "new", preset="classic")
    offered = await world.fake.autocomplete(
        world.alice, world.channel, "eights house", "value", partial="", option="wild_rank"
    )
    assert "no wild cards" in [c["name"] for c in offered], offered
    decks = await world.run(world.alice, "house", option="decks", value="one deck")
    assert "House rule changed" in decks.content, decks.content
    reply = await world.run(world.alice, "house", option="wild_rank", value="no wild cards")
    assert "House rule changed" in reply.content, reply.content
    assert "No wild cards" in "\n".join((await world.snapshot()).house_rules)


async def test_settings_house_option_autocomplete_ignores_accents(world: World) -> None:
    """README, Languages: option names are read "any case, accents optional"; the table's ``/eights house``
    option list finds "Équipes de deux" from "equipes" (tests/e2e/test_house_rules_hosts_e2e.py). The
    server's ``/eights settings house_option`` list, for the same rules, finds nothing from "equipes"."""
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=discord.Permissions(manage_guild=True).value)
    admin.locale = "fr"
    accented = await world.fake.autocomplete(
        admin, world.channel, "eights settings", "house_option", partial="Équipes"
    )
    assert [c["value"] for c in accented] == ["partnership"], accented  # the French labels are offered
    found = await world.fake.autocomplete(
        admin, world.channel, "eights settings", "house_option", partial="equipes"
    )
    assert [c["value"] for c in found] == ["partnership"], found
