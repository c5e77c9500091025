"""crazier-abilities with its faces (issue 25): the board picture's input built from the table's public
snapshot (hand sizes, never a hand), the picture through ``Appearance`` and the server's switch, and the card
emojis beside the text in the hand, its selects, the board and the public lines (plain text without them)."""

from __future__ import annotations

import re
from dataclasses import replace

import discord

from bot.engine.crazier import DECK, CrazierMatch
from bot.service import crazier
from bot.service.models import CardDisplay, TableEvent, TableSnapshot
from bot.ui import render
from bot.ui.appearance import Appearance
from bot.ui.art.board import BoardRenderer
from bot.ui.art.emoji_set import CRAZIER_KEYS, emoji_name
from bot.ui.controls import hand_view
from bot.ui.crazier_picture import crazier_board_of
from bot.ui.faces import TEXT, CardFaces
from tests.ui.snapshots import seat, snapshot
from tests.ui.test_crazier import HANDS, NAMES, hand_of, table

EMOJI = re.compile(r"<:(e8z1_\w+):\d+>")
FACES = CardFaces(
    {key: discord.PartialEmoji(name=emoji_name(key), id=9000 + i) for i, key in enumerate(CRAZIER_KEYS)}
)


def public_snap(match: CrazierMatch, **changes: object) -> TableSnapshot:
    """The snapshot the service builds: each seat's hand size, its cards in play in ``crazier``."""
    rnd = match.round
    seats = tuple(
        seat(i, name, 100 + i, to_act=i in rnd.acting, card_count=len(rnd.hands[i]))
        for i, name in enumerate(NAMES[: match.num_seats])
    )
    values: dict[str, object] = {
        "preset": "crazier-abilities",
        "seats": seats,
        "target_card": rnd.top(),
        "stock_size": len(rnd.draw),
        "recent": (),
        "crazier": crazier.board(match),
    }
    values.update(changes)
    return snapshot(**values)


def test_the_picture_is_built_from_public_data_with_every_seats_cards_in_play() -> None:
    match = table(HANDS, "AB", [["5G"], [], ["JB", "6P"]])
    board = crazier_board_of(public_snap(match))
    assert board is not None
    rnd = match.round
    assert board.top_card == "AB" and board.follow == ("B", "G") and board.named_colour is None
    assert board.draw_pile == len(rnd.draw)
    assert board.discard_pile == len(rnd.discard) == 1
    assert [s.in_play for s in board.seats] == [("5G",), (), ("JB", "6P")]
    assert [s.hand_size for s in board.seats] == [len(hand) for hand in rnd.hands] == [8, 7, 7]
    assert [s.to_act for s in board.seats] == [True, False, False]
    # No card of any hand is in it: only sizes.
    held = {card for hand in rnd.hands for card in hand}
    assert held and not any(card in repr(board) for card in held)


def test_an_eight_on_top_follows_the_colour_named_and_a_lost_player_is_out() -> None:
    match = table(HANDS, "AB")
    rnd = match.round
    rnd.apply(
        next(m for m in rnd.legal_actions(0) if m.kind == "discard" and m.card == "8P" and m.colour == "O")
    )
    snap = public_snap(match)
    # Cleo has lost: her hand went to the discard pile.
    alive = (True, True, False)
    assert snap.crazier is not None
    lost = replace(snap, crazier=replace(snap.crazier, alive=alive))
    lost = replace(lost, seats=(*lost.seats[:2], replace(lost.seats[2], card_count=0)))
    board = crazier_board_of(lost)
    assert board is not None
    assert board.top_card == "8P" and board.named_colour == "O" and board.follow == ("O",)
    assert [s.out for s in board.seats] == [False, False, True]
    assert board.discard_pile == len(DECK) - board.draw_pile - 7 - 7  # Cleo's cards are in it now


def test_between_games_the_winner_is_shown_and_nobody_is_to_move() -> None:
    match = table(HANDS, "AB")
    snap = public_snap(match, phase="between_rounds")
    snap = replace(
        snap, seats=tuple(replace(s, last_round_score=0 if s.position == 1 else 7) for s in snap.seats)
    )
    board = crazier_board_of(snap)
    assert board is not None and board.game_over
    assert [s.won for s in board.seats] == [False, True, False]
    assert not any(s.to_act for s in board.seats)
    # The lobby and a closed table have no picture; neither has a table of the standard game.
    assert crazier_board_of(public_snap(match, phase="lobby")) is None
    assert crazier_board_of(snapshot()) is None


