"""Issue 28 end to end: a German player and a French player at a server whose language is Spanish each read
their own messages (replies, hands, refusals) in their language, while the board and the public lines are
Spanish. The catalogues are the test's own (a few known words, tests/i18n/fixtures.py), so what is checked is
the choice of language, whatever the translators wrote."""

from __future__ import annotations

from typing import Any

import discord

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser
from tests.i18n.fixtures import Writer, catalogues  # noqa: F401  (the fixture)

SPANISH = {
    "Crazy Eights — {preset}": "Ocho loco — {preset}",
    "Crazy Eights — {preset} · round {number}": "Ocho loco — {preset} · ronda {number}",
    "**{name}** to move.": "Le toca a **{name}**.",
    "The game has started": "La partida ha empezado",
    "Round {number} dealt": "Ronda {number} repartida",
    "{who} played {card}": "{who} jugó {card}",
    "{who} drew {n} card": ("{who} robó {n} carta", "{who} robó {n} cartas"),
    # Whatever the deal: a player with nothing to play is drawn for (or passed) by the referee.
    "{who} had no card to play and drew {n} card": (
        "{who} no tenía carta y robó {n} carta",
        "{who} no tenía carta y robó {n} cartas",
    ),
    "{who} could not play or draw and passed": "{who} no pudo jugar ni robar y pasó",
    "▶ {mention}, your turn.": "▶ {mention}, te toca.",
    "▶ {mention}, your turn ({hint}).": "▶ {mention}, te toca ({hint}).",
    "press **My hand** on the board to see your cards": "pulsa **Mi mano** en el tablero para ver tus cartas",
    "{name} joined": "{name} se sentó",
    ("button", "My hand"): "Mi mano",
    ("button", "Join"): "Sentarse",
}
GERMAN = {
    "**Your hand** ({n} card): {cards}": (
        "**Deine Hand** ({n} Karte): {cards}",
        "**Deine Hand** ({n} Karten): {cards}",
    ),
    "Not your turn.": "Du bist nicht dran.",
    "**Your turn.** Target: {target}.": "**Du bist dran.** Ziel: {target}.",
    "It's not your turn.": "Du bist nicht am Zug.",
    "The game has started.": "Das Spiel hat begonnen.",
}
FRENCH = {
    "**Your hand** ({n} card): {cards}": (
        "**Ta main** ({n} carte) : {cards}",
        "**Ta main** ({n} cartes) : {cards}",
    ),
    "Not your turn.": "Ce n'est pas ton tour.",
    "**Your turn.** Target: {target}.": "**À toi.** Cible : {target}.",
    "It's not your turn.": "Ce n'est pas à toi de jouer.",
    "You're seated. The host starts the game.": "Tu es assis. L'hôte lance la partie.",
}
HAND_WORDS = {"de": "**Deine Hand**", "fr": "**Ta main**"}
PRIVATE_WORDS = ("Deine Hand", "Du bist", "Ta main", "Tu es assis", "Ce n'est pas", "À toi", "Das Spiel")
ENGLISH_PUBLIC = ("Crazy Eights —", " played ", " drew ", "your turn", "The game has started", " dealt")


def _board(world: World) -> FakeMessage:
    boards = [
        m
        for m in world.fake.channel_messages(world.channel)
        if any(":hand" in b["custom_id"] or ":join" in b["custom_id"] for b in m.buttons)
    ]
    assert boards, "no board in the channel"
    return boards[-1]


def _public_lines(world: World) -> list[str]:
    return [m.content for m in world.fake.channel_messages(world.channel) if m.content]


def _hands(world: World, user: FakeUser, locale: str) -> list[FakeMessage]:
    return [m for m in world.fake.ephemeral_messages(user) if HAND_WORDS[locale] in m.content]


