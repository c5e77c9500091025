"""How a replay step of a crazier-abilities match looks (issue 27): this game's board fields, the viewer's
hand as this game's cards, and what only the viewer learned in the step (cards drawn, the card an Elven
Princess looked at) in a field of its own; a step of the standard game shows no such field."""

from __future__ import annotations

from dataclasses import replace

import discord

from bot.engine import card_code
from bot.engine.cards import STANDARD_DECK
from bot.engine.crazier import DECK, CrazierMatch, CrazierRound, get_preset
from bot.i18n import _, use_locale
from bot.service import crazier
from bot.service.models import TableEvent
from bot.service.replays import ReplayStep
from bot.ui import render
from bot.ui.art.emoji_set import CRAZIER_KEYS, all_keys, emoji_name
from bot.ui.faces import CardFaces
from bot.ui.replays import replay_embed
from tests.fakediscord import limits
from tests.ui.snapshots import seat, snapshot
from tests.ui.test_crazier import snap_of, table

# The bot's card emojis as a server shows them (application emoji ids are 19-digit snowflakes).
FACES = CardFaces(
    {
        key: discord.PartialEmoji(name=emoji_name(key), id=1_300_000_000_000_000_000 + i)
        for i, key in enumerate([*all_keys(), *CRAZIER_KEYS])
    }
)

HANDS = [
    ["9B", "10B", "2O", "KO", "5O", "QP", "7P"],
    ["AG", "4G", "6G", "8B", "JG", "QG", "KG"],
]


def step(**changes: object) -> ReplayStep:
    fields: dict[str, object] = {
        "table_id": 7,
        "index": 3,
        "count": 10,
        "round_number": 1,
        "next_round_index": None,
        "lines": (TableEvent("looked", 1, {"count": 1}, "engine"),),
        "snapshot": snap_of(table(HANDS, "3G", in_play=[[], ["4P"]])),
        "hand": tuple(HANDS[1]),
        "private": (
            TableEvent("looked_card", 1, {"card": "9P"}, "engine"),
            TableEvent("drew_cards", 1, {"cards": ["KG"]}, "engine"),
        ),
        "version": 9,
    }
    fields.update(changes)
    return ReplayStep(**fields)  # type: ignore[arg-type]


def fields(embed: object) -> dict[str, str]:
    return {str(f.name): str(f.value) for f in embed.fields}  # type: ignore[attr-defined]


def test_a_crazier_step_shows_its_board_the_viewers_cards_and_what_only_they_saw() -> None:
    shown = fields(replay_embed(step()))
    assert "3G" in shown["Top card"] and "colour to follow" in shown["Top card"]
    assert "Elven Princess" in shown["In play — Ben"]
    hand = shown["Your hand then (7)"]
    assert "4G Elven Princess (green ☥)" in hand and "8B (blue ☾)" in hand
    assert not any(card in hand for card in HANDS[0])
    only = shown["Only you saw then"]
    assert "9P" in only and "You drew KG" in only


def test_an_onlooker_and_a_standard_step_have_no_private_field() -> None:
    assert "Only you saw then" not in fields(replay_embed(step(hand=None, private=())))
    standard = step(snapshot=snapshot(), hand=("KH",), private=(TableEvent("drew_cards", 1, {"cards": [5]}),))
    shown = fields(replay_embed(standard))
    assert "Only you saw then" not in shown and shown["Your hand then (1)"] == "K♥"


def test_a_hand_too_long_for_its_emojis_is_shown_whole_as_text() -> None:
    # 40 cards (two decks) with emojis pass 1,024 characters: the field was cut inside an emoji's markup.
    two_decks = sorted([card_code(c) for c in STANDARD_DECK] * 2)
    codes = tuple(two_decks[::2][:20] + two_decks[1::2][:20])
    two = (seat(0, "alice", 1001, to_act=True, card_count=40), seat(1, "bob", 1002))
    shown = fields(replay_embed(step(snapshot=snapshot(seats=two), hand=codes, private=()), FACES))
    assert shown["Your hand then (40)"] == " ".join(render.label(code) for code in codes)


