"""One scenario per card of the crazier-abilities deck (RULESETS.md, the table of the section), each quoting
its
row, with the deal stacked to force the situation."""

from __future__ import annotations

from bot.engine.crazier import DECK, RANK_ROWS, CrazierRound, Move, colours_of, get_preset
from tests.engine.crazier.support import kinds, position, refused


def test_the_deck_is_52_unique_cards_in_four_colours_one_named_card_per_rank() -> None:
    """ "52 cards: four colours — blue (moon), green (ankh), orange (sun), purple (eye) — times the ranks A,
    2–10, J, Q, K." """
    assert len(DECK) == len(set(DECK)) == 52
    assert {c[-1] for c in DECK} == {"B", "G", "O", "P"}
    assert len(RANK_ROWS) == 13
    assert RANK_ROWS["9"].name == "Death" and RANK_ROWS["9"].kind == "event"
    assert RANK_ROWS["J"].name == "Devious Dragon" and RANK_ROWS["J"].kind == "asset"


def test_ace_has_two_colours_and_matches_on_either() -> None:
    """ "Each Ace has two colours: its own and the next one in the order blue → green → orange → purple → blue
    (AB is blue and green, AP purple and blue)." """
    assert colours_of("AB") == ("B", "G")
    assert colours_of("AP") == ("P", "B")
    g, _ = position(["AB 9P", "2O 3O"], "5G", draw="4O")
    assert Move.discard(0, "AB") in g.legal_actions(0)
    refused(g, Move.discard(0, "9P"), 907)
    g.apply(Move.discard(0, "AB"))
    # On an Ace, either of its colours follows: blue and green both match.
    assert g.matches("2B") and g.matches("3G") and not g.matches("3O")


def test_forbidden_knowledge_makes_the_chosen_player_draw_two() -> None:
    """ "2 Forbidden Knowledge (event): Choose a player: they draw two cards." """
    g, _ = position(["2B 9O", "3O 3G"], "5O", draw="KB")
    assert {m.target for m in g.legal_actions(0) if m.card == "2B"} == {0, 1}
    events = g.apply(Move.effect(0, "2B", target=1))
    assert len(g.hands[1]) == 4
    assert [(e.kind, e.seat, e.data.get("count")) for e in events if e.kind == "drew"] == [("drew", 1, 2)]
    assert g.discard[0] == "2B"  # an event goes to the bottom of the discard pile


def test_potion_of_vitality_allows_two_more_discards() -> None:
    """ "3 Potion of Vitality (event): This turn you may discard up to two more cards (one at a time, each
    matching as usual)." """
    g, _ = position(["3B 5G 6G 7G 10G", "9O 9B"], "4G", draw="QP")
    g.apply(Move.discard(0, "5G"))
    refused(g, Move.discard(0, "6G"), 930)
    g.apply(Move.effect(0, "3B"))
    g.apply(Move.discard(0, "6G"))
    assert Move.discard(0, "10G") in g.legal_actions(0)
    events = g.apply(Move.discard(0, "7G"))
    # Three discards in all: the 10G still matches, but nothing is left to do, so the turn ends by itself.
    assert "10G" in g.hands[0] and ("turn_ended", 0) in [(e.kind, e.seat) for e in events]


def test_elven_princess_looks_privately_and_may_move_the_card_to_the_bottom() -> None:
    """ "4 Elven Princess (asset): At the beginning of your turn, look at the top card of the draw pile
    (privately); you may put it on the bottom of the draw pile." """
    g, events = position(["9P 9G", "9O 9B"], "5G", in_play=["4B", ""], draw="KB QB")
    assert g.choice is not None and g.choice["kind"] == "look"
    assert g.view(0)["choice"]["seen"] == "KB"
    assert "seen" not in (g.view(1)["choice"] or {})
    looked = [e for e in events if e.kind == "looked_card"]
    assert looked and all(e.visible_to == 0 for e in looked)
    assert set(g.legal_actions(0)) == {Move.keep(0), Move.move(0)}
    g.apply(Move.move(0))
    assert g.draw[0] == "KB" and "QB" in g.hands[0] and "KB" not in g.hands[0]


def test_elven_princess_kept_card_is_the_one_drawn() -> None:
    """ "… you may put it on the bottom of the draw pile": "may", so it can stay, and the turn's draw takes
    it."""
    g, _ = position(["9P 9G", "9O 9B"], "5G", in_play=["4B", ""], draw="KB QB")
    g.apply(Move.keep(0))
    assert "KB" in g.hands[0] and g.draw[-1] == "QB"


