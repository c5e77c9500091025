"""Cards written with their emojis: beside the text, within Discord's limits, as text when too long."""

from __future__ import annotations

import re
from dataclasses import replace

import discord

from bot.engine import card_code, card_label
from bot.engine.cards import STANDARD_DECK
from bot.service import TableEvent
from bot.ui import render
from bot.ui.art.emoji_set import all_keys, emoji_name
from bot.ui.controls import hand_view
from bot.ui.faces import TEXT, CardFaces
from tests.ui.snapshots import hand, snapshot

FACES = CardFaces(
    {key: discord.PartialEmoji(name=emoji_name(key), id=10**17 + i) for i, key in enumerate(all_keys())}
)
MARKUP = re.compile(r"<:(e8f\d+_\w+):(\d+)>")


def test_text_faces_write_labels_only() -> None:
    assert TEXT.card("KH") == "K♥" and TEXT.suit("H") == "♥ Hearts"
    assert TEXT.card_emoji("KH") is None and not TEXT.with_emojis


def test_emoji_faces_keep_the_text_beside_the_emoji() -> None:
    assert FACES.card("kh") == f"<:e8f2_KH:{FACES.emojis['KH'].id}> K♥"
    assert FACES.suit("S") == f"<:e8f2_sS:{FACES.emojis['sS'].id}> Spades"
    assert FACES.cards(["10D", "2C"]).count("<:") == 2


def test_public_lines_board_and_ranking_show_emojis() -> None:
    board = replace(snapshot(), target_card="8H", declared_suit="C")
    events = [
        TableEvent("played", 0, {"card": "8H"}, "engine"),
        TableEvent("suit_named", 0, {"suit": "C"}, "engine"),
    ]
    line, _ = render.turn_line(events, board, hand_is_fresh=True, faces=FACES)
    assert line is not None
    assert MARKUP.findall(line) == [
        ("e8f2_8H", str(FACES.emojis["8H"].id)),
        ("e8f2_sC", str(FACES.emojis["sC"].id)),
    ]
    assert "8♥" in line and "Clubs" in line
    embed = render.board_embed(board, FACES).to_dict()
    target = next(f["value"] for f in embed["fields"] if f["name"] == "Target")
    assert "<:e8f2_8H:" in target and "<:e8f2_sC:" in target and "8♥" in target
    finished = replace(board, phase="finished", status="finished")
    assert "<:e8f2_8H:" in render.final_ranking_text(finished, FACES)
    # Text faces: exactly the old wording.
    assert (
        render.turn_line(events, board, hand_is_fresh=True)[0]
        == render.turn_line(events, board, hand_is_fresh=True, faces=TEXT)[0]
    )
    assert "<:" not in str(render.board_embed(board).to_dict())


def test_the_hand_shows_every_card_with_its_emoji() -> None:
    view = hand(["KH", "9S", "8C"], {"KH", "8C"})
    content = render.hand_content(view, faces=FACES)
    for code in ("KH", "9S", "8C"):
        assert f"<:e8f2_{code}:" in content
    assert "**K♥**" in content and "9♠" in content


def test_a_hand_too_long_for_emojis_is_written_as_text() -> None:
    everything = [card_code(card) for card in STANDARD_DECK]
    view = hand(everything, set(everything))
    content = render.hand_content(view, faces=FACES)
    assert len(content) <= render.MAX_CONTENT
    assert "<:" not in content
    assert all(card_label(card) in content for card in STANDARD_DECK)


def items(view: discord.ui.View | None) -> list[discord.ui.Item[discord.ui.View]]:
    # The table's controls are DynamicItems around the discord.py button or select.
    assert view is not None
    return [getattr(child, "item", child) for child in view.children]


def test_buttons_selects_and_suit_picker_carry_emojis() -> None:
    buttons = hand_view(hand(["KH", "9S", "8C"], {"KH", "8C"}), FACES)
    assert buttons is not None
    plays = [
        item
        for item in items(buttons)
        if isinstance(item, discord.ui.Button) and ":play:" in str(item.custom_id)
    ]
    assert {str(item.emoji) for item in plays} == {str(FACES.emojis["KH"]), str(FACES.emojis["8C"])}
    assert {item.label for item in plays} == {"K♥", "8♣"}
    many = [card_code(card) for card in STANDARD_DECK[:20]]
    selects = hand_view(hand(many, set(many)), FACES)
    assert selects is not None
    options = [o for item in items(selects) if isinstance(item, discord.ui.Select) for o in item.options]
    assert options and all(o.emoji is not None and o.emoji.name == emoji_name(o.value) for o in options)
    picker = hand_view(hand(["KH"], set(), must_name_suit=True), FACES)
    assert picker is not None
    suits = [item for item in items(picker) if isinstance(item, discord.ui.Button)]
    assert [str(item.emoji) for item in suits] == [str(FACES.emojis[f"s{s}"]) for s in "CDHS"]
    text_only = hand_view(hand(["KH"], {"KH"}))
    assert text_only is not None
    assert all(getattr(item, "emoji", None) is None for item in items(text_only))


def test_last_plays_never_cut_an_emoji_in_half() -> None:
    recent = tuple(TableEvent("played", 0, {"card": "10H"}, "engine") for _ in range(40))
    board = replace(
        snapshot(), recent=recent, seats=tuple(replace(s, name="n" * 150) for s in snapshot().seats)
    )
    embed = render.board_embed(board, FACES).to_dict()
    value = next(f["value"] for f in embed["fields"] if f["name"] == "Last plays")
    assert len(value) <= render.MAX_FIELD
    assert value.count("<:") == value.count(">")
