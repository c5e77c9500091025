"""A team's turn in crazier-abilities while a member's beginning-of-turn choice waits (RULESETS.md, "Crazier
Eights with its ability cards", Teams, 001 §8): "A team takes its turn together: each member does their own
beginning-of-turn abilities, draw, discard and effect, in any order between them, and the team's turn ends
when every member has ended theirs."

The beginnings of turn and draws happen one member at a time, clockwise from the team's first player (decision
10 in ``bot.engine.crazier``); a member whose beginning and draw are done may discard, play and end while a
teammate's choice waits, and the choice is asked again after each such move, as when it was first asked."""

from __future__ import annotations

import json
import random

import pytest

from bot.engine.crazier import DECK, CrazierRound, Move, get_preset
from bot.engine.crazier.actions import CHOICE_KINDS
from bot.engine.crazier.cpu import LEVELS, choose_action, determinized
from bot.engine.crazier.deck import COLOURS
from bot.engine.crazier.game import MAIN
from tests.engine.crazier.support import kinds, position, refused

#: Seat 0 (the team's first player) draws AO; seat 2's Angel of Hope then waits for its choice of a player.
#: AG (green and orange) and AB (blue and green) match the green 5 on top.
HANDS = ["AG 2B", "9O 3B 4O", "AB 3P", "9P 3O"]

#: One teammate's choice of each kind waiting while seat 0 plays its part.
PENDING = {
    "order": ["", "6O", "5B JB", ""],
    "card": ["", "6O", "JB", "6P"],
    "player": ["", "", "5B", ""],
    "look": ["", "", "4B", ""],
}


def _angel(
    hands: list[str] = HANDS,
    in_play: list[str] | None = None,
    draw: str = "AO KO KG QO",
    rest: str | int = "draw",
) -> CrazierRound:
    """A team turn of seats 0 and 2 on a green 5, run to its first decision."""
    in_play = in_play if in_play is not None else PENDING["player"]
    g, _ = position(hands, "5G", in_play=in_play, draw=draw, teams=True, rest=rest)
    return g


def every_move(g: CrazierRound, seat: int) -> list[Move]:
    """Every move ``seat`` could send, legal or not: each card with each colour, target and card target."""
    moves = [Move.end(seat), Move.keep(seat), Move.move(seat)]
    moves += [Move.player(seat, t) for t in range(g.n)]
    for c in DECK:
        moves += [Move.discard(seat, c), *(Move.discard(seat, c, colour) for colour in COLOURS)]
        moves += [Move.effect(seat, c), *(Move.effect(seat, c, target=t) for t in range(g.n))]
        moves += [Move.effect(seat, c, target_card=x) for x in DECK]
        moves += [Move.order(seat, c), Move.choose_card(seat, c)]
    return moves


def assert_legal_is_what_is_accepted(g: CrazierRound) -> None:
    """Each acting seat has moves, and ``legal_actions`` lists exactly what ``is_legal`` accepts; the
    other seats have none."""
    every: list[Move] = []
    for seat in range(g.n):
        legal = g.legal_actions(seat)
        accepted = [m for m in every_move(g, seat) if g.is_legal(m)]
        assert len(set(legal)) == len(legal) and set(legal) == set(accepted), seat
        assert bool(legal) == (seat in g.acting), seat
        every += legal
    assert set(g.legal_actions()) == set(every) and len(g.legal_actions()) == len(every)


