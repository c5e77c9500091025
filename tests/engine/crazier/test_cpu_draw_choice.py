"""The crazier-abilities CPUs answer a choice that makes a player draw (Angel of Hope: "a player of your
choice draws a card") by choosing an opponent, however many cards it holds, never themselves or a teammate
while an opponent is offered.

In this game a card in hand is a step away from winning (an empty hand wins; fewest cards win the impossible
draw and score least): a card drawn by an opponent never costs the chooser anything. Castle ("If an opponent
would cause you to draw one or more cards, they cause you to draw one fewer") can cut the draw to nothing:
choosing that opponent is then as if nobody drew, still better than drawing oneself, though worse than an
opponent who does draw. Among opponents who draw, ``normal`` keeps choosing the one closest to winning.

Before, ``normal`` ranked the players by ``_player_worth`` (an opponent ``10 - hand size + 0.5 per card in
play - 3 per Castle``, oneself or a teammate a flat -10): an opponent holding about 20 cards, or fewer with a
Castle, scored below the chooser, who then drew the card itself. ``hard`` searched each choice on one random
deal of the hidden cards, where the chooser's own draw could look better by chance (a third of its answers in
the Castle position below). The turn timer's referee answers an absent player's choice as ``normal`` does
(``tests/service/test_crazier_referee_draw_choice.py``).
"""

from __future__ import annotations

import pytest

from bot.engine.crazier import CrazierRound, Move
from bot.engine.crazier.cpu import choose_action
from tests.engine.crazier.support import position

# Twenty cards: a big hand, with no Mordred, King Arthur or Angel of Hope in it.
BIG_HAND = "AB AG AO AP 2G 2O 2P 3B 3G 3O 3P 4B 4G 4O 4P 7B 7G 7O 7P 10B"
SEEDS = range(10)


def angel_position(hands: list[str], in_play: list[str], *, teams: bool = False) -> CrazierRound:
    """Seat 0 begins its turn with an Angel of Hope (5B) in play: its choice of a player waits."""
    g, _ = position(hands, "5O", in_play=in_play, draw="KB QB", teams=teams)
    assert g.choice is not None and g.choice["kind"] == "player" and g.choice["by"] == 0
    return g


def answers(g: CrazierRound, level: str) -> set[int | None]:
    """The players ``level`` chooses over several seeds."""
    return {choose_action(g, 0, level, seed=seed).target for seed in SEEDS}


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_an_opponent_with_a_big_hand_draws_rather_than_the_chooser(level: str) -> None:
    # Seat 1 holds 21 cards: ``normal`` scored it 10 - 21 = -11, below its own -10.
    g = angel_position(["9P 9G", BIG_HAND + " 10G"], ["5B", ""])
    assert answers(g, level) == {1}
    before = len(g.hands[1])
    g.apply(choose_action(g, 0, level, seed=0))
    assert len(g.hands[1]) == before + 1


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_an_opponent_whose_castle_cancels_the_draw_is_chosen_rather_than_the_chooser(level: str) -> None:
    # Seat 1 holds 20 cards and a Castle: choosing it draws nobody a card; choosing seat 0 draws seat 0 one.
    g = angel_position(["9P 9G", BIG_HAND], ["5B", "6G"])
    assert answers(g, level) == {1}
    hands = [len(h) for h in g.hands]
    g.apply(Move.player(0, 1))
    # The Castle took the card: seat 1 drew none, seat 0 only its turn's own draw.
    assert [len(h) for h in g.hands] == [hands[0] + 1, hands[1]]


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_an_opponent_who_draws_comes_before_one_whose_castle_cancels_the_draw(level: str) -> None:
    # Seat 1 is closer to winning (two cards) but its Castle cancels the draw; seat 2 holds 20 cards.
    g = angel_position(["9P 9G", "9O 9B", BIG_HAND], ["5B", "6G", ""])
    assert answers(g, level) == {2}


def test_normal_still_chooses_the_opponent_closest_to_winning_among_those_who_draw() -> None:
    # Seats 1 and 2 both draw; seat 2 holds one card, seat 1 twenty.
    g = angel_position(["9P 9G", BIG_HAND, "9O"], ["5B", "", ""])
    assert answers(g, "normal") == {2}


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_with_teams_an_opponent_is_chosen_rather_than_oneself_or_a_teammate(level: str) -> None:
    # Seats 0 and 2 against 1 and 3. Both opponents hold a Castle (the draw is cancelled); the teammate holds
    # the team's fewest cards, so before, ``hard`` saw no cost in drawing the card itself.
    hands = ["9P 9G AB", "9O 9B 2B", "AG", "AO 2O 2G"]
    g = angel_position(hands, ["5B", "6G", "", "6O"], teams=True)
    assert answers(g, level) <= {1, 3}
    # Without the Castles the opponents draw: still one of them.
    g = angel_position(hands, ["5B", "", "", ""], teams=True)
    assert answers(g, level) <= {1, 3}


def test_hard_plays_forbidden_knowledge_as_its_last_card_at_an_opponent() -> None:
    # Forbidden Knowledge ("Choose a player: they draw two cards") as seat 0's last card wins at once
    # whoever it chooses; before, ``hard`` chose the first such move: itself.
    g, _ = position(["2B", "9O 9B", "9G 9P"], "5B", draw="AB QB")  # the turn's draw: AB
    g.apply(Move.discard(0, "AB"))
    assert g.hands[0] == ["2B"]
    for seed in SEEDS:
        move = choose_action(g, 0, "hard", seed=seed)
        assert move.kind == "effect" and move.card == "2B" and move.target in (1, 2), move
