"""A turn's timeout and the player's own click at the same instant: exactly one of them acts, and the other
gets a clear answer (README: a button "after the hand changed ... answers 'That move is no longer possible.'
privately and changes nothing")."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import FakeClock, Intent, ServiceError, TableService
from tests.service.support import ALICE, BOB, Recorder, open_with

TIMEOUT = 30.0


@pytest.mark.parametrize("timer_first", [True, False])
async def test_a_click_and_the_timeout_at_the_same_instant_apply_once(
    service: TableService, clock: FakeClock, recorder: Recorder, timer_first: bool
) -> None:
    """Alice clicks a card just as her turn runs out. Either the referee moves for her ("Alice ran out of
    time") and her click is answered "That move is no longer possible", or her card is played and nobody
    times out; never both, and her run of timeouts counts only a timeout that happened. (A Draw does not end
    a classic turn: its deadline stays, so a draw then the timeout would be right; she plays a card.)"""
    table_id = await open_with(service, ALICE, BOB, turn_timeout=TIMEOUT)
    view = await service.hand(table_id, ALICE.user_id)
    assert view.your_turn
    playable = [card for card in view.cards if card.playable and not card.wild]
    assert playable, "the seeded deal gives Alice a plain playable card"
    await clock.advance(TIMEOUT - 0.001)
    click = service.act(table_id, ALICE, Intent.play(playable[0].code), view.round_token)
    tick = clock.advance(0.001)
    results = await asyncio.gather(*((tick, click) if timer_first else (click, tick)), return_exceptions=True)
    answer = results[1] if timer_first else results[0]
    timed_out = recorder.events("timed_out")
    if isinstance(answer, ServiceError):
        assert answer.code in ("stale", "expired"), answer
        assert len(timed_out) == 1
    else:
        assert not isinstance(answer, BaseException), answer
        assert timed_out == []
    snap = await service.snapshot(table_id)
    assert snap.seats[0].timeouts_in_a_row == len(timed_out)
