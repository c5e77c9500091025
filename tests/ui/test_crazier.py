"""crazier-abilities as the face shows it: the public lines telling each effect with what it did, the board's
fields, and the private hand's text and controls within Discord's limits."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.engine.crazier import DECK, CrazierMatch, CrazierRound, get_preset
from bot.i18n import _, use_locale
from bot.service import crazier
from bot.service.models import HandView, TableEvent, TableSnapshot
from bot.ui import render
from bot.ui.controls import hand_view
from tests.fakediscord import limits
from tests.ui.snapshots import seat, snapshot

NAMES = ["Ana", "Ben", "Cleo"]


def table(hands: list[list[str]], starter: str, in_play: list[list[str]] | None = None) -> CrazierMatch:
    """A match whose game is dealt from a stacked deck (``hands``, then ``starter``); ``in_play`` moved
    from the draw pile in front of each player."""
    match = CrazierMatch.new(get_preset("crazier-abilities"), len(hands), seed=1)
    used = {c for h in hands for c in h} | {starter}
    size = max(len(h) for h in hands)
    deck = [h[i] for i in range(7) for h in hands] + [starter] + [c for c in DECK if c not in used]
    assert size == 7
    rnd = CrazierRound.new(match.rules, len(hands), seed=1, first=0, deck=deck)
    for position, cards in enumerate(in_play or []):
        for card in cards:
            rnd.draw.remove(card)
            rnd.in_play[position].append(card)
    match.round = rnd
    return match


def snap_of(match: CrazierMatch) -> TableSnapshot:
    seats = tuple(seat(i, name, 100 + i, to_act=i in match.round.acting) for i, name in enumerate(NAMES))
    return snapshot(
        preset="crazier-abilities",
        seats=seats[: match.num_seats],
        target_card=match.round.top(),
        stock_size=len(match.round.draw),
        recent=(),
        crazier=crazier.board(match),
    )


def hand_of(match: CrazierMatch, position: int, names: list[str] = NAMES) -> HandView:
    snap = snap_of(match)
    view = crazier.hand(match, position, names[: match.num_seats], playing=True)
    return HandView(
        table_id=7,
        round_token="7:1:abc",
        position=position,
        cards=(),
        your_turn=position in match.round.acting,
        can_draw=False,
        can_pass=False,
        must_name_suit=False,
        can_call_last=False,
        catch_targets=(),
        taken_over=False,
        deadline=None,
        recent_private=(),
        snapshot=snap,
        crazier=view,
    )


HANDS = [
    ["9B", "10B", "2O", "KO", "5O", "QP", "8P"],
    ["AG", "4G", "6G", "8B", "JG", "QG", "KG"],
    ["AO", "4O", "6O", "7B", "JO", "3P", "KP"],
]


def ev(kind_: str, seat_: int | None, **data: Any) -> TableEvent:
    return TableEvent(kind_, seat_, data, "engine")


def test_every_effect_is_told_with_what_it_did_on_one_line() -> None:
    snap = snap_of(table(HANDS, "AB", [[], ["6B"], []]))
    events = [
        ev("played", 0, card="9B", name="Death", kind="event", target="6B"),
        ev("destroyed", 1, card="6B", by="9B"),
        ev("turn", 1, seats=[1], turn=2),
        ev("ability", 0, card="5O", name="Angel of Hope"),
        ev("drew", 1, count=1, by="5O"),
        ev("ability", 1, card="QG", name="Mordred"),
        ev("lost", 2, reason="QG", cards=12, in_play=0),
        ev("drew", 1, count=1, by=None),
        ev("discarded", 1, card="8B", colour="G"),
        ev("played", 1, card="2O", name="Forbidden Knowledge", kind="event", target=0),
        ev("draw_prevented", 0, count=1, by="2O"),
        ev("drew", 0, count=1, by="2O"),
    ]
    assert render.event_lines(events, snap) == [
        "Ana played Death: Ben's Castle is destroyed",
        "Angel of Hope: Ben draws a card",
        "Mordred: Cleo loses the game",
        "Ben drew 1 card",
        "Ben discarded 8B (blue ☾) and named green",
        "Ben played Forbidden Knowledge: Ana draws 1 card fewer (Castle); Ana draws a card",
    ]
    # The service's own events are told as for every preset.
    assert render.event_lines([TableEvent("started", None, {}, "service")], snap) == ["The game has started"]


def test_the_board_shows_the_top_card_the_draw_pile_and_the_cards_in_play() -> None:
    snap = snap_of(table(HANDS, "AB", [["5G"], [], ["JB", "6P"]]))
    text = "\n".join(f"{f.name}: {f.value}" for f in render.board_embed(snap).fields)
    assert "Top card: AB (blue ☾/green ☥) — colour to follow: blue/green" in text
    assert f"Draw pile: {snap.stock_size} cards" in text
    assert "In play — Ana: • **Angel of Hope** (5G): At the beginning of your turn" in text
    assert "**Devious Dragon** (JB)" in text and "**Castle** (6P)" in text


#: The 24 assets of the deck (Elven Princess, Angel of Hope, Castle, Devious Dragon, Mordred, King Arthur
#: in four colours): assets stay in play in front of their controller until destroyed.
ASSETS = [c for c in DECK if c[:-1] in ("4", "5", "6", "J", "Q", "K")]


def _crown(seat_: int, target: str, owner: int) -> list[TableEvent]:
    return [
        ev("played", seat_, card="10O", name="Crown of Kings", kind="event", target=target),
        ev("took_control", seat_, card=target, **{"from": owner}),
    ]


def _death(seat_: int, target: str, owner: int) -> list[TableEvent]:
    return [
        ev("played", seat_, card="9G", name="Death", kind="event", target=target),
        ev("destroyed", owner, card=target, by="9G"),
    ]


def _forbidden_knowledge() -> list[TableEvent]:  # halved by the target's Castle
    return [
        ev("played", 1, card="2O", name="Forbidden Knowledge", kind="event", target=0),
        ev("draw_prevented", 0, count=1, by="2O"),
        ev("drew", 0, count=1, by="2O"),
    ]


#: The last plays of a team game: a Resurrection, Forbidden Knowledge, Crowns of Kings taking control,
#: a Death: five long lines on the board.
TEAM_PLAYS = (
    ev("played", 5, card="7O", name="Resurrection", kind="event"),
    ev("resurrected", 5, moved="8P", top="8G", follow="G"),
    *_forbidden_knowledge(),
    *_crown(0, "4B", 1),
    *_death(3, "4B", 0),
    *_crown(2, "KB", 3),
    *_forbidden_knowledge(),
)
#: Names of 32 characters (Discord's longest display name): 31 of markdown and a Hebrew letter, escaped and
#: isolated (65 characters each as shown); and plain ones, nothing to escape.
MARKUP_NAMES = ["*_" * 15 + "*" + letter for letter in "אבגדהו"]
PLAIN_NAMES = [f"Maria Fernanda Gonçalves Silva {i}" for i in range(6)]


def team_board(
    names: list[str], *, taken_over: bool, recent: tuple[TableEvent, ...] = TEAM_PLAYS
) -> TableSnapshot:
    """A six-player team game (game 4 of the match) with every asset in play, four in front of each
    player, set directly on the round; ``taken_over``: everyone left the table and a CPU plays each seat."""
    assert all(len(name) == 32 for name in names)
    match = CrazierMatch.new(get_preset("crazier-abilities", teams=True), 6, seed=1)
    rnd = match.round
    for i, card in enumerate(a for a in ASSETS if a != rnd.top()):
        for pile in [rnd.draw, *rnd.hands]:
            if card in pile:
                pile.remove(card)
        rnd.in_play[i % 6].append(card)
    seats = tuple(
        seat(
            i,
            names[i],
            100 + i,
            is_host=False,
            to_act=i in rnd.acting,
            taken_over=taken_over,
            cpu_level="normal" if taken_over else None,
            card_count=11,
            total=45,
        )
        for i in range(6)
    )
    return snapshot(
        preset="crazier-abilities",
        seats=seats,
        target_card=rnd.top(),
        stock_size=len(rnd.draw),
        recent=recent,
        crazier=crazier.board(match),
        totals=(45,) * 6,
        round_scores=((5, 9, 7, 11, 6, 7),) * 3,
        round_number=4,
        target_score=1000,
    )


def unshortened(snap: TableSnapshot) -> discord.Embed:
    """The board as it would be with no total to keep within: every field whole."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render, "MAX_EMBED", 10**6)
        return render.board_embed(snap)


