"""Issue 13: a control pressed twice at the same moment (a double tap) applies once, whatever the control.

Each test brings a seeded table to a moment where the control is offered, then sends the same click twice at
once, as Discord delivers a double tap: exactly one applies (one more stored move), the other is refused with
"That move is no longer possible." and changes nothing. Typed commands carry no token and act every time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.service import NO_LONGER_POSSIBLE, FakeClock, HandView, Intent, Outcome, ServiceError, TableService
from bot.store import Store
from tests.service.support import (
    ALICE,
    BOB,
    CAROL,
    PEOPLE,
    Recorder,
    actor_to_move,
    finish_turn,
    make_service,
    next_timer,
    open_with,
    take_turn,
)

Click = Callable[[], Awaitable[Outcome]]


async def press_twice(store: Store, table_id: int, click: Click) -> tuple[Outcome, ServiceError]:
    """The same click twice at once: returns the one that applied and the refusal of the other."""
    before = await store.get_state(table_id)
    results = await asyncio.gather(click(), click(), return_exceptions=True)
    applied = [r for r in results if isinstance(r, Outcome)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(applied) == 1 and len(refused) == 1, results
    assert refused[0].code == "stale" and refused[0].message == NO_LONGER_POSSIBLE
    after = await store.get_state(table_id)
    assert before is not None and after is not None and after.version == before.version + 1
    return applied[0], refused[0]


async def find_hand(
    service: TableService,
    clock: FakeClock,
    table_id: int,
    offered: Callable[[HandView], bool],
    *,
    before_turn: Callable[[HandView], Awaitable[Any]] | None = None,
) -> HandView:
    """Play the seeded table on (each person playing their first legal card) until someone's hand offers the
    control; returns that hand. ``before_turn`` may act for the person to move first (e.g. draw)."""
    for _ in range(3000):
        snap = await service.snapshot(table_id)
        if snap.phase != "playing":
            assert await next_timer(clock), "the table stopped"
            continue
        for seat in snap.seats:
            if seat.user_id is not None:
                hand = await service.hand(table_id, seat.user_id)
                if offered(hand):
                    return hand
        person = actor_to_move(snap)
        assert person is not None
        if before_turn is not None:
            hand = await service.hand(table_id, person.user_id)
            await before_turn(hand)
            hand = await service.hand(table_id, person.user_id)
            if offered(hand):
                return hand
            if not hand.your_turn:
                continue
        await take_turn(service, table_id, person)
    pytest.fail("the control was never offered")


def owner(hand: HandView) -> Any:
    user_id = hand.snapshot.seats[hand.position].user_id
    assert user_id is not None
    return PEOPLE[user_id]


async def test_draw_pressed_twice_draws_one_card(service: TableService, store: Store) -> None:
    """The issue's reproduction: classic, two players, Ana's hand token, two draws at once."""
    table_id = await open_with(service, ALICE, BOB)
    hand = await service.hand(table_id, ALICE.user_id)
    assert hand.can_draw and len(hand.cards) == 7
    await press_twice(store, table_id, lambda: service.act(table_id, ALICE, Intent.draw(), hand.round_token))
    assert len((await service.hand(table_id, ALICE.user_id)).cards) == 8


async def test_a_second_press_after_the_first_is_stored_is_refused_too(
    service: TableService, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    hand = await service.hand(table_id, ALICE.user_id)
    await service.act(table_id, ALICE, Intent.draw(), hand.round_token)
    again = await service.hand(table_id, ALICE.user_id)
    assert again.can_draw and again.round_token != hand.round_token  # Draw is still legal, on a new hand
    with pytest.raises(ServiceError) as raised:
        await service.act(table_id, ALICE, Intent.draw(), hand.round_token)
    assert raised.value.message == NO_LONGER_POSSIBLE
    assert len((await service.hand(table_id, ALICE.user_id)).cards) == 8
    # The refreshed hand's button works.
    await service.act(table_id, ALICE, Intent.draw(), again.round_token)
    assert len((await service.hand(table_id, ALICE.user_id)).cards) == 9


async def test_typed_draws_carry_no_token_and_draw_every_time(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB)
    await asyncio.gather(
        service.act(table_id, ALICE, Intent.draw()), service.act(table_id, ALICE, Intent.draw())
    )
    assert len((await service.hand(table_id, ALICE.user_id)).cards) == 9


async def test_play_pressed_twice_plays_once(service: TableService, clock: FakeClock, store: Store) -> None:
    # Party allows runs of the same rank: after the first card the same seat may play again.
    table_id = await open_with(service, ALICE, BOB, preset="party")
    hand = await find_hand(
        service, clock, table_id, lambda h: h.your_turn and any(c.playable and not c.wild for c in h.cards)
    )
    card = next(c for c in hand.cards if c.playable and not c.wild)
    person = owner(hand)
    outcome, _ = await press_twice(
        store, table_id, lambda: service.act(table_id, person, Intent.play(card.code), hand.round_token)
    )
    played = [e for e in outcome.public_events if e.kind == "played" and e.seat == hand.position]
    assert [e.data["card"] for e in played] == [card.code]


async def test_pass_pressed_twice_passes_once(service: TableService, clock: FakeClock, store: Store) -> None:
    table_id = await open_with(service, ALICE, BOB, preset="draw-one")

    async def draw_first(hand: HandView) -> None:
        if hand.your_turn and hand.can_draw and not hand.can_pass:
            await service.act(table_id, owner(hand), Intent.draw(), hand.round_token)

    hand = await find_hand(
        service, clock, table_id, lambda h: h.your_turn and h.can_pass, before_turn=draw_first
    )
    person = owner(hand)
    outcome, _ = await press_twice(
        store, table_id, lambda: service.act(table_id, person, Intent.pass_(), hand.round_token)
    )
    assert [e.seat for e in outcome.public_events if e.kind == "passed"] == [hand.position]


async def test_suit_pressed_twice_names_it_once(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)

    async def play_a_wild(hand: HandView) -> None:
        wild = next((c for c in hand.cards if c.playable and c.wild), None)
        if hand.your_turn and wild is not None:
            await service.act(table_id, owner(hand), Intent.play(wild.code), hand.round_token)

    hand = await find_hand(service, clock, table_id, lambda h: h.must_name_suit, before_turn=play_a_wild)
    person = owner(hand)
    outcome, _ = await press_twice(
        store, table_id, lambda: service.act(table_id, person, Intent.name_suit("H"), hand.round_token)
    )
    assert outcome.snapshot.declared_suit == "H"


async def test_last_card_pressed_twice_calls_once(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, preset="party")
    hand = await find_hand(service, clock, table_id, lambda h: h.can_call_last)
    person = owner(hand)
    outcome, _ = await press_twice(
        store, table_id, lambda: service.act(table_id, person, Intent.call_last(), hand.round_token)
    )
    assert [e.kind for e in outcome.public_events].count("last_card_called") == 1


async def test_catch_pressed_twice_catches_once(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, preset="party")
    hand = await find_hand(service, clock, table_id, lambda h: bool(h.catch_targets))
    person, target = owner(hand), hand.catch_targets[0]
    before = hand.snapshot.seats[target].card_count
    outcome, _ = await press_twice(
        store, table_id, lambda: service.act(table_id, person, Intent.catch(target), hand.round_token)
    )
    assert [e.kind for e in outcome.public_events].count("last_card_caught") == 1
    after = outcome.snapshot.seats[target].card_count
    assert before is not None and after is not None and after > before  # one penalty, not two


async def test_next_round_pressed_twice_deals_once(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB)
    for _ in range(3000):
        snap = await service.snapshot(table_id)
        if snap.phase == "between_rounds":
            break
        person = actor_to_move(snap)
        if person is None:
            assert await next_timer(clock)
            continue
        await take_turn(service, table_id, person)
    else:
        pytest.fail("the round never ended")
    token = snap.round_token
    outcome, _ = await press_twice(store, table_id, lambda: service.next_round(table_id, BOB, token))
    assert outcome.snapshot.round_number == snap.round_number + 1


async def test_a_hand_another_players_move_did_not_change_keeps_its_buttons(
    service: TableService, clock: FakeClock
) -> None:
    """While Alice and Bob play, nothing Carol may do changes: her hand's token stays the same, so a message
    that was not refreshed keeps acting. When her turn comes it changes (her message is refreshed then)."""
    table_id = await open_with(service, ALICE, BOB, CAROL)
    carol = await service.hand(table_id, CAROL.user_id)
    snap = await finish_turn(service, table_id, ALICE)
    # classic has no skip and auto-draw never plays a card for anyone: the turn goes to Bob, not over him.
    assert snap.phase == "playing" and snap.to_act == 1
    assert (await service.hand(table_id, CAROL.user_id)).round_token == carol.round_token
    # Once her turn comes, what she may do changed: the same token would be refused.
    while (await service.snapshot(table_id)).to_act != 2:
        person = actor_to_move(await service.snapshot(table_id))
        assert person is not None
        await take_turn(service, table_id, person)
    mine = await service.hand(table_id, CAROL.user_id)
    if mine.can_draw:
        with pytest.raises(ServiceError) as raised:
            await service.act(table_id, CAROL, Intent.draw(), carol.round_token)
        assert raised.value.message == NO_LONGER_POSSIBLE
        await service.act(table_id, CAROL, Intent.draw(), mine.round_token)


async def test_another_players_last_card_call_does_not_make_a_hand_stale(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    """Bob calls his last card while Alice is to move: her Catch goes, her message is not refreshed, and her
    other buttons (Draw, the cards) must still act."""
    table_id = await open_with(service, ALICE, BOB, preset="party")
    for _ in range(100):
        caller = await find_hand(service, clock, table_id, lambda h: h.can_call_last and not h.your_turn)
        person = owner(caller)
        other = BOB if person is ALICE else ALICE
        theirs = await service.hand(table_id, other.user_id)
        assert theirs.your_turn and caller.position in theirs.catch_targets
        # With nothing to play, the referee's auto-draw waits for the catch window to close and then draws
        # for her: her hand changes then, and her message is refreshed. Look for a hand with a play.
        if any(c.playable for c in theirs.cards):
            break
        await take_turn(service, table_id, other)
    else:
        pytest.fail("never saw a last card called while the other player could play")
    await service.act(table_id, person, Intent.call_last(), caller.round_token)
    assert (await service.hand(table_id, other.user_id)).round_token == theirs.round_token
    # Her Catch, though, is no longer possible.
    with pytest.raises(ServiceError) as raised:
        await service.act(table_id, other, Intent.catch(caller.position), theirs.round_token)
    assert raised.value.message == NO_LONGER_POSSIBLE
    playable = next(c for c in theirs.cards if c.playable)
    intent = Intent.draw() if theirs.can_draw else Intent.play(playable.code)
    outcome = await service.act(table_id, other, intent, theirs.round_token)
    assert outcome.public_events


async def test_buttons_shown_before_a_restart_still_act(
    store: Store, clock: FakeClock, recorder: Recorder
) -> None:
    first = make_service(store, clock, recorder)
    table_id = await open_with(first, ALICE, BOB)
    hand = await first.hand(table_id, ALICE.user_id)
    await first.close()
    second = make_service(store, clock, recorder)
    assert await second.restore_all() == 1
    assert (await second.hand(table_id, ALICE.user_id)).round_token == hand.round_token
    await second.act(table_id, ALICE, Intent.draw(), hand.round_token)
    assert len((await second.hand(table_id, ALICE.user_id)).cards) == 8
    # A button of the kind shown before situations were carried (the round alone) still acts.
    await second.act(table_id, ALICE, Intent.draw(), f"{table_id}:1")
    assert len((await second.hand(table_id, ALICE.user_id)).cards) == 9
    await second.close()


async def test_the_token_reveals_nothing_and_fits_a_custom_id(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB)
    hand = await service.hand(table_id, ALICE.user_id)
    table, number, situation = hand.round_token.split(":")
    assert (table, number) == (str(table_id), "1")
    assert len(situation) == 12 and all(c in "0123456789abcdef" for c in situation)
    assert not any(card.code in hand.round_token for card in hand.cards)
    bob = await service.hand(table_id, BOB.user_id)
    assert bob.round_token != hand.round_token