# ------------------------------------------------------------------------------------- who acts
def test_a_member_who_has_drawn_discards_while_a_teammates_angel_of_hope_waits() -> None:
    """The audit's situation: seat 0's matching discard was refused while seat 2 chose a player for its
    Angel of Hope ("in any order between them")."""
    g = _angel()
    assert g.choice is not None and g.choice["by"] == 2 and g.stage[0] == MAIN and "AO" in g.hands[0]
    assert g.acting == [2, 0] and g.to_act == 2  # the seat owing the choice first
    assert g.legal_actions(2) == [Move.player(2, s) for s in range(4)]
    assert set(g.legal_actions(0)) == {
        Move.discard(0, "AG"),
        *(Move.effect(0, "2B", target=s) for s in range(4)),
        Move.end(0),
    }
    assert_legal_is_what_is_accepted(g)
    refused(g, Move.player(0, 1), 901)  # the choice is seat 2's
    refused(g, Move.discard(1, "9O"), 901)  # the other team
    refused(g, Move.end(3), 901)
    events = g.apply(Move.discard(0, "AG"))
    assert kinds(events) == ["discarded"]
    assert g.choice is not None and g.choice["by"] == 2 and g.acting == [2, 0]
    assert_legal_is_what_is_accepted(g)


def test_the_member_owing_the_choice_answers_it_first() -> None:
    """The seat owing the choice has only its choice's moves, even one that would have main moves."""
    g = _angel()
    assert g.acting == [2, 0]
    refused(g, Move.end(2), 935)
    refused(g, Move.discard(2, "AB"), 935)
    g.apply(Move.player(2, 1))  # seat 1 draws KO, then seat 2 its own card, KG
    assert g.choice is None and "KO" in g.hands[1] and "KG" in g.hands[2] and g.acting == [0, 2]
    assert Move.discard(2, "AB") in g.legal_actions(2)


def test_legal_moves_are_what_is_accepted_for_every_kind_of_pending_choice() -> None:
    """With an order, a card, a player or a look waiting, the member who has drawn acts too."""
    for kind, in_play in PENDING.items():
        g = _angel(in_play=in_play)
        assert g.choice is not None and g.choice["kind"] == kind and g.choice["by"] == 2, kind
        assert g.acting == [2, 0], kind
        assert_legal_is_what_is_accepted(g)


# ------------------------------------------------------------------------------------- the choice again
def test_death_by_a_teammate_leaves_a_pending_devious_dragon_one_card_which_it_destroys() -> None:
    """Seat 2's Devious Dragon waits to destroy 6O or itself; seat 0 plays Death on 6O. One card is left in
    play: the Dragon must destroy it (decision 4: a single option is taken), itself; then seat 2 draws."""
    g = _angel(hands=["AG 9B", "9O 3B 4O", "9P 3P", "2P 3O"], in_play=["", "6O", "JB", ""])
    assert g.choice is not None and g.choice["kind"] == "card"
    assert set(g.legal_actions(2)) == {Move.choose_card(2, "6O"), Move.choose_card(2, "JB")}
    events = g.apply(Move.effect(0, "9B", target_card="6O"))
    destroyed = [(e.data["card"], e.data["by"]) for e in events if e.kind == "destroyed"]
    assert destroyed == [("6O", "9B"), ("JB", "JB")]
    assert kinds(events)[-2:] == ["drew", "drew_cards"] and events[-1].seat == 2
    assert g.choice is None and g.in_play == [[], [], [], []] and g.acting == [0, 2]


def test_death_on_a_pending_devious_dragon_itself_leaves_it_the_other_card() -> None:
    """ "Each happens even if its card was destroyed by an earlier one" (001 §6): seat 0's Death destroys
    the waiting Dragon; the Dragon still happens and destroys the only card left in play."""
    g = _angel(hands=["AG 9B", "9O 3B 4O", "9P 3P", "2P 3O"], in_play=["", "6O", "JB", ""])
    events = g.apply(Move.effect(0, "9B", target_card="JB"))
    destroyed = [(e.data["card"], e.data["by"]) for e in events if e.kind == "destroyed"]
    assert destroyed == [("JB", "9B"), ("6O", "JB")]
    assert g.choice is None and g.stage[2] == MAIN


