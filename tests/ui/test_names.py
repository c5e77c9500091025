"""Names people chose are shown as what they say: never a live mention, never markup, and a right-to-left
override reverses the name only. One test per place a name is shown, through its renderer."""

from __future__ import annotations

from dataclasses import replace

import discord
import pytest

from bot.service import RankingLine, SideLine, TableEvent
from bot.service.standings import PastMatch, Placing
from bot.ui import render
from bot.ui.art.board import alt_text
from bot.ui.controls import hand_view
from bot.ui.names import plain_name, shown_name
from bot.ui.standings import history_embed
from tests.ui.snapshots import ALICE, BOB, hand, seat, snapshot

FSI, PDI = "\u2068", "\u2069"
MEMBER = "<@123456789012345678>"  # another member's mention, as a display name
ROLE = "<@&234567890123456789>"
RLO = "\u202eevil"  # a right-to-left override, then text


def named(name: str, **changes: object) -> object:
    """The standard table with bob renamed."""
    base = snapshot(**changes)  # type: ignore[arg-type]
    seats = tuple(replace(s, name=name) if s.user_id == BOB else s for s in base.seats)
    return replace(base, seats=seats)


def embed_text(embed: discord.Embed) -> str:
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{field.name}: {field.value}" for field in embed.fields]
    return "\n".join(parts)


def assert_inert(text: str) -> None:
    """No live mention of a member or a role, and every right-to-left override closed within its name."""
    assert MEMBER not in text and ROLE not in text
    assert "<@123" not in text and "<@&" not in text
    for line in text.splitlines():
        if "\u202e" in line:
            start = line.index("\u202e")
            assert line.rfind(FSI, 0, start) != -1 and line.find(PDI, start) != -1, repr(line)


@pytest.mark.parametrize("name", [MEMBER, ROLE, RLO, "*bold* `code` @everyone"])
def test_the_helpers_neutralise_a_name(name: str) -> None:
    shown = shown_name(name)
    assert_inert(shown)
    assert "@everyone" not in shown and "*bold*" not in shown
    assert plain_name(RLO) == f"{FSI}{RLO}{PDI}"
    assert plain_name("alice") == "alice" and shown_name("alice") == "alice"  # plain names as typed
    # An isolate control in a name cannot close the isolate early.
    assert shown_name("\u2069\u202eevil") == f"{FSI}\u202eevil{PDI}"


def test_a_url_in_a_name_is_no_link() -> None:
    shown = shown_name("https://evil.example/free-nitro")
    assert "://" not in shown and shown.replace("\u200b", "") == "https://evil.example/free-nitro"
    board = embed_text(render.board_embed(named("see http://x.example", phase="lobby")))  # type: ignore[arg-type]
    assert "x.example" in board and "://" not in board


@pytest.mark.parametrize("name", [MEMBER, ROLE, RLO])
def test_the_board_and_its_lobby(name: str) -> None:
    assert_inert(embed_text(render.board_embed(named(name))))  # type: ignore[arg-type]
    lobby = replace(
        snapshot(phase="lobby", status="lobby", round_number=0, deadline_kind="lobby"),
        seats=(seat(0, name, BOB), seat(1, "alice", ALICE, is_host=False)),
    )
    text = embed_text(render.board_embed(lobby))
    assert_inert(text)
    assert shown_name(name) in text  # the host, named in the description


@pytest.mark.parametrize("name", [MEMBER, ROLE, RLO])
def test_the_public_lines(name: str) -> None:
    snap = named(name)
    events = [
        TableEvent("played", 1, {"card": "9S"}, "engine"),
        TableEvent("joined", 1, {"name": name}, "service"),
        TableEvent("timed_out", 1, {"name": name}, "service"),
    ]
    lines = render.event_lines(events, snap)  # type: ignore[arg-type]
    assert len(lines) == 3
    for line in lines:
        assert_inert(line)
        assert shown_name(name) in line


@pytest.mark.parametrize("name", [MEMBER, ROLE, RLO])
def test_the_hands_catch_buttons(name: str) -> None:
    view = hand_view(hand(["3C"], set(), snap=named(name), can_draw=False, catch_targets=(1,)))  # type: ignore[arg-type]
    assert view is not None
    labels = [str(getattr(getattr(item, "item", item), "label", "")) for item in view.children]
    assert f"Catch {plain_name(name)}" in labels
    if name == RLO:  # a label shows no mentions (plain text), but it does reorder
        assert_inert("\n".join(labels))


@pytest.mark.parametrize("name", [MEMBER, ROLE, RLO])
def test_the_final_ranking_and_the_sides(name: str) -> None:
    ranking = (RankingLine(1, 1, name, 40, BOB), RankingLine(2, 0, "alice", 104, ALICE))
    snap = replace(
        named(name), phase="finished", status="finished", ranking=ranking, round_scores=((1, 2, 3),)
    )
    assert_inert(render.final_ranking_text(snap))  # type: ignore[arg-type]
    sides = (SideLine(1, (1, 3), (name, "carol"), 10), SideLine(2, (0, 2), ("alice", "CPU 1"), 30))
    assert_inert(render.final_ranking_text(replace(snap, side_ranking=sides)))  # type: ignore[arg-type]
    assert shown_name(name) in render.final_ranking_text(snap)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [MEMBER, ROLE, RLO])
def test_the_standings_scores_and_history(name: str) -> None:
    snap = replace(named(name), phase="between_rounds", round_scores=((12, 0, 3),), totals=(12, 0, 3))  # type: ignore[type-var]
    assert_inert(render.scores_text(snap))
    assert_inert(embed_text(render.board_embed(snap)))
    past = PastMatch(
        ranking=(Placing(1, name, None, 1, 0), Placing(0, "alice", ALICE, 2, 30)),
        table_id=7,
        channel_id=2,
        preset="classic",
        finished_at=1_700_000_000.0,
        rounds_played=1,
    )
    text = embed_text(history_embed([past]))
    assert_inert(text)
    assert shown_name(name) in text


@pytest.mark.parametrize("name", [MEMBER, ROLE, RLO])
def test_the_pictures_alt_text(name: str) -> None:
    text = alt_text(named(name))  # type: ignore[arg-type]
    assert plain_name(name) in text
    if name == RLO:  # an attachment's description shows no mentions, but it does reorder
        assert_inert(text)