def test_a_crazier_hand_too_long_for_a_field_says_how_many_cards_are_left_out() -> None:
    # All but four cards of the deck, a line each, pass 1,024 characters even as text: whole cards, counted.
    hand = tuple(c for c in DECK if c not in ("3G", "4P", "AG", "9P"))
    value = fields(replay_embed(step(hand=hand), FACES))[f"Your hand then ({len(hand)})"]
    lines = value.split("\n")
    assert len(value) <= 1024 and "<:" not in value
    assert lines[-1] == f"… and {len(hand) - len(lines) + 1} more cards"
    assert all(line.startswith(code + " ") for line, code in zip(lines[:-1], hand, strict=False))


def worst_crazier_step() -> tuple[ReplayStep, discord.Embed]:
    """crazier-abilities, six players with 32-character names, 20 cards in play (the viewer controls the
    four Mordreds), the viewer holding 20 cards, emojis on, German: the step and its board."""
    n = 6
    match = CrazierMatch.new(get_preset("crazier-abilities"), n, seed=1)
    rnd = CrazierRound.new(match.rules, n, seed=1, first=0)
    match.round = rnd
    for pile in [rnd.draw, *rnd.hands, rnd.in_play[0]]:
        pile.clear()
    mordreds = ["QB", "QG", "QO", "QP"]
    others = [c for c in DECK if c[:-1] in ("4", "5", "6", "J")]
    rnd.in_play[0].extend(mordreds)
    for i, card in enumerate(others):
        rnd.in_play[1 + i % (n - 1)].append(card)
    rest = [c for c in DECK if c not in mordreds and c not in others and c != rnd.discard[-1]]
    rnd.hands[0].extend(rest[:20])
    for p in range(1, n):
        rnd.hands[p].append(rest[20 + p - 1])
    rnd.draw.extend(rest[20 + n - 1 :])
    names = [f"Alexandra the Magnificent Test{k}" for k in range(n)]
    recent = tuple(
        TableEvent("discarded", k % n, {"card": c, "colour": "B"}, "engine")
        for k, c in enumerate(("8B", "8G", "8O", "8P", "9B", "9G"))
    )
    seats = tuple(seat(k, names[k], 100 + k, to_act=k == 0, card_count=len(rnd.hands[k])) for k in range(n))
    snap = snapshot(
        preset="crazier-abilities",
        seats=seats,
        max_seats=6,
        target_card=rnd.top(),
        stock_size=len(rnd.draw),
        recent=recent,
        crazier=crazier.board(match),
    )
    worst = step(
        snapshot=snap,
        lines=(TableEvent("drew", 0, {"count": 1}, "engine"),),
        hand=tuple(rnd.hands[0]),
        private=(TableEvent("drew_cards", 0, {"cards": [rnd.hands[0][-1]]}, "engine"),),
    )
    with use_locale("de"):
        return worst, render.board_embed(snap, FACES)


def test_a_crazier_replay_step_stays_within_discords_limits() -> None:
    # The board fits; the replay's own fields came on top unchecked: 6,122 characters, refused (50035).
    worst, board = worst_crazier_step()
    assert len(board) <= limits.MAX_EMBED_TOTAL
    with use_locale("de"):
        embed = replay_embed(worst, FACES)
        shown = fields(embed)
        hand = shown[_("Your hand then ({count})", count=20)]
        this_step = _("This step")
    assert not limits.check_message({"embeds": [embed.to_dict()]}, creating=True)
    assert this_step in shown and len(hand.split("\n")) == 20


def test_a_replay_step_too_long_even_as_text_shortens_the_boards_fields_first() -> None:
    # The step's lines, a 40-card hand and 25 cards drawn: over 6,000 even as text. The board's fields give
    # way, line by line, and say so; the step, the viewer's cards and what they drew stay whole.
    worst, _board = worst_crazier_step()
    lines = tuple(TableEvent("drew", k % 6, {"count": 1}, "engine") for k in range(40))
    hand = tuple(c for c in DECK if c[:-1] not in ("Q", "J", "4"))
    drew = (TableEvent("drew_cards", 0, {"cards": list(hand[:25])}, "engine"),)
    with use_locale("de"):
        embed = replay_embed(replace(worst, lines=lines, hand=hand, private=drew), FACES)
        ours = (
            _("This step"),
            _("Your hand then ({count})", count=40),
            _("Only you saw then"),
        )
    assert not limits.check_message({"embeds": [embed.to_dict()]}, creating=True)
    shortened = [f.name for f in embed.fields if (f.value or "").endswith("\n…")]
    assert shortened and not set(shortened) & set(ours)
