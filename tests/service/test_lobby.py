"""Opening, joining, leaving, CPU seats, starting, ending and kicking: each use case with its permissions."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.engine.events import Event
from bot.service import NO_TABLE, Actor, Intent, TableService
from bot.service.moves import route
from bot.store import GuildSettings, Store
from bot.store.base import SeatRecord
from tests.service.support import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    MANAGER,
    OTHER_CHANNEL,
    STRANGER,
    Recorder,
    open_with,
    refused,
)


async def test_open_table_seats_the_host_and_opens_a_lobby(service: TableService, store: Store) -> None:
    outcome = await service.open_table(GUILD, CHANNEL, ALICE)
    snap = outcome.snapshot
    assert snap.status == "lobby" and snap.phase == "lobby"
    assert snap.host_id == ALICE.user_id
    assert [(s.position, s.user_id, s.is_host) for s in snap.seats] == [(0, ALICE.user_id, True)]
    assert snap.preset == "classic" and snap.target_score == 100
    assert snap.turn_timeout == 90.0 and snap.auto_draw and snap.next_round_pause == 10.0
    assert snap.deadline_kind == "lobby" and snap.deadline is not None
    assert [e.kind for e in outcome.public_events] == ["opened"]
    record = await store.open_table_in_channel(CHANNEL)
    assert record is not None and record.id == snap.table_id
    assert await service.require_table(CHANNEL) == snap.table_id


async def test_a_second_table_in_the_channel_points_at_the_open_one(service: TableService) -> None:
    first = await service.open_table(GUILD, CHANNEL, ALICE)
    error = await refused(service.open_table(GUILD, CHANNEL, BOB), "table_exists")
    assert error.table_id == first.table_id
    assert "/eights join" in error.message
    # Another channel is fine.
    other = await service.open_table(GUILD, OTHER_CHANNEL, BOB)
    assert other.table_id != first.table_id


async def test_guild_settings_choose_channels_and_defaults(service: TableService, store: Store) -> None:
    await store.save_guild_settings(
        GuildSettings(
            GUILD,
            default_preset="draw-one",
            default_turn_timeout=120.0,
            allowed_channel_ids=(OTHER_CHANNEL,),
            manager_role_id=77,
        )
    )
    error = await refused(service.open_table(GUILD, CHANNEL, ALICE), "wrong_channel")
    assert f"<#{OTHER_CHANNEL}>" in error.message
    snap = (await service.open_table(GUILD, OTHER_CHANNEL, ALICE)).snapshot
    assert snap.preset == "draw-one" and snap.turn_timeout == 120.0
    assert await service.manager_role_id(GUILD) == 77


async def test_a_thread_of_a_listed_channel_may_hold_a_table(service: TableService, store: Store) -> None:
    """With a list of table channels, a thread (or forum post) counts as the channel it belongs to."""
    await store.save_guild_settings(GuildSettings(GUILD, allowed_channel_ids=(OTHER_CHANNEL,)))
    thread = OTHER_CHANNEL + 1000
    await refused(service.open_table(GUILD, thread, ALICE), "wrong_channel")
    await refused(service.open_table(GUILD, thread, ALICE, parent_id=CHANNEL), "wrong_channel")
    snap = (await service.open_table(GUILD, thread, ALICE, parent_id=OTHER_CHANNEL)).snapshot
    assert snap.channel_id == thread


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"preset": "poker"}, "Unknown preset"),
        ({"seats": 1}, "Seats must be between 2 and 7"),
        ({"seats": 8}, "Seats must be between 2 and 7"),
        ({"turn_timeout": 14}, "15 seconds and 24 hours"),
        ({"turn_timeout": 86_401}, "15 seconds and 24 hours"),
        ({"next_round_pause": 61}, "0 and 60 seconds"),
        ({"target": -5}, "Target: the number must be from 1 to 10000"),
        # The target's bounds are those of the target house rule (/eights new declares them too); a value
        # that is not a whole number (a tampered client's text, a float past 2**64) is outside them.
        ({"target": 10**15}, "Target: the number must be from 1 to 10000"),
        ({"target": 10_001}, "Target: the number must be from 1 to 10000"),
        ({"target": 0}, "Target: the number must be from 1 to 10000"),
        ({"target": 1.8e19}, "Target: the number must be from 1 to 10000"),
        ({"target": "50"}, "Target: the number must be from 1 to 10000"),
        ({"seats": "7"}, "Seats must be between 2 and 7"),
        ({"seats": 3.0}, "Seats must be between 2 and 7"),
        ({"turn_timeout": "x"}, "15 seconds and 24 hours"),
        ({"next_round_pause": "x"}, "0 and 60 seconds"),
    ],
)
async def test_bad_options_are_refused(
    service: TableService, options: dict[str, object], fragment: str
) -> None:
    error = await refused(service.open_table(GUILD, CHANNEL, ALICE, **options), "bad_option")  # type: ignore[arg-type]
    assert fragment in error.message
    assert await service.table_in_channel(CHANNEL) is None


async def test_options_are_kept(service: TableService) -> None:
    snap = (
        await service.open_table(
            GUILD, CHANNEL, ALICE, preset="switch", target=150, seats=3, turn_timeout=15, next_round_pause=60
        )
    ).snapshot
    assert (snap.preset, snap.target_score, snap.max_seats, snap.turn_timeout) == ("switch", 150, 3, 15.0)
    assert snap.next_round_pause == 60.0


async def test_the_highest_target_opens_a_table(service: TableService) -> None:
    snap = (await service.open_table(GUILD, CHANNEL, ALICE, target=10_000)).snapshot
    assert snap.target_score == 10_000


async def test_join_and_its_refusals(service: TableService, recorder: Recorder) -> None:
    table_id = (await service.open_table(GUILD, CHANNEL, ALICE, seats=2)).table_id
    outcome = await service.join(table_id, BOB)
    assert [s.user_id for s in outcome.snapshot.seats] == [ALICE.user_id, BOB.user_id]
    assert outcome.public_events[0].kind == "joined"
    await refused(service.join(table_id, BOB), "already_seated")
    await refused(service.join(table_id, CAROL), "full")
    assert recorder.outcomes == []  # nothing pushed by use cases answered directly


async def test_refusals_change_nothing(service: TableService, store: Store) -> None:
    table_id = (await service.open_table(GUILD, CHANNEL, ALICE)).table_id
    before = await store.get_state(table_id)
    await refused(service.join(table_id, ALICE), "already_seated")
    await refused(service.start(table_id, ALICE), "too_few")
    await refused(service.add_cpu(table_id, BOB), "not_host")
    after = await store.get_state(table_id)
    assert before is not None and after is not None and before.version == after.version


async def test_leave_in_the_lobby_frees_the_seat_and_passes_the_host(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL, start=False)
    await refused(service.leave(table_id, STRANGER), "not_seated")
    outcome = await service.leave(table_id, ALICE)
    snap = outcome.snapshot
    assert [(s.position, s.user_id) for s in snap.seats] == [(0, BOB.user_id), (1, CAROL.user_id)]
    assert snap.host_id == BOB.user_id
    assert [e.kind for e in outcome.public_events] == ["left", "host_changed"]
    # The new host can do host things, the old one no longer can.
    await service.add_cpu(table_id, BOB, "easy")
    await refused(service.start(table_id, ALICE), "not_host")


async def test_a_lobby_left_by_every_person_closes(service: TableService) -> None:
    table_id = await open_with(service, ALICE, cpus=("easy",), start=False)
    outcome = await service.leave(table_id, ALICE)
    assert outcome.closed and outcome.snapshot.status == "abandoned"
    assert await service.table_in_channel(CHANNEL) is None


async def test_cpu_seats_host_only_with_valid_level(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, start=False)
    await refused(service.add_cpu(table_id, BOB), "not_host")
    await refused(service.add_cpu(table_id, ALICE, "genius"), "bad_option")
    outcome = await service.add_cpu(table_id, ALICE, "hard")
    cpu = outcome.snapshot.seats[2]
    assert cpu.is_cpu and cpu.user_id is None and cpu.cpu_level == "hard" and not cpu.taken_over
    # A member who can manage the channel may add one too.
    outcome = await service.add_cpu(table_id, MANAGER, "easy")
    assert len(outcome.snapshot.seats) == 4


async def test_start_needs_the_host_and_two_seats(service: TableService) -> None:
    table_id = await open_with(service, ALICE, start=False)
    await refused(service.start(table_id, ALICE), "too_few")
    await service.join(table_id, BOB)
    await refused(service.start(table_id, BOB), "not_host")
    await refused(service.start(table_id, STRANGER), "not_host")
    outcome = await service.start(table_id, ALICE)
    snap = outcome.snapshot
    assert snap.status == "playing" and snap.phase == "playing" and snap.round_number == 1
    assert snap.to_act == 0 and snap.deadline_kind == "turn"
    assert [s.card_count for s in snap.seats] == [7, 7]  # two players: seven cards each
    assert snap.target_card is not None
    assert [e.kind for e in outcome.public_events][:2] == ["started", "round_started"]
    await refused(service.start(table_id, ALICE), "not_lobby")
    await refused(service.add_cpu(table_id, ALICE), "not_lobby")
    await refused(service.join(table_id, CAROL), "started")


async def test_end_by_host_or_manager_only(service: TableService, store: Store) -> None:
    table_id = await open_with(service, ALICE, BOB)
    await refused(service.end(table_id, BOB), "not_host")
    outcome = await service.end(table_id, MANAGER)
    assert outcome.closed and outcome.snapshot.status == "abandoned"
    assert outcome.public_events[-1].kind == "closed"
    record = await store.get_table(table_id)
    assert record is not None and record.status == "abandoned"
    error = await refused(service.snapshot(table_id), "no_table")
    assert error.message == NO_TABLE
    await refused(service.require_table(CHANNEL), "no_table")
    # The channel is free again.
    await service.open_table(GUILD, CHANNEL, BOB)


async def test_no_table_says_where_the_persons_tables_or_the_servers_table_channels_are(
    service: TableService, store: Store
) -> None:
    """A command in a channel with no table (``require_table`` with the server and the person) names the
    channels of the open tables of this server the person sits at, in a match or a lobby (not one they were
    removed from, nor another server's); else, where the server keeps tables to its listed channels, those
    channels (a thread counts as its channel); else it says to open one with /eights new."""
    here, elsewhere = OTHER_CHANNEL + 1, OTHER_CHANNEL + 2
    playing = await open_with(service, ALICE, BOB, CAROL)  # in CHANNEL
    await service.kick(playing, MANAGER, CAROL.user_id)
    await service.open_table(GUILD, OTHER_CHANNEL, ALICE)  # a lobby
    await service.open_table(GUILD + 1, elsewhere, BOB)  # another server's table

    async def told(
        user: Actor, channel: int = here, guild: int | None = GUILD, parent: int | None = None
    ) -> str:
        error = await refused(
            service.require_table(channel, guild_id=guild, user_id=user.user_id, parent_id=parent), "no_table"
        )
        return error.message

    assert (
        await told(ALICE)
        == f"There is no table in this channel. Yours are in <#{CHANNEL}>, <#{OTHER_CHANNEL}>."
    )
    assert await told(BOB) == f"There is no table in this channel. Yours is in <#{CHANNEL}>."
    assert await told(CAROL) == NO_TABLE  # removed from her table
    assert await told(ALICE, guild=None) == NO_TABLE
    await store.save_guild_settings(GuildSettings(GUILD, allowed_channel_ids=(CHANNEL, OTHER_CHANNEL)))
    listed = f"There is no table here: tables are played in <#{CHANNEL}>, <#{OTHER_CHANNEL}>."
    assert await told(CAROL) == listed
    assert await told(STRANGER) == listed
    assert await told(STRANGER, parent=CHANNEL) == NO_TABLE  # a thread of a listed channel takes a table
    assert (await told(ALICE)).endswith(f"Yours are in <#{CHANNEL}>, <#{OTHER_CHANNEL}>.")


async def test_kick_in_the_lobby_removes_and_bars(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL, start=False)
    await refused(service.kick(table_id, BOB, CAROL.user_id), "not_host")
    await refused(service.kick(table_id, ALICE, ALICE.user_id), "kick_self")
    await refused(service.kick(table_id, ALICE, STRANGER.user_id), "not_seated")
    outcome = await service.kick(table_id, ALICE, CAROL.user_id)
    assert [s.user_id for s in outcome.snapshot.seats] == [ALICE.user_id, BOB.user_id]
    await refused(service.join(table_id, CAROL), "kicked")


async def test_kick_during_a_match_hands_the_seat_to_a_cpu(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, CAROL)
    outcome = await service.kick(table_id, MANAGER, BOB.user_id)
    bob = outcome.snapshot.seats[1]
    assert bob.user_id == BOB.user_id and bob.is_cpu and bob.taken_over and bob.cpu_level == "normal"
    assert "taken_over" in [e.kind for e in outcome.public_events]
    assert [e.kind for e in outcome.private_events[BOB.user_id]] == ["taken_over"]
    await refused(service.join(table_id, BOB), "kicked")


async def test_a_kicked_host_hands_the_role_on(service: TableService) -> None:
    """A host a manager removed is host no more: the role goes to the next person playing their own seat."""
    table_id = await open_with(service, ALICE, BOB, CAROL)
    outcome = await service.kick(table_id, MANAGER, ALICE.user_id)
    assert outcome.snapshot.host_id == BOB.user_id
    assert [seat.user_id for seat in outcome.snapshot.seats if seat.is_host] == [BOB.user_id]
    await refused(service.end(table_id, ALICE), "not_host")
    await refused(service.kick(table_id, ALICE, CAROL.user_id), "not_host")


async def test_a_kicked_host_with_nobody_to_take_over_leaves_no_host(service: TableService) -> None:
    """With everyone else away (a CPU plays their seats), the removed host keeps no power: the table has no
    host, the first person back takes the role, and a manager may end it meanwhile."""
    table_id = await open_with(service, ALICE, BOB, CAROL)
    await service.leave(table_id, BOB)
    await service.leave(table_id, CAROL)
    outcome = await service.kick(table_id, MANAGER, ALICE.user_id)
    assert outcome.snapshot.host_id == 0
    assert not any(seat.is_host for seat in outcome.snapshot.seats)
    await refused(service.end(table_id, ALICE), "not_host")
    await refused(service.kick(table_id, ALICE, BOB.user_id), "not_host")
    back = await service.join(table_id, BOB)
    assert back.snapshot.host_id == BOB.user_id
    assert "host_changed" in [e.kind for e in back.public_events]
    await service.kick(table_id, BOB, CAROL.user_id)  # bob, host now, may kick
    await service.end(table_id, MANAGER)


async def test_a_kicked_member_has_no_part_in_their_old_seat(service: TableService) -> None:
    """The seat keeps the kicked member's id (its results are the seat's), but the CPU playing it holds
    cards that are no longer theirs: they are not shown them, cannot act for the seat, and get none of its
    private news (the cards its CPU draws)."""
    table_id = await open_with(service, ALICE, BOB, CAROL)
    await service.hand(table_id, BOB.user_id)  # before: bob sees his hand
    await service.kick(table_id, ALICE, BOB.user_id)
    error = await refused(service.hand(table_id, BOB.user_id), "kicked")
    assert error.message == "You were removed from this table."
    await refused(service.act(table_id, BOB, Intent.draw()), "kicked")
    # A person who left may still look at the seat they can take back.
    await service.leave(table_id, CAROL)
    assert (await service.hand(table_id, CAROL.user_id)).cards


def test_the_seat_of_a_kicked_member_tells_them_nothing() -> None:
    """An engine event meant for a seat (the card its player drew) reaches the seat's person, unless the
    host removed them: then it is logged for the seat and told to no one."""
    seats = [SeatRecord(0, ALICE.user_id, "alice"), SeatRecord(1, BOB.user_id, "bob", cpu_takeover=True)]
    for kicked, told in (([], {BOB.user_id}), ([BOB.user_id], set())):
        work = SimpleNamespace(seats=seats, doc={"kicked": kicked}, public=[], private={}, log_events=[])
        route(work, Event("drew", 1, {"card": "9S"}, visible_to=1))  # type: ignore[arg-type]
        assert set(work.private) == told
        assert work.public == [] and work.log_events[0]["to_seat"] == 1


async def test_rules_text_and_presets(service: TableService) -> None:
    assert service.preset_names()[0] == "classic" and len(service.preset_names()) == 9
    assert service.preset_names()[-1] == "crazier-abilities"
    text = await service.rules_text("switch")
    assert text and text != await service.rules_text("classic")
    await refused(service.rules_text("poker"), "bad_option")
