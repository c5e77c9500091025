"""No log line names a card of a private hand (README, LOG_LEVEL: "At `DEBUG` too, no line holds a player's
hand"; the guide: "never put a hand in a public message, a log line or an error"), neither in a whole game
nor when a move fails and its answer cannot reach Discord.

The log is set up as ``python -m bot run`` sets it (DEBUG, JSON) and every line is checked, as it is written,
against the cards held privately at that moment (tests/e2e/log_watch.py); a card played or shown publicly
before is not counted.

A click that fails is logged by the bot, with a reference (DESIGN.md: "unexpected [errors] are logged with an
id the user can quote"), never by discord.py: its "Ignoring exception in dynamic item callback for
<TableButton item=<Button ... label='K♥' ...>>" names the clicked card (bot/ui/controls.py
``contain_escaped``). An answer the network does not carry (aiohttp's connection errors, which discord.py
raises as they are once its retries are spent; they are not ``discord.HTTPException``s) is a WARNING without
a traceback."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import aiohttp
import discord.webhook.async_ as webhook_async
import pytest

from bot.store.base import StoreUnavailableError
from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.e2e.log_watch import LogWatch, assert_no_leak
from tests.e2e.race_steps import fire_turn_timeout

COULD_NOT_ANSWER = "could not answer interaction"
DISCORD_PY_IGNORED = "Ignoring exception"
# A card as a code or a label, a card button's custom id, or a card emoji's name.
METRIC_NAMING_A_CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9AJQK])[CDHS♣♦♥♠](?![A-Za-z0-9])|play:|e8f\d+_")


@pytest.fixture
def log_watch(world: World) -> Iterator[LogWatch]:
    watch = LogWatch(world)
    watch.install()
    try:
        yield watch
    finally:
        watch.uninstall()


def entries(watch: LogWatch) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw, _hidden in watch.lines]


def lines_with(watch: LogWatch, text: str) -> list[dict[str, Any]]:
    return [entry for entry in entries(watch) if text in entry.get("message", "")]


async def logged(watch: LogWatch, text: str) -> list[dict[str, Any]]:
    """The lines holding ``text``, once one is written (within 2 s)."""
    for _ in range(100):
        if found := lines_with(watch, text):
            return found
        await asyncio.sleep(0.02)
    return []


# --- a move that fails ----------------------------------------------------------------------------------

# alice (seat 0) leads on 7♥; bob's and carol's hands stay private all along.
HANDS = [
    ["KH", "QC", "3D", "4S", "9C"],
    ["KS", "QD", "5H", "6C", "10D"],
    ["8C", "2H", "4D", "6H", "JC"],
]


async def three_people(world: World, monkeypatch: pytest.MonkeyPatch, hands: list[list[str]]) -> None:
    stack_classic_deal(monkeypatch, hands, "7H", leader=0)
    board = await world.run(world.alice, "new", preset="classic", target=100)
    for user in (world.bob, world.carol):
        await (await world.fake.click(user, board, label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()


def failing_commits(world: World, monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    assert world.bot is not None
    store = world.bot.store

    async def commit_move(*_args: Any, **_kwargs: Any) -> int:
        raise error

    monkeypatch.setattr(store, "commit_move", commit_move)


def card_button(buttons: list[dict[str, Any]], code: str) -> dict[str, Any]:
    return next(b for b in buttons if str(b.get("custom_id", "")).endswith(f":play:{code}"))


async def test_a_move_whose_commit_raises_logs_its_reference_and_no_hand(
    world: World, log_watch: LogWatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice clicks K♥ and the store raises (a bug): she is told a reference, the log has it with the
    traceback, and no card of any hand (K♥ stays in alice's hand). The traceback is the stdlib's, without
    locals, and nothing on the way formats the game's state into its message."""
    await three_people(world, monkeypatch, HANDS)
    failing_commits(world, monkeypatch, RuntimeError("the store broke"))
    hand = await world.hand_message(world.alice)
    button = card_button(hand.buttons, "KH")
    reply = await (await world.fake.click(world.alice, hand, button["custom_id"])).reply()
    await world.settle()
    ref = re.search(r"\(ref ([0-9a-f]{8})\)", reply.content)
    assert ref is not None, reply.content
    with_traceback = [entry for entry in entries(log_watch) if "exception" in entry]
    assert with_traceback and "the store broke" in with_traceback[-1]["exception"]
    assert f"in control play (ref {ref[1]})" in with_traceback[-1]["message"]
    assert_no_leak(log_watch, minimum=5)