def test_crown_of_kings_by_a_teammate_takes_a_card_a_pending_devious_dragon_may_still_destroy() -> None:
    """Crown of Kings moves a card between players: it stays in play, so the Dragon's choice still waits
    with the same cards; the card it then destroys is seat 0's."""
    g = _angel(hands=["AG 10B", "9O 3B 4O", "9P 3P", "2P 3O"], in_play=["", "6O", "JB", ""])
    events = g.apply(Move.effect(0, "10B", target_card="6O"))
    assert kinds(events) == ["played", "took_control"] and g.in_play[0] == ["6O"]
    assert g.choice is not None and g.choice["by"] == 2
    assert set(g.legal_actions(2)) == {Move.choose_card(2, "6O"), Move.choose_card(2, "JB")}
    events = g.apply(Move.choose_card(2, "6O"))
    assert (events[0].kind, events[0].seat, events[0].data["card"]) == ("destroyed", 0, "6O")


def test_forbidden_knowledge_by_a_teammate_draws_the_card_a_pending_elven_princess_looks_at() -> None:
    """Seat 2's Elven Princess looks at QB and waits for keep-or-move. A teammate's discard leaves the look
    as it is; seat 0's Forbidden Knowledge makes seat 1 draw QB and JB: the card looked at is no longer on
    top, so nothing is left to choose and the ability does nothing. Seat 2 then draws its own card, KO. Seat 0
    has nothing left to do, but seat 2 still may act (its Death has the Elven Princess to destroy): seat 0's
    part is not ended for it while a teammate may still give it a move; it may end it itself."""
    g = _angel(hands=["AG 2O", "9O 3B 4O", "9P 3P", "2P 3O"], in_play=["", "", "4B", ""], draw="KB QB JB KO")
    assert g.choice is not None and g.choice["kind"] == "look" and g.view(2)["choice"]["seen"] == "QB"
    g.apply(Move.discard(0, "AG"))
    assert g.choice is not None and g.view(2)["choice"]["seen"] == "QB" == g.draw[-1]
    events = g.apply(Move.effect(0, "2O", target=1))
    assert [k for k in kinds(events) if k != "drew_cards"] == [
        "played",
        "drew",
        "no_effect",
        "drew",
    ]
    assert [e.data["card"] for e in events if e.kind == "no_effect"] == ["4B"]
    assert "QB" in g.hands[1] and "KO" in g.hands[2]
    assert g.choice is None and g.acting == [0, 2] and g.legal_actions(0) == [Move.end(0)]
    assert not {"kept_on_top", "moved_to_bottom"} & set(kinds(events))


def test_a_draw_that_castles_prevent_leaves_the_pending_look_waiting() -> None:
    """Two Castles: seat 1 draws nothing, the card looked at is still on top, the look still waits."""
    g = _angel(
        hands=["AG 2O", "9O 3B 4O", "9P 3P", "2P 3O"], in_play=["", "6O 6P", "4B", ""], draw="KB QB JB KO"
    )
    events = g.apply(Move.effect(0, "2O", target=1))
    assert "drew" not in kinds(events)
    assert g.choice is not None and g.choice["kind"] == "look" and g.draw[-1] == "QB"
    g.apply(Move.move(2))
    assert g.draw[0] == "QB" and "JB" in g.hands[2]


def test_a_pending_order_still_waits_after_a_teammate_destroys_one_of_its_cards() -> None:
    """Seat 2 orders its Angel of Hope and Devious Dragon; seat 0 destroys the Dragon: both abilities still
    happen (001 §6), so the order is still asked; then the Dragon chooses among the cards left."""
    g = _angel(hands=["AG 9B", "9O 3B 4O", "9P 3P", "2P 3O"], in_play=["", "6O", "5B JB", ""])
    assert g.choice is not None and g.choice["kind"] == "order"
    g.apply(Move.effect(0, "9B", target_card="JB"))
    assert g.choice is not None and g.choice["kind"] == "order"
    assert set(g.legal_actions(2)) == {Move.order(2, "5B"), Move.order(2, "JB")}
    g.apply(Move.order(2, "JB"))  # two cards left in play, 6O and the Angel: the Dragon asks which
    assert g.choice is not None and g.choice["kind"] == "card"
    assert set(g.legal_actions(2)) == {Move.choose_card(2, "6O"), Move.choose_card(2, "5B")}