def shortened_fields(board: discord.Embed, whole: discord.Embed) -> list[str]:
    """The names of the fields ``board`` shortened from ``whole``, checking that the rest is ``whole``'s own
    (the title, who is to move, the footer, every other field) and that a shortened field dropped whole
    lines and says so: the last plays their oldest, "…" before the newest; any other its last, "…" after."""
    assert (board.title, board.description, board.footer.text) == (
        whole.title,
        whole.description,
        whole.footer.text,
    )
    assert [f.name for f in board.fields] == [f.name for f in whole.fields]
    shortened = []
    for field, full in zip(board.fields, whole.fields, strict=True):
        if field.value == full.value:
            continue
        shortened.append(str(field.name))
        lines, full_lines = str(field.value).split("\n"), str(full.value).split("\n")
        if field.name == _("Last plays"):
            assert lines[0] == "…" and 1 < len(lines) <= len(full_lines)
            assert lines[1:] == full_lines[len(full_lines) - len(lines) + 1 :]  # the newest, whole
        else:
            assert lines[-1] == "…" and 1 < len(lines) <= len(full_lines)
            assert lines[:-1] == full_lines[: len(lines) - 1]
    return shortened


def test_a_six_player_team_board_too_long_for_an_embed_drops_its_oldest_last_plays() -> None:
    """Discord refuses an embed of more than 6,000 characters in all (title, description, field names and
    values, footer; 400, 50035). A six-player team board with every asset in play, six players named with
    32 characters of markdown (escaped: 65 each as shown) whom a CPU plays for, and five long last plays is
    6,017 characters in German: a crazier-abilities board has no house rules to fold, so its fields give way,
    whole lines at a time: the oldest of the last plays first, "…" before the newest, which stay whole. Who
    is to move, the seats and every card in play stay as they are."""
    with use_locale("de"):
        snap = team_board(MARKUP_NAMES, taken_over=True)
        whole = unshortened(snap)
        board = render.board_embed(snap)
        assert len(whole) > limits.MAX_EMBED_TOTAL
        assert shortened_fields(board, whole) == [_("Last plays")]
    assert limits.check_embeds([board.to_dict()]) == [], len(board)


