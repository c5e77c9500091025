"""Rendering: the board, the turn lines, the hand, scores and the final ranking, from hand-built snapshots."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import discord
import pytest

from bot.engine import rule_options
from bot.engine.rules import PRESETS
from bot.i18n import _, ngettext, use_locale
from bot.service import Outcome, RankingLine, TableEvent
from bot.ui import render
from bot.ui.faces import CardFaces
from tests.ui.snapshots import ALICE, BOB, hand, seat, snapshot, to_act

LANGUAGES = ("en", "de", "fr", "es", "pt_BR")


def embed_text(snap: object) -> str:
    embed = render.board_embed(snap)  # type: ignore[arg-type]
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{field.name}: {field.value}" for field in embed.fields]
    return "\n".join(parts)


def test_cards_are_written_with_rank_and_suit_symbol() -> None:
    assert render.label("KH") == "K♥"
    assert render.label("10S") == "10♠"


def test_the_board_shows_what_everyone_may_know() -> None:
    snap = replace(snapshot(declared_suit="H", pending_draw=2, direction=-1), target_card="8S")
    text = embed_text(snap)
    assert "Crazy Eights — classic · round 1" in text
    assert "**alice** to move" in text and "<t:1700000090:R>" in text
    assert "Target: 8♠ — suit named: ♥ Hearts" in text
    assert "Direction: reversed" in text
    assert "Pending draw: 2 cards" in text
    assert "Stock: 30 cards" in text
    assert "▶ **alice** (host) — 5 cards" in text
    assert "**CPU 1** (CPU, normal) — 5 cards" in text
    assert "Last plays: CPU 1 played 9♠" in text
    assert "Your hand" not in text


def test_the_lobby_board_invites_players() -> None:
    snap = snapshot(
        phase="lobby", status="lobby", round_number=0, deadline_kind="lobby", seats=(seat(0, "alice", ALICE),)
    )
    text = embed_text(snap)
    assert "press **Join**" in text and "2–7 seats" in text and "Target" not in text


def test_between_rounds_the_board_shows_round_scores_and_totals() -> None:
    seats = (
        seat(0, "alice", ALICE, total=12, last_round_score=12, card_count=2),
        seat(1, "bob", BOB, total=0, last_round_score=0, card_count=0),
    )
    snap = snapshot(
        phase="between_rounds", seats=seats, round_scores=((12, 0),), totals=(12, 0), deadline_kind="pause"
    )
    text = embed_text(snap)
    assert "Round 1 is over" in text and "press **Next round**" in text
    assert "**alice**: 12 this round, 12 in total" in text
    assert "**bob**: 0 this round, 0 in total" in text


def test_seats_that_score_together_are_told_once_per_side() -> None:
    """A partnership's sides (seats 1 and 3, 2 and 4) and a Crazier Eights team game's teams (seated
    alternately, here three a side) are told once, under their members' names, with the side's score: on
    the board between rounds, in the round's scores line and in /eights scores."""
    names = ["alice", "bob", "carol", "dan", "eve", "fay"]
    for count, flags in ((4, {"partnership": True}), (6, {"teams": True})):
        seats = tuple(
            seat(i, names[i], 100 + i, total=0 if i % 2 == 0 else 9, last_round_score=0 if i % 2 == 0 else 9)
            for i in range(count)
        )
        scores = tuple(0 if i % 2 == 0 else 9 for i in range(count))
        snap = snapshot(
            phase="between_rounds",
            seats=seats,
            round_scores=(scores,),
            totals=scores,
            deadline_kind="pause",
            **flags,
        )
        first = " & ".join(names[i] for i in range(0, count, 2))
        second = " & ".join(names[i] for i in range(1, count, 2))
        board = embed_text(snap)
        assert f"**{first}**: 0 this round, 0 in total\n**{second}**: 9 this round, 9 in total" in board, (
            board
        )
        assert "**bob**: " not in board
        line = render.describe_event(
            TableEvent(
                "round_result", None, {"round_number": 1, "scores": scores, "totals": scores}, "service"
            ),
            snap,
        )
        assert line == f"Round 1 scores (totals): {first} 0 (0), {second} 9 (9)"
        text = render.scores_text(snap)
        assert f"Round 1: {first} 0, {second} 9" in text and f"Totals: {first} 0, {second} 9" in text, text


