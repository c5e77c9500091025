"""A timeout during a team's crazier-abilities turn, while a member's beginning-of-turn choice waits."""

from __future__ import annotations

from bot.engine.crazier import CrazierRound
from bot.service import FakeClock, TableService
from tests.engine.crazier.support import position
from tests.service.support import ALICE, BOB, CAROL, Recorder, clock, open_with, recorder, service, store

__all__ = ["clock", "recorder", "service", "store"]

PRESET = "crazier-abilities"


def _team_position(service: TableService, table_id: int) -> CrazierRound:
    """Seats 0 (Alice) and 2 (Carol) are a team, 1 (Bob) and 3 (a CPU) the other. Team 0 begins its turn:
    Alice and Carol each control an Angel of Hope, so each of them has a choice at the beginning of turn."""
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd, _events = position(
        ["2B 2G 2P 3B 3G", "9B 9G 9P 10B 10G", "4B 4G 4P 3P 2O", "7B 7G 7P 10P AB"],
        "5O",
        in_play=["5B", "", "5G", ""],
        teams=True,
        rules=live.crazier.rules,
    )
    live.crazier.round = rnd
    live.snapshot_of = None
    return rnd


async def test_a_team_timeout_during_a_members_choice_ends_the_team_turn_each_member_timed_out_once(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    """RULESETS.md, crazier-abilities, Teams: "A team takes its turn together ... the team's turn ends when
    every member has ended theirs"; the bot gives a team's turn one deadline (the spec says nothing about
    timers), and when it runs out the referee answers the pending choices and ends the turn of every member
    who did not end theirs (``_crazier_timeout``). Alice's Angel of Hope waits for her choice when the
    team's time runs out; answering it gives the next choice to Carol's Angel. Both members' turns end, each
    timed out once (the handler listed the people acting once, before the referee moved: Alice's turn was
    left going on, she was counted twice, and the same deadline then timed Carol out again at once)."""
    table_id = await open_with(
        service, ALICE, BOB, CAROL, cpus=("easy",), preset=PRESET, teams=True, turn_timeout=60
    )
    rnd = _team_position(service, table_id)
    assert rnd.choice is not None and rnd.choice["by"] == 0
    view = await service.hand(table_id, ALICE.user_id)
    assert view.deadline is not None
    await clock.advance(view.deadline - clock.now())
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd = live.crazier.round
    timed_out = [e.seat for e in recorder.events("timed_out")]
    assert timed_out == [0, 2], f"timed out at that instant: seats {timed_out}"
    assert rnd.turn != 1 or rnd.stage[0] == rnd.stage[2] == "done", (rnd.turn, rnd.stage)
    assert 0 not in rnd.acting and 2 not in rnd.acting  # the other team's turn now
    # The next team's turn has a deadline of its own: nobody is timed out again a second later.
    await clock.advance(1)
    assert [e.seat for e in recorder.events("timed_out")] == [0, 2]
