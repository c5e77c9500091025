"""The sentences of RULESETS.md's section "Crazier Eights with its ability cards", one scenario each, quoted
in
the docstring, with stacked deals."""

from __future__ import annotations

from bot.engine.crazier import DECK, CrazierMatch, CrazierRound, Move, get_preset
from bot.engine.crazier import primitives as p
from bot.engine.events import Event
from tests.engine.crazier.support import kinds, position, refused


# ------------------------------------------------------------------------------- beginning of the turn
def test_beginning_of_turn_abilities_happen_before_the_draw() -> None:
    """ "the conditional abilities of cards in play that say "at the beginning of your turn" happen, before
    the
    draw." """
    g, events = position(["9P 9G", "9O 9B"], "5O", in_play=["JB", "6G"], draw="KB")
    assert "KB" not in g.hands[0] and g.draw[-1] == "KB"  # waiting for the Dragon's choice, not drawn yet
    events = g.apply(Move.choose_card(0, "6G"))
    assert kinds(events).index("destroyed") < kinds(events).index("drew")


def test_a_player_with_several_abilities_orders_them() -> None:
    """ "Those of the player whose turn it is come first, then the others in turn order; a player with several
    orders them." """
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["5B JB", "5G"], draw="KB QB")
    assert set(g.legal_actions(0)) == {Move.order(0, "5B"), Move.order(0, "JB")}
    assert g.legal_actions(1) == []
    events = g.apply(Move.order(0, "JB"))
    assert [e.data["card"] for e in events if e.kind == "ability"] == ["JB"]
    assert g.choice is not None and g.choice["kind"] == "card"
    g.apply(Move.choose_card(0, "5G"))
    assert g.choice is not None and g.choice["kind"] == "player"  # then the Angel


def test_a_destroyed_angel_of_hope_still_makes_a_player_draw() -> None:
    """ "Each happens even if its card was destroyed by an earlier one in the same batch (001 §6)." """
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["5B JB", ""], draw="KB QB")
    g.apply(Move.order(0, "JB"))
    g.apply(Move.choose_card(0, "5B"))
    assert g.in_play[0] == ["JB"] and g.discard[0] == "5B"
    events = g.apply(Move.player(0, 1))
    assert [(e.seat, e.data["by"]) for e in events if e.kind == "drew"] == [(1, "5B"), (0, None)]


def test_two_castles_make_an_opponent_cause_two_fewer_cards() -> None:
    """ "Both kinds of ability stack in multiples (two Castles: two fewer cards)." """
    g, _ = position(["2B 9O", "3O 3G"], "5O", in_play=["", "6G 6P"], draw="KB")
    events = g.apply(Move.effect(0, "2B", target=1))
    assert len(g.hands[1]) == 2 and "drew" not in kinds(events)
    assert [e.data["count"] for e in events if e.kind == "draw_prevented"] == [2]


def test_two_angels_of_hope_make_two_draws() -> None:
    """ "Both kinds of ability stack in multiples": two conditional abilities of the same kind both happen."""
    g, _ = position(["9P 9G", "9O 9B"], "5O", in_play=["5B 5G", ""], draw="KB QB JO")
    g.apply(Move.player(0, 1))
    g.apply(Move.player(0, 1))
    assert len(g.hands[1]) == 4 and "JO" in g.hands[0]


# --------------------------------------------------------------------------------------- drawing
def test_an_empty_draw_pile_is_refilled_from_the_discard_pile_but_its_top_card() -> None:
    """ "Draw one card. If the draw pile is empty, the discard pile except its top card is shuffled into a new
    draw pile (001 detail 1)." """
    g, events = position(["9P 9G", "9O 9B"], "5O", rest="discard")
    assert "reshuffled" in kinds(events)
    assert g.discard == ["5O"] and len(g.hands[0]) == 3
    assert sorted(g.all_cards()) == sorted(DECK)


def test_the_impossible_draw_ends_the_game_fewest_cards_wins() -> None:
    """ "If a card must be drawn and the draw pile is empty with one card in the discard pile, the game is
    over
    and the player with the fewest cards in hand wins (detail 2; ties share the win)." """
    g, _ = position(["9P", "9O 9B"], "5O", rest=0)
    assert g.over and g.reason == "impossible_draw" and g.winners == [1]
    assert g.scores == [len(g.hands[0]), 0]


