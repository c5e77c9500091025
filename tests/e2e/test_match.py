"""Whole matches end to end: several rounds with totals, the final ranking, the leaderboard, and restarts."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage, FakeUser


async def typed_move(world: World, user: FakeUser) -> None:
    """One decision by slash commands only, from what the player sees: their hand message and the
    autocomplete of /eights play."""
    seen = (
        world.last_hand(user).content
        if any("Your hand" in m.content for m in world.fake.ephemeral_messages(user))
        else ""
    )
    if "Name the suit to follow." in seen:
        reply = await world.run(user, "suit", suit="♠")
    else:
        choices = await world.fake.autocomplete(user, world.channel, "eights play", "card", partial="")
        if choices:
            reply = await world.run(user, "play", card=choices[0]["name"].split(" ")[0])  # typed as "K♥"
        else:
            reply = await world.run(user, "draw")
            if "Your hand" not in reply.content:  # drawing is not possible: pass
                reply = await world.run(user, "pass")
    assert reply.ephemeral, reply.content


async def play_round_mixed(world: World) -> None:
    """alice clicks, bob types; the CPU seat plays by itself."""
    for _ in range(400):
        user = await world.human_to_act()
        if user is None:
            return
        if user is world.alice:
            await world.play_by_buttons(user)
        else:
            await typed_move(world, user)
    raise AssertionError("the round did not end")


async def start_three_seats(world: World, **options: object) -> FakeMessage:
    board = await world.run(world.alice, "new", **options)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    hand = await world.run(world.alice, "start")
    assert "Your hand" in hand.content
    await world.settle()
    return hand


async def test_a_whole_match_of_two_people_and_a_cpu(world: World) -> None:
    world.service.seed_deals(7)  # a deal that lasts a few rounds (checked below)
    await start_three_seats(world, preset="classic", target=60)
    rounds = 0
    while True:
        await play_round_mixed(world)
        rounds += 1
        await world.settle()
        table_id = await world.service.table_in_channel(world.channel.id)
        if table_id is None:
            break
        snapshot = await world.service.snapshot(table_id)
        assert snapshot.phase == "between_rounds"
        board = world.board()
        text = board.text()
        assert f"Round {rounds} scores" in text
        for seat in snapshot.seats:  # every seat's round score and total
            score = snapshot.round_scores[-1][seat.position]
            assert f"**{seat.name}**: {score} this round, {seat.total} in total" in text
        scores = await world.run(world.bob, "scores")
        assert scores.ephemeral and f"Round {rounds}:" in scores.content and "Totals:" in scores.content
        await (await world.fake.click(world.bob, board, label="Next round")).reply()
        await world.settle()
        assert (await world.snapshot()).round_number == rounds + 1
    assert rounds >= 2, "the seeded match ended in one round"

    ranking = [
        m for m in world.fake.channel_messages(world.channel) if m.content.startswith("**Final ranking**")
    ]
    assert len(ranking) == 1
    lines = ranking[0].content.splitlines()[1:]
    assert len(lines) == 3
    for name in ("alice", "bob", "CPU 1"):
        assert any(f"**{name}** — " in line and line.endswith(" pts") for line in lines)
    assert "The match is over." in world.board().text() and world.board().buttons == []

    status = await world.run(world.alice, "status")
    assert status.ephemeral and "no open table" in status.content and "/eights new" in status.content
    leaderboard = await world.run(world.carol, "leaderboard")
    text = leaderboard.text()
    assert f"<@{world.alice.id}>" in text and f"<@{world.bob.id}>" in text


async def test_a_restart_in_the_middle_of_a_round(world: World) -> None:
    alice_hand = await start_three_seats(world, target=1000)
    for _ in range(3):  # a few moves, so that the round is under way
        user = await world.human_to_act()
        assert user is not None
        await world.play_by_buttons(user)
    user = await world.human_to_act()
    assert user is not None
    # The hand of the person to move, with its controls, posted before the restart.
    hand = await world.hand_message(user)
    assert ("Your turn" in hand.content or "Name the suit" in hand.content) and hand.buttons
    board = world.board()
    before = await world.snapshot()

    await world.restart()
    after = await world.snapshot()
    assert after.to_act == before.to_act and after.round_number == before.round_number
    assert [s.card_count for s in after.seats] == [s.card_count for s in before.seats]
    assert after.deadline == before.deadline  # the turn timer resumed with the time it had left
    await world.settle()
    assert world.board().id == board.id

    # The buttons posted before the restart still work: the hand message's, then the board's "My hand".
    move = next(b for b in hand.buttons if any(k in b["custom_id"] for k in (":suit:", ":play:", ":draw")))
    reply = await (await world.fake.click(user, hand, move["custom_id"])).reply()
    assert reply.id == hand.id  # updated in place
    await world.play_round_by_buttons()
    assert (await world.snapshot()).phase == "between_rounds"
    # The restarted bot knew no interaction of the table's board: it moved to a player's newer one (edited
    # through its token, off the global limit) and the old message went; one board in the channel.
    assert world.board().id != board.id and board.deleted
    assert world.fake.channel_messages(world.channel).count(world.board()) == 1
    assert alice_hand.id in {m.id for m in world.fake.ephemeral_messages(world.alice)}


async def test_a_deleted_board_is_posted_again_at_start_up(world: World) -> None:
    await start_three_seats(world)
    board = world.board()
    await world.stop()
    world.fake._delete_message(board)  # a moderator deleted it while the bot was away
    await world.start()
    await world.settle()
    reposted = world.board()
    assert reposted.id != board.id and reposted.buttons
    click = await world.fake.click(world.bob, reposted, label="My hand")
    assert "Your hand" in (await click.reply()).content