# ------------------------------------------------------------------------------------- the end
def test_a_teammate_going_out_while_a_choice_waits_ends_the_game_and_clears_the_choice() -> None:
    g = _angel(hands=["AG", "9O 3B 4O", "9P 3P", "2P 3O"], draw="6B KO KG")
    g.apply(Move.discard(0, "AG"))
    assert g.choice is not None
    events = g.apply(Move.effect(0, "6B"))  # its last card, an asset, into play: seat 0 is out
    assert g.over and g.reason == "out" and g.winners == [0, 2] and kinds(events)[-1] == "game_over"
    assert g.choice is None and g.acting == [] and g.to_act is None and g.legal_actions() == []
    assert CrazierRound.from_json(json.loads(json.dumps(g.to_json()))).acting == []


def test_an_impossible_draw_a_teammate_causes_while_a_choice_waits_ends_the_game() -> None:
    """The draw pile is empty after seat 0's draw and the discard pile holds its top card only: seat 0's
    Forbidden Knowledge cannot be drawn, the game is over, fewest cards wins (seats 0 and 2)."""
    g = _angel(hands=["2B AO", "9P 3B 4O", "AB 3P", ""], draw="KB", rest=3)
    assert g.draw == [] and g.discard == ["5G"] and g.choice is not None
    events = g.apply(Move.effect(0, "2B", target=1))
    assert g.over and g.reason == "impossible_draw" and g.winners == [0, 2]
    assert kinds(events)[-1] == "game_over"
    assert g.choice is None and g.acting == [] and g.legal_actions() == []


# ------------------------------------------------------------------------------------- ending one's turn
def test_a_member_ending_while_a_choice_waits_is_done_and_the_team_turn_ends_with_the_last_member() -> None:
    """Teams of three: seat 0 ends while seat 2's Angel of Hope waits; seat 0 is done, the team's turn goes
    on: seat 2 answers and draws, then seat 4 begins (its own Angel); the turn ends when seats 2 and 4 end
    too."""
    g, _ = position(
        ["AG 2B", "9O 3B", "AB 3P", "9P 3O", "AP 4P", "7G 4O"],
        "5G",
        in_play=["", "", "5B", "", "5O", ""],
        draw="KB KO KG KP QB QG",
        teams=True,
    )
    assert g.active == [0, 2, 4] and g.choice is not None and g.choice["by"] == 2 and g.acting == [2, 0]
    events = g.apply(Move.end(0))
    assert [(e.kind, e.seat, e.data["auto"]) for e in events] == [("turn_ended", 0, False)]
    assert g.stage[0] == "done" and g.acting == [2] and g.turn == 1 and g.active == [0, 2, 4]
    g.apply(Move.player(2, 1))  # seat 1 draws KO, seat 2 KG; seat 4's Angel of Hope waits
    assert "KG" in g.hands[2] and g.choice is not None and g.choice["by"] == 4 and g.acting == [4, 2]
    refused(g, Move.end(0), 901)
    g.apply(Move.end(2))
    assert g.turn == 1 and g.acting == [4]
    g.apply(Move.player(4, 3))
    assert g.acting == [4] and g.turn == 1
    g.apply(Move.end(4))
    assert g.turn == 2 and g.active == [1, 3, 5]