def test_the_final_ranking_names_every_seat_with_its_total() -> None:
    ranking = (
        RankingLine(1, 1, "bob", 40, BOB),
        RankingLine(2, 0, "alice", 104, ALICE),
        RankingLine(2, 2, "CPU 1", 104, None),
    )
    snap = snapshot(phase="finished", status="finished", ranking=ranking, round_scores=((1, 2, 3), (4, 5, 6)))
    text = render.final_ranking_text(snap)
    assert text.startswith("**Final ranking** — table 7, classic, 2 rounds")
    assert (
        "1. **bob** — 40 pts" in text
        and "2. **alice** — 104 pts" in text
        and "2. **CPU 1** — 104 pts" in text
    )
    assert "Final ranking: 1. **bob**" in embed_text(snap)


def test_a_turn_line_tells_the_plays_and_mentions_the_person_to_move() -> None:
    snap = to_act(snapshot(), 1)
    events = [
        TableEvent("played", 0, {"card": "KH"}, "engine"),
        TableEvent("turn", 1, {}, "engine"),
    ]
    content, mention = render.turn_line(events, snap, hand_is_fresh=True)
    assert content == f"alice played K♥\n▶ <@{BOB}>, your turn."
    assert mention == BOB
    content, _ = render.turn_line(events, snap, hand_is_fresh=False)
    assert content is not None and content.endswith("(press **My hand** on the board to see your cards).")


def test_a_turn_line_for_a_cpu_mentions_no_one() -> None:
    snap = to_act(snapshot(), 2)
    content, mention = render.turn_line(
        [TableEvent("drew", 1, {"count": 2}, "engine")], snap, hand_is_fresh=False
    )
    assert content == "bob drew 2 cards\n▶ CPU 1 to move."
    assert mention is None
    assert render.turn_line([], snap, hand_is_fresh=True, announce_turn=False) == (None, None)


def test_many_gathered_moves_stay_within_one_message() -> None:
    snap = to_act(snapshot(), 1)
    events = [TableEvent("played", 2, {"card": "2C"}, "engine")] * 500
    content, _ = render.turn_line(events, snap, hand_is_fresh=True)
    assert content is not None and len(content) <= 2000
    assert content.startswith("… 489 earlier moves")


def test_private_and_turn_events_give_no_public_line() -> None:
    snap = snapshot()
    for kind in ("turn", "dealt", "drew_cards", "mystery"):
        assert render.describe_event(TableEvent(kind, 0, {"cards": ["KH"]}, "engine"), snap) is None


def test_the_hand_marks_playable_cards_and_says_what_to_do() -> None:
    view = hand(["3C", "9C", "KD", "8S", "QS"], {"9C", "8S", "QS"})
    text = render.hand_content(view, note="You drew Q♠.")
    lines = text.splitlines()
    assert lines[0] == "You drew Q♠."
    assert lines[1] == "**Your hand** (5 cards): 3♣ **9♣** K♦ **8♠** **Q♠**"
    assert "**Your turn.** Target: 9♠." in text
    assert "Playable now: 9♣, 8♠ (wild), Q♠" in text


def test_the_hand_off_turn_and_after_a_wild() -> None:
    off = hand(["3C"], set(), snap=to_act(snapshot(), 1))
    assert render.hand_content(off).endswith("Not your turn.")
    suit = hand(["3C"], set(), must_name_suit=True)
    assert render.hand_content(suit).endswith("Name the suit to follow.")


