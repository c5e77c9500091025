"""The lobby's House rules panel and the server's default house rules, used as a host and an admin would
through the fake Discord (README "House rules", RULESETS.md "House rules at a table")."""

from __future__ import annotations

import asyncio
import logging

import discord
import pytest

from bot.engine import Ruleset
from tests.e2e.conftest import World
from tests.e2e.slow_store import SLOW, slow_store_method
from tests.fakediscord import FakeMessage, FakeUser

MANAGE_GUILD = discord.Permissions(manage_guild=True).value


def house_field(board: FakeMessage) -> str:
    fields = board.embeds[0].get("fields", [])
    return "\n".join(f["value"] for f in fields if str(f["name"]).startswith("House rules"))


def admin_of(world: World) -> FakeUser:
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=MANAGE_GUILD)
    return admin


async def open_panel(world: World, user: FakeUser) -> FakeMessage:
    return await (await world.fake.click(user, world.board(), label="House rules")).reply()


async def pick_option(world: World, user: FakeUser, panel: FakeMessage, key: str) -> FakeMessage:
    page = next(s for s in panel.selects if any(o["value"] == key for o in s["options"]))
    return await (await world.fake.select(user, panel, str(page["custom_id"]), [key])).reply()


async def pick_value(world: World, user: FakeUser, shown: FakeMessage, value: str) -> FakeMessage:
    values = next(s for s in shown.selects if ":hval:" in str(s["custom_id"]))
    offered = [o["value"] for o in values["options"]]
    assert value in offered, offered
    return await (await world.fake.select(user, shown, str(values["custom_id"]), [value])).reply()


async def hand_size_shown(world: World) -> FakeMessage:
    """The host's panel at the hand size option (it offers "Type a value")."""
    shown = await world.run(world.alice, "house", option="hand_size")
    assert any(b["label"] == "Type a value" for b in shown.buttons), shown.content
    return shown


async def live_ruleset(world: World) -> Ruleset:
    """The table's rules in force (a standard-family table's)."""
    live = world.service._registry.get(await world.table_id())
    assert live is not None and isinstance(live.ruleset, Ruleset)
    return live.ruleset


# ------------------------------------------------------------------------------ scoring and match end
async def test_scoring_penalty_can_be_picked_in_the_panel_at_a_switch_table(world: World) -> None:
    """README, House rules: "Every option of the rules can be changed". At a `switch` table (payment scoring,
    the match ends when a total reaches 250) the host picks Scoring → "your hand's value, low wins" in the
    panel: the change is made, and the match end follows it (a total passes the target, lowest wins)."""
    await world.run(world.alice, "new", preset="switch")
    panel = await open_panel(world, world.alice)
    shown = await pick_option(world, world.alice, panel, "scoring")
    changed = await pick_value(world, world.alice, shown, "penalty")
    assert "House rule changed" in changed.content, changed.content
    rules = await live_ruleset(world)
    assert rules.scoring == "penalty" and rules.match_end == "passes-target", (rules.scoring, rules.match_end)


async def test_payment_scoring_can_be_set_at_a_classic_table(world: World) -> None:
    """The other way round: at a `classic` table `/eights house option:scoring value:payment` is accepted (the
    match then ends when a total reaches the target, highest wins), and so is `match_end:reaches-target` on
    its own."""
    await world.run(world.alice, "new", preset="classic")
    reply = await world.run(world.alice, "house", option="scoring", value="payment")
    assert "House rule changed" in reply.content, reply.content
    rules = await live_ruleset(world)
    assert rules.scoring == "payment" and rules.match_end == "reaches-target"


# ------------------------------------------------------------------------------ server defaults
async def test_a_target_given_to_eights_new_is_not_dropped_by_a_server_match_of_rounds(world: World) -> None:
    """README, Commands: `/eights new [target]` is "match target score (1–10,000, as the `target` house
    rule)". With the server's default house rules making every new table a match of 5 rounds, a table opened
    with `target:200` is a match to 200 points, as the target house rule makes it."""
    admin = admin_of(world)
    await world.run(admin, "settings", house_option="match_end", house_value="rounds")
    await world.run(world.alice, "new", preset="classic", target=200)
    rules = await live_ruleset(world)
    assert rules.match_end in ("passes-target", "reaches-target") and rules.target == 200, (
        rules.match_end,
        rules.target,
    )
    await world.settle()
    assert "rounds" not in house_field(world.board()), house_field(world.board())