def test_angel_of_hope_makes_a_chosen_player_draw_before_the_turn_draw() -> None:
    """ "5 Angel of Hope (asset): At the beginning of your turn, a player of your choice draws a card." """
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["5B", ""], draw="KB QB")
    assert g.choice is not None and g.choice["kind"] == "player"
    assert set(g.legal_actions(0)) == {Move.player(0, 0), Move.player(0, 1)}
    events = g.apply(Move.player(0, 1))
    assert "KB" in g.hands[1] and "QB" in g.hands[0]
    draws = [(e.seat, e.data["by"]) for e in events if e.kind == "drew"]
    assert draws == [(1, "5B"), (0, None)]


def test_castle_makes_an_opponent_cause_one_fewer_card() -> None:
    """ "6 Castle (asset): If an opponent would cause you to draw one or more cards, the opponent causes you
    to
    draw one fewer cards." """
    g, _ = position(["2B 9O", "3O 3G"], "5O", in_play=["", "6G"], draw="KB")
    events = g.apply(Move.effect(0, "2B", target=1))
    assert len(g.hands[1]) == 3
    assert [e.data["count"] for e in events if e.kind == "draw_prevented"] == [1]


def test_castle_does_not_reduce_what_you_cause_yourself() -> None:
    """ "If an *opponent* would cause you to draw": one's own Forbidden Knowledge is not reduced."""
    g, _ = position(["2B 9O", "3O 3G"], "5O", in_play=["6G", ""], draw="KB")
    g.apply(Move.effect(0, "2B", target=0))
    assert len(g.hands[0]) == 4  # 9O, KB and two drawn


def test_resurrection_uncovers_the_card_beneath_the_top() -> None:
    """ "7 Resurrection (event): Put the top card of the discard pile on the bottom of the draw pile; the card
    beneath it becomes the top card." """
    g, _ = position(["7B 9P", "3O 3G"], "9O 5G", draw="KB")
    g.apply(Move.effect(0, "7B"))
    assert g.discard[-1] == "9O" and g.draw[0] == "5G" and g.discard[0] == "7B"


def test_resurrection_needs_two_cards_in_the_discard_pile() -> None:
    """ "Needs two cards in the discard pile." """
    g, _ = position(["7B 9P", "3O 3G"], "5G", draw="KB")
    assert not [m for m in g.legal_actions(0) if m.card == "7B" and m.kind == "effect"]
    refused(g, Move.effect(0, "7B"), 933)


def test_an_eight_is_wild_names_a_colour_and_has_no_effect() -> None:
    """ "8 — Wild, no ability (001: "Eights are wild" …). Never played for an effect." """
    g, _ = position(["8B 9P", "3O 3G"], "5G", draw="KB")
    assert {m.colour for m in g.legal_actions(0) if m.card == "8B"} == {"B", "G", "O", "P"}
    refused(g, Move.effect(0, "8B"), 931)
    refused(g, Move.discard(0, "8B"), 936)
    g.apply(Move.discard(0, "8B", "O"))
    assert g.colours_to_follow() == ("O",)
    assert g.matches("3O") and not g.matches("3G") and g.matches("8G")


def test_death_destroys_a_card_in_play_to_the_bottom_of_the_discard_pile() -> None:
    """ "9 Death (event): Destroy a card in play on the table of your choice." """
    g, _ = position(["9B 3P", "3O 3G"], "5O", in_play=["6B", "6G"], draw="KB")
    assert {m.target_card for m in g.legal_actions(0) if m.card == "9B"} == {"6B", "6G"}
    g.apply(Move.effect(0, "9B", target_card="6G"))
    assert g.in_play[1] == [] and g.discard[:2] == ["9B", "6G"]


def test_death_is_not_playable_with_nothing_in_play() -> None:
    """ "Playable only while a card is in play (001 clarification 6)." """
    g, _ = position(["9B 3P", "3O 3G"], "5O", draw="KB")
    assert not [m for m in g.legal_actions(0) if m.card == "9B" and m.kind == "effect"]
    refused(g, Move.effect(0, "9B", target_card="6G"), 933)


