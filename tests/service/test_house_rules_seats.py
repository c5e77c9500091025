"""The "Most players" house rule and the seats of a table opened with a number of seats: the host's latest
word sets how many seats the table offers (the board, Join and Add CPU agree), lowering it below the people
seated is refused with the reason, and a restart keeps the seats it set."""

from __future__ import annotations

from bot.service import FakeClock, TableService
from bot.store import Store
from tests.service.support import ALICE, BOB, CAROL, CHANNEL, GUILD, Recorder, make_service, refused


async def test_raising_most_players_on_a_table_opened_with_seats_seats_that_many(
    service: TableService,
) -> None:
    """Opened with ``seats:3``, the host sets "Most players" to 5: the change is accepted, the table offers
    5 seats (the board's range with it), a 4th and a 5th seat are taken (a person, a CPU), and a 6th is
    refused as full."""
    table_id = (await service.open_table(GUILD, CHANNEL, ALICE, seats=3)).table_id
    snapshot = (await service.set_house_rule(table_id, ALICE, "max_players", "5")).snapshot
    assert snapshot.max_seats == 5
    assert snapshot.house_rules == ("At most 5 players",)
    await service.join(table_id, BOB)
    await service.join(table_id, CAROL)
    await service.add_cpu(table_id, ALICE, "easy")  # the 4th seat
    await service.add_cpu(table_id, ALICE, "easy")  # the 5th
    error = await refused(service.add_cpu(table_id, ALICE, "easy"), "full")
    assert error.message == "This table is full."
    assert len((await service.snapshot(table_id)).seats) == 5


async def test_the_latest_most_players_sets_the_seats_lower_or_higher(service: TableService) -> None:
    """Opened with 5 seats, the host lowers "Most players" to 3, then raises it to 6: the table offers 3,
    then 6 (not the 5 it was opened with)."""
    table_id = (await service.open_table(GUILD, CHANNEL, ALICE, seats=5)).table_id
    assert (await service.set_house_rule(table_id, ALICE, "max_players", "3")).snapshot.max_seats == 3
    assert (await service.set_house_rule(table_id, ALICE, "max_players", "6")).snapshot.max_seats == 6


async def test_most_players_below_the_people_seated_is_refused_and_the_seats_stay(
    service: TableService,
) -> None:
    """Three seated at a table opened with 3 seats, raised to 5: "Most players" 2 is refused with the reason
    ("3 players are seated; these rules allow at most 2."), and the table keeps its rules and its 5 seats."""
    table_id = (await service.open_table(GUILD, CHANNEL, ALICE, seats=3)).table_id
    await service.set_house_rule(table_id, ALICE, "max_players", "5")
    await service.join(table_id, BOB)
    await service.join(table_id, CAROL)
    error = await refused(service.set_house_rule(table_id, ALICE, "max_players", "2"), "bad_option")
    assert error.message == "3 players are seated; these rules allow at most 2."
    snapshot = await service.snapshot(table_id)
    assert snapshot.max_seats == 5 and snapshot.house_rules == ("At most 5 players",)


async def test_a_partnership_still_seats_four_after_most_players_was_raised(service: TableService) -> None:
    """The seats "Most players" set give way to a partnership's four, and come back when it is turned off."""
    table_id = (await service.open_table(GUILD, CHANNEL, ALICE, seats=3)).table_id
    await service.set_house_rule(table_id, ALICE, "max_players", "6")
    assert (await service.set_house_rule(table_id, ALICE, "partnership", "on")).snapshot.max_seats == 4
    assert (await service.set_house_rule(table_id, ALICE, "partnership", "off")).snapshot.max_seats == 6


async def test_the_seats_most_players_set_survive_a_restart(
    store: Store, clock: FakeClock, recorder: Recorder
) -> None:
    """The seats are kept with the table's state: after a restart the table opened with 3 seats and raised
    to 5 still offers 5, and takes a 4th seat."""
    first = make_service(store, clock, recorder)
    table_id = (await first.open_table(GUILD, CHANNEL, ALICE, seats=3)).table_id
    await first.set_house_rule(table_id, ALICE, "max_players", "5")
    await first.join(table_id, BOB)
    await first.join(table_id, CAROL)
    await first.close()
    again = make_service(store, clock, Recorder(), seed=99)
    await again.restore_all()
    assert (await again.snapshot(table_id)).max_seats == 5
    await again.add_cpu(table_id, ALICE, "easy")
    assert len((await again.snapshot(table_id)).seats) == 4
    await again.close()
