"""The standings commands end to end: the real bot (EightsBot with its real cogs, started by the ``world``
fixture of tests/e2e/conftest.py) against the fake Discord.

The first test plays two whole matches through Discord and checks the leaderboard and stats against the
recorded results. The others record finished matches straight into the bot's database, the way the table
service records them (``commit_move`` with a ``MatchResult``), to set up many players quickly; every command
and click still goes through Discord.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.store.base import GuildSettings, Store
from bot.ui.standings import FORGOTTEN, ordinal, signed, skill
from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage
from tests.service.test_standings import record_match

MANAGE_GUILD = discord.Permissions(manage_guild=True).value


def store_of(world: World) -> Store:
    assert world.bot is not None
    return world.bot.store


async def seed(world: World, *matches: dict[str, Any]) -> None:
    for match in matches:
        await record_match(store_of(world), guild_id=world.guild.id, channel_id=world.channel.id, **match)


def two_matches(world: World) -> tuple[dict[str, Any], ...]:
    """Alice wins both; Bob is second, then last behind a CPU."""
    alice, bob = world.alice, world.bob
    return (
        {
            "ranking": [(alice.id, "alice", 1, 12), (bob.id, "bob", 2, 40), (None, "CPU (hard)", 3, 75)],
            "preset": "classic",
            "rounds": 3,
            "now": 1_700_000_000.0,
            "round_points": {0: 12, 1: 40, 2: 75},
        },
        {
            "ranking": [(alice.id, "alice", 1, 0), (None, "CPU (easy)", 2, 9), (bob.id, "bob", 3, 30)],
            "preset": "switch",
            "rounds": 1,
            "now": 1_700_000_600.0,
        },
    )


async def play_match(world: World, preset: str, *, against_cpu: bool = False) -> None:
    """Alice opens a table (target 1: the match ends after the first round that scores); Bob joins, or a CPU
    player sits down; the people play every turn through their hand messages' buttons."""
    board = await world.run(world.alice, "new", preset=preset, target=1)
    if against_cpu:
        await world.run(world.alice, "cpu", level="easy")
    else:
        await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    for _ in range(20):
        await world.play_round_by_buttons()
        if await world.service.table_in_channel(world.channel.id) is None:
            return
        # A round that scored too little to end the match: go on without waiting for the pause.
        await (await world.fake.click(world.alice, world.board(), label="Next round")).callback()
        await world.settle()
    raise AssertionError("the match did not end")


def description(message: FakeMessage) -> list[str]:
    (embed,) = message.embeds
    return str(embed.get("description", "")).splitlines()


def fields(message: FakeMessage) -> dict[str, str]:
    (embed,) = message.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def board_figures(wins: int, played: int) -> str:
    word = "win" if wins == 1 else "wins"
    return f"**{wins}** {word} · {played} played · {round(100 * wins / played)}%"