def test_the_impossible_draw_shared_win() -> None:
    """ "… (detail 2; ties share the win)." """
    cards = [c for c in DECK if c not in ("5O", "6B")]
    g, _ = position([" ".join(cards[:25]), " ".join(cards[25:])], "5O", in_play=["6B", ""])
    assert g.over and g.reason == "impossible_draw" and g.winners == [0, 1] and g.scores == [0, 0]


def test_elven_princess_refills_an_empty_draw_pile_before_looking() -> None:
    """ "(001 clarification 4: with no card in the draw pile, first put the discard pile but its top card,
    shuffled, under the draw pile.)" """
    g, events = position(["9P 9G", "9O 9B"], "5O", in_play=["4B", ""], rest="discard")
    assert kinds(events)[:3] == ["ability", "reshuffled", "looked"]
    assert g.discard == ["5O"]
    assert g.view(0)["choice"]["seen"] == g.draw[-1]


def test_drawing_from_one_source_goes_clockwise_from_the_player_taking_the_turn() -> None:
    """ "when several players draw from one ability, they draw one at a time, clockwise, starting with the
    player whose turn it is." """
    g, _ = position(["9P 9G", "9O 9B", "2O 2G"], "5O", draw="KB QB JB")
    ev: list[Event] = []
    p.draw_from_one_source(g, {0: 1, 2: 1, 1: 1}, None, 1, ev, None)
    assert [e.seat for e in ev if e.kind == "drew"] == [1, 2, 0]


# --------------------------------------------------------------------------------------- discard and effect
def test_a_discard_shares_a_colour_or_the_rank_or_is_an_eight() -> None:
    """ "the player may discard one card that shares a colour with the top card … or its rank, or is an 8" """
    g, _ = position(["5B 3O 8P 2G", "9O 9B"], "5G", draw="KP")
    discards = {m.card for m in g.legal_actions(0) if m.kind == "discard"}
    assert discards == {"5B", "2G", "8P"}
    refused(g, Move.discard(0, "3O"), 907)


def test_an_eight_names_the_colour_the_next_discard_follows() -> None:
    """ "… or is an 8 (then names a colour, which the next discard must follow while that 8 is on top)" """
    g, _ = position(["8P 2G 3B", "9O 9B"], "5G", draw="KP")
    g.apply(Move.discard(0, "8P", "B"))
    assert not g.matches("2G") and g.matches("9B") and g.matches("AP")  # AP is purple and blue


def test_an_eight_uncovered_by_resurrection_sets_its_own_colour() -> None:
    """ "(an 8 found there sets its colour as the colour to follow: 001 clarification 2)" """
    g, _ = position(["7B 2G", "9O 9B"], "8P 5G", draw="KP")
    g.apply(Move.effect(0, "7B"))
    assert g.discard[-1] == "8P" and g.colours_to_follow() == ("P",)
    assert Move.discard(0, "2G") not in g.legal_actions(0)


def test_an_event_goes_to_the_bottom_an_asset_into_play_and_neither_need_match() -> None:
    """ "an event does what it says and goes to the bottom of the discard pile; an asset goes into play in
    front
    of its player, who controls it. A card played for its effect need not match." """
    g, _ = position(["6P 2O 9G", "9O 9B"], "5G", draw="KP")
    assert not g.matches("6P")
    g.apply(Move.effect(0, "6P"))
    assert g.in_play[0] == ["6P"]
    g2, _ = position(["2P 9G", "9O 9B"], "5G", draw="KP")
    g2.apply(Move.effect(0, "2P", target=1))
    assert g2.discard[0] == "2P" and g2.discard[-1] == "5G"


def test_discarded_cards_have_no_effect() -> None:
    """ "Discarded cards have no effect." """
    g, _ = position(["2G 9G", "9O 9B"], "5G", draw="KP")
    events = g.apply(Move.discard(0, "2G"))
    assert len(g.hands[1]) == 2 and [e.kind for e in events] == ["discarded"]


def test_the_turn_ends_when_the_player_says_so_or_nothing_is_left_to_do() -> None:
    """ "Then the turn ends (the player says so, or the bot ends it when nothing is left to do)." """
    g, _ = position(["2G 9G", "9O 9B"], "5G", draw="KP")
    events = g.apply(Move.end(0))
    assert ("turn_ended", 0, False) in [(e.kind, e.seat, e.data.get("auto")) for e in events]
    assert g.active == [1]
    g2, events = position(["AO", "9O 9B"], "5G", draw="AP")  # neither matches nor has an effect
    assert ("turn_ended", 0, True) in [(e.kind, e.seat, e.data.get("auto")) for e in events]
    assert g2.active == [1]


