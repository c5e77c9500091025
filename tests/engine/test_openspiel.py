"""'Draw up to 5' without a reshuffle checked against OpenSpiel's ``crazy_eights`` (RULESETS.md: the same
draw rule), game by game: OpenSpiel plays random games; the engine, dealt the same cards in the same order,
must offer exactly the same choices at every decision and end the game at the same moment.

OpenSpiel asks for a pass where this engine passes by itself (a player with nothing to do): those passes are
checked as "the engine already moved on". A game whose first turned card is an 8 is left out (OpenSpiel puts
it back at random; the engine buries it in the middle of the stock).
"""

from __future__ import annotations

import random

import pytest

from bot.engine import Action, ActionKind, Round, Ruleset, get_preset

pyspiel = pytest.importorskip("pyspiel")

DRAW, PASS, SUIT_BASE = 52, 53, 54


def our_card(card: int) -> int:
    """OpenSpiel's card (rank index 0 = '2' … 11 = 'K', 12 = 'A'; suit C D H S) as this engine's."""
    index, suit = divmod(card, 4)
    rank = 1 if index == 12 else index + 2
    return rank * 4 + suit


def ruleset_for(players: int) -> Ruleset:
    return get_preset("classic").replace(
        decks="one",
        draw_limit=5,
        after_draw="draw-up-to",
        reshuffle=False,
        blocked_after=players + 1,  # OpenSpiel: players + 1 passes in a row with an empty deck
        turn_cap=1_000_000,
    )


def openspiel_game(players: int, seed: int) -> list[int] | None:
    """A random game's whole history (chance outcomes and moves), or None when the starter was an 8."""
    game = pyspiel.load_game(
        "crazy_eights", {"players": players, "max_draw_cards": 5, "reshuffle": False, "max_turns": 100_000}
    )
    state = game.new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    history = list(state.history())
    dealt = players * (7 if players == 2 else 5)
    if history[1 + dealt] // 4 == 6:  # an 8 turned as the starter
        return None
    return history


def ours(action: Action) -> int:
    if action.kind is ActionKind.DRAW:
        return DRAW
    if action.kind is ActionKind.PASS:
        return PASS
    if action.kind is ActionKind.SUIT:
        assert action.suit is not None
        return SUIT_BASE + action.suit
    assert action.card is not None
    rank, suit = divmod(action.card, 4)
    index = 12 if rank == 1 else rank - 2
    return index * 4 + suit


def check_game(players: int, seed: int) -> bool:
    history = openspiel_game(players, seed)
    if history is None:
        return False
    game = pyspiel.load_game(
        "crazy_eights", {"players": players, "max_draw_cards": 5, "reshuffle": False, "max_turns": 100_000}
    )
    # Every card OpenSpiel dealt or drew, in order, is the engine's deck order (the rest follows).
    replay = game.new_initial_state()
    cards: list[int] = []
    for action in history:
        if replay.is_chance_node() and len(cards) < 52 and replay.history():
            cards.append(our_card(action))
        replay.apply_action(action)
    dealer = history[0] - 52
    rest = [c for c in range(4, 56) if c not in cards]
    rnd = Round.new(ruleset_for(players), players, dealer, deck=cards + rest)
    state = game.new_initial_state()
    for action in history:
        if state.is_chance_node():
            state.apply_action(action)
            continue
        player = state.current_player()
        legal = sorted(state.legal_actions())
        if legal == [PASS] and rnd.to_act != player:
            state.apply_action(action)  # the engine passed for this player already
            continue
        assert not rnd.over, f"seed {seed}: the engine ended before OpenSpiel"
        assert rnd.to_act == player, f"seed {seed}: OpenSpiel's player {player}, the engine's {rnd.to_act}"
        assert sorted(ours(a) for a in rnd.legal_actions(player)) == legal, f"seed {seed}"
        move = next(a for a in rnd.legal_actions(player) if ours(a) == action)
        rnd.apply(move)
        state.apply_action(action)
    assert state.is_terminal()
    if rnd.over:
        return True
    # OpenSpiel ended on passes. It also counts the pass of a player who drew the stock's last card that
    # turn; RULESETS.md counts a pass only when no card was played or drawn, so the engine may need one more
    # round: it has no stock left, and passes by everyone block it.
    assert all(rnd.hand_sizes) and rnd.stock_size == 0, f"seed {seed}: the games did not end together"
    for _ in range(players + 1):
        if rnd.over:
            break
        seat = rnd.to_act
        assert seat is not None and Action.pass_(seat) in rnd.legal_actions(seat)
        rnd.apply(Action.pass_(seat))
    assert rnd.over and rnd.blocked, f"seed {seed}"
    return True


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_draw_up_to_five_without_reshuffle_is_openspiel_crazy_eights(players: int) -> None:
    checked = sum(check_game(players, seed) for seed in range(60))
    assert checked >= 45