async def test_the_appearance_draws_the_crazier_picture_unless_the_server_turned_it_off() -> None:
    snap = public_snap(table(HANDS, "AB", [["5G"], [], []]))
    appearance = Appearance(pictures=BoardRenderer())
    picture = await appearance.picture(snap)
    assert picture is not None and picture.png.startswith(b"\x89PNG")
    assert picture.alt_text.startswith("Crazier Eights table, game 1.")
    assert "Angel of Hope (5G)" in picture.alt_text
    assert picture.key == appearance.picture_key(snap)
    appearance.set_switches(snap.guild_id, CardDisplay(board_picture=False))
    assert await appearance.picture(snap) is None and appearance.picture_key(snap) is None


def test_the_hand_and_its_selects_carry_the_crazier_emojis() -> None:
    view = hand_of(table(HANDS, "AB", [[], ["6B"], []]), 0)
    content = render.hand_content(view, faces=FACES)
    assert len(content) <= 2000
    shown = set(EMOJI.findall(content))
    assert {emoji_name("z" + card) for card in HANDS[0]} <= shown
    assert emoji_name("zAB") in shown and emoji_name("zcB") in shown  # the top card, the colour to follow
    assert "9B Death (blue ☾) — Destroy a card in play" in content  # the text stays
    controls = hand_view(view, FACES)
    assert controls is not None
    options = [o for row in controls.to_components() for c in row["components"] for o in c.get("options", [])]
    assert options
    for option in options:
        assert option["emoji"]["name"] == emoji_name("z" + option["value"].split("/")[0]), option
        assert option["label"]


def test_without_emojis_the_hand_is_plain_text() -> None:
    view = hand_of(table(HANDS, "AB", [[], ["6B"], []]), 0)
    assert "<:" not in render.hand_content(view, faces=TEXT)
    controls = hand_view(view, TEXT)
    assert controls is not None
    options = [o for row in controls.to_components() for c in row["components"] for o in c.get("options", [])]
    assert options and not any("emoji" in o for o in options)


def test_a_big_hand_with_emojis_stays_within_the_limits() -> None:
    match = table(HANDS, "AB", [[], ["6B"], []])
    match.round.hands[0] += list(match.round.draw[:30])
    del match.round.draw[:30]
    content = render.hand_content(hand_of(match, 0), faces=FACES)
    assert len(content) <= 2000
    assert not re.search(r"<:[^>]*$", content)  # no emoji cut in half


def test_the_board_and_the_lines_carry_the_crazier_emojis() -> None:
    snap = public_snap(table(HANDS, "AB", [["5G"], [], ["JB", "6P"]]))
    embed = render.board_embed(snap, FACES)
    assert len(embed) <= 6000
    fields = {f.name: f.value for f in embed.fields}
    top = str(fields["Top card"])
    assert EMOJI.findall(top) == [emoji_name("zAB"), emoji_name("zcB"), emoji_name("zcG")]
    assert "AB (blue ☾/green ☥)" in top and "blue" in top and "green" in top
    assert EMOJI.findall(str(fields["In play — Cleo"])) == [emoji_name("zJB"), emoji_name("z6P")]
    assert "**Devious Dragon**" in str(fields["In play — Cleo"])
    events = [
        TableEvent("played", 0, {"card": "9B", "name": "Death", "kind": "event", "target": "6P"}, "engine"),
        TableEvent("destroyed", 2, {"card": "6P", "by": "9B"}, "engine"),
        TableEvent("discarded", 1, {"card": "8B", "colour": "G"}, "engine"),
    ]
    lines = render.event_lines(events, snap, FACES)
    assert EMOJI.findall(lines[0]) == [emoji_name("z9B"), emoji_name("z6P")]
    assert "Ana played" in lines[0] and "Death" in lines[0] and "Castle is destroyed" in lines[0]
    assert EMOJI.findall(lines[1]) == [emoji_name("z8B"), emoji_name("zcG")] and "named" in lines[1]
    # Without emojis: the same words, no markup.
    assert "<:" not in "\n".join(render.event_lines(events, snap, TEXT))
    assert "<:" not in "\n".join(str(f.value) for f in render.board_embed(snap, TEXT).fields)