def test_the_hand_lists_each_card_with_its_ability_and_offers_every_move_within_discords_limits() -> None:
    match = table(HANDS, "AB", [[], ["6B"], []])
    view = hand_of(match, 0)
    content = render.hand_content(view)
    assert "9B Death (blue ☾) — Destroy a card in play" in content and len(content) <= 2000
    controls = hand_view(view)
    assert controls is not None
    rows = [row["components"] for row in controls.to_components()]
    assert len(rows) <= 5
    selects = {c["custom_id"].split(":")[3]: c for row in rows for c in row if c["type"] == 3}
    buttons = [c["label"] for row in rows for c in row if c["type"] == 2]
    assert buttons == ["End turn"]
    discard = [o["value"] for o in selects["disc"]["options"]]
    # Matching cards only (AP, drawn this turn, is purple and blue); an 8 once per colour it may name.
    assert discard == ["9B", "10B", "8P/B", "8P/G", "8P/O", "8P/P", "AP"]
    effects = {o["value"]: o for o in selects["eff"]["options"]}
    # Death and Crown of Kings choose Ben's Castle, Forbidden Knowledge any player; assets ask nothing.
    assert {"9B/c6B", "10B/c6B", "2O/t0", "2O/t1", "2O/t2", "KO", "5O", "QP"} == set(effects)
    assert effects["9B/c6B"]["label"] == "Death → 6B Castle (blue ☾) — Ben"
    for select in selects.values():
        assert len(select["options"]) <= 25
        for option in select["options"]:
            assert len(option["label"]) <= 100 and len(option.get("description") or "") <= 100


def test_a_waiting_choice_is_the_hands_only_select() -> None:
    match = table(HANDS, "AB", [["5G"], [], []])
    rnd = match.round
    # Alice's Angel of Hope asks her whom to make draw at the beginning of her next turn.
    rnd.apply(rnd.legal_actions(0)[-1])  # end turn
    while 0 not in rnd.acting:
        rnd.apply(next(m for m in rnd.legal_actions() if m.kind == "end"))
    view = hand_of(match, 0)
    assert view.crazier is not None and view.crazier.choice is not None
    assert "Your choice:" in render.hand_content(view)
    rows = [row["components"] for row in hand_view(view).to_components()]  # type: ignore[union-attr]
    assert len(rows) == 1 and rows[0][0]["custom_id"].split(":")[3] == "pick"
    assert [o["label"] for o in rows[0][0]["options"]] == NAMES


def test_names_in_a_hands_options_are_isolated() -> None:
    # A right-to-left override in a name reverses that name only, not the rest of the option's label.
    match = table(HANDS, "AB", [[], ["6B"], []])
    names = ["alice", "\u202eevil", "carol"]
    controls = hand_view(hand_of(match, 0, names))
    assert controls is not None
    labels = [
        o["label"]
        for row in controls.to_components()
        for c in row["components"]
        for o in c.get("options", [])
    ]
    with_name = [label for label in labels if "\u202e" in label]
    assert len(with_name) == 3  # Forbidden Knowledge on her, Death and Crown of Kings on her Castle
    for label in with_name:
        assert label.index("\u2068") < label.index("\u202e") < label.index("\u2069"), repr(label)