def test_the_hand_tells_an_owed_draw_as_an_answer_only_when_one_is_held() -> None:
    """A pending draw (bot/ui/render.py hand_content): holding an answer (stacking), "You owe 2 cards unless
    you can answer."; holding none (uno-lite never stacks), that the cards owed must be drawn and the turn
    then ends, said once (no "No card to play: draw." under it)."""
    snap = snapshot(pending_draw=2)
    answer = render.hand_content(hand(["2C", "9D"], {"2C"}, snap=snap))
    assert "You owe 2 cards unless you can answer." in answer
    assert "You must draw" not in answer
    owed = render.hand_content(hand(["3C", "9D"], set(), snap=snap))
    assert "You must draw the 2 cards you owe; your turn then ends." in owed
    assert "unless you can answer" not in owed and "No card to play" not in owed
    one = render.hand_content(hand(["3C"], set(), snap=snapshot(pending_draw=1)))
    assert "You must draw the 1 card you owe; your turn then ends." in one


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_owed_draw_line_is_translated_with_its_plural(language: str) -> None:
    with use_locale(language):
        for n in (1, 2, 4):
            text = render.hand_content(hand(["3C"], set(), snap=snapshot(pending_draw=n)))
            line = ngettext(
                "You must draw the {n} card you owe; your turn then ends.",
                "You must draw the {n} cards you owe; your turn then ends.",
                n,
            )
            assert line in text and str(n) in line
            if language != "en":
                assert "You must draw" not in text


def test_the_hand_tells_a_player_facing_a_jack_to_answer_it_or_miss_the_turn() -> None:
    """Switch's jack (HandView.answer_rank): the hand says to answer with the same rank, or pass and miss
    the turn, and not that a draw is owed."""
    view = hand(["JS", "5H"], {"JS"}, can_draw=False, can_pass=True, answer_rank="J")
    text = render.hand_content(view)
    assert "You must answer with the same rank, or pass and miss your turn." in text
    assert "Playable now: J♠" in text and "owe" not in text


def test_scores_list_each_round_and_the_totals() -> None:
    seats = (seat(0, "alice", ALICE, total=15), seat(1, "bob", BOB, total=7))
    snap = snapshot(seats=seats, round_scores=((10, 0), (5, 7)), totals=(15, 7))
    text = render.scores_text(snap)
    assert "Round 1: alice 10, bob 0" in text and "Round 2: alice 5, bob 7" in text
    assert "Totals: alice 15, bob 7" in text
    assert render.scores_text(snapshot()) == "No round has been scored yet at this table."


@pytest.mark.parametrize("language", LANGUAGES)
def test_scores_of_a_long_match_keep_the_totals_and_the_latest_rounds(language: str) -> None:
    # 30 rounds of six (the Rounds house rule allows 50) pass 2,000 characters: the oldest rounds give way.
    names = ["Alexandra", "Benjamin", "Charlotte", "Dominique", "Emmanuel", "Frederika"]
    seats = tuple(seat(i, name, 100 + i, total=10 * i + 7) for i, name in enumerate(names))
    rounds = tuple(tuple((r * 7 + i * 3) % 25 for i in range(len(names))) for r in range(30))
    snap = snapshot(seats=seats, round_scores=rounds, totals=tuple(s.total for s in seats))
    with use_locale(language):
        text = render.scores_text(snap)
        totals = _("Totals: {totals}", totals=", ".join(f"{n} {10 * i + 7}" for i, n in enumerate(names)))
        latest = _("Round {number}: {scores}", number=30, scores="").rstrip()
        match = _("Match: {match}.", match=snap.match_end_words())
        lines = text.split("\n")
        shown = len(lines) - 4  # the heading, the rounds left out, the totals and the match
        left_out = ngettext("… {n} earlier round", "… {n} earlier rounds", 30 - shown)
    assert len(text) <= 2000 and 0 < shown < 30
    assert lines[1] == left_out and lines[-3].startswith(latest) and lines[-2:] == [totals, match]


