"""crazier-abilities at a table (issue 25): the service plays the game with its ability cards — people by
their hand's controls, CPUs on their timer — to the end of the match; bad input is refused and changes
nothing; a restart in the middle of a turn (after the discard, before the effect; with a beginning-of-turn
choice waiting) resumes exactly there. Every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from bot.engine.crazier import DECK, CrazierMatch, CrazierRound, get_preset
from bot.service import Actor, FakeClock, Intent, Outcome, ServiceError, TableService, crazier
from bot.service.models import HandView
from bot.store import Store
from tests.service.support import ALICE, BOB, CAROL, PEOPLE, Recorder, make_service, open_with, refused

PRESET = "crazier-abilities"


def stack(service: TableService, table_id: int, hands: list[list[str]], starter: str, first: int) -> None:
    """Deal the running game again from a stacked deck (the hands given, then the starter, then the rest in
    the deck's order), ``first`` to play. Tests reach the live table for it: the deal is the one thing a
    player cannot choose."""
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    n = len(hands)
    used = {c for h in hands for c in h} | {starter}
    deck = [hands[s][i] for i in range(7) for s in range(n)] + [starter]
    deck += [c for c in DECK if c not in used]
    live.crazier.round = CrazierRound.new(live.crazier.rules, n, seed=1, first=first, deck=deck)
    live.snapshot_of = None


async def hand(service: TableService, table_id: int, actor: Actor) -> HandView:
    return await service.hand(table_id, actor.user_id)


async def act(service: TableService, table_id: int, actor: Actor, intent: Intent) -> None:
    view = await hand(service, table_id, actor)
    await service.act(table_id, actor, intent, view.round_token)


def choose_intent(view: HandView, *, discard_first: bool = False) -> Intent:
    """What a person clicking the hand does: answer a choice, else play an effect (aimed at someone else
    when it chooses a player), else discard, else end the turn (``discard_first``: discard before the
    effect)."""
    c = view.crazier
    assert c is not None
    if c.choice is not None:
        return Intent.choose(c.choice.options[-1].value)
    if discard_first:
        for card in c.cards:
            if card.can_discard:
                return Intent.play(card.card.code, "green" if card.needs_colour else None)
    for card in c.cards:
        if card.can_play:
            if card.effect_choice == "player":
                others = [o for o in card.effect_options if o.value != str(view.position)]
                return Intent.effect(card.card.code, target=int((others or card.effect_options)[0].value))
            if card.effect_choice == "card":
                return Intent.effect(card.card.code, option=card.effect_options[0].value)
            return Intent.effect(card.card.code)
    for card in c.cards:
        if card.can_discard:
            return Intent.play(card.card.code, "green" if card.needs_colour else None)
    assert c.can_end
    return Intent.end_turn()


async def play_to_the_end(
    service: TableService,
    clocks: list[FakeClock],
    table_id: int,
    used: dict[str, int],
    sink: list[Outcome],
    on_step: Any = None,
    *,
    discard_first: bool = False,
) -> TableService:
    """People click (``choose_intent``; their outcomes go to ``sink``), timers run the CPUs and the pauses,
    until the table closes. ``on_step(service, table_id, person)`` may restart: it returns the new service
    (and puts the new clock in ``clocks[0]``)."""
    for _ in range(5000):
        try:
            snap = await service.snapshot(table_id)
        except ServiceError:
            return service
        person = next(
            (
                PEOPLE[s.user_id]
                for s in snap.seats
                if snap.phase == "playing" and s.to_act and not s.is_cpu and s.user_id in PEOPLE
            ),
            None,
        )
        if person is not None:
            view = await hand(service, table_id, person)
            intent = choose_intent(view, discard_first=discard_first)
            used[str(intent.kind)] = used.get(str(intent.kind), 0) + 1
            sink.append(await service.act(table_id, person, intent, view.round_token))
            if on_step is not None:
                service = await on_step(service, table_id, person) or service
            continue
        clock = clocks[0]
        due = clock.pending()
        assert due, "nothing left to happen"
        await clock.advance(max(0.0, due[0] - clock.now()))
    raise AssertionError("the match never ended")


def public(recorder: Recorder, sink: list[Outcome], kind: str) -> list[Any]:
    return [e for o in [*recorder.outcomes, *sink] for e in o.public_events if e.kind == kind]


async def test_two_people_and_a_cpu_play_a_match_to_the_end(
    service: TableService, clock: FakeClock, recorder: Recorder, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, cpus=("hard",), preset=PRESET)
    used: dict[str, int] = {}
    sink: list[Outcome] = []
    await play_to_the_end(service, [clock], table_id, used, sink)
    assert public(recorder, sink, "game_over") and public(recorder, sink, "played")
    assert used.get("effect") and used.get("play") and used.get("choose")
    over = public(recorder, sink, "match_over")[-1]
    assert sorted(line["position"] for line in over.data["ranking"]) == [0, 1, 2]
    # The match counts in the standings: each person has one match played.
    for person in (ALICE, BOB):
        stats = await store.player_stats(500, person.user_id)
        assert stats is not None and stats.matches_played == 1


HANDS = [
    ["9B", "10B", "2O", "KO", "5O", "QP", "7P"],  # Alice: Death, Crown of Kings, an orange 2, Angel of Hope
    ["AG", "4G", "6G", "8B", "JG", "QG", "KG"],  # Bob
]


async def test_bad_input_is_refused_and_changes_nothing(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, preset=PRESET)
    stack(service, table_id, HANDS, "AB", first=0)
    before = await hand(service, table_id, ALICE)
    top = before.snapshot.crazier
    assert top is not None and top.top.code == "AB" and top.follow == ("blue", "green")

    async def unchanged() -> None:
        after = await hand(service, table_id, ALICE)
        assert after.cards == before.cards and after.crazier == before.crazier

    # A discard that does not match (orange on blue/green).
    await refused(service.act(table_id, ALICE, Intent.play("2O")), 907)
    # Death with nothing in play: no valid choice.
    await refused(service.act(table_id, ALICE, Intent.effect("9B", option="KG")), 933)
    # Out of turn.
    await refused(service.act(table_id, BOB, Intent.end_turn()), 901)
    # A choice when none waits.
    await refused(service.act(table_id, ALICE, Intent.choose("1")), "no_choice")
    # A card one does not hold, an unreadable card.
    await refused(service.act(table_id, ALICE, Intent.play("KG")), 902)
    await refused(service.act(table_id, ALICE, Intent.play("zz")), 903)
    # A move of the standard game.
    await refused(service.act(table_id, ALICE, Intent.draw()), "not_in_game")
    await refused(service.act(table_id, ALICE, Intent.name_suit("S")), "not_in_game")
    await unchanged()

    await act(service, table_id, ALICE, Intent.play("9B"))
    # A second discard without Potion of Vitality.
    await refused(service.act(table_id, ALICE, Intent.play("10B")), 930)
    # The button shown before the discard is stale now.
    await refused(service.act(table_id, ALICE, Intent.play("10B"), before.round_token), "stale")


async def test_a_restart_after_the_discard_and_with_a_choice_waiting_resumes_there(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, preset=PRESET)
    stack(service, table_id, HANDS, "AB", first=0)
    await act(service, table_id, ALICE, Intent.play("9B"))

    # A new process after the discard, before the effect.
    service, clock = await restart(service, store, clock)
    view = await hand(service, table_id, ALICE)
    assert view.your_turn and "9B" not in [c.code for c in view.cards]
    assert view.crazier is not None and view.crazier.discards_left == 0
    assert [c.card.code for c in view.crazier.cards if c.can_play] == ["2O", "KO", "5O", "QP", "7P"]
    await act(service, table_id, ALICE, Intent.effect("5O"))  # Angel of Hope goes into play
    snap = await service.snapshot(table_id)
    assert snap.crazier is not None and [c.name for c in snap.crazier.in_play[0]] == ["Angel of Hope"]
    # Nothing left to do: her turn ended by itself.
    assert snap.to_act == 1
    await refused(service.act(table_id, ALICE, Intent.effect("KO")), 901)
    await act(service, table_id, BOB, Intent.effect("KG"))
    await refused(service.act(table_id, BOB, Intent.effect("QG")), 932)  # one effect a turn
    await act(service, table_id, BOB, Intent.end_turn())

    # Alice's beginning of turn: her Angel of Hope waits for her choice of a player.
    view = await hand(service, table_id, ALICE)
    assert view.crazier is not None and view.crazier.choice is not None
    assert view.crazier.choice.kind == "player"
    assert [o.value for o in view.crazier.choice.options] == ["0", "1"]
    assert (await hand(service, table_id, BOB)).crazier.choice is None  # type: ignore[union-attr]
    await refused(service.act(table_id, ALICE, Intent.choose("5")), 934)  # not offered
    bob_cards = len((await hand(service, table_id, BOB)).cards)

    service, clock = await restart(service, store, clock)
    again = await hand(service, table_id, ALICE)
    assert again.crazier == view.crazier and again.cards == view.cards
    outcome = await service.act(table_id, ALICE, Intent.choose("1"), again.round_token)
    drew = [e for e in outcome.public_events if e.kind == "drew"]
    assert drew and drew[0].seat == 1 and drew[0].data["by"] == "5O"
    assert len((await hand(service, table_id, BOB)).cards) == bob_cards + 1


async def restart(service: TableService, store: Store, clock: FakeClock) -> tuple[TableService, FakeClock]:
    await service.close()
    new_clock = FakeClock(start=clock.now())
    new = make_service(store, new_clock, Recorder(), seed=99)
    assert await new.restore_all() == 1
    return new, new_clock


async def test_a_restart_mid_match_with_a_cpu_goes_on_to_the_end(
    service: TableService, clock: FakeClock, store: Store
) -> None:
    table_id = await open_with(service, ALICE, BOB, cpus=("normal",), preset=PRESET)
    restarts: list[int] = []
    clocks = [clock]

    async def maybe_restart(svc: TableService, tid: int, person: Actor) -> TableService | None:
        try:
            view = await hand(svc, tid, person)
        except ServiceError:
            return None  # the match is over
        c = view.crazier
        # After a discard, before the effect: the first time it happens.
        if (
            restarts
            or c is None
            or not view.your_turn
            or c.discards_left
            or not any(x.can_play for x in c.cards)
        ):
            return None
        restarts.append(tid)
        new, new_clock = await restart(svc, store, clocks[0])
        # The private notes (cards just drawn) are this process's memory only, as for every preset.
        assert dataclasses.replace(await hand(new, tid, person), recent_private=()) == dataclasses.replace(
            view, recent_private=()
        )
        clocks[0] = new_clock
        return new

    sink: list[Outcome] = []
    service = await play_to_the_end(service, clocks, table_id, {}, sink, maybe_restart, discard_first=True)
    assert restarts
    await refused(service.snapshot(table_id), "no_table")  # the match went on to its end


async def test_a_team_game_of_four_counts_for_each_member(
    service: TableService, clock: FakeClock, recorder: Recorder, store: Store
) -> None:
    await refused(service.open_table(500, 600, ALICE, preset="classic", teams=True), "bad_option")
    table_id = await open_with(service, ALICE, BOB, CAROL, cpus=("easy",), preset=PRESET, teams=True)
    snap = await service.snapshot(table_id)
    assert snap.crazier is not None and snap.crazier.teams and len(snap.crazier.acting) == 2
    sink: list[Outcome] = []
    await play_to_the_end(service, [clock], table_id, {}, sink)
    over = public(recorder, sink, "match_over")[-1]
    places = {line["position"]: line["place"] for line in over.data["ranking"]}
    # Teammates (seats 0 and 2, 1 and 3) share their team's total, so their place.
    assert places[0] == places[2] and places[1] == places[3] and places[0] != places[1]
    for person in (ALICE, BOB, CAROL):
        stats = await store.player_stats(500, person.user_id)
        assert stats is not None and stats.matches_played == 1


async def test_a_team_game_needs_four_or_six(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL, preset=PRESET, teams=True, start=False)
    await refused(service.start(table_id, ALICE), "too_few")


async def test_the_rules_list_every_card(service: TableService) -> None:
    text = await service.rules_text(PRESET)
    for name in ("Forbidden Knowledge", "Potion of Vitality", "Elven Princess", "Angel of Hope", "Castle"):
        assert name in text
    for name in ("Resurrection", "Death", "Crown of Kings", "Devious Dragon", "Mordred", "King Arthur"):
        assert name in text


async def test_a_person_out_of_time_has_their_choice_made_and_their_turn_ended(
    service: TableService, clock: FakeClock, recorder: Recorder
) -> None:
    table_id = await open_with(service, ALICE, BOB, preset=PRESET, turn_timeout=60)
    stack(service, table_id, HANDS, "AB", first=0)
    await act(service, table_id, ALICE, Intent.effect("5O"))  # Angel of Hope into play
    await act(service, table_id, ALICE, Intent.end_turn())
    await act(service, table_id, BOB, Intent.end_turn())
    view = await hand(service, table_id, ALICE)
    assert view.crazier is not None and view.crazier.choice is not None and view.deadline is not None
    await clock.advance(view.deadline - clock.now())
    assert [e.seat for e in recorder.events("timed_out")] == [0]
    # The referee chose a player for the Angel of Hope, then ended Alice's turn: Bob acts now.
    assert [e.data["by"] for e in recorder.events("drew") if e.data["by"] == "5O"] == ["5O"]
    snap = await service.snapshot(table_id)
    assert snap.to_act == 1 and snap.crazier is not None and snap.crazier.acting == (1,)
    # Timeouts by turns: Bob's first, Alice's second, Bob's second, Alice's third: a CPU takes her seat.
    for _ in range(4):
        await clock.advance(60)
    assert [e.seat for e in recorder.events("taken_over")] == [0]
    assert (await service.snapshot(table_id)).seats[0].taken_over


async def test_a_server_may_make_it_the_default_preset(service: TableService, store: Store) -> None:
    from bot.service.server import ServerService

    server = ServerService(store)
    await server.update_settings(500, default_preset=PRESET)
    outcome = await service.open_table(500, 600, ALICE)
    assert outcome.snapshot.preset == PRESET
    # It takes no house rules; the server's are for the tables of the presets they fit, read against the
    # standard game: accepted, and a Crazier table still opens without them.
    settings = await server.update_settings(500, house_option="draw_limit", house_value="3")
    assert settings.default_house_rules
    await service.end(outcome.table_id, ALICE)
    crazier = await service.open_table(500, 600, ALICE)
    assert crazier.snapshot.preset == PRESET and crazier.snapshot.house_rules == ()
    classic = await service.open_table(500, 601, ALICE, "classic")
    assert classic.snapshot.house_rules


async def test_an_8_is_discarded_with_a_colour_named(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, preset=PRESET)
    stack(service, table_id, [HANDS[1], HANDS[0]], "AB", first=0)  # Alice holds 8B
    await refused(service.act(table_id, ALICE, Intent.play("8B")), "need_suit")
    await refused(service.act(table_id, BOB, Intent.play("8B")), 901)  # not his turn (nor his card)
    await act(service, table_id, ALICE, Intent.play("8B", "orange"))
    board = (await service.snapshot(table_id)).crazier
    assert board is not None and board.top.code == "8B" and board.follow == ("orange",)


async def test_an_8_as_the_last_card_names_nothing(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, preset=PRESET)
    stack(service, table_id, [HANDS[1], HANDS[0]], "AB", first=0)
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd = live.crazier.round
    # Alice holds only her 8: the rest of her hand goes under the draw pile.
    rnd.draw[:0] = [c for c in rnd.hands[0] if c != "8B"]
    rnd.hands[0][:] = ["8B"]
    live.snapshot_of = None
    outcome = await service.act(table_id, ALICE, Intent.play("8B"))
    assert [e.data["winners"] for e in outcome.public_events if e.kind == "game_over"] == [[0]]


def _token_without_a_choice(seed: int, match: CrazierMatch, position: int, *, live: bool) -> str:
    """The situation token as the bot computed it before choices had their own (what the hand buttons shown
    by earlier versions carry)."""
    rnd = match.round
    acting = live and position in rnd.acting
    seen = (
        match.number,
        position,
        live,
        rnd.turn if acting else -1,
        sorted(rnd.hands[position]),
        sorted(repr(sorted(m.to_json().items())) for m in rnd.legal_actions(position)) if acting else [],
    )
    key = (seed % 2**64).to_bytes(8, "big")
    return hashlib.blake2b(repr(seen).encode(), key=key, digest_size=6).hexdigest()


def test_a_crazier_hand_with_no_choice_keeps_its_token_across_the_upgrade() -> None:
    """A crazier seat with no choice pending keeps the token earlier versions gave it, so the buttons of a
    hand that did not change keep working across an upgrade's restart (README)."""
    match = CrazierMatch.new(get_preset("crazier-abilities"), 3, seed=7)
    rnd = match.round
    seed = 123456789
    for position in range(3):
        assert rnd.choice is None or rnd.choice["by"] != position
        for live in (True, False):
            before = _token_without_a_choice(seed, match, position, live=live)
            after = crazier.situation_token(seed, match, position, live=live)
            assert after == before, (position, live)