async def _move(world: World, user: FakeUser, hand: FakeMessage) -> Any:
    """Whatever the deal gave: the first playable card, else Draw (both make a public line)."""
    play = next((b for b in hand.buttons if ":play:" in b["custom_id"]), None)
    if play is not None:
        return await (await world.fake.click(user, hand, play["custom_id"])).reply()
    if hand.selects:
        select = hand.selects[0]
        return await (
            await world.fake.select(user, hand, select["custom_id"], [select["options"][0]["value"]])
        ).reply()
    draw = next(b for b in hand.buttons if b["custom_id"].endswith(":draw"))
    return await (await world.fake.click(user, hand, draw["custom_id"])).reply()


async def test_each_player_reads_their_language_and_the_table_the_servers(
    world: World,
    catalogues: Writer,  # noqa: F811
) -> None:
    catalogues("es", SPANISH)
    catalogues("de", GERMAN)
    catalogues("fr", FRENCH)
    world.guild.locale = "es-ES"
    german, french = world.alice, world.bob
    german.locale, french.locale = "de", "fr"

    opened = await world.run(german, "new")
    assert not opened.ephemeral
    assert opened.embeds[0]["title"].startswith("Ocho loco — classic"), opened.embeds[0]["title"]
    assert opened.buttons[0]["label"] == "Sentarse"

    seated = await world.run(french, "join")
    assert seated.ephemeral and seated.content == "Tu es assis. L'hôte lance la partie."

    started = await world.run(german, "start")
    assert started.ephemeral and "Das Spiel hat begonnen." in started.content
    assert HAND_WORDS["de"] in started.content
    await world.settle()

    # The French player opens their hand from the (Spanish) board.
    board = _board(world)
    assert any(b["label"] == "Mi mano" for b in board.buttons)
    mine = await (await world.fake.click(french, board, label="Mi mano")).reply()
    assert mine.ephemeral and HAND_WORDS["fr"] in mine.content, mine.content

    # Whoever waits is refused in their own language; the one to move moves.
    snapshot = await world.snapshot()
    to_move, waiting = (german, french) if snapshot.seat_of(german.id).to_act else (french, german)
    refused = await world.run(waiting, "draw")
    assert refused.ephemeral
    assert refused.content.startswith(
        "Du bist nicht am Zug." if waiting is german else "Ce n'est pas à toi de jouer."
    )
    locale = "de" if to_move is german else "fr"
    hand = _hands(world, to_move, locale)[-1]
    answer = await _move(world, to_move, hand)
    assert answer.ephemeral
    await world.settle()

    lines = "\n".join(_public_lines(world))
    assert "La partida ha empezado" in lines and "Ronda 1 repartida" in lines
    assert " jugó " in lines or " robó " in lines, lines
    assert not any(word in lines for word in ENGLISH_PUBLIC), lines
    assert not any(word in lines for word in PRIVATE_WORDS), lines
    title = _board(world).embeds[0]["title"]
    assert title.startswith("Ocho loco — classic · ronda 1"), title

    # Each hand message, refreshed after the move, is still in its owner's language.
    for user, code in ((german, "de"), (french, "fr")):
        hands = _hands(world, user, code)
        assert hands, f"{user.name} has no hand in {code}"
        assert not any("Your hand" in m.content for m in world.fake.ephemeral_messages(user))


async def test_a_server_chooses_the_language_of_its_tables(world: World, catalogues: Writer) -> None:  # noqa: F811
    catalogues("es", SPANISH)
    catalogues("fr", {"Crazy Eights — {preset}": "Huit américain — {preset}"})
    world.guild.locale = "es-ES"
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=int(discord.Permissions(manage_guild=True).value))
    saved = await world.run(admin, "settings", language="fr")
    assert saved.ephemeral
    opened = await world.run(world.alice, "new")
    assert opened.embeds[0]["title"] == "Huit américain — classic"  # the choice, over Discord's Spanish
    await world.run(world.alice, "end")

    back = await world.run(admin, "settings", language="auto")
    assert back.ephemeral
    again = await world.run(world.alice, "new")
    assert again.embeds[0]["title"] == "Ocho loco — classic"  # Discord's server language again
