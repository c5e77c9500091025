"""A tampered client's input through the fake Discord: a typed value longer than Discord's own client lets
anyone send, option values of the wrong type or beyond the declared range, and component custom ids in the
bot's own formats that none of its templates match. Each gets a short private answer in time and changes
nothing, and no other table is held up meanwhile."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.exts._group import MAX_TYPED, UNREADABLE_OPTION
from tests.e2e.conftest import World
from tests.e2e.tampering import tampered
from tests.e2e.test_bad_input import start_two
from tests.e2e.test_lobby import public_state
from tests.fakediscord.interactions import InvalidInteraction

SOMETHING_WENT_WRONG = "Something went wrong"
NOT_VALID = "That control is not valid any more."


async def _loop_lag_during(world: World, action: Any) -> tuple[float, Any]:
    """Run ``action`` while a ticker measures the longest the event loop (bot and fake alike) was held."""
    loop = asyncio.get_running_loop()
    worst = 0.0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal worst
        last = loop.time()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = loop.time()
            worst = max(worst, now - last)
            last = now

    task = asyncio.create_task(ticker())
    try:
        result = await action()
    finally:
        stop.set()
        await task
    return worst, result


async def test_a_6000_character_card_does_not_hold_the_bot_up(world: World) -> None:
    """/eights play's card (like every typed option) declares a max_length, so Discord's own client sends
    at most that many characters; the longest it sends is refused as an unknown card (903) at once. A
    tampered client's 6,000 characters get the short "I couldn't read one of the options." within Discord's
    3 s, and the event loop, which every table of the process shares, is never held for long (the card
    reader, which tries every cut of a word, reads no text longer than any card's name: before, 6,000
    characters held the loop for seconds). No move is made."""
    world.service.seed_deals(1)
    await start_two(world)
    table_id = await world.table_id()
    assert world.bot is not None
    moves = len(await world.bot.store.moves(table_id))
    before = public_state(world)
    with pytest.raises(InvalidInteraction, match="length"):  # Discord's own client refuses it
        await world.fake.invoke(world.alice, world.channel, "eights play", card="x" * 6000)
    answer = await world.run(world.alice, "play", card="x" * MAX_TYPED)
    assert answer.ephemeral and "(903)" in answer.content and len(answer.content) < 200, answer.content

    async def play() -> Any:
        handle = await tampered(world, world.alice, "play", card="x" * 6000)
        try:
            return await handle.reply(timeout=15.0)
        except AssertionError as error:  # the fake refuses a first answer past Discord's 3 s
            return str(error)[:300]

    loop = asyncio.get_running_loop()
    started = loop.time()
    lag, answer = await _loop_lag_during(world, play)
    elapsed = loop.time() - started
    # The fake also reports a late first callback as a violation: taken here, so that the test fails on the
    # assertions below and not in teardown.
    late = [v for v in world.fake.take_violations() if "Discord allows 3s" in v]
    held = f"the event loop was held {lag:.2f} s by one typed card (answered after {elapsed:.2f} s)"
    assert lag < 0.5, held
    assert not late and not isinstance(answer, str), answer
    assert answer.ephemeral and answer.content == UNREADABLE_OPTION, answer.content
    await world.settle()
    assert public_state(world) == before
    assert len(await world.bot.store.moves(table_id)) == moves


async def test_options_of_the_wrong_type_get_a_short_answer(world: World) -> None:
    """Every option is checked against the command's declaration before the command runs (discord.py
    passes a plain ``int``, ``str`` or ``Range`` value on unchecked, and reads a user's id with ``int()``
    before any check): text for an integer, an integer past any stored one, a user id that is not a number,
    a choice not offered, a required option left out. Each gets the short private "I couldn't read one of
    the options." (before: "Something went wrong (ref …)", or no answer at all), and no table is opened."""
    world.guild.roles[world.guild.id].permissions |= 1 << 5  # Manage Server, for /eights settings
    cases: list[tuple[str, dict[str, Any]]] = [
        ("new", {"seats": "7"}),
        ("new", {"target": 2**63}),
        ("new", {"preset": "poker"}),
        ("replay", {"match": "abc"}),
        ("replay", {"match": 2**63}),
        ("leaderboard", {"page": "x"}),
        ("settings", {"turn_timeout": "x"}),
        ("settings", {"clear_channels": "yes"}),
        ("kick", {"member": "abc"}),
        ("play", {}),
        ("play", {"card": 7}),
    ]
    problems = []
    for path, options in cases:
        handle = await tampered(world, world.alice, path, **options)
        try:
            answer = await handle.reply(timeout=5.0)
        except AssertionError:
            problems.append(f"/eights {path} {options}: no answer")
            continue
        text = answer.text()
        if not answer.ephemeral or text != UNREADABLE_OPTION:
            problems.append(f"/eights {path} {options}: {text[:120]!r}")
        await world.settle()
    assert await world.service.table_in_channel(world.channel.id) is None
    assert not problems, "\n".join(problems)


