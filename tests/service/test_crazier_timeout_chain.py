"""Audit: the turn timer of crazier-abilities ends more than the turn that ran out of time."""

from __future__ import annotations

from bot.engine.crazier import DECK, CrazierRound
from bot.service import FakeClock, TableService
from tests.service.support import ALICE, BOB, Recorder, clock, open_with, recorder, service, store

__all__ = ["clock", "recorder", "service", "store"]

PRESET = "crazier-abilities"


def _stack(service: TableService, table_id: int, hands: list[str], starter: str, draws: list[str]) -> None:
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    hand_lists = [h.split() for h in hands]
    used = {c for h in hand_lists for c in h} | {starter} | set(draws)
    deck = [hand_lists[s][i] for i in range(7) for s in range(2)] + [starter] + draws
    deck += [c for c in DECK if c not in used]
    live.crazier.round = CrazierRound.new(live.crazier.rules, 2, seed=1, first=0, deck=deck)
    live.snapshot_of = None


async def test_a_timeout_ends_only_the_turn_that_ran_out_not_the_players_next_turn(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """RULESETS.md, crazier-abilities, "A turn" 3: "Then the turn ends (the player says so, or the bot ends it
    when nothing is left to do)."

    Alice (seat 0) lets her turn run out. The referee ends it; Bob's following turn has nothing to do
    (his whole hand is unplayable: Deaths and Crowns with nothing in play, Resurrections with a one-card
    discard pile, no orange, no 5, no 8) so the bot ends it at once; then Alice's NEXT turn begins, with
    cards she could discard or play. That new turn must wait for her (a new turn, a new deadline). The
    referee loop (bot/service/crazier.py ``referee_turn``, called with MAX_STEPS_PER_MOVE by
    ``Scheduler._crazier_timeout``) keeps ending Alice's turns for as long as she is "acting", so her
    next turn(s) are ended too without her saying so, and with something left to do.
    """
    table_id = await open_with(service, ALICE, BOB, preset=PRESET, turn_timeout=60)
    # Alice: Forbidden Knowledge and Potions (always playable). Bob: nothing playable on the orange 5.
    _stack(
        service,
        table_id,
        ["2B 2G 2P 3B 3G 3P 4B", "9B 9G 9P 10B 10G 10P 7B"],
        "5O",
        # Alice's draw (turn 1), Bob's (turn 2, unplayable), Alice's (turn 3), Bob's (turn 4, unplayable) ...
        ["6B", "7G", "6G", "7P", "6P", "AB", "4G", "AP"],
    )
    view = await service.hand(table_id, ALICE.user_id)
    assert view.your_turn and view.deadline is not None
    await clock.advance(view.deadline - clock.now())
    assert [e.seat for e in recorder.events("timed_out")] == [0]
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd = live.crazier.round
    # Bob's turn 2 ended by itself (nothing to do); Alice's turn 3 must now be waiting for her.
    assert rnd.turn == 3 and rnd.acting == [0], (
        f"the timeout of Alice's turn 1 also ended her later turns: now turn {rnd.turn}, acting {rnd.acting}"
    )
    ended_by_alice = [
        e for o in recorder.outcomes for e in o.public_events if e.kind == "turn_ended" and e.seat == 0
    ]
    assert len(ended_by_alice) == 1
