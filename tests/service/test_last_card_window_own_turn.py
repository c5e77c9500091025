"""An uncalled last card whose turn comes straight back to its player (party: a 4 skips the only other
player). RULESETS.md, last card: the player "must call it before the next player acts, else any opponent …
may catch them"; here the next player is that same player. The referee's auto-draw leaves their draw to them
while the catch is possible (bot/service/moves.py), so the turn is theirs to play in time like any other:
their turn timer runs, and calling the card lets the referee draw for them at once. A CPU in their place
calls its last card before it draws."""

from __future__ import annotations

import pytest

from bot.service import FakeClock, Intent, TableService
from tests.e2e.classic_deals import stack_classic_deal
from tests.service.support import ALICE, BOB, CPU_DELAY, Recorder, open_with

TURN = 60.0


async def four_left_uncalled(service: TableService, monkeypatch: pytest.MonkeyPatch) -> int:
    """party, two cards each: Alice plays 4♠ (a skip) on 4♥ and does not call her last card, 9♣; Bob is
    skipped, and Alice, who cannot play 9♣ on 4♠, is to move again. The stock's top card is 9♥ (no play
    either); Bob holds 3♠, a play once his turn comes."""
    stack_classic_deal(monkeypatch, [["4S", "9C"], ["3S", "6D"]], "4H", leader=0, stock_top=["9H"])
    table_id = await open_with(service, ALICE, BOB, start=False, preset="party", turn_timeout=TURN)
    await service.set_house_rule(table_id, ALICE, "hand_size_two", "2")
    await service.start(table_id, ALICE)
    view = await service.hand(table_id, ALICE.user_id)
    await service.act(table_id, ALICE, Intent.play("4S"), view.round_token)
    return table_id


async def test_the_turn_back_to_an_uncalled_last_card_is_left_to_its_player_and_timed(
    service: TableService, clock: FakeClock, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the skip, Alice still holds her one card, uncalled (no draw made for her): Bob may catch her,
    and her hand offers Draw and Last card with the turn's deadline. When her time runs out, the referee
    draws for her as for any late player (9♥, no play: she is passed), and the catch is over."""
    table_id = await four_left_uncalled(service, monkeypatch)
    snap = await service.snapshot(table_id)
    assert snap.to_act == 0 and snap.last_card_open == 0
    assert snap.seats[0].card_count == 1
    assert snap.deadline_kind == "turn" and snap.deadline == pytest.approx(clock.now() + TURN)
    assert "auto_drew" not in recorder.kinds()
    hers = await service.hand(table_id, ALICE.user_id)
    assert hers.your_turn and hers.can_draw and hers.can_call_last and hers.deadline == snap.deadline
    assert (await service.hand(table_id, BOB.user_id)).catch_targets == (0,)

    assert snap.deadline is not None
    await clock.advance(snap.deadline - clock.now())
    assert "timed_out" in recorder.kinds()
    after = await service.snapshot(table_id)
    assert after.seats[0].card_count == 2 and after.last_card_open is None
    assert (await service.hand(table_id, BOB.user_id)).catch_targets == ()


async def test_calling_the_last_card_lets_the_referee_draw_for_its_player(
    service: TableService, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice calls her last card on the turn that came back to her: nobody can catch her any more, so the
    referee's auto-draw draws for her at once (9♥, no play: she is passed) and the turn goes to Bob."""
    table_id = await four_left_uncalled(service, monkeypatch)
    hers = await service.hand(table_id, ALICE.user_id)
    outcome = await service.act(table_id, ALICE, Intent.call_last(), hers.round_token)
    kinds = [e.kind for e in outcome.public_events]
    assert "last_card_called" in kinds and "auto_drew" in kinds, kinds
    snap = await service.snapshot(table_id)
    assert snap.to_act == 1 and snap.seats[0].card_count == 2


async def test_a_cpu_whose_turn_comes_back_to_its_last_card_calls_it_before_drawing(
    service: TableService, clock: FakeClock, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same deal with a CPU (normal) in Alice's place: it plays 4♠, Bob is skipped, and on the turn that
    comes back to it the CPU calls its last card, then draws (9♥, no play: it passes); Bob, to move, has no
    catch to make."""
    stack_classic_deal(monkeypatch, [["3S", "6D"], ["4S", "9C"]], "4H", leader=1, stock_top=["9H"])
    table_id = await open_with(service, BOB, cpus=("normal",), start=False, preset="party", turn_timeout=TURN)
    await service.set_house_rule(table_id, BOB, "hand_size_two", "2")
    await service.start(table_id, BOB)
    await clock.advance(CPU_DELAY)
    kinds = recorder.kinds()
    assert "played" in kinds and "last_card_called" in kinds, kinds
    assert kinds.index("last_card_called") < kinds.index("drew"), kinds
    assert "last_card_caught" not in kinds
    snap = await service.snapshot(table_id)
    assert snap.to_act == 0 and snap.last_card_open is None
    assert (await service.hand(table_id, BOB.user_id)).catch_targets == ()