async def test_leaderboard_and_stats_after_two_matches(world: World) -> None:
    await play_match(world, "classic")  # Alice and Bob
    await play_match(world, "switch", against_cpu=True)  # Alice and a CPU player
    store = store_of(world)
    matches = await store.recent_matches(world.guild.id)
    assert [m.preset for m in matches] == ["switch", "classic"]

    # What the two recorded results say, worked out here from the rankings and the round scores.
    people = {world.alice.id: world.alice, world.bob.id: world.bob}
    played = dict.fromkeys(people, 0)
    wins = dict.fromkeys(people, 0)
    points = dict.fromkeys(people, 0)
    best = dict.fromkeys(people, 99)
    rounds_won = dict.fromkeys(people, 0)
    rounds_played = dict.fromkeys(people, 0)
    round_points = dict.fromkeys(people, 0)
    for match in matches:
        results = await store.round_results(match.table_id)
        for entry in match.ranking:
            if entry.user_id is None:
                continue  # the CPU player: no statistics
            played[entry.user_id] += 1
            wins[entry.user_id] += entry.place == 1
            points[entry.user_id] += sum(1 for other in match.ranking if other.place > entry.place)
            best[entry.user_id] = min(best[entry.user_id], entry.place)
            for result in results:
                rounds_played[entry.user_id] += 1
                rounds_won[entry.user_id] += entry.position in result.winners
                round_points[entry.user_id] += result.scores[entry.position]
    assert played == {world.alice.id: 2, world.bob.id: 1}
    order = sorted(people, key=lambda user_id: (-wins[user_id], -points[user_id], user_id))

    board = await world.run(world.bob, "leaderboard", sort="wins")
    assert not board.ephemeral  # people share it
    lines = description(board)
    assert lines[:2] == [
        f"**{rank}.** <@{user_id}> — {board_figures(wins[user_id], played[user_id])}"
        for rank, user_id in enumerate(order, start=1)
    ]
    bob = world.bob.id
    assert lines[-1] == (
        f"<@{bob}> is **{ordinal(order.index(bob) + 1)}** of 2 — {board_figures(wins[bob], played[bob])}"
    )
    assert board.embeds[0]["footer"]["text"] == "Page 1 of 1 · 2 players"
    assert all(button["disabled"] for button in board.buttons)  # one page: nowhere to go

    for viewer, subject, favourite in (
        (world.alice, world.alice, "classic"),
        (world.carol, world.bob, "classic"),
    ):
        options = {} if viewer is subject else {"member": subject}
        stats = await world.run(viewer, "stats", **options)
        assert not stats.ephemeral
        assert f"<@{subject.id}>" in stats.embeds[0]["description"]
        shown = fields(stats)
        won, count = wins[subject.id], played[subject.id]
        assert shown == {
            "Matches": f"{count} played · {won} won",
            "Win rate": f"{round(100 * won / count)}%",
            "Rounds won": f"{rounds_won[subject.id]} of {rounds_played[subject.id]}",
            "Average round score": f"{round_points[subject.id] / rounds_played[subject.id]:.1f}",
            "Best finish": ordinal(best[subject.id]),
            "Favourite preset": favourite,  # Alice: one match of each, and the tie goes to the first name
            "Last played": shown["Last played"],
            "Ranking points": str(points[subject.id]),
            "Rating": shown["Rating"],
        }
        assert re.fullmatch(r"<t:\d+:R>", shown["Last played"])
        rating = await store.player_rating(world.guild.id, subject.id)
        assert rating is not None and rating.matches == count
        assert shown["Rating"].startswith(f"**{skill(rating.rating.skill)}** · provisional · ")
        assert f"{signed(rating.change)} in the last match" in shown["Rating"]
        # The picture of the rating over the last matches, with its alt text, is the embed's image.
        (picture,) = stats.attachments
        assert (
            picture["filename"] == "rating.png"
            and stats.embeds[0]["image"]["url"] == "attachment://rating.png"
        )
        assert picture["description"].startswith(
            "Rating after 1 rated match: " if count == 1 else f"Rating over the last {count} rated matches"
        )
        assert world.fake.files.content(picture).startswith(b"\x89PNG")

    # The default board, now that the server has ratings, is by rating: nobody has 5 rated matches yet, so
    # everyone (the two people and the easy CPU level) is listed apart, best first.
    by_rating = await world.run(world.bob, "leaderboard")
    assert by_rating.embeds[0]["title"] == "Crazy Eights leaderboard — by rating"
    assert description(by_rating) == description(await world.run(world.bob, "leaderboard", sort="rating"))
    rated = await store.rating_board(world.guild.id, ranked=False)
    assert {(row.user_id, row.cpu_level) for row in rated} == {
        (world.alice.id, None),
        (bob, None),
        (None, "easy"),
    }
    lines = description(by_rating)
    assert lines[0] == "Nobody has 5 rated matches yet."
    assert lines[2] == "**Provisional** (fewer than 5 rated matches)"
    names = {world.alice.id: f"<@{world.alice.id}>", bob: f"<@{bob}>", None: "CPU (easy)"}
    assert lines[3:6] == [
        f"{names[row.user_id]} — **{skill(row.rating.skill)}** · "
        + ("1 match" if row.matches == 1 else f"{row.matches} matches")
        for row in rated
    ]
    mine = await store.player_rating(world.guild.id, bob)
    assert mine is not None
    assert lines[-1] == f"<@{bob}> — **{skill(mine.rating.skill)}**, provisional: 1 of 5 rated matches"