# What a host might change at a party table: 22 house rules, more than one field holds in French or German.
PARTY_RULES = [
    ("draw_limit", "3"),
    ("after_draw", "draw-up-to"),
    ("skip_ranks", "Q"),
    ("reverse_ranks", "A"),
    ("draw_ranks", "2:2 4:4"),
    ("stacking", "on"),
    ("draw_caps", "2:8 4:16"),
    ("wild_answers_draw", "on"),
    ("same_rank_runs", "on"),
    ("last_card", "on"),
    ("last_card_penalty", "2"),
    ("answer_ranks", "7"),
    ("starter_wild", "bury"),
    ("starter_effect", "on"),
    ("draw_with_legal_play", "on"),
    ("pass_anytime", "on"),
    ("reshuffle", "off"),
    ("empty_draw_ends_round", "on"),
    ("card_values", "switch"),
    ("rounds", "10"),
    ("next_leader", "most-points"),
    ("hand_size", "8"),
    ("hand_size_two", "10"),
    ("decks", "two-above-2"),
    ("wild_must_match", "on"),
    ("blocked_after", "3"),
]


def party_lobby() -> object:
    ruleset = PRESETS["classic"]
    for key, value in PARTY_RULES:
        ruleset = rule_options.change(ruleset, key, value)
    return snapshot(phase="lobby", status="lobby", round_number=0, deadline_kind="lobby", ruleset=ruleset)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_board_shows_every_house_rule_over_as_many_fields_as_it_takes(language: str) -> None:
    # One field of 1,024 characters used to drop the last rules in French and German.
    snap = party_lobby()
    with use_locale(language):
        words = snap.house_rules_words()  # type: ignore[attr-defined]
        embed = render.board_embed(snap)  # type: ignore[arg-type]
        names = (_("House rules"), _("House rules (cont.)"))
    shown = [f for f in embed.fields if f.name in names]
    assert shown[0].name == names[0] and all(len(f.value or "") <= 1024 for f in shown)
    text = "\n".join(f.value or "" for f in shown)
    assert [w for w in words if f"• {w}" not in text] == []
    assert len(embed) <= 6000


def test_house_rules_beyond_the_fields_allowed_point_to_the_rules_command() -> None:
    # Never dropped without a word: the board's last rules field then says where they all are.
    with use_locale("de"):
        fields = render.house_rules_fields(party_lobby(), 1)  # type: ignore[arg-type]
        pointer = _(render.RULES_POINTER)
    assert len(fields) == 1 and len(fields[0][1]) <= 1024
    assert fields[0][1].endswith("\n" + pointer)


def test_successive_draws_are_told_once() -> None:
    snap = snapshot()
    drew = TableEvent("drew", 1, {"count": 1}, "engine")
    events = [
        drew,
        drew,
        drew,
        TableEvent("played", 1, {"card": "2S"}, "engine"),
        TableEvent("drew", 0, {"count": 1}),
    ]
    assert render.event_lines(events, snap) == ["bob drew 3 cards", "bob played 2♠", "alice drew 1 card"]
    auto = [
        drew,
        drew,
        TableEvent("auto_drew", 1, {"count": 2}),
        TableEvent("played", 1, {"card": "2S"}, "engine"),
    ]
    assert render.event_lines(auto, snap) == ["bob had no card to play and drew 2 cards", "bob played 2♠"]


def test_a_draw_is_told_once_when_a_pass_or_cards_owed_come_between_it_and_the_referees_note() -> None:
    # The engine tells what came of a draw (a forced pass, cards owed paid) before the service adds its note
    # that the referee drew: one line for the draw, in its place.
    snap = snapshot()
    drew = TableEvent("drew", 1, {"count": 1}, "engine")
    turn = TableEvent("turn", 0, {}, "engine")
    passed = [
        drew,
        TableEvent("passed", 1, {"forced": True}, "engine"),
        turn,
        TableEvent("auto_drew", 1, {"count": 1}),
    ]
    assert render.event_lines(passed, snap) == [
        "bob had no card to play and drew 1 card",
        "bob could not play and passed",
    ]
    owed = [
        TableEvent("drew", 1, {"count": 2}, "engine"),
        TableEvent("draw_penalty", 1, {"count": 4, "drawn": 2}, "engine"),  # the stock held only two
        turn,
        TableEvent("auto_drew", 1, {"count": 2}),
    ]
    assert render.event_lines(owed, snap) == ["bob takes 2 cards owed"]
    # Drawn by the player themselves: the same, without the referee.
    assert render.event_lines(owed[:3], snap) == ["bob takes 2 cards owed"]
    assert render.event_lines(passed[:3], snap) == ["bob drew 1 card", "bob could not play and passed"]