async def test_server_defaults_that_fit_a_preset_are_applied_when_another_does_not(world: World) -> None:
    """RULESETS.md: "A server's settings may hold default house rules for new tables". With two server
    defaults, no reshuffle and 2s making the next player draw 2, a `switch` table (which cannot take the
    second: its 4s' stacking cap needs 4s to stay draw cards) still gets the first."""
    admin = admin_of(world)
    await world.run(admin, "settings", house_option="reshuffle", house_value="off")
    saved = await world.run(admin, "settings", house_option="draw_ranks", house_value="2:2")
    assert "No reshuffle" in saved.text(), saved.text()
    await world.run(world.alice, "new", preset="switch")
    assert (await live_ruleset(world)).reshuffle is False
    await world.settle()
    assert "No reshuffle" in house_field(world.board()), house_field(world.board())


# ------------------------------------------------------------------------------ the board's words
async def test_a_match_of_rounds_is_said_once_on_the_board(world: World) -> None:
    """README, House rules: the board shows "what differs from the preset in words", options that read as one
    in one sentence. Match end → "a number of rounds" picked in the panel (5 rounds) reads "The match is 5
    rounds" once, not also "5 rounds"."""
    await world.run(world.alice, "new", preset="classic")
    panel = await open_panel(world, world.alice)
    shown = await pick_option(world, world.alice, panel, "match_end")
    changed = await pick_value(world, world.alice, shown, "rounds")
    assert "House rule changed" in changed.content, changed.content
    await world.settle()
    lines = [line for line in house_field(world.board()).splitlines() if "5 round" in line]
    assert len(lines) == 1, house_field(world.board())


# ------------------------------------------------------------------------------ seats
async def test_partnership_turned_off_does_not_leave_more_seated_than_the_table_seats(world: World) -> None:
    """README, House rules: "an impossible combination is refused privately with the reason, and the table
    keeps its rules". A table opened with `seats:3`, Partnership on (it seats four), four seated: turning
    Partnership off (the table would seat three) is refused, and the table keeps its rules."""
    await world.run(world.alice, "new", preset="classic", seats=3)
    await world.run(world.alice, "house", option="partnership", value="on")
    for _ in range(3):
        await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    panel = await open_panel(world, world.alice)
    shown = await pick_option(world, world.alice, panel, "partnership")
    answer = await pick_value(world, world.alice, shown, "off")
    await world.settle()
    snapshot = await world.snapshot()
    assert len(snapshot.seats) == 4
    assert snapshot.max_seats >= 4 or "House rule changed" not in answer.content, (
        snapshot.max_seats,
        answer.content,
        world.board().text(),
    )


# ------------------------------------------------------------------------------ crazier-abilities
async def test_a_crazier_abilities_lobby_does_not_offer_house_rules_it_refuses(world: World) -> None:
    """A `crazier-abilities` table has no house rules: its lobby board offers no House rules button and does
    not say the host may change them."""
    await world.run(world.alice, "new", preset="crazier-abilities")
    board = world.board()
    labels = [b["label"] for b in board.buttons]
    panel = await open_panel(world, world.alice) if "House rules" in labels else None
    assert panel is None or "no house rules" not in panel.content, (labels, panel.content if panel else "")
    assert "may change the **House rules**" not in board.text(), board.text()


# ------------------------------------------------------------------------------ "Type a value": the form
SQLITE_ONLY = pytest.mark.parametrize(
    "backend_url", ["sqlite"], indirect=True
)  # the slow store is a stand-in