async def test_recorded_results_in_leaderboard_stats_and_history(world: World) -> None:
    await seed(world, *two_matches(world))
    alice, bob = world.alice, world.bob
    board = await world.run(alice, "leaderboard", sort="wins")
    assert not board.ephemeral
    assert description(board) == [
        f"**1.** <@{alice.id}> — **2** wins · 2 played · 100%",
        f"**2.** <@{bob.id}> — **0** wins · 2 played · 0%",
        "",
        f"<@{alice.id}> is **1st** of 2 — **2** wins · 2 played · 100%",
    ]

    by_points = await world.run(bob, "leaderboard", sort="points")
    assert description(by_points)[:2] == [
        f"**1.** <@{alice.id}> — **4** points · 2 won · 2 played",  # beat two opponents in each match
        f"**2.** <@{bob.id}> — **1** point · 0 won · 2 played",
    ]
    assert description(by_points)[-1] == f"<@{bob.id}> is **2nd** of 2 — **1** point · 0 won · 2 played"

    shown = fields(await world.run(alice, "stats", member=bob))
    assert shown["Matches"] == "2 played · 0 won"
    assert shown["Rounds won"] == "0 of 4"
    assert shown["Average round score"] == "17.5"  # (40 + 30) / 4 rounds
    assert shown["Best finish"] == "2nd"
    assert shown["Last played"] == "<t:1700000600:R>"

    history = await world.run(bob, "history")
    assert not history.ephemeral
    assert [f["name"] for f in history.embeds[0]["fields"]] == ["switch · 1 round", "classic · 3 rounds"]
    assert history.embeds[0]["fields"][0]["value"].endswith(
        f"1st <@{alice.id}> (0) · 2nd CPU (easy) (9) · 3rd <@{bob.id}> (30)"
    )


async def test_mistaken_requests_get_short_private_answers(world: World) -> None:
    empty = await world.run(world.alice, "leaderboard")
    assert empty.ephemeral
    assert empty.content == "Nobody has finished a match in this server yet."
    assert (await world.run(world.alice, "history")).ephemeral
    await seed(world, *two_matches(world))
    past_the_end = await world.run(world.alice, "leaderboard", sort="wins", page=2)
    assert past_the_end.ephemeral
    assert past_the_end.content == "The leaderboard has only 1 page."
    nobody = await world.run(world.alice, "stats", member=world.carol)
    assert nobody.ephemeral
    assert nobody.content == "That member hasn't finished a match in this server yet."
    too_few = await world.run(world.carol, "leaderboard", sort="winrate")
    assert too_few.ephemeral
    assert "5 matches" in too_few.content
    assert world.fake.channel_messages(world.channel) == []  # nothing public came of any of it


async def test_leaderboard_pages_in_place_and_after_a_restart(world: World) -> None:
    players = [world.fake.create_user(f"p{i}") for i in range(12)]
    for player in players:
        world.fake.add_member(world.guild, player)
    # Player i has won i + 1 matches against a CPU: player 11 leads, player 0 is 12th.
    await seed(
        world,
        *(
            {"ranking": [(player.id, player.name, 1, 0), (None, "CPU", 2, 10)], "now": 1_700_000_000.0 + i}
            for i, player in enumerate(players)
            for _ in range(i + 1)
        ),
    )
    asker = players[0]
    board = await world.run(asker, "leaderboard", sort="wins")
    lines = description(board)
    assert lines[0] == f"**1.** <@{players[11].id}> — **12** wins · 12 played · 100%"
    assert lines[-1] == f"<@{asker.id}> is **12th** of 12 — **1** win · 1 played · 100%"  # off the page
    assert board.embeds[0]["footer"]["text"] == "Page 1 of 2 · 12 players"

    # Someone else pages: the message changes in place and still carries the asker's rank.
    clicked = await world.fake.click(players[5], board, label="Next")
    assert await clicked.callback() == 7
    page_two = await clicked.reply()
    assert page_two.id == board.id
    assert description(page_two)[:2] == [
        f"**11.** <@{players[1].id}> — **2** wins · 2 played · 100%",
        f"**12.** <@{asker.id}> — **1** win · 1 played · 100%",
    ]
    assert description(page_two)[-1].startswith(f"<@{asker.id}> is **12th**")
    previous, following = page_two.buttons
    assert not previous["disabled"] and following["disabled"]
    assert previous["custom_id"] == f"eights-lb:{world.guild.id}:wins:1:{asker.id}"

    # The buttons are persistent: a new bot process answers a click on the old message.
    await world.restart()
    back = await world.fake.click(players[7], page_two, label="Previous")
    assert await back.callback() == 7
    assert description(await back.reply())[0].startswith(f"**1.** <@{players[11].id}>")
    assert world.fake.ephemeral_messages(players[7]) == []