async def test_a_click_that_cannot_be_answered_during_a_network_outage_logs_no_card(
    world: World, log_watch: LogWatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host's network drops (the database and Discord both unreachable): alice clicks K♥ in her hand, the
    move cannot be stored (K♥ stays in her hand, private), and the answer cannot reach Discord either
    (aiohttp's ClientOSError). The failed answer is one WARNING without a traceback; discord.py logs nothing
    of the click (its line would name the button's card), and no line names K♥."""
    await three_people(world, monkeypatch, HANDS)
    hand = await world.hand_message(world.alice)
    button = card_button(hand.buttons, "KH")

    failing_commits(world, monkeypatch, StoreUnavailableError("could not connect to the database"))

    async def unreachable(*_args: Any, **_kwargs: Any) -> Any:
        raise aiohttp.ClientOSError(101, "Network is unreachable")

    monkeypatch.setattr(webhook_async.AsyncWebhookAdapter, "create_interaction_response", unreachable)
    monkeypatch.setattr(webhook_async.AsyncWebhookAdapter, "execute_webhook", unreachable)
    await world.fake.click(world.alice, hand, button["custom_id"])
    warned = await logged(log_watch, COULD_NOT_ANSWER)
    await world.settle()
    assert "K♥" in world.observer.hidden_from(world.bob.id)  # still alice's, private
    assert_no_leak(log_watch, minimum=5)
    assert not lines_with(log_watch, DISCORD_PY_IGNORED)
    assert [(e["level"], "exception" in e) for e in warned] == [("WARNING", False)], warned
    assert "ClientOSError" in warned[0]["message"] and "(control play)" in warned[0]["message"]


async def test_a_refused_double_tap_whose_answer_meets_a_connection_reset_logs_no_card(
    world: World, log_watch: LogWatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One fault only: Discord's connection resets while the bot answers a refused click. alice taps 7♣ (on
    7♥) then K♥ on her hand message before it changed (a double tap): K♥ is refused ("That move is no longer
    possible") and stays in her hand; the refusal's answer meets a dropped connection (aiohttp's
    ServerDisconnectedError). The failed answer is one WARNING without a traceback (which would hold the
    refusal); discord.py logs nothing of the click, and no line names K♥."""
    await three_people(
        world,
        monkeypatch,
        [["KH", "7C", "3D", "4S", "9C"], ["KS", "QD", "5H", "6C", "10D"], ["8C", "2H", "4D", "6H", "JC"]],
    )
    hand = await world.hand_message(world.alice)
    king, seven = card_button(hand.buttons, "KH"), card_button(hand.buttons, "7C")

    fake = world.fake
    original = fake._handle
    callbacks = {"seen": 0}

    async def handle(request: Any, handler: Any) -> Any:
        if request.path.endswith("/callback"):
            callbacks["seen"] += 1
            if callbacks["seen"] == 2:  # the second click's answer: the connection drops
                assert request.transport is not None
                request.transport.close()
        return await original(request, handler)

    fake._handle = handle  # type: ignore[method-assign]
    # A quick double tap: 7♣, then K♥ on the same message before the first answer changed it.
    first = await fake.click(world.alice, hand, seven["custom_id"])
    await fake.click(world.alice, hand, king["custom_id"])
    await first.reply()
    await fake.wait_for(lambda: callbacks["seen"] >= 2, what="the second click's answer")
    warned = await logged(log_watch, COULD_NOT_ANSWER)
    await world.settle()
    fake.take_violations()
    assert (await world.snapshot()).to_act == 1  # 7♣ was played; K♥ was refused
    assert "K♥" in world.observer.hidden_from(world.bob.id)  # still alice's, private
    assert_no_leak(log_watch, minimum=5)
    assert not lines_with(log_watch, DISCORD_PY_IGNORED)
    assert [(e["level"], "exception" in e) for e in warned] == [("WARNING", False)], warned
    assert "(control play)" in warned[0]["message"]


# --- whole games ----------------------------------------------------------------------------------------


async def play_match(world: World, max_rounds: int = 12) -> int:
    """Rounds played by two people (one clicking, one typing) and a CPU until the match ends."""
    from tests.e2e.test_match import play_round_mixed

    rounds = 0
    while rounds < max_rounds:
        await play_round_mixed(world)
        rounds += 1
        await world.settle()
        if await world.service.table_in_channel(world.channel.id) is None:
            return rounds
        await (await world.fake.click(world.bob, world.board(), label="Next round")).reply()
        await world.settle()
    raise AssertionError("the match did not end")


async def test_timeouts_takeover_restart_and_a_classic_match_log_no_private_card(
    world: World, log_watch: LogWatch
) -> None:
    """A classic match (two people, one clicking and one typing, and a CPU): referee moves for a player whose
    turn ran out, three in a row (a CPU takes the seat over), a restart mid-round (the restore path), then
    the rest of the match. No line names a private card; nor does any label of /metrics (README, Metrics:
    a route class, never an id, a token or a custom id, which would name a card)."""
    from tests.e2e.test_match import start_three_seats

    world.service.seed_deals(7)
    await start_three_seats(world, preset="classic", target=60)
    for _ in range(3):
        user = await world.human_to_act()
        assert user is not None
        for _ in range(3):
            if await world.human_to_act() is not user:
                break
            await fire_turn_timeout(world)
            await world.settle()
    log_watch.remember_hidden()
    await world.restart()
    await world.settle()
    await world.snapshot()
    log_watch.forget_sticky()
    assert log_watch.saw_private_cards() > 0
    await play_match(world)
    assert_no_leak(log_watch)
    assert world.bot is not None
    samples = [
        line
        for line in world.bot.metrics.scrape().decode().splitlines()
        if "{" in line and not line.startswith("#")
    ]
    assert any("/interactions/" in line for line in samples), samples[:5]
    named = [line for line in samples if METRIC_NAMING_A_CARD.search(line)]
    assert not named, named[:5]


async def test_a_partnership_match_logs_no_private_card(world: World, log_watch: LogWatch) -> None:
    """A partnership match (two people and two CPUs, the classic house rule ``partnership``), played by
    buttons to its end: no line names a private card."""
    world.service.seed_deals(3)
    await world.run(world.alice, "new", preset="classic", target=40)
    await world.run(world.alice, "house", option="partnership", value="on")
    await world.run(world.alice, "cpu", level="normal")
    await world.settle()
    await (await world.fake.click(world.bob, world.board(), label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    for _ in range(30):
        await world.play_round_by_buttons()
        await world.settle()
        if await world.service.table_in_channel(world.channel.id) is None:
            break
        await (await world.fake.click(world.bob, world.board(), label="Next round")).reply()
        await world.settle()
    else:
        raise AssertionError("the match did not end")
    assert_no_leak(log_watch)


async def test_crazier_look_steal_and_swap_abilities_log_no_private_card(
    world: World, log_watch: LogWatch
) -> None:
    """Crazier Eights: Elven Princess (alice looks at the draw pile's top card: private to her), Crown of
    Kings (take control of a card in play), Forbidden Knowledge (bob draws: his new cards are private), a
    timeout (the referee answers alice's pending choice) and a CPU, until the round ends: none of the
    private cards is logged."""
    from tests.e2e.crazier_play import inject, open_table
    from tests.e2e.test_crazier import click_move

    world.service.seed_deals(3)
    await open_table(world, [world.alice, world.bob], ("normal",))
    # alice's Princess in play: at the beginning of her turn she looks at 9P (the draw pile's top).
    log_watch.sticky = {"9P"}
    await inject(
        world,
        ["10B 2B 3B KB", "AO 2O QO", "AG 3G 5G"],
        "AB",
        in_play=["4B", "JO", ""],
        first=0,
        draw="9P 6P 7P",
    )
    await fire_turn_timeout(world)  # the referee answers the Princess' choice and ends alice's turn
    await world.settle()
    for _ in range(200):
        user = await world.human_to_act()
        if user is None:
            break
        await click_move(world, user)
        log_watch.sticky = set()
    # A short round: fewer lines than a match (about 50 on SQLite, a few less on PostgreSQL).
    assert_no_leak(log_watch, minimum=30)
