"""Channels whose own routes the bot cannot use although interactions reach it there, a server the bot is
not in (user-installed), and unusual locales."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.e2e.contexts import (
    make_thread,
    raw_click,
    raw_command,
    refuse_channel_routes,
    update_thread,
)
from tests.e2e.test_bad_input import start_two
from tests.fakediscord.model import DEFAULT_EVERYONE_PERMISSIONS, FakeChannel, FakeGuild, FakeMember, FakeRole


async def test_a_private_thread_the_bot_was_not_added_to_still_plays_through_interactions(
    world: World,
) -> None:
    fake = world.fake
    thread = make_thread(fake, world.guild, world.channel, "secret", type=12, owner=world.alice)
    refuse_channel_routes(fake, {thread.id: (403, 50001, "Missing Access")})
    world.channel = thread
    world.service.seed_deals(1)
    await start_two(world)
    await world.play_round_by_buttons()
    await world.settle()
    assert "Round over" in "\n".join(m.text() for m in fake.channel_messages(thread))


async def test_a_thread_locked_and_archived_mid_game_loses_no_play(world: World) -> None:
    fake = world.fake
    thread = make_thread(fake, world.guild, world.channel, "cards", type=11, owner=world.alice)
    world.channel = thread
    world.service.seed_deals(1)
    await start_two(world)
    refused: dict[int, tuple[int, int, str]] = {}
    refuse_channel_routes(fake, refused)
    # Locked and archived: the bot's own channel posts fail, the players' clicks still arrive.
    update_thread(fake, world.guild, thread, archived=True, locked=True)
    refused[thread.id] = (400, 50083, "Thread is archived")
    for _ in range(3):
        user = await world.human_to_act()
        assert user is not None
        await world.play_by_buttons(user)
    update_thread(fake, world.guild, thread, archived=False, locked=False)
    refused.clear()
    await world.play_round_by_buttons()
    await world.settle()
    told = "\n".join(m.text() for m in fake.channel_messages(thread))
    assert "Round over" in told
    assert world.bot is not None
    moves = await world.bot.store.moves(await world.table_id())
    assert len(moves) > 3


async def test_locales_missing_or_unusual_answer_in_a_known_language(world: World) -> None:
    fake = world.fake
    board = await world.run(world.alice, "new")
    problems = []
    variants: list[dict[str, Any]] = [
        {"locale": "zh-TW"},
        {"locale": "xx-YY"},
        {"locale": ""},
        {"drop": ("guild_locale",)},
        {"drop": ("guild_locale", "locale")},
        {"drop": ("guild_locale",), "locale": "xx-YY", "guild": {"id": str(world.guild.id), "features": []}},
    ]
    for variant in variants:

        def mutate(payload: dict[str, Any], variant: dict[str, Any] = variant) -> None:
            for key in variant.get("drop", ()):
                payload.pop(key, None)
            if "locale" in variant:
                payload["locale"] = variant["locale"]
            if "guild" in variant:
                payload["guild"] = variant["guild"]

        for handle in (
            await raw_command(
                fake,
                world.bob,
                world.channel,
                "rules",
                schema_guild=world.guild,
                guild=world.guild,
                mutate=mutate,
            ),
            await raw_click(
                fake,
                world.bob,
                world.channel,
                board,
                board.component(label="Join")["custom_id"],
                guild=world.guild,
                mutate=mutate,
            ),
            await raw_click(
                fake,
                world.bob,
                world.channel,
                board,
                board.component(label="Leave")["custom_id"],
                guild=world.guild,
                mutate=mutate,
            ),
        ):
            try:
                kind = await handle.callback()
                if kind != 6:
                    text = (await handle.reply()).text()
                    if "went wrong" in text:
                        problems.append(f"{variant}: {text!r}")
            except AssertionError as error:
                problems.append(f"{variant}: {str(error)[:150]}")
    await world.settle()
    assert not problems, "\n".join(problems)


async def test_a_partial_member_is_handled(world: World) -> None:
    fake = world.fake

    def mutate(payload: dict[str, Any]) -> None:
        member = payload["member"]
        for key in ("nick", "avatar", "deaf", "mute", "pending"):
            member.pop(key, None)
        member["user"] = {
            "id": member["user"]["id"],
            "username": "bob",
            "discriminator": "0",
            "global_name": None,
            "avatar": None,
        }

    board = await world.run(world.alice, "new")
    handle = await raw_click(
        fake,
        world.bob,
        world.channel,
        board,
        board.component(label="Join")["custom_id"],
        guild=world.guild,
        mutate=mutate,
    )
    assert await handle.callback() == 6
    await world.settle()
    assert "bob" in world.board().text()


USER_APP_PERMISSIONS = (
    (1 << 14) | (1 << 15) | (1 << 17) | (1 << 18)
)  # embed, attach, mention @everyone, ext. emoji


@pytest.mark.parametrize("command", ["new", "join", "status", "hand", "leaderboard", "settings", "stats"])
async def test_a_server_the_bot_is_not_in_gets_a_short_answer(world: World, command: str) -> None:
    """A user-installed context: the guild is sent, the bot is not in it (owners name only the user)."""
    fake = world.fake
    foreign = FakeGuild(fake.snowflake(), "Elsewhere", world.carol.id)
    foreign.roles[foreign.id] = FakeRole(foreign.id, foreign.id, "@everyone", DEFAULT_EVERYONE_PERMISSIONS, 0)
    foreign.members[world.alice.id] = FakeMember(world.alice, foreign.id, [])
    channel = FakeChannel(fake.snowflake(), foreign.id, "general", 0)
    fake.channels[channel.id] = channel
    fake._channel_messages[channel.id] = []
    refuse_channel_routes(fake, {channel.id: (403, 50001, "Missing Access")})

    def mutate(payload: dict[str, Any]) -> None:
        payload["authorizing_integration_owners"] = {"1": str(world.alice.id)}
        payload["app_permissions"] = str(USER_APP_PERMISSIONS)

    options: dict[str, Any] = {"user": world.bob} if command == "stats" else {}
    schema = next(c for c in fake.synced_commands() if c["name"] == "eights")
    leaf = next(o for o in schema["options"] if o["name"] == command)
    if not any(o.get("required") for o in leaf.get("options", [])):
        options = {}
    handle = await raw_command(
        fake, world.alice, channel, command, schema_guild=world.guild, guild=foreign, mutate=mutate, **options
    )
    answer = await handle.reply()
    await world.settle()
    text = answer.text()
    print(command, repr(text[:200]))
    assert answer.ephemeral and "went wrong" not in text and len(text) < 300, text
    assert await world.service.table_in_channel(channel.id) is None