def test_crown_of_kings_takes_control_of_an_opponents_card() -> None:
    """ "10 Crown of Kings (event): Take control of a card in play that an opponent controls." """
    g, _ = position(["10B 3P", "3O 3G"], "9O", in_play=["6B", "5O"], draw="KB")
    assert {m.target_card for m in g.legal_actions(0) if m.card == "10B"} == {"5O"}
    g.apply(Move.effect(0, "10B", target_card="5O"))
    assert g.in_play == [["6B", "5O"], []]


def test_crown_of_kings_needs_an_opponents_card() -> None:
    """ "Playable only while an opponent controls one." """
    g, _ = position(["10B 3P", "3O 3G"], "5O", in_play=["6B", ""], draw="KB")
    refused(g, Move.effect(0, "10B", target_card="6B"), 933)


def test_devious_dragon_destroys_a_chosen_card_at_the_beginning_of_the_turn() -> None:
    """ "J Devious Dragon (asset): At the beginning of your turn, destroy a card in play on the table (you
    choose; it must …)." """
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["JB", "6G"], draw="KB")
    assert set(g.legal_actions(0)) == {Move.choose_card(0, "JB"), Move.choose_card(0, "6G")}
    g.apply(Move.choose_card(0, "6G"))
    assert g.in_play == [["JB"], []] and g.discard[0] == "6G"


def test_devious_dragon_alone_in_play_destroys_itself() -> None:
    """ "… and destroys itself when it is the only one: 001 clarifications 5 and the §6 example." """
    g, events = position(["9P 9G", "9O 9B"], "5O", in_play=["JB", ""], draw="KB")
    assert g.in_play == [[], []] and g.discard[0] == "JB"
    assert [e.data["card"] for e in events if e.kind == "destroyed"] == ["JB"]


def test_devious_dragon_does_nothing_the_turn_it_is_played() -> None:
    """Seed 001 §6: "you can't destroy a card with Devious Dragon the turn that it is put into play"."""
    g, _ = position(["JB 9G", "9O 9B"], "5O", in_play=["", "6G"], draw="KB")
    events = g.apply(Move.effect(0, "JB"))
    assert "destroyed" not in kinds(events) and g.in_play == [["JB"], ["6G"]]


def test_mordred_makes_every_opponent_with_twelve_cards_lose() -> None:
    """ "Q Mordred (asset): At the beginning of your turn, every opponent holding 12 or more cards loses the
    game." """
    twelve = "2B 3B 4B 5B 6B 7B 9B 10B JB KB 2O 3O"
    g, events = position(["9P 9G", twelve, "2G 3G"], "5O", in_play=["QB", "4O", ""], draw="KO")
    assert g.alive == [True, False, True]
    assert [(e.seat, e.data["reason"]) for e in events if e.kind == "lost"] == [(1, "QB")]
    assert len(g.hands[2]) == 2  # eleven or fewer: still in


def test_king_arthur_wins_with_four_cards_in_play() -> None:
    """ "K King Arthur (asset): At the beginning of your turn, if you control four or more cards in play, you
    win the game." """
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["KB 6B 6G 6O", ""], draw="KO")
    assert g.over and g.winners == [0] and g.reason == "KB"


def test_king_arthur_with_three_cards_does_not_win() -> None:
    """ "… four or more cards": three are not enough."""
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["KB 6B 6G", ""], draw="KO")
    assert not g.over


def test_king_arthur_counts_at_that_exact_moment() -> None:
    """ "(counted at that exact moment: 001 clarification 7)": King Arthur's four cards are counted as the
    turn begins; a Devious Dragon of the same batch destroying one of them first does not undo it."""
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["KB JB 6G 6O", ""], draw="KO")
    assert g.choice is not None and g.choice["kind"] == "order"
    g.apply(Move.order(0, "JB"))
    g.apply(Move.choose_card(0, "6G"))
    assert g.over and g.winners == [0]


def test_a_new_game_deals_seven_each_and_the_next_card_starts_the_discard_pile() -> None:
    """ "Each player gets seven cards; the next card starts the discard pile (an 8 there sets its own colour
    as
    the one to follow: clarification 2)." """
    deck = [c for c in DECK if c != "8G"]
    deck = [*deck[:21], "8G", *deck[21:]]
    g = CrazierRound.new(get_preset("crazier-abilities"), 3, seed=4, first=1, deck=deck)
    assert g.discard == ["8G"] and g.colours_to_follow() == ("G",)
    assert [len(h) for h in g.hands] == [7, 8, 7]  # seat 1 began its turn and drew
