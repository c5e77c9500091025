"""The crazier-abilities engine (RULESETS.md, "Crazier Eights with its ability cards"; seed 001): a player who
plays their last card for its effect wins at once, before what it would make happen (decision 13 in
``bot.engine.crazier``); the card still goes where its kind goes."""

from __future__ import annotations

from bot.engine.crazier import Move
from tests.engine.crazier.support import position


def test_playing_the_last_card_as_forbidden_knowledge_on_oneself_wins_at_once() -> None:
    """RULESETS.md, "Winning and losing": "A player with no card in hand wins at once (detail 4)."
    Seed 001 §1: "The first player to have zero cards in hand wins the game." and detail 4: "If a player wins
    the game, the game is over."

    Seat 0 discards 9G, then plays its last card, Forbidden Knowledge, for its effect choosing itself. The
    card leaves the hand as it is played: the hand holds zero cards, so seat 0 has won and the game is over;
    nothing of the event happens after the game is over."""
    g, _ = position(["2B", "9O 3O"], "5G", draw="9G KB QB")
    assert g.hands[0] == ["2B", "9G"]
    g.apply(Move.discard(0, "9G"))
    assert g.hands[0] == ["2B"]
    g.apply(Move.effect(0, "2B", target=0))
    assert g.over, "the hand held zero cards once its last card was played: the player won at once"
    assert g.winners == [0]
    assert g.hands[0] == [] and g.discard[0] == "2B"  # no draw; the event at the bottom of the discard pile


def test_last_card_forbidden_knowledge_does_not_add_to_the_losers_points() -> None:
    """RULESETS.md, "Winning and losing": "A player with no card in hand wins at once (detail 4)." and
    "card-count points (winner 0, each other player one point per card in hand)".

    Seat 0 plays its last card, Forbidden Knowledge, aimed at seat 1 (2 cards in hand). Seat 0 has zero cards
    the moment the card is played and wins at once: the game is over before seat 1 would draw, so seat 1
    scores the 2 cards it holds, not 4."""
    g, _ = position(["2B", "9O 3O"], "5G", draw="9G KB QB")
    g.apply(Move.discard(0, "9G"))
    draw_pile = list(g.draw)
    g.apply(Move.effect(0, "2B", target=1))
    assert g.over and g.winners == [0]
    assert g.scores == [0, 2]
    assert g.hands[1] == ["9O", "3O"] and g.draw == draw_pile  # nothing drawn after the game ended


def test_a_last_eight_names_no_colour_and_wins() -> None:
    """An 8 discarded as the last card ends the game (detail 4): nothing is left to follow, so it names no
    colour. ``legal_actions`` offers it without one, and ``is_legal`` accepts exactly that (905 for a colour,
    as for any move that names a colour when none can be named)."""
    g, _ = position(["8P 3B", "9O 3O"], "5G", draw="9G KB QB")
    g.apply(Move.effect(0, "3B"))  # Potion of Vitality: two more discards this turn
    g.apply(Move.discard(0, "9G"))
    assert g.hands[0] == ["8P"]
    assert [m for m in g.legal_actions(0) if m.kind == "discard"] == [Move.discard(0, "8P")]
    assert not g.is_legal(Move.discard(0, "8P", "B"))
    g.apply(Move.discard(0, "8P"))
    assert g.over and g.winners == [0] and g.follow == "P"
