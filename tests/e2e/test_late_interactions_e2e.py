"""Interactions that reach the bot after Discord's 3 seconds, such as those Discord replays when a dropped
gateway session is RESUMEd (a half-open "zombied" connection, a reconnect that took a while). RESUME sends
every dispatch after the last sequence number, but Discord has long shown the player "This interaction
failed". Such interactions are not acted on (``bot.delivery.interactions_once.LateInteractions``, README
*Discord's rate limits*: "A silent gateway connection")."""

from __future__ import annotations

import asyncio
import logging

import pytest
from discord.utils import DISCORD_EPOCH

from bot.delivery.interactions_once import ANSWER_WINDOW, DRIFT, LateInteractions
from tests.e2e.conftest import World
from tests.test_metrics import samples

SQLITE_ONLY = pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)


async def _two_people_drawing_allowed(world: World) -> None:
    world.service.seed_deals(1)  # alice leads, with a playable card; the house rule lets her draw anyway
    await world.run(world.alice, "new", target=1000)
    await world.run(world.alice, "house", option="draw_with_legal_play", value="on")
    await world.run(world.bob, "join")
    await world.run(world.alice, "start")
    await world.settle()


@SQLITE_ONLY
async def test_a_draw_typed_during_a_silent_gateway_and_replayed_after_3_s_changes_nothing(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord ("you must send an initial response within 3 seconds of receiving the event. If the 3 second
    deadline is exceeded, the token will be invalidated") shows the player "This interaction failed" and
    takes no answer. A player who typed `/eights draw` while the bot's connection was silent was told it
    failed, and types it again once the bot is back (README: "typing /eights draw twice draws twice"): the
    interaction Discord replays at the resume, 3.5 s old, draws nothing, sends nothing, and is counted
    (``eights_interactions_late_total``) and logged in one INFO line without its payload."""
    fake = world.fake
    await _two_people_drawing_allowed(world)
    user = await world.human_to_act()
    assert user is not None and world.bot is not None
    before = await world.snapshot()
    cards_before = next(s for s in before.seats if s.user_id == user.id).card_count
    lines_before = len(world.public_texts())

    caplog.set_level(logging.DEBUG, logger="bot.delivery.interactions_once")
    assert await fake.drop_gateway(kind="half_open") == 1  # the connection stays up, nothing flows
    handle = await fake.invoke(user, world.channel, "eights draw")
    await asyncio.sleep(3.5)  # Discord's 3 s pass: the player sees "This interaction failed"
    assert handle.record.callback_type is None
    resumes = len(fake.resumes)
    assert await fake.drop_gateway(kind="close", code=4000) == 1  # the bot reconnects and RESUMEs
    await fake.wait_for(lambda: len(fake.resumes) > resumes, timeout=15.0, what="a RESUME")
    await asyncio.sleep(0.5)
    await world.settle()

    after = await world.snapshot()
    cards_after = next(s for s in after.seats if s.user_id == user.id).card_count
    assert handle.record.callback_type is None  # nobody answered the player: they saw only "failed"
    assert not fake.take_violations()  # nor tried to: no refused answer, no invalid request
    assert cards_after == cards_before, (
        f"{user.name} was shown 'This interaction failed' for /eights draw, yet the replayed interaction "
        f"drew a card ({cards_before} -> {cards_after} cards); a retry would draw a second one",
        world.public_texts()[-3:],
    )
    assert len(world.public_texts()) == lines_before
    got = samples(world.bot.metrics.scrape().decode())
    assert got[("eights_interactions_late_total", (("type", "command"),))] == 1
    said = [
        r
        for r in caplog.records
        if r.name == "bot.delivery.interactions_once" and "not acted on" in r.message
    ]
    assert [r.levelno for r in said] == [logging.INFO], [r.message for r in said]
    assert str(handle.record.id) in said[0].message and "draw" not in said[0].message

    # Typed again, now that the bot is back: drawn once.
    await world.run(user, "draw")
    await world.settle()
    again = await world.snapshot()
    assert next(s for s in again.seats if s.user_id == user.id).card_count == (cards_before or 0) + 1


@SQLITE_ONLY
async def test_a_machine_clock_ahead_of_discords_drops_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This machine's clock 8 s ahead of Discord's: by the clock every interaction is 8 s old when it
    arrives, yet each is acted on (how late one is, is measured against the freshest seen, not the wall
    clock). A clock ahead must not make the bot deaf."""
    fake = world.fake
    made = fake.snowflake
    monkeypatch.setattr(fake, "snowflake", lambda: made() - (8000 << 22))  # every id made 8 s "earlier"
    await _two_people_drawing_allowed(world)
    user = await world.human_to_act()
    assert user is not None and world.bot is not None
    before = await world.snapshot()
    cards_before = next(s for s in before.seats if s.user_id == user.id).card_count
    await world.run(user, "draw")
    await world.settle()
    after = await world.snapshot()
    assert next(s for s in after.seats if s.user_id == user.id).card_count == (cards_before or 0) + 1
    assert world.bot.late_interactions.dropped == 0
    fake.take_violations()


# --- how late, without the wall clock (bot.delivery.interactions_once.LateInteractions) ---------------------


class Clocks:
    """A monotonic clock and a wall clock (Discord's time, here) driven by hand."""

    def __init__(self) -> None:
        self.mono = 100.0
        self.wall = 1_700_000_000.0

    def pass_(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += seconds

    def made(self, seconds_ago: float) -> int:
        """An interaction id Discord made ``seconds_ago`` (by Discord's clock)."""
        return (int((self.wall - seconds_ago) * 1000) - DISCORD_EPOCH) << 22


def late_interactions(clocks: Clocks, wall_ahead: float = 0.0) -> LateInteractions:
    return LateInteractions(monotonic=lambda: clocks.mono, wall=lambda: clocks.wall + wall_ahead)


def test_nothing_is_dropped_before_an_interaction_was_seen() -> None:
    """The first interaction of the process says nothing about the clocks: acted on, however old it looks."""
    clocks = Clocks()
    assert late_interactions(clocks).late(clocks.made(30.0)) is None


def test_an_interaction_past_3_s_after_the_freshest_seen_is_late_one_within_is_not() -> None:
    clocks = Clocks()
    late = late_interactions(clocks)
    assert late.late(clocks.made(0.05)) is None  # the reference
    clocks.pass_(60.0)
    assert late.late(clocks.made(2.9)) is None
    found = late.late(clocks.made(40.0))
    assert found is not None and 39.5 < found <= 40.0


@pytest.mark.parametrize("ahead", [-20.0, 8.0, 120.0])
def test_the_wall_clock_off_changes_nothing(ahead: float) -> None:
    """This machine's clock ahead or behind Discord's: fresh interactions are never late, late ones are."""
    clocks = Clocks()
    late = late_interactions(clocks, wall_ahead=ahead)
    for _ in range(5):
        assert late.late(clocks.made(0.1)) is None
        clocks.pass_(1.0)
    assert late.late(clocks.made(ANSWER_WINDOW + 1.0)) is not None


def test_the_reference_fades_so_that_no_interaction_looks_later_than_it_is() -> None:
    """The monotonic clock may run a little fast against Discord's: the freshest interaction's evidence fades
    by DRIFT a second, so the lateness found is never more than the real one (after a quiet hour, an
    interaction 10 s late is found 3.6 s less late)."""
    clocks = Clocks()
    late = late_interactions(clocks)
    late.late(clocks.made(0.0))
    clocks.pass_(3600.0)
    found = late.late(clocks.made(10.0))
    assert found is not None and found == pytest.approx(10.0 - DRIFT * 3600.0)
    assert late.late(clocks.made(0.0)) is None  # fresh again: the new reference


def test_a_stand_in_id_is_never_dropped_nor_taken_for_the_reference() -> None:
    """Ids that are no interaction Discord makes now (a test's 1, one from the future): acted on, and the
    fresh interactions after them too."""
    clocks = Clocks()
    late = late_interactions(clocks)
    assert late.late(1) is None
    assert late.late(clocks.made(-3600.0)) is None  # an hour in the future
    assert late.late(clocks.made(0.0)) is None
    assert late.late(1) is None
    clocks.pass_(1.0)
    assert late.late(clocks.made(0.1)) is None
