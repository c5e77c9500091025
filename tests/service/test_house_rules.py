"""House rules at the table through the service: who may change them and when, the refusals with reasons,
the seats a partnership needs, the rules kept across a restart, and a partnership match recorded by side."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.service.standings import StandingsService
from bot.store import GuildSettings, Store
from tests.service.support import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    MANAGER,
    Recorder,
    drive,
    make_service,
    open_with,
    refused,
)


async def test_the_host_or_a_manager_changes_one_rule_in_the_lobby(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, start=False)
    outcome = await service.set_house_rule(table_id, ALICE, "draw limit", "3")
    assert [e.kind for e in outcome.public_events] == ["house_rule"]
    outcome = await service.set_house_rule(table_id, MANAGER, "after_draw", "draw-up-to")
    assert outcome.snapshot.house_rules == ("Draw up to 3 cards, then you may pass",)
    assert outcome.public_events[0].data["text"] == "Draw up to 3 cards, then you may pass"
    rules = await service.rules_text(table_id=table_id)
    assert "Draw up to 3 cards, then you may pass" in rules and "(house rules)" in rules
    options = {o.key: o for o in await service.house_options(table_id, ALICE)}
    assert options["draw_limit"].current == "3" and options["after_draw"].current == "draw-up-to"


async def test_refusals_leave_the_rules_as_they_were(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, start=False)
    error = await refused(service.set_house_rule(table_id, BOB, "reshuffle", "off"), "not_host")
    assert "host" in error.message
    await refused(service.house_options(table_id, BOB), "not_host")
    error = await refused(service.set_house_rule(table_id, ALICE, "after_draw", "draw-up-to"), "bad_option")
    assert "draw limit" in error.message
    await refused(service.set_house_rule(table_id, ALICE, "colour", "red"), "bad_option")
    await refused(service.set_house_rule(table_id, ALICE, "hand_size", "99"), "bad_option")
    assert (await service.snapshot(table_id)).house_rules == ()
    await service.start(table_id, ALICE)
    await refused(service.set_house_rule(table_id, ALICE, "reshuffle", "off"), "not_lobby")


async def test_a_partnership_seats_exactly_four(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL, cpus=("easy", "easy"), start=False)
    error = await refused(service.set_house_rule(table_id, ALICE, "partnership", "on"), "bad_option")
    assert "5 players are seated" in error.message
    await service.kick(table_id, ALICE, CAROL.user_id)
    snapshot = (await service.set_house_rule(table_id, ALICE, "partnership", "on")).snapshot
    assert snapshot.partnership and snapshot.max_seats == 4
    # Four seated: nobody else may sit down.
    await refused(service.add_cpu(table_id, ALICE, "easy"), "full")


async def test_a_partnership_does_not_start_with_three(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, cpus=("easy",), start=False)
    await service.set_house_rule(table_id, ALICE, "partnership", "on")
    error = await refused(service.start(table_id, ALICE), "too_few")
    assert "exactly four" in error.message


async def test_house_rules_survive_a_restart(store: Store, clock: FakeClock, recorder: Recorder) -> None:
    first = make_service(store, clock, recorder)
    table_id = await open_with(first, ALICE, BOB, start=False)
    await first.set_house_rule(table_id, ALICE, "skip cards", "J 4")
    await first.close()
    again = make_service(store, clock, Recorder(), seed=99)
    await again.restore_all()
    snapshot = await again.snapshot(table_id)
    assert snapshot.house_rules == ("J and 4 skip the next player",)
    await again.start(table_id, ALICE)
    live_rules = await again.rules_text(table_id=table_id)
    assert "J and 4 skip the next player" in live_rules
    await again.close()


async def test_server_default_house_rules_apply_to_new_tables(service: TableService, store: Store) -> None:
    await store.save_guild_settings(GuildSettings(GUILD, default_house_rules={"reshuffle": False}))
    outcome = await service.open_table(GUILD, CHANNEL, ALICE)
    assert outcome.snapshot.house_rules == ("No reshuffle: once the stock is empty, nobody draws",)


async def test_server_default_house_rules_that_do_not_fit_the_preset_are_left_out(
    service: TableService, store: Store
) -> None:
    # A draw card for 4s cannot have a cap without being a draw card: on switch these rules do not fit.
    await store.save_guild_settings(GuildSettings(GUILD, default_house_rules={"draw_ranks": [[2, 2]]}))
    outcome = await service.open_table(GUILD, CHANNEL, ALICE, preset="switch")
    assert outcome.snapshot.house_rules == () and outcome.snapshot.preset == "switch"


async def test_a_partnership_match_is_recorded_by_side(
    service: TableService, store: Store, clock: FakeClock
) -> None:
    table_id = await open_with(service, ALICE, BOB, start=False, target=30)
    await service.set_house_rule(table_id, ALICE, "partnership", "on")
    await service.add_cpu(table_id, ALICE, "normal")
    await service.add_cpu(table_id, ALICE, "normal")
    await service.start(table_id, ALICE)
    assert await drive(service, clock, table_id, until=lambda snapshot: False) is None
    (match,) = await store.recent_matches(GUILD)
    assert match.house_rules == {"partnership": True, "target": 30}
    places = {entry.position: entry.place for entry in match.ranking}
    totals = {entry.position: entry.total for entry in match.ranking}
    assert places[0] == places[2] and places[1] == places[3] and totals[0] == totals[2]
    # Places by side, as the final ranking shows them: the losing side is 2nd (not 3rd behind two 1sts).
    assert sorted(places.values()) == [1, 1, 2, 2]
    alice = await store.player_stats(GUILD, ALICE.user_id)
    bob = await store.player_stats(GUILD, BOB.user_id)
    assert alice is not None and bob is not None
    # Alice (seat 1) and Bob (seat 2) are on different sides: one of them won.
    assert alice.matches_won + bob.matches_won == 1
    assert sorted([alice.best_place, bob.best_place]) == [1, 2]
    (past,) = await StandingsService(store).history(GUILD)
    assert sorted(placing.place for placing in past.ranking) == [1, 1, 2, 2]


async def test_a_table_opened_with_three_seats_seats_four_in_a_partnership(service: TableService) -> None:
    outcome = await service.open_table(GUILD, CHANNEL, ALICE, seats=3)
    table_id = outcome.table_id
    assert outcome.snapshot.max_seats == 3
    snapshot = (await service.set_house_rule(table_id, ALICE, "partnership", "on")).snapshot
    assert snapshot.max_seats == 4
    for _ in range(3):
        await service.add_cpu(table_id, ALICE, "easy")
    await service.start(table_id, ALICE)
    assert (await service.snapshot(table_id)).phase == "playing"


async def test_a_partnership_takes_a_hand_size_that_fits_four_players(service: TableService) -> None:
    """With partnership the table is exactly four: four hands of 11 and a starter fit one deck, although
    five hands of 11 (classic allows five players) would not."""
    table_id = await open_with(service, ALICE, BOB, start=False)
    error = await refused(service.set_house_rule(table_id, ALICE, "hand_size", "11"), "bad_option")
    assert "5 hands of 11 cards do not fit" in error.message
    await service.set_house_rule(table_id, ALICE, "partnership", "on")
    snapshot = (await service.set_house_rule(table_id, ALICE, "hand_size", "11")).snapshot
    assert snapshot.partnership and "11" in " ".join(snapshot.house_rules)
    await refused(service.set_house_rule(table_id, ALICE, "hand_size", "13"), "bad_option")  # 4 × 13 + 2 > 52
    for _ in range(2):
        await service.add_cpu(table_id, ALICE, "easy")
    await service.start(table_id, ALICE)
    snapshot = await service.snapshot(table_id)
    assert snapshot.phase == "playing"
    assert [seat.card_count for seat in snapshot.seats] == [11] * 4  # nobody moved yet (the clock stands)
