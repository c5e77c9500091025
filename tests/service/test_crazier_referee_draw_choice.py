"""The turn timer's referee answers a timed-out player's pending Angel of Hope by choosing an opponent to
draw, never the absent player it acts for.

README, *Time*: when a person's turn runs out "the bot acts for them as the rules force"; the Angel of Hope's
choice is forced ("At the beginning of your turn, a player of your choice draws a card"), so the referee makes
it, as a ``normal`` CPU would (``bot.service.crazier.referee_move``). A card in hand is a step away from
winning, so an opponent drawing it never costs the absent player anything; with a Castle ("If an opponent
would cause you to draw one or more cards, they cause you to draw one fewer") the opponent draws nothing,
which is still better for the absent player than drawing the card themself.

Before, ``normal`` scored an opponent ``10 - hand size + 0.5 per card in play - 3 per Castle`` and the chooser
a flat -10: against an opponent holding 21 cards, or 20 and a Castle, the referee made the absent player draw.
The CPUs' side of it: ``tests/engine/crazier/test_cpu_draw_choice.py``.
"""

from __future__ import annotations

from bot.engine.crazier import CrazierRound, CrazierRules, Move
from bot.service import FakeClock, TableService
from bot.service.crazier import referee_move
from tests.engine.crazier.support import position
from tests.service.support import ALICE, BOB, Recorder, open_with

PRESET = "crazier-abilities"
# Twenty cards for the opponent: a big hand, with no Mordred, King Arthur or Angel of Hope in it.
BIG_HAND = "AB AG AO AP 2G 2O 2P 3B 3G 3O 3P 4B 4G 4O 4P 7B 7G 7O 7P 10B"


def angel_waits(
    hands: list[str], in_play: list[str], *, teams: bool = False, rules: CrazierRules | None = None
) -> CrazierRound:
    """Seat 0 begins its turn with an Angel of Hope (5B) in play: its choice of a player waits."""
    g, _ = position(hands, "5O", in_play=in_play, draw="KB QB", teams=teams, rules=rules)
    assert g.choice is not None and g.choice["kind"] == "player" and g.choice["by"] == 0
    return g


def test_the_referee_chooses_an_opponent_with_a_big_hand_rather_than_the_absent_player() -> None:
    g = angel_waits(["9P 9G", BIG_HAND + " 10G"], ["5B", ""])
    assert referee_move(g, 0) == Move.player(0, 1)


def test_the_referee_chooses_a_castled_opponent_who_draws_nothing_rather_than_the_absent_player() -> None:
    g = angel_waits(["9P 9G", BIG_HAND], ["5B", "6G"])
    move = referee_move(g, 0)
    assert move == Move.player(0, 1)
    before = [len(h) for h in g.hands]
    g.apply(move)
    # Nobody drew for the Angel: seat 0 only made its turn's own draw.
    assert [len(h) for h in g.hands] == [before[0] + 1, before[1]]


def test_with_teams_the_referee_chooses_an_opponent_rather_than_a_teammate() -> None:
    # Seats 0 and 2 against 1 and 3; both opponents' Castles cancel the draw.
    g = angel_waits(["9P 9G AB", "9O 9B 2B", "AG", "AO 2O 2G"], ["5B", "6G", "", "6O"], teams=True)
    move = referee_move(g, 0)
    assert move is not None and move.target in (1, 3)


async def test_a_timed_out_player_with_an_angel_of_hope_does_not_draw_its_card(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """Through the turn timer: Alice's time runs out while her Angel of Hope waits for her choice; Bob holds
    20 cards and a Castle. The referee chooses Bob (who draws nothing) and ends Alice's turn: Alice holds her
    two cards and her turn's own draw, not a card more (before, she drew the Angel's card)."""
    table_id = await open_with(service, ALICE, BOB, preset=PRESET, turn_timeout=60)
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    live.crazier.round = angel_waits(["9P 9G", BIG_HAND], ["5B", "6G"], rules=live.crazier.rules)
    live.snapshot_of = None
    view = await service.hand(table_id, ALICE.user_id)
    assert view.deadline is not None and view.crazier is not None and view.crazier.choice is not None
    await clock.advance(view.deadline - clock.now())
    assert [e.seat for e in recorder.events("timed_out")] == [0]
    rnd = live.crazier.round
    assert 0 not in rnd.acting and len(rnd.hands[0]) == 3
    # Bob's Castle took the Angel's card; nobody drew one for it.
    assert [(e.seat, e.data["by"]) for e in recorder.events("draw_prevented")] == [(1, "5B")]
    assert [e.seat for e in recorder.events("drew") if e.data["by"] == "5B"] == []