@SQLITE_ONLY
async def test_type_a_value_opens_its_form_even_when_the_database_is_slow(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "in the lobby the host (or a manager) changes single options with the board's House rules
    button (select menus, and a form where a number or ranks are typed)". Discord takes a form only as an
    interaction's first answer, never after a deferral: the form goes out at once, built from the table the
    bot holds, before anything waits on the database; who may change the rule is checked when it is
    submitted.

    Here the host (no Manage Channels: whether they hold the manager role is read from the database) presses
    "Type a value" while the database takes 2.6 s to answer (past the deferral watchdog's 2 s): the form
    opens, and the value typed in it is applied."""
    await world.run(world.alice, "new", preset="classic")
    shown = await hand_size_shown(world)
    slow_store_method(world, monkeypatch, "get_guild_settings")
    opened = await world.fake.click(world.alice, shown, label="Type a value")
    kind = await opened.callback(timeout=10.0)
    await asyncio.sleep(SLOW)  # whatever the bot would send once the database answered
    texts = [m.content for m in world.fake.ephemeral_messages(world.alice)]
    assert kind == 9 and opened.modal is not None, f"callback {kind}: no form opened; then: {texts[-1]!r}"
    assert not any("Something went wrong" in t for t in texts), texts[-1]
    answer = await (await world.fake.submit_modal(world.alice, opened, value="6")).reply(timeout=10.0)
    assert answer.ephemeral and "Deal 6 cards each" in answer.content, answer.content


async def test_a_form_submitted_by_someone_not_the_host_is_refused(world: World) -> None:
    """The form opens for whoever presses "Type a value" (nothing is read from the database before it
    opens); its submission is refused privately, with the reason, to anyone but the host or a manager, and
    the table keeps its rules. (Bob presses the button of the host's panel as a tampered client sends it.)"""
    await world.run(world.alice, "new", preset="classic")
    table_id = await world.table_id()
    opened = await world.fake.craft_component(
        world.bob, world.channel, world.board(), f"e8:{table_id}::htype:hand_size"
    )
    assert await opened.callback() == 9 and opened.modal is not None
    refused = await (await world.fake.submit_modal(world.bob, opened, value="6")).reply()
    assert refused.ephemeral and "Only the host or a manager" in refused.content, refused.content
    assert (await world.snapshot()).house_rules == ()


async def test_type_a_value_after_the_first_deal_is_refused_at_once(world: World) -> None:
    """README: house rules change "in the lobby". The panel's "Type a value" pressed once the first round is
    dealt says so privately, with no form."""
    await world.run(world.alice, "new", preset="classic")
    shown = await hand_size_shown(world)
    await world.run(world.alice, "cpu", level="easy")
    await world.run(world.alice, "start")
    await world.settle()
    opened = await world.fake.click(world.alice, shown, label="Type a value")
    answer = await opened.reply()
    assert opened.modal is None
    assert answer.ephemeral and "before the first deal" in answer.content, answer.content


async def test_type_a_value_of_a_finished_table_says_the_button_has_expired(world: World) -> None:
    """A table the bot no longer holds (ended) cannot give its form: "Type a value" is answered privately
    and at once, as any button of a finished table, not with an error."""
    await world.run(world.alice, "new", preset="classic")
    shown = await hand_size_shown(world)
    await world.run(world.alice, "end")
    await world.settle()
    opened = await world.fake.click(world.alice, shown, label="Type a value")
    answer = await opened.reply()
    assert opened.modal is None
    assert answer.ephemeral and "this button has expired" in answer.content, answer.content


@SQLITE_ONLY
async def test_type_a_value_that_reached_the_bot_too_late_is_dropped_without_a_traceback(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """A click that reaches the bot after Discord's 3 seconds (a busy bot, a gateway resume) can no longer be
    answered at all: Discord refuses its form (404, 10062). The bot logs that it came too late, with no
    traceback, and sends nothing else. (Discord's 3 s are scaled down to none here.)"""
    await world.run(world.alice, "new", preset="classic")
    shown = await hand_size_shown(world)
    before = len(world.fake.ephemeral_messages(world.alice))
    caplog.set_level(logging.WARNING)
    world.fake.callback_deadline = 0.0
    try:
        opened = await world.fake.click(world.alice, shown, label="Type a value")
        for _ in range(500):
            if opened.record.errors:
                break
            await asyncio.sleep(0.01)
        await world.settle()
    finally:
        world.fake.callback_deadline = 3.0
    assert opened.record.errors and all("Unknown interaction" in v for v in world.fake.take_violations())
    assert opened.modal is None
    assert len(world.fake.ephemeral_messages(world.alice)) == before
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    assert any("came too late" in r.getMessage() for r in caplog.records)