# ------------------------------------------------------------------------------------- persistence
def test_a_json_round_trip_while_a_choice_waits_after_a_teammates_moves_plays_on_alike() -> None:
    """The stored shape has not changed (format 1): the state is its stages and its choice."""
    g = _angel(hands=["AG 10B", "9O 3B 4O", "9P 3P", "2P 3O"], in_play=["", "6O", "JB", "6P"])
    g.apply(Move.discard(0, "AG"))
    g.apply(Move.effect(0, "10B", target_card="6O"))
    data = g.to_json()
    assert data["format"] == 1 and g.choice is not None and g.acting == [2, 0]
    copy = CrazierRound.from_json(json.loads(json.dumps(data)))
    assert copy.to_json() == data and copy.acting == g.acting
    assert [copy.legal_actions(s) for s in range(4)] == [g.legal_actions(s) for s in range(4)]
    for move in (Move.end(0), Move.choose_card(2, "6P"), Move.end(2)):
        assert copy.apply(move) == g.apply(move)
    assert copy.to_json() == g.to_json() and g.active == [1, 3]


# ------------------------------------------------------------------------------------- the CPUs
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind", sorted(PENDING))
def test_every_cpu_level_plays_its_part_while_a_teammates_choice_waits(level: str, kind: str) -> None:
    g = _angel(hands=["AG 2B 9B 10B", "9O 3B 4O", "AB 3P", "9P 3O"], in_play=PENDING[kind])
    assert g.choice is not None and g.choice["kind"] == kind and g.acting == [2, 0]
    for _ in range(10):
        if 0 not in g.acting:
            break
        move = choose_action(g, 0, level, seed=3)
        assert move in g.legal_actions(0) and move.kind not in CHOICE_KINDS
        g.apply(move)
    assert g.stage[0] == "done"


def test_the_hard_cpu_does_not_see_the_card_a_teammates_elven_princess_looks_at() -> None:
    """The card looked at is shown to the Princess's controller only: in the hard level's copy of the game
    (every hidden card dealt again) the pending look is about the copy's own top card."""
    g = _angel(in_play=PENDING["look"])
    seen = g.choice["entry"][2]["seen"] if g.choice is not None else None
    assert seen == g.draw[-1] and seen not in g.hands[0]
    data = g.to_json()
    hidden = [c for s in (1, 2, 3) for c in data["hands"][s]] + data["draw"]
    random.Random(5).shuffle(hidden)
    for s in (1, 2, 3):
        k = len(data["hands"][s])
        data["hands"][s], hidden = hidden[:k], hidden[k:]
    data["draw"], data["seed"] = hidden, 5
    data["choice"]["entry"][2]["seen"] = hidden[-1]
    other = CrazierRound.from_json(data)
    assert other.draw[-1] != seen
    copy = determinized(g, 0, random.Random(1))
    assert copy.to_json() == determinized(other, 0, random.Random(1)).to_json()
    assert copy.choice is not None and copy.choice["entry"][2]["seen"] == copy.draw[-1]
    assert copy.legal_actions(2) == [Move.keep(2), Move.move(2)]


# ------------------------------------------------------------------------------------- nothing gets stuck
def test_random_team_games_move_during_choices_and_never_get_stuck() -> None:
    """Random moves of any acting seat: every acting seat always has a move, the others none, and members
    move while a teammate's choice waits (the choice still has options afterwards, or is gone)."""
    during_choice = 0
    for seed in range(60):
        rng = random.Random(seed)
        g = CrazierRound.new(get_preset("crazier-abilities", teams=True), rng.choice((4, 6)), seed=seed)
        for _ in range(20_000):
            if g.over:
                break
            acting = g.acting
            assert acting and all(g.legal_actions(s) for s in acting)
            assert not any(g.legal_actions(s) for s in range(g.n) if s not in acting)
            seat = rng.choice(acting)
            move = rng.choice(g.legal_actions(seat))
            pending = g.choice is not None and move.kind not in CHOICE_KINDS
            g.apply(move)
            if pending:
                during_choice += 1
                assert g.choice is None or g.legal_actions(g.choice["by"])
            assert sorted(g.all_cards()) == sorted(DECK)
        assert g.over and g.acting == [] and g.choice is None
    assert during_choice > 50
