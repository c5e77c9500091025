"""Playing a round through the service: permissions, engine errors, the hand view, autocomplete, auto-draw,
CPU turns, racing clicks and stale buttons."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.engine import Match, card_code, parse_card, sort_key
from bot.service import (
    EXPIRED,
    NO_LONGER_POSSIBLE,
    DatabaseFault,
    FakeClock,
    Intent,
    ServiceError,
    TableService,
)
from bot.store import DamagedDatabaseError, Store
from tests.service.support import (
    ALICE,
    BOB,
    CHANNEL,
    CPU_DELAY,
    STRANGER,
    Recorder,
    actor_to_move,
    drive,
    finish_turn,
    make_service,
    open_with,
    refused,
    take_turn,
)

PRIVATE_KINDS = {"dealt", "drew_cards"}


async def test_only_seated_players_and_only_the_player_to_move(
    service: TableService, store: Store, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    state = await store.get_state(table_id)
    assert state is not None
    await refused(service.act(table_id, STRANGER, Intent.draw()), "not_seated")
    error = await refused(service.act(table_id, BOB, Intent.draw()), 901)
    assert error.message == "It's not your turn. (901)"
    error = await refused(service.act(table_id, ALICE, Intent.play("banana")), 903)
    assert error.message == "Unknown card. (903)"
    await refused(service.hand(table_id, STRANGER.user_id), "not_seated")
    after = await store.get_state(table_id)
    assert after is not None and after.version == state.version
    assert recorder.outcomes == []


async def test_engine_errors_are_plain_with_their_code(service: TableService, clock: FakeClock) -> None:
    table_id = await open_with(service, ALICE, BOB)
    checked = 0
    for _ in range(500):
        snap = await service.snapshot(table_id)
        if snap.phase != "playing":
            await clock.advance(10)
            continue
        person = actor_to_move(snap)
        assert person is not None
        view = await service.hand(table_id, person.user_id)
        playable = [c for c in view.cards if c.playable]
        unplayable = [c for c in view.cards if not c.playable]
        if playable and unplayable and not view.must_name_suit:
            token = (await service.snapshot(table_id)).round_token
            error = await refused(service.act(table_id, person, Intent.play(unplayable[0].code)), 907)
            assert error.message == "That card doesn't match the target. (907)"
            # Passing while holding a legal play is refused.
            error = await refused(service.act(table_id, person, Intent.pass_()), 915)
            assert error.message == "You can't pass now. (915)"
            held = {c.code for c in view.cards}
            missing = next(
                code
                for code in (
                    card_code(parse_card(f"{r}{s}")) for r in ("3", "4", "5", "6", "7") for s in "CDHS"
                )
                if code not in held
            )
            error = await refused(service.act(table_id, person, Intent.play(missing)), 902)
            assert error.message == "You don't have that card. (902)"
            after = await service.snapshot(table_id)
            assert after.round_token == token and after.to_act == snap.to_act
            assert (await service.hand(table_id, person.user_id)).cards == view.cards
            checked += 1
            if checked == 3:
                return
        await take_turn(service, table_id, person)
    pytest.fail("never found a hand with both playable and unplayable cards")


async def test_hand_view_is_sorted_and_marks_exactly_the_legal_cards(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB)
    view = await service.hand(table_id, ALICE.user_id)
    codes = [c.code for c in view.cards]
    assert codes == sorted(codes, key=lambda code: sort_key(parse_card(code)))
    assert len(codes) == 7 and view.your_turn and view.deadline is not None
    matches: dict[int, Match | None] = {}
    service.observe(lambda table, users, match: matches.__setitem__(table, match))
    live_round = matches[table_id].round  # type: ignore[union-attr]
    legal_cards = {card_code(a.card) for a in live_round.legal_actions(0) if a.card is not None}
    assert {c.code for c in view.cards if c.playable} == legal_cards
    other = await service.hand(table_id, BOB.user_id)
    assert not other.your_turn and not any(c.playable for c in other.cards)
    assert not other.can_draw and not other.can_pass and other.deadline is None


async def test_autocomplete_offers_exactly_the_legal_cards_on_your_turn(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB)
    view = await service.hand(table_id, ALICE.user_id)
    playable = sorted({c.code for c in view.cards if c.playable}, key=lambda code: sort_key(parse_card(code)))
    choices = await service.legal_card_choices(CHANNEL, ALICE.user_id)
    assert [c.value for c in choices] == playable
    assert await service.legal_card_choices(CHANNEL, BOB.user_id) == []
    assert await service.legal_card_choices(CHANNEL, STRANGER.user_id) == []
    assert await service.legal_card_choices(CHANNEL + 1, ALICE.user_id) == []
    if playable:
        first = playable[0]
        narrowed = await service.legal_card_choices(CHANNEL, ALICE.user_id, first.lower())
        assert first in [c.value for c in narrowed]
        assert all(c.value == first or c.value.lower().startswith(first.lower()) for c in narrowed)


async def test_a_round_played_by_clicks_to_its_end(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    moves = 0
    last = None
    while True:
        snap = await service.snapshot(table_id)
        if snap.phase != "playing":
            break
        person = actor_to_move(snap)
        assert person is not None
        last = await take_turn(service, table_id, person)
        moves += 1
        for event in last.public_events:
            assert event.kind not in PRIVATE_KINDS
        assert moves < 1000
    assert last is not None
    snap = await service.snapshot(table_id)
    assert snap.phase == "between_rounds" and snap.deadline_kind == "pause"
    assert snap.deadline == pytest.approx(clock.now() + 10.0)
    result = next(e for e in last.public_events if e.kind == "round_result")
    assert result.data["round_number"] == 1
    assert list(snap.totals) == result.data["totals"] == list(snap.round_scores[0])
    assert 0 in result.data["scores"]
    rounds = await store.round_results(table_id)
    assert [r.round_number for r in rounds] == [1]
    assert list(rounds[0].scores) == result.data["scores"]
    # Playing is over until the next round: no action is possible.
    await refused(service.act(table_id, ALICE, Intent.draw()), "no_round")


async def test_next_round_button_and_pause(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    snap = await drive(service, clock, table_id, until=lambda s: s.phase == "between_rounds")
    assert snap is not None
    token = snap.round_token
    await refused(service.next_round(table_id, STRANGER, token), "not_seated")
    outcome = await service.next_round(table_id, BOB, token)
    assert outcome.snapshot.round_number == 2 and outcome.snapshot.phase == "playing"
    assert "round_started" in [e.kind for e in outcome.public_events]
    # A second press of the same button: the round it would deal is already being played.
    error = await refused(service.next_round(table_id, ALICE, token), "stale")
    assert error.message == NO_LONGER_POSSIBLE
    # Next time, nobody presses: the pause starts round 3 by itself.
    snap = await drive(service, clock, table_id, until=lambda s: s.phase == "between_rounds")
    assert snap is not None and snap.round_number == 2
    await clock.advance(9.9)
    assert (await service.snapshot(table_id)).round_number == 2
    await clock.advance(0.1)
    snap = await service.snapshot(table_id)
    assert snap.round_number == 3 and snap.phase == "playing"
    assert "round_started" in recorder.kinds()


async def test_a_stale_round_token_has_expired(service: TableService, clock: FakeClock) -> None:
    table_id = await open_with(service, ALICE, BOB)
    error = await refused(service.act(table_id, ALICE, Intent.draw(), f"{table_id}:7"), "expired")
    assert error.message == EXPIRED
    await service.end(table_id, ALICE)
    await refused(service.act(table_id, ALICE, Intent.draw(), f"{table_id}:1"), "expired")
    await refused(service.act(table_id, ALICE, Intent.draw()), "no_table")


async def test_two_simultaneous_clicks_give_one_move(service: TableService, store: Store) -> None:
    table_id = await open_with(service, ALICE, BOB)
    view = await service.hand(table_id, ALICE.user_id)
    playable = [c for c in view.cards if c.playable]
    card = playable[0] if playable else None
    intent = Intent.play(card.code, "H" if card.wild else None) if card is not None else Intent.draw()
    before = await store.get_state(table_id)
    results = await asyncio.gather(
        service.act(table_id, ALICE, intent, view.round_token),
        service.act(table_id, ALICE, intent, view.round_token),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, ServiceError)]
    # A draw would still be legal the second time: the click's situation token refuses it all the same.
    assert len(errors) == 1
    assert errors[0].code == "stale" and errors[0].message == NO_LONGER_POSSIBLE
    after = await store.get_state(table_id)
    assert before is not None and after is not None
    moves = await store.moves(table_id)
    assert after.version == before.version + 1
    assert len(moves) == after.version


async def test_a_suit_named_with_a_wild_in_the_same_step(service: TableService, clock: FakeClock) -> None:
    table_id = await open_with(service, ALICE, BOB)
    for _ in range(500):
        snap = await service.snapshot(table_id)
        person = actor_to_move(snap)
        if snap.phase != "playing":
            await clock.advance(10)
            continue
        assert person is not None
        view = await service.hand(table_id, person.user_id)
        eights = [c for c in view.cards if c.playable and c.code.startswith("8")]
        if eights:
            outcome = await service.act(table_id, person, Intent.play(eights[0].code, "hearts"))
            kinds = [e.kind for e in outcome.public_events]
            assert "played" in kinds
            if outcome.snapshot.phase == "playing":
                assert "suit_named" in kinds
                assert outcome.snapshot.declared_suit == "H"
                assert outcome.snapshot.to_act != snap.to_act
            return
        await take_turn(service, table_id, person)
    pytest.fail("no eight was ever playable")


async def test_auto_draw_draws_for_a_player_with_no_legal_play(
    service: TableService, clock: FakeClock
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    seen = 0
    for _ in range(800):
        snap = await service.snapshot(table_id)
        if snap.phase != "playing":
            await clock.advance(10)
            continue
        person = actor_to_move(snap)
        assert person is not None
        before = {s.position: s.card_count for s in snap.seats}
        outcome = await take_turn(service, table_id, person)
        auto = [e for e in outcome.public_events if e.kind == "auto_drew"]
        for event in auto:
            seen += 1
            assert event.data["count"] >= 1
            drew = [e for e in outcome.public_events if e.kind == "drew" and e.seat == event.seat]
            assert sum(e.data["count"] for e in drew) == event.data["count"]
            seat = event.seat
            assert seat is not None and seat != snap.to_act
            after = outcome.snapshot.seats[seat]
            if outcome.snapshot.phase == "playing" and outcome.snapshot.to_act == seat:
                # Drawn until a card can be played: the player now has a legal play.
                view = await service.hand(table_id, after.user_id)  # type: ignore[arg-type]
                assert any(c.playable for c in view.cards)
                assert after.card_count == (before[seat] or 0) + event.data["count"]
            # The drawn cards reach the player privately, never publicly.
            private = outcome.private_events.get(after.user_id or 0, ())
            assert any(e.kind == "drew_cards" for e in private)
        if seen >= 3:
            return
    assert seen > 0, "no player ever started a turn without a legal play"


async def test_without_auto_draw_the_player_draws_by_hand(service: TableService, clock: FakeClock) -> None:
    table_id = await open_with(service, ALICE, BOB, auto_draw=False)
    for _ in range(800):
        snap = await service.snapshot(table_id)
        if snap.phase != "playing":
            await clock.advance(10)
            continue
        person = actor_to_move(snap)
        assert person is not None
        view = await service.hand(table_id, person.user_id)
        if not any(c.playable for c in view.cards) and not view.must_name_suit:
            assert view.can_draw and not view.can_pass
            await refused(service.act(table_id, person, Intent.pass_()), 915)
            return
        outcome = await take_turn(service, table_id, person)
        assert "auto_drew" not in [e.kind for e in outcome.public_events]
    pytest.fail("no player ever lacked a legal play")


async def test_cpu_seats_move_by_themselves_after_the_delay(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, cpus=("easy", "normal"))
    snap = await finish_turn(service, table_id, ALICE)
    # classic has no skip, and a first turn cannot end the round: the first CPU is next.
    assert snap.phase == "playing" and snap.to_act == 1
    assert recorder.outcomes == []
    await clock.advance(CPU_DELAY - 0.01)
    assert recorder.outcomes == []  # not before the delay
    await clock.advance(0.01)
    assert recorder.outcomes, "the CPU did not move"
    moved = recorder.outcomes[0]
    assert any(e.seat == 1 for e in moved.public_events)
    assert all(e.kind not in PRIVATE_KINDS for e in moved.public_events)
    # Both CPUs move, one after the other, until it is Alice's turn again.
    snap = await drive(service, clock, table_id, until=lambda s: s.to_act == 0 or s.phase != "playing")
    assert snap is not None


async def test_cpu_moves_gathered_into_one_listener_call(
    store: Store, clock: FakeClock, recorder: Recorder
) -> None:
    gathered = TableService(
        store, clock=clock, cpu_delay=0.1, listener=recorder, batch_window=1.0, rng=random.Random(7)
    )
    table_id = await open_with(gathered, ALICE, cpus=("easy", "easy", "easy"))
    snap = await finish_turn(gathered, table_id, ALICE)
    # classic has no skip, and a first turn cannot end the round: the first CPU is next.
    assert snap.phase == "playing" and snap.to_act == 1
    await clock.advance(1.05)
    assert recorder.outcomes == []  # the window opened by the first CPU move (at 0.1 s) is still open
    await clock.advance(0.1)
    # Three CPU turns 0.1 s apart fall in one 1-second window: one push with all their events.
    assert len(recorder.outcomes) == 1
    seats = {e.seat for e in recorder.outcomes[0].public_events if e.kind in ("played", "drew", "passed")}
    assert {1, 2, 3} <= seats and recorder.outcomes[0].snapshot.phase == "playing"
    assert recorder.outcomes[0].snapshot == await gathered.snapshot(table_id)


async def test_a_lost_version_race_reloads_and_answers_no_longer_possible(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    # A second copy of the table in memory (as if another worker had loaded it) falls behind the store.
    other = make_service(store, clock, Recorder())
    await other.restore_all()
    await take_turn(service, table_id, ALICE)
    snap = await service.snapshot(table_id)
    person = actor_to_move(snap)
    assert person is not None
    stale_view = await other.hand(table_id, ALICE.user_id)
    assert stale_view.your_turn  # the stale copy still thinks it is Alice's turn
    error = await refused(other.act(table_id, ALICE, Intent.draw()), "stale")
    assert error.message == NO_LONGER_POSSIBLE
    # The stale copy reloaded: it now agrees with the store and accepts the right move.
    assert await other.snapshot(table_id) == snap
    outcome = await take_turn(other, table_id, person)
    state = await store.get_state(table_id)
    assert state is not None and outcome.snapshot.round_token == snap.round_token
    assert len(await store.moves(table_id)) == state.version


async def test_the_snapshot_is_built_once_per_committed_state(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB)
    first = await service.snapshot(table_id)
    assert await service.snapshot(table_id) is first  # nothing committed: the same snapshot
    assert (await service.hand(table_id, ALICE.user_id)).snapshot is first
    mover = actor_to_move(first)
    assert mover is not None
    await take_turn(service, table_id, mover)
    after_move = await service.snapshot(table_id)
    assert after_move is not first and after_move.to_act != first.to_act
    # A new board message changes the record without a move: the snapshot shows it.
    await service.set_board_message(table_id, 4242)
    moved_board = await service.snapshot(table_id)
    assert moved_board.board_message_id == 4242 and after_move.board_message_id != 4242


async def test_a_move_the_database_cannot_store_changes_nothing(
    service: TableService, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged database file found by the commit (issue 13): the store's error reaches the caller as
    the service's own DatabaseFault, and the
    table is exactly as it was, in memory and stored, so the same button acts once the database is back."""
    table_id = await open_with(service, ALICE, BOB)
    hand = await service.hand(table_id, ALICE.user_id)
    before = await store.get_state(table_id)
    commit = store.commit_move

    async def damaged(*args: object, **kwargs: object) -> int:
        raise DamagedDatabaseError("data/eights.sqlite3")

    monkeypatch.setattr(store, "commit_move", damaged)
    with pytest.raises(DatabaseFault) as raised:
        await service.act(table_id, ALICE, Intent.draw(), hand.round_token)
    assert raised.value.damaged
    assert await service.hand(table_id, ALICE.user_id) == hand
    assert await store.get_state(table_id) == before
    monkeypatch.setattr(store, "commit_move", commit)
    await service.act(table_id, ALICE, Intent.draw(), hand.round_token)
    assert len((await service.hand(table_id, ALICE.user_id)).cards) == 8