async def test_an_autocomplete_beside_an_unreadable_option_gets_an_empty_list(world: World) -> None:
    """An autocomplete whose other options do not fit their declaration (a channel id that is not a number:
    discord.py's ``int()`` of it failed, and the list never came) gets an empty list at once."""
    world.guild.roles[world.guild.id].permissions |= 1 << 5
    handle = await tampered(
        world, world.alice, "settings", focused="house_value", house_value="o", allow_channel="abc"
    )
    assert await handle.callback(timeout=5.0) == 8
    assert handle.record.choices == []


async def test_a_target_beyond_the_declared_range_opens_no_table(world: World) -> None:
    """/eights new declares its target from 1 to 10,000, the target house rule's bounds (before, the
    command declared 100,000 and the service checked only "at least 1": a tampered client's 10**15 opened a
    table). A target beyond them is refused privately and opens no table; the highest opens one."""
    for target in (10**15, 10_001, 0):
        handle = await tampered(world, world.alice, "new", target=target)
        answer = await handle.reply(timeout=5.0)
        await world.settle()
        assert answer.ephemeral, f"a table was opened with target {target}: {answer.text()[:200]!r}"
        assert await world.service.table_in_channel(world.channel.id) is None
    await world.run(world.alice, "new", target=10_000)
    await world.settle()
    assert (await world.snapshot()).target_score == 10_000


async def test_custom_ids_the_templates_do_not_match_get_an_answer(world: World) -> None:
    """The bot's own kind of custom id with a negative number, a field too many, an upper-case action or a
    card symbol in it (``e8:1::catch:-1``, ``e8:-1::join``, ``e8:1::join:x:y``, ``e8:1::JOIN``,
    ``e8:1:…:play:K♥``), or a replay/forget id with a negative number, matches none of the bot's templates,
    so no component of the bot takes it. It gets the short private "That control is not valid any more.",
    as an unknown action that matches does (``e8:1::nope``; before, no answer at all: "This interaction
    failed"), and nothing changes. A custom id that is not the bot's kind is left alone."""
    await world.run(world.alice, "new")
    await world.settle()
    table_id = await world.table_id()
    before = public_state(world)
    crafted = [
        f"e8:{table_id}::catch:-1",
        f"e8:-{table_id}::join",
        f"e8:{table_id}::join:x:y",
        f"e8:{table_id}::JOIN",
        f"e8:{table_id}::cpu:-1",
        f"e8:{table_id}:{table_id}.1.abc:play:K♥",
        f"e8s:{table_id}::PLAY",
        "eights-replay:1:-1:next",
        "eights-forget:-1:no",
        f"e8:{table_id}::nope",
    ]
    unanswered = []
    for custom_id in crafted:
        pressed = await world.fake.craft_component(world.bob, world.channel, world.board(), custom_id)
        try:
            answer = await pressed.reply(timeout=4.0)
        except AssertionError:
            unanswered.append(custom_id)
            continue
        assert answer.ephemeral and answer.content == NOT_VALID, (custom_id, answer.content)
    foreign = await world.fake.craft_component(world.bob, world.channel, world.board(), "someone-else:1")
    await world.settle()
    assert foreign.callback_type is None  # not the bot's: nobody answers it
    assert public_state(world) == before
    assert [seat.user_id for seat in (await world.snapshot()).seats] == [world.alice.id]
    assert not unanswered, f"no answer at all ('This interaction failed') to {unanswered}"
