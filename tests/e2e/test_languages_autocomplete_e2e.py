"""/eights play's card autocomplete narrows as a player types, "any case, accents optional" as README says
cards are typed: a French player typing "coeur" or "trefle" is offered their playable "Dame de cœur" or
"… de trèfle"."""

from __future__ import annotations

from bot.i18n import fold
from tests.e2e.conftest import World

ACCENTED = {"cœur": "coeur", "trèfle": "trefle"}


async def test_card_autocomplete_reads_a_suit_typed_without_accents(world: World) -> None:
    world.guild.locale = "fr"
    world.alice.locale = "fr"
    found: tuple[str, str] | None = None
    for seed in range(1, 40):
        world.service.seed_deals(seed)
        await world.run(world.alice, "new", preset="classic")
        await world.run(world.alice, "cpu", level="easy")
        await world.run(world.alice, "start")
        await world.settle()
        if await world.human_to_act() is world.alice:
            offered = await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", "")
            for choice in offered:
                for word, plain in ACCENTED.items():
                    if word in choice["name"].lower():
                        found = (choice["name"], plain)
                        break
                if found:
                    break
        if found:
            break
        await world.run(world.alice, "end")
        await world.settle()
    assert found is not None, "no deal gave alice a playable club or heart"
    name, plain = found
    assert fold(plain) in fold(name)
    offered = await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", plain)
    assert name in [c["name"] for c in offered], (plain, name, offered)