def test_a_big_hand_stays_within_the_limits() -> None:
    match = table(HANDS, "AB", [[], ["6B"], []])
    match.round.hands[0] += [c for c in match.round.draw[:30]]
    del match.round.draw[:30]
    view = hand_of(match, 0)
    assert len(render.hand_content(view)) <= 2000
    rows = [row["components"] for row in hand_view(view).to_components()]  # type: ignore[union-attr]
    assert len(rows) <= 5
    for row in rows:
        for component in row:
            assert len(component.get("options", [])) <= 25


def test_a_team_members_hand_is_refreshed_when_the_table_changes_under_it() -> None:
    from bot.delivery.feed import hand_key

    match = CrazierMatch.new(get_preset("crazier-abilities", teams=True), 4, seed=3)
    rnd = match.round
    assert len(rnd.acting) == 2
    second = rnd.acting[1]
    snap = snap_of_team(match)
    before = hand_key(snap, second)
    # The first member discards: the top card changes what the second member may discard.
    first = rnd.acting[0]
    rnd.apply(next(m for m in rnd.legal_actions(first) if m.kind == "discard"))  # seed 3: seat 3 holds AG
    assert hand_key(snap_of_team(match), second) != before


def snap_of_team(match: CrazierMatch) -> TableSnapshot:
    names = ["Ana", "Ben", "Cleo", "Dan"]
    seats = tuple(seat(i, name, 100 + i, to_act=i in match.round.acting) for i, name in enumerate(names))
    return snapshot(
        preset="crazier-abilities",
        seats=seats,
        target_card=match.round.top(),
        to_act=match.round.to_act,
        totals=(0, 0, 0, 0),
        crazier=crazier.board(match),
    )


def offered(view: HandView, action: str) -> list[str]:
    """The values of every option of the hand's selects for ``action`` ("disc", "eff"), in order."""
    controls = hand_view(view)
    assert controls is not None
    rows = controls.to_components()
    assert len(rows) <= 5 and not limits.check_components(rows)
    return [
        option["value"]
        for row in rows
        for item in row["components"]
        if item.get("custom_id", "").split(":")[3:4] == [action]
        for option in item.get("options", [])
    ]


def test_every_discard_of_a_hand_with_many_has_a_control() -> None:
    # 31 legal discards (the four 8s once per colour: 16) passed the one select of 25: six had no control.
    hands = [
        ["8B", "8G", "8O", "8P", "AO", "2O", "3O"],
        ["4B", "5B", "6B", "7B", "JB", "QB", "KB"],
        ["4G", "5G", "6G", "7G", "JG", "QG", "KG"],
    ]
    match = table(hands, "9O")
    rnd = match.round
    for card in ["AG", "4O", "5O", "6O", "7O", "10O", "JO", "QO", "KO", "9B", "9G", "9P"]:
        rnd.draw.remove(card)
        rnd.hands[0].append(card)
    legal = [
        f"{m.card}/{m.colour}" if m.colour else str(m.card)
        for m in rnd.legal_actions(0)
        if m.kind == "discard"
    ]
    assert len(legal) == 31
    assert offered(hand_of(match, 0), "disc") == legal


def test_an_effect_menu_too_long_for_the_rows_offers_each_event_once_per_choice() -> None:
    # Four Deaths and four Crowns of Kings before 23 cards in play: 185 effects, more than four selects hold.
    hands = [
        ["9B", "9G", "9O", "9P", "10B", "10G", "10O"],
        ["2B", "3B", "7B", "AB", "AG", "2G", "3G"],
        ["2O", "3O", "7O", "AO", "AP", "2P", "3P"],
    ]
    match = table(hands, "7G")
    rnd = match.round
    for i, card in enumerate([c for c in rnd.draw if c[:-1] in ("4", "5", "6", "J", "Q", "K")]):
        rnd.draw.remove(card)
        rnd.in_play[1 + i % 2].append(card)
    rnd.hands[0].append("10P")
    rnd.draw.remove("10P")
    moves = [m for m in rnd.legal_actions(0) if m.kind == "effect"]
    assert len(moves) > 100
    shown = offered(hand_of(match, 0), "eff")
    # Any Death (any Crown) does the same: each choice is offered once, whichever colour plays it.
    wanted = {(m.card[:-1], m.target, m.target_card) for m in moves if m.card}
    got = set()
    for value in shown:
        card, _, choice = value.partition("/")
        target = int(choice[1:]) if choice.startswith("t") else None
        got.add((card[:-1], target, choice[1:] if choice.startswith("c") else None))
    assert got == wanted