async def test_settings_need_manage_server_and_persist(world: World) -> None:
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=MANAGE_GUILD)
    role = world.fake.create_role(world.guild, "dealers")
    store = store_of(world)
    refused = await world.run(world.alice, "settings")
    assert refused.ephemeral
    assert refused.content == "You need the Manage Server permission to use this command."
    refused_change = await world.run(world.alice, "settings", default_preset="party")
    assert refused_change.ephemeral
    assert await store.get_guild_settings(world.guild.id) == GuildSettings(guild_id=world.guild.id)

    shown = await world.run(admin, "settings")
    assert shown.ephemeral
    assert fields(shown)["Table channels"] == "any channel"

    changed = await world.run(
        admin,
        "settings",
        default_preset="party",
        turn_timeout=120,
        allow_channel=world.other_channel,
        manager_role=role,
    )
    assert changed.ephemeral
    assert fields(changed) == {
        "Default preset": "party",
        "Default turn timeout": "2 min",
        "Table channels": f"<#{world.other_channel.id}>",
        "Table manager role": f"<@&{role.id}>",
        "House rules for new tables": "none: each preset as it is",
        "Card emojis": "on",
        "Board picture": "on",
        "Language of the tables": "the server's language in Discord",
    }
    assert await store.get_guild_settings(world.guild.id) == GuildSettings(
        guild_id=world.guild.id,
        default_preset="party",
        default_turn_timeout=120.0,
        allowed_channel_ids=(world.other_channel.id,),
        manager_role_id=role.id,
    )
    bad = await world.run(admin, "settings", disallow_channel=world.channel)
    assert bad.ephemeral
    assert bad.content == "That channel is not on the list of table channels."
    assert world.fake.channel_messages(world.channel) == []

    # The table service honours the new settings: tables open only in the listed channel.
    elsewhere = await world.run(world.alice, "new")
    assert elsewhere.ephemeral
    assert f"<#{world.other_channel.id}>" in elsewhere.content
    assert await world.service.table_in_channel(world.channel.id) is None


async def test_forget_asks_then_deletes_everywhere(world: World) -> None:
    await seed(world, *two_matches(world))
    store = store_of(world)
    question = await world.run(world.alice, "forget")
    assert question.ephemeral
    assert "every server" in question.content
    kept = await world.fake.click(world.alice, question, label="Keep them")
    assert (await kept.reply()).content == "Your statistics are kept."
    assert await store.player_stats(world.guild.id, world.alice.id) is not None

    again = await world.run(world.alice, "forget")
    confirmed = await world.fake.click(world.alice, again, label="Delete my statistics")
    assert await confirmed.callback() == 7
    done = await confirmed.reply()
    assert done.content == FORGOTTEN
    assert done.components == []
    assert await store.player_stats(world.guild.id, world.alice.id) is None
    assert await store.player_rating(world.guild.id, world.alice.id) is None  # the rating goes too

    board = await world.run(world.bob, "leaderboard", sort="wins")
    assert description(board)[0] == f"**1.** <@{world.bob.id}> — **0** wins · 2 played · 0%"
    gone = await world.run(world.alice, "stats")
    assert gone.ephemeral
