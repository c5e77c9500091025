"""The replays', the leaderboard's and /eights forget's buttons pressed on a message that is not theirs: a
tampered client can send any custom id on any message of the bot (tests/e2e/test_crafted_controls.py for the
table controls). The message is left alone and the answer is private: a replay step pressed on a public
message would otherwise put the presser's replay there, "Your hand then" included; a forget answer pressed on
a board would take the board's controls away; a leaderboard page pressed on a board would replace it."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.test_standings_e2e import play_match, seed, two_matches


async def test_a_replay_button_crafted_on_the_public_history_posts_no_hand(world: World) -> None:
    world.service.seed_deals(1)
    await play_match(world, "classic", against_cpu=True)  # alice against a CPU, to the end of the match
    history = await world.run(world.bob, "history")
    assert not history.ephemeral
    match = history.selects[0]["options"][0]["value"]
    before = history.text()
    versions = len(history.versions)

    pressed = await world.fake.craft_component(
        world.alice, world.channel, history, f"eights-replay:{match}:0:next"
    )
    answer = await pressed.reply(timeout=8.0)
    await world.settle()
    public = [m.text() for m in world.fake.channel_messages(world.channel)]
    assert not any("Your hand then" in text for text in public), [t for t in public if "Your hand" in t]
    assert len(history.versions) == versions and history.text() == before  # the history is left alone
    assert answer.ephemeral  # the replay, if shown, is alice's alone


async def test_a_forget_answer_crafted_on_the_board_leaves_the_board_alone(world: World) -> None:
    board = await world.run(world.alice, "new")
    await world.settle()
    labels = [b["label"] for b in board.buttons]
    assert "Join" in labels
    content = board.content

    pressed = await world.fake.craft_component(
        world.bob, world.channel, board, f"eights-forget:{world.bob.id}:no"
    )
    answer = await pressed.reply(timeout=8.0)
    await world.settle()
    assert [b["label"] for b in world.board().buttons] == labels
    assert world.board().content == content
    assert answer.ephemeral


async def test_a_leaderboard_page_crafted_on_the_board_leaves_the_board_alone(world: World) -> None:
    await seed(world, *two_matches(world))
    board = await world.run(world.alice, "new")
    await world.settle()
    labels, embeds = [b["label"] for b in board.buttons], board.embeds

    pressed = await world.fake.craft_component(
        world.bob, world.channel, board, f"eights-lb:{world.guild.id}:wins:1:{world.bob.id}"
    )
    answer = await pressed.reply(timeout=8.0)
    await world.settle()
    assert [b["label"] for b in world.board().buttons] == labels
    assert world.board().embeds == embeds
    assert answer.ephemeral
    assert [b["label"] for b in answer.buttons] == ["Previous", "Next"]  # the page, the presser's alone