def test_destroyed_cards_go_to_the_bottom_of_the_discard_pile() -> None:
    """ "Destroyed cards go to the bottom of the discard pile (detail 3)." """
    g, _ = position(["9B 9G", "9O 3B"], "5G", in_play=["", "KO"], draw="KP")
    g.apply(Move.effect(0, "9B", target_card="KO"))
    assert g.discard[1] == "KO" and g.discard[-1] == "5G"


def test_a_card_needing_a_choice_is_playable_only_when_one_exists() -> None:
    """ "A card that needs a choice (a player, a card in play) is playable only when a choice exists, and its
    player makes it (clarification 6)." """
    g, _ = position(["9B 10B 9G", "9O 3B"], "5G", draw="KP")
    assert not [m for m in g.legal_actions(0) if m.kind == "effect" and m.card in ("9B", "10B")]
    refused(g, Move.effect(0, "9B"), 933)
    refused(g, Move.effect(0, "10B"), 933)


# --------------------------------------------------------------------------------------- winning and losing
def test_a_player_with_no_card_in_hand_wins_at_once() -> None:
    """ "A player with no card in hand wins at once (detail 4)." """
    g, _ = position(["5B", "9O 3B 4P"], "9B", draw="6B")
    g.apply(Move.discard(0, "5B"))
    events = g.apply(Move.effect(0, "6B"))
    assert g.over and g.winners == [0] and g.reason == "out" and kinds(events)[-1] == "game_over"
    assert g.scores == [0, 3]


def test_a_loss_puts_hand_and_cards_in_play_on_the_bottom_of_the_discard_pile() -> None:
    """ "A player who loses leaves the game: their hand and the cards they control go to the bottom of the
    discard pile" """
    twelve = "2B 3B 4B 5B 6B 7B 9B 10B JB KB 2O 3O"
    g, _ = position(["9P 9G", twelve, "2G 3G"], "5O", in_play=["QB", "4O 6O", ""], draw="KO")
    assert g.discard[:14] == [*twelve.split(), "4O", "6O"] and g.discard[-1] == "5O"
    assert g.hands[1] == [] and g.in_play[1] == []
    assert sorted(g.all_cards()) == sorted(DECK)


def test_the_last_player_left_wins() -> None:
    """ "… the last player left wins (detail 5)." """
    twelve = "2B 3B 4B 5B 6B 7B 9B 10B JB KB 2O 3O"
    g, _ = position(["9P 9G", twelve], "5O", in_play=["QB", ""], draw="KO")
    assert g.over and g.winners == [0] and g.reason == "last_standing"
    assert g.scores == [0, 12]  # the loser's points: the cards held when they lost


def test_points_are_one_per_card_and_most_points_plays_first_next_game() -> None:
    """ "Several games make a match with card-count points (winner 0, each other player one point per card in
    hand; most points plays first next game)" """
    m = CrazierMatch.new(get_preset("crazier-abilities"), 3, seed=11)
    m.round = position(["5B", "9O 3B 4P", "9G"], "9B", draw="6B")[0]
    m.apply(Move.discard(0, "5B"))
    m.apply(Move.effect(0, "6B"))
    assert m.totals == [0, 3, 1]
    m.start_next_round()
    assert m.round.lead == 1


# --------------------------------------------------------------------------------------- teams
def test_teams_take_their_turn_together_and_it_ends_when_every_member_ended() -> None:
    """ "A team takes its turn together: each member does their own beginning-of-turn abilities, draw, discard
    and effect, in any order between them, and the team's turn ends when every member has ended theirs." """
    g, _ = position(["9B 2B", "9O 3B", "5B 2P", "9P 3P"], "5G", draw="KB KG", teams=True)
    assert g.active == [0, 2] and "KB" in g.hands[0] and "KG" in g.hands[2]
    assert g.acting == [0, 2]
    refused(g, Move.discard(1, "9O"), 901)
    g.apply(Move.discard(2, "5B"))  # the second member first
    g.apply(Move.discard(0, "9B"))
    g.apply(Move.end(0))
    assert g.active == [0, 2] and g.acting == [2]
    g.apply(Move.end(2))
    assert g.active == [1, 3]


