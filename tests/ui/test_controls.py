"""The table's persistent components: custom ids, and layouts within Discord's limits for any hand."""

from __future__ import annotations

import gc
import weakref
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.engine import card_code
from bot.engine.cards import STANDARD_DECK
from bot.ui.controls import (
    BUTTON_TEMPLATE,
    COG_NAME,
    SELECT_TEMPLATE,
    Control,
    TableButton,
    TableSelect,
    board_view,
    hand_view,
)
from tests.ui.snapshots import hand, seat, snapshot, to_act

ALL_CODES = [card_code(c) for c in STANDARD_DECK]


def rows(view: discord.ui.View | None) -> list[list[dict[str, Any]]]:
    assert view is not None
    return [row["components"] for row in view.to_components()]


def test_control_ids_round_trip_and_carry_the_round_token() -> None:
    control = Control(42, "42:3", "play", "10S")
    text = control.custom_id()
    assert text == "e8:42:42.3:play:10S"
    assert Control.parse(text) == control
    assert Control.parse(Control(42, "", "join").custom_id()) == Control(42, "", "join")
    select = Control(42, "42:3", "play", "1").custom_id(select=True)
    assert select.startswith("e8s:") and Control.parse(select) == Control(42, "42:3", "play", "1")
    # Buttons and selects never match each other's template, so one click is handled once.
    assert BUTTON_TEMPLATE.fullmatch(select) is None and SELECT_TEMPLATE.fullmatch(text) is None
    assert Control.parse("eights-lb:1:wins:1:2") is None
    with pytest.raises(ValueError):
        Control(1, "bad token!", "play").custom_id()
    longest = Control(2**63, f"{2**63}:999", "catch", "6").custom_id()
    assert len(longest) <= 100


def test_the_board_buttons_follow_the_phase() -> None:
    lobby = rows(board_view(snapshot(phase="lobby", status="lobby", round_token="7:0")))
    assert [b["label"] for b in lobby[0]] == ["Join", "Leave", "Add CPU", "Start", "House rules"]
    assert lobby[0][0]["custom_id"] == "e8:7::join"
    assert lobby[0][4]["custom_id"] == "e8:7::house"
    playing = rows(board_view(snapshot()))
    assert [b["label"] for b in playing[0]] == ["My hand", "Leave"]
    taken = snapshot(seats=(seat(0, "alice", 1), seat(1, "bob", 2, taken_over=True, is_cpu=True)))
    assert "Take my seat back" in [b["label"] for b in rows(board_view(taken))[0]]
    between = rows(board_view(snapshot(phase="between_rounds")))
    assert [b["label"] for b in between[0]] == ["Next round", "My hand"]
    assert between[0][0]["custom_id"] == "e8:7:7.1:next"
    assert board_view(snapshot(phase="finished", status="finished")) is None


def test_a_few_playable_cards_become_buttons() -> None:
    view = hand(["3C", "9C", "KD", "8S", "QS"], {"9C", "8S", "QS"})
    layout = rows(hand_view(view))
    assert [b["label"] for b in layout[0]] == ["9♣", "8♠", "Q♠"]
    assert layout[0][0]["custom_id"] == "e8:7:7.1:play:9C"
    assert [b["label"] for b in layout[1]] == ["Draw"]


def test_any_hand_size_stays_playable_within_discord_limits() -> None:
    # Two decks, every card playable (52 distinct codes): three selects of at most 25, all within 5 rows.
    codes = ALL_CODES + ALL_CODES
    view = hand(codes, set(codes), can_pass=True, can_call_last=True, catch_targets=(1, 2))
    layout = rows(hand_view(view))
    assert len(layout) <= 5
    selects = [row[0] for row in layout if row[0]["type"] == 3]
    assert [len(s["options"]) for s in selects] == [25, 25, 2]
    offered = [o["value"] for s in selects for o in s["options"]]
    assert sorted(offered) == sorted(ALL_CODES)
    assert "(×2)" in selects[0]["options"][0]["label"]
    buttons = [b["label"] for row in layout for b in row if b["type"] == 2]
    assert buttons == ["Draw", "Pass", "Last card!", "Catch bob", "Catch CPU 1"]
    assert all(len(row) <= 5 for row in layout)
    ids = [c["custom_id"] for row in layout for c in row]
    assert len(ids) == len(set(ids))


def test_after_a_wild_only_the_suit_picker_is_offered() -> None:
    view = hand(["3C"], set(), must_name_suit=True, can_draw=True)
    layout = rows(hand_view(view))
    assert len(layout) == 1
    assert [b["label"] for b in layout[0]] == ["♣ Clubs", "♦ Diamonds", "♥ Hearts", "♠ Spades"]
    assert layout[0][2]["custom_id"] == "e8:7:7.1:suit:H"


def test_no_controls_off_turn_or_for_a_seat_a_cpu_plays() -> None:
    assert hand_view(hand(["3C"], set(), snap=to_act(snapshot(), 1), your_turn=False, can_draw=False)) is None
    assert hand_view(hand(["3C"], {"3C"}, taken_over=True)) is None


async def test_dynamic_items_rebuild_from_their_custom_id() -> None:
    button: discord.ui.Button[Any] = discord.ui.Button(label="Draw", custom_id="e8:7:7.1:draw")
    match = BUTTON_TEMPLATE.fullmatch(button.custom_id or "")
    assert match is not None
    item = await TableButton.from_custom_id(None, button, match)  # type: ignore[arg-type]
    assert item.control == Control(7, "7:1", "draw")
    select: discord.ui.Select[Any] = discord.ui.Select(
        custom_id="e8s:7:7.1:play:0", options=[discord.SelectOption(label="K♥", value="KH")]
    )
    match = SELECT_TEMPLATE.fullmatch(select.custom_id)
    assert match is not None
    chosen = await TableSelect.from_custom_id(None, select, match)  # type: ignore[arg-type]
    assert chosen.control == Control(7, "7:1", "play", "0")
    with pytest.raises(TypeError):
        await TableButton.from_custom_id(None, select, match)  # type: ignore[arg-type]


async def test_once_a_click_is_handled_the_view_discord_rebuilt_for_it_is_let_go() -> None:
    """discord.py rebuilds the clicked message's whole view (``View.from_message``) to find the dynamic item;
    a view and its items refer to each other, so each click's waited for the cyclic garbage collector."""
    handled: list[Control] = []

    class Controls(commands.Cog, name=COG_NAME):
        async def on_control(
            self, interaction: discord.Interaction, control: Control, values: list[str]
        ) -> None:
            assert interaction is clicked and values == []
            handled.append(control)

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    await bot.add_cog(Controls())
    clicked = SimpleNamespace(client=bot, guild_id=None, locale=None, guild_locale=None)
    item = TableButton.make(Control(7, "7:1", "draw"), "Draw")
    view = discord.ui.View(timeout=None)
    view.add_item(item)
    freed = weakref.ref(view)
    gc.collect()
    gc.disable()
    try:
        await item.callback(clicked)  # type: ignore[arg-type]
        del view
        assert freed() is None
    finally:
        gc.enable()
    assert handled == [Control(7, "7:1", "draw")]
