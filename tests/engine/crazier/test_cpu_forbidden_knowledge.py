"""The crazier-abilities `normal` CPU aims Forbidden Knowledge at an opponent about to go out (it never
played it on anyone before).

Promised: issue 8 ("`normal`: a sound heuristic"), issue 25 ("CPU players play it at every level, including
every choice"), and the level's own description (bot/engine/crazier/cpu.py: "normal: ... play an effect aimed
at the opponent closest to winning, never against itself or a teammate"). Forbidden Knowledge ("Choose a
player: they draw two cards") played on an opponent holding one card is the obvious move (that opponent wins
by emptying its hand; the `hard` level plays it there every time). Over 300 three-player games of normal
CPUs, the normal level had Forbidden Knowledge to play at 3,576 decisions and played it 18 times.

Cause, before: ``_best_effect`` drops every effect whose worth is <= 0, and ``_player_worth`` is ``_threat`` =
``-hand_size + 0.5 * cards in play``, negative for any opponent holding a card and fewer than twice as many
cards in play: Forbidden Knowledge is never worth playing on anyone.
"""

from __future__ import annotations

from bot.engine.crazier import DECK, CrazierRound, get_preset
from bot.engine.crazier.cpu import choose_action


def position(hands: list[list[str]], top: str) -> CrazierRound:
    """Seat 0's turn (its draw done) with exactly ``hands`` and ``top`` on the discard pile."""
    game = CrazierRound.new(get_preset("crazier-abilities", teams=False), len(hands), seed=1, first=0)
    data = game.to_json()
    used = [c for h in hands for c in h] + [top]
    data["hands"] = [list(h) for h in hands]
    data["discard"] = [top]
    data["draw"] = [c for c in DECK if c not in used]
    data["follow"] = None
    data["recent"] = []
    return CrazierRound.from_json(data)


def test_normal_plays_forbidden_knowledge_on_the_opponent_about_to_go_out() -> None:
    # Seat 0 holds Forbidden Knowledge (2G), a matching Ace and cards with no effect it can play now (aces; a
    # Death and a Crown of Kings with nothing in play). Seat 1 holds one card, a Potion of Vitality: after its
    # turn's draw it plays the Potion and discards the drawn card if it matches, and has won.
    for seed in range(5):
        game = position([["2G", "AO", "AB", "10P", "9B", "AG"], ["3P"]], "6P")
        assert any(m.kind == "effect" and m.card == "2G" and m.target == 1 for m in game.legal_actions(0))
        moves = []
        while 0 in game.acting and not game.over:
            move = choose_action(game, 0, "normal", seed=seed)
            moves.append(move)
            game.apply(move)
        aimed = [m for m in moves if m.kind == "effect" and m.card == "2G" and m.target == 1]
        assert aimed, (
            "the normal CPU ended its turn without playing Forbidden Knowledge on the opponent holding one "
            f"card: {[(m.kind, m.card, m.target) for m in moves]}"
        )