def test_teams_are_seated_alternately_and_only_the_other_team_are_opponents() -> None:
    """ "two teams of two (or three) players, seated alternately" — a teammate's cards are not an opponent's:
    Crown of Kings cannot take them and Castle does not reduce a teammate's Forbidden Knowledge."""
    g, _ = position(
        ["10B 2B 9G", "9O", "9B", "9P"], "5G", in_play=["", "6O", "6G", ""], teams=True, draw="KB"
    )
    assert {m.target_card for m in g.legal_actions(0) if m.card == "10B"} == {"6O"}
    g2, _ = position(["2B 9G", "9O", "9B 3G", "9P"], "5G", in_play=["", "", "6G", ""], teams=True, draw="KB")
    g2.apply(Move.effect(0, "2B", target=2))
    assert len(g2.hands[2]) == 5  # 9B 3G, its own draw and two: no Castle reduction from a teammate


def test_the_first_team_with_a_player_out_of_cards_wins_and_points_are_by_team() -> None:
    """ "The first team with a player out of cards wins; points are by team." """
    g, _ = position(["9G 2B", "9O 3B", "6G", "9P 3P 4P"], "5G", draw="KB 2O", teams=True)
    g.apply(Move.discard(2, "6G"))
    g.apply(Move.effect(2, "2O", target=1))  # its last card: the game is over before seat 1 would draw
    assert g.over and g.winners == [0, 2]
    assert g.scores == [0, 5, 0, 5]  # seat 1: 2 cards, seat 3: 3 cards


def test_a_match_with_teams_ranks_the_teams() -> None:
    """ "points are by team" — the match's totals are the team's, for each member, and it ranks the teams."""
    m = CrazierMatch.new(get_preset("crazier-abilities", teams=True), 4, seed=3)
    m.round = position(["9G 2B", "9O 3B", "6G", "9P 3P 4P"], "5G", draw="KB 2O", teams=True)[0]
    m.apply(Move.discard(2, "6G"))
    m.apply(Move.effect(2, "2O", target=1))
    assert m.totals == [0, 5, 0, 5]
    assert m.side_ranking() == [(1, (0, 2), 0), (2, (1, 3), 5)]


# --------------------------------------------------------------------------------------- safety net
def test_the_turn_cap_ends_the_game_as_fewest_cards_wins() -> None:
    """ "The turn cap stays as the safety net." """
    rules = get_preset("crazier-abilities").replace(turn_cap=3)
    g = CrazierRound.new(rules, 2, seed=5)
    while not g.over:
        g.apply(Move.end(g.acting[0]))  # nobody plays: hands only grow, so only the cap can end it
    fewest = min(len(h) for h in g.hands)
    assert g.reason == "turn_cap" and g.turn == 3
    assert g.winners == [s for s in range(2) if len(g.hands[s]) == fewest]


def test_each_team_member_does_their_own_beginning_of_turn_one_after_the_other() -> None:
    """ "each member does their own beginning-of-turn abilities, draw …": the first player's Angel of Hope
    and draw, then the second member's."""
    g, _ = position(
        ["9G 2B", "9O 3B", "9B 2P", "9P 3P"],
        "5G",
        in_play=["5B", "", "5O", ""],
        draw="KB KG KO KP",
        teams=True,
    )
    assert g.choice is not None and g.choice["by"] == 0 and g.legal_actions(2) == []
    events = g.apply(Move.player(0, 1))
    assert g.choice is not None and g.choice["by"] == 2
    events += g.apply(Move.player(2, 3))
    drew = [(e.seat, e.data["by"]) for e in events if e.kind == "drew"]
    assert drew == [(1, "5B"), (0, None), (3, "5O"), (2, None)]
    assert "KB" in g.hands[1] and "KG" in g.hands[0] and "KO" in g.hands[3] and "KP" in g.hands[2]


def test_teams_of_three_play_with_six_players() -> None:
    """ "two teams of two (or three) players, seated alternately" """
    g = CrazierRound.new(get_preset("crazier-abilities", teams=True), 6, seed=2, first=1)
    assert g.active == [1, 3, 5] and [len(h) for h in g.hands] == [7, 8, 7, 8, 7, 8]


def test_who_goes_first_is_random_in_a_matchs_first_game() -> None:
    """ "Who goes first is random in a match's first game" — drawn from the match's seed, so it replays."""
    firsts = {CrazierMatch.new(get_preset("crazier-abilities"), 4, seed=s).round.lead for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert (
        CrazierMatch.new(get_preset("crazier-abilities"), 4, seed=5).to_json()
        == CrazierMatch.new(get_preset("crazier-abilities"), 4, seed=5).to_json()
    )
