"""Issue 28 end to end: a German player and a French player at a server whose language is Spanish each read
their own messages (replies, hands, refusals) in their language, while the board and the public lines are
Spanish. The catalogues are the test's own (a few known words, tests/i18n/fixtures.py), so what is checked is
the choice of language, whatever the translators wrote."""

from __future__ import annotations

import asyncio

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
SEED = 1
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


async def _ready(world: World) -> None:
    """Wait for the bot's start-up art: the card emojis' pictures (drawn in a worker thread, seconds of CPU
    when a test process has not drawn them yet) and the sprites every board picture shares. A round dealt
    meanwhile waits for its first picture behind that work, which under load (``pytest -n 4`` on two cores)
    took longer than ``settle`` allows: "the bot did not settle". (The uploads are not waited for: cards are
    text until then, which this test does not look at.)"""
    assert world.bot is not None
    await asyncio.to_thread(list, world.bot.card_emojis.art)  # drawn, or read back from the art cache
    await asyncio.wrap_future(world.bot.board_pictures.warm())


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
    await _ready(world)
    # A deal where the German host leads (left of the dealer) with a card to play: no player is drawn for by
    # the referee before the checks below, and the move is a play.
    world.service.seed_deals(SEED)

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

    # The French player waits and is refused in French; the German player plays a card.
    snapshot = await world.snapshot()
    assert snapshot.seat_of(german.id).to_act and not snapshot.seat_of(french.id).to_act
    refused = await world.run(french, "draw")
    assert refused.ephemeral and refused.content.startswith("Ce n'est pas à toi de jouer."), refused.content
    hand = _hands(world, german, "de")[-1]
    play = next(b for b in hand.buttons if ":play:" in b["custom_id"])
    answer = await (await world.fake.click(german, hand, play["custom_id"])).reply()
    assert answer.ephemeral
    await world.settle()

    lines = "\n".join(_public_lines(world))
    assert "La partida ha empezado" in lines and "Ronda 1 repartida" in lines
    assert " jugó " in lines and " robó " not in lines, lines
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
