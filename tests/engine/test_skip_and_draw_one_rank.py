"""A rank that both skips and makes the next player draw (house rules allow skip and draw on one rank, and a
reverse that skips with two players): RULESETS.md, options table, special ranks, "skip (next player loses the
turn) ... draw N (next player owes N)": the next player draws the cards owed and loses the turn."""

from __future__ import annotations

import pytest

from bot.engine import Action, get_preset
from tests.engine.support import make_round, play

TWO_PLAYERS = ["2C 3D 4D 5D 6D 7D 9D", "KH QH JH 10H 9H 4H 3H"]
THREE_PLAYERS = ["2C 3D 4D 5D 6D", "KH QH JH 10H 9H", "KS QS JS 10S 9S"]


@pytest.mark.parametrize(
    ("changes", "hands", "owed_by"),
    [
        ({"skip_ranks": (2,), "draw_ranks": ((2, 2),)}, TWO_PLAYERS, 1),
        ({"reverse_ranks": (2,), "draw_ranks": ((2, 2),), "reverse_two_players": "skip"}, TWO_PLAYERS, 1),
        ({"skip_ranks": (2,), "draw_ranks": ((2, 2),)}, THREE_PLAYERS, 1),
    ],
    ids=["skip+draw, 2 players", "reverse(skip with two)+draw, 2 players", "skip+draw, 3 players"],
)
def test_a_draw_card_is_owed_by_the_next_player_not_by_its_player(
    changes: dict[str, object], hands: list[str], owed_by: int
) -> None:
    """RULESETS.md, options table, special ranks: "a map rank → effect, each effect optional: skip (next
    player loses the turn), reverse (...with two players either nothing or a skip, by option), draw N (next
    player owes N)". The engine accepts a rank with both effects (it refuses only answer+draw), e.g. the
    common "a 2 makes the next player draw two and skip". The cards are owed by the next player (seat 1). The
    engine applies the skip first and hands the pending draw to whoever acts after it: with two players the
    player who laid the 2 must pay their own penalty; with three the player after the skipped one pays."""
    rs = get_preset("classic").replace(**changes)
    r = make_round(rs, hands, "5C")
    sizes = r.hand_sizes
    r.apply(play(0, "2C"))
    owes_now = r.to_act if r.pending_draw else None
    assert owes_now in (None, owed_by), (
        f"seat {owes_now} owes the {r.pending_draw} cards of seat 0's 2 (expected seat {owed_by})"
    )
    if owes_now is None:  # the engine made the next player draw at once
        assert r.hand_sizes[owed_by] == sizes[owed_by] + 2
    assert r.hand_sizes[0] == sizes[0] - 1


def test_the_skipped_player_cannot_answer_with_a_stacking_card() -> None:
    """With stacking on, the next player holds a 2 but has lost the turn: they draw the 2 owed (and the
    history says so, as a penalty), and the player after them is to act, owing nothing."""
    rs = get_preset("classic").replace(skip_ranks=(2,), draw_ranks=((2, 2),), stacking=True)
    r = make_round(rs, ["2C 3D 4D 5D 6D", "2H QH JH 10H 9H", "KS QS JS 10S 9S"], "5C")
    before = r.hand_sizes
    r.apply(play(0, "2C"))
    assert r.to_act == 2 and r.pending_draw == 0
    assert r.hand_sizes[1] == before[1] + 2
    assert ("penalty", 1, 2) in r.history
    assert Action.draw(2) in r.legal_actions(2)