def test_no_one_is_called_again_while_their_turn_goes_on() -> None:
    snap = snapshot()  # alice still to move: she played a wild and names the suit next
    content, mention = render.turn_line(
        [TableEvent("played", 0, {"card": "8H"}, "engine")], snap, hand_is_fresh=True, announce_turn=False
    )
    assert content == "alice played 8♥" and mention is None


def test_the_mover_alone_is_told_what_they_played_and_drew() -> None:
    drew = TableEvent("drew_cards", 0, {"cards": ["7C", "2D"]})
    outcome = Outcome(snapshot(), (TableEvent("played", 0, {"card": "9D"}, "engine"),), {ALICE: (drew,)})
    assert render.move_note(outcome, ALICE) == "You played 9♦. You drew 7♣ 2♦."
    assert render.move_note(outcome, BOB) is None


def test_a_hand_too_long_with_its_note_counts_the_cards_drawn() -> None:
    """A draw too long to list beside the hand, even as text, is counted in the note, so that the hand and
    what to do stay in the message whole; a draw that fits is listed."""
    ranks = ("2", "3", "4", "5", "6", "7", "9", "10", "J", "Q", "K")
    cards = [f"{rank}{suit}" for rank in ranks for suit in "CDHS"]
    drew = TableEvent("drew_cards", 0, {"cards": cards * 8})  # 352 cards: far past what Discord shows
    outcome = Outcome(snapshot(), (), {ALICE: (drew,)})
    note = partial(render.move_note, outcome, ALICE)
    content = render.hand_content(hand(cards * 6, set()), note=note)
    assert len(content) <= render.MAX_CONTENT and not content.endswith("…")
    assert content.startswith("You drew 352 cards.")
    assert "**Your hand** (264 cards)" in content and "**Your turn.**" in content
    few = Outcome(snapshot(), (), {ALICE: (TableEvent("drew_cards", 0, {"cards": ["7C"]}),)})
    listed = render.hand_content(hand(cards, set()), note=partial(render.move_note, few, ALICE))
    assert listed.startswith("You drew 7♣.")


def test_a_line_kept_between_boards_follows_the_name_faces_and_language() -> None:
    # A board says each recent event again at every move: the line is kept, but never one that is stale.
    played = TableEvent("played", 1, {"card": "KH"}, "engine")
    snap = snapshot()
    assert render.event_lines([played], snap) == ["bob played K♥"]
    assert render.event_lines([played], snap) == ["bob played K♥"]
    renamed = replace(snap, seats=(snap.seats[0], seat(1, "robert", BOB), snap.seats[2]))
    assert render.event_lines([played], renamed) == ["robert played K♥"]
    emoji = discord.PartialEmoji(name="e8f2_KH", id=10**17)
    assert render.event_lines([played], snap, CardFaces({"KH": emoji})) == [f"bob played {emoji} K♥"]
    assert render.event_lines([played], snap) == ["bob played K♥"]
    with use_locale("fr"):
        french = render.event_lines([played], snap)
    assert french != ["bob played K♥"] and "bob" in french[0]
    assert render.event_lines([TableEvent("played", 1, {"card": "2S"}, "engine")], snap) == ["bob played 2♠"]
    joined = TableEvent("joined", 1, {"user_id": BOB, "name": "bob"})
    assert render.event_lines([joined], snap) == ["bob joined"]
    carol = replace(joined, data={"user_id": BOB, "name": "carol"})
    assert render.event_lines([carol], snap) == ["carol joined"]
    starter = TableEvent("starter", None, {"card": "8S", "buried": ["8H"]}, "engine")
    assert render.event_lines([starter], snap) == ["Starter card: 8♠ (buried: 8♥)"]
