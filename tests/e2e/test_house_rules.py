"""House rules at the table and partnership play, end to end through the fake Discord."""

from __future__ import annotations

import discord
import pytest

from bot.engine.rule_options import OPTIONS
from tests.e2e.conftest import World
from tests.fakediscord import FakeMessage


def house_field(board: FakeMessage) -> str:
    fields = board.embeds[0].get("fields", [])
    return next((f["value"] for f in fields if f["name"] == "House rules"), "")


def select_with(message: FakeMessage, action: str) -> dict[str, object]:
    return next(s for s in message.selects if f":{action}:" in str(s["custom_id"]))


async def test_the_host_sets_house_rules_with_the_board_controls(world: World) -> None:
    board = await world.run(world.alice, "new", preset="classic")
    assert "as it is" in house_field(world.board())
    panel = await (await world.fake.click(world.alice, world.board(), label="House rules")).reply()
    assert panel.ephemeral and "**House rules** — classic" in panel.content
    # Every option is offered, in two selects of at most 25.
    offered = [o["value"] for s in panel.selects for o in s["options"]]
    assert "draw_limit" in offered and "partnership" in offered
    assert sorted(offered) == sorted(o.key for o in OPTIONS)
    page = next(s for s in panel.selects if any(o["value"] == "draw_limit" for o in s["options"]))
    shown = await (
        await world.fake.select(world.alice, panel, str(page["custom_id"]), ["draw_limit"])
    ).reply()
    assert "**Draw limit**" in shown.content and "Now: **none**" in shown.content
    values = select_with(shown, "hval")
    assert [o["value"] for o in values["options"]][:2] == ["none", "1"] or "3" in [  # type: ignore[index]
        o["value"]
        for o in values["options"]  # type: ignore[union-attr]
    ]
    changed = await (await world.fake.select(world.alice, shown, str(values["custom_id"]), ["3"])).reply()
    assert "House rule changed" in changed.content and "Now: **3**" in changed.content
    # After drawing: pick "draw up to" in the second select page.
    back = await (await world.fake.click(world.alice, changed, label="Back to all rules")).reply()
    page = next(s for s in back.selects if any(o["value"] == "after_draw" for o in s["options"]))
    shown = await (await world.fake.select(world.alice, back, str(page["custom_id"]), ["after_draw"])).reply()
    values = select_with(shown, "hval")
    await (await world.fake.select(world.alice, shown, str(values["custom_id"]), ["draw-up-to"])).reply()
    await world.settle()
    assert "Draw up to 3 cards, then you may pass" in house_field(world.board())
    # A typed value through the modal: the hand size.
    back = await (await world.fake.click(world.alice, shown, label="Back to all rules")).reply()
    page = next(s for s in back.selects if any(o["value"] == "hand_size" for o in s["options"]))
    shown = await (await world.fake.select(world.alice, back, str(page["custom_id"]), ["hand_size"])).reply()
    opened = await world.fake.click(world.alice, shown, label="Type a value")
    assert await opened.callback() == 9 and opened.modal is not None
    answer = await (await world.fake.submit_modal(world.alice, opened, value="6")).reply()
    assert answer.ephemeral and "Deal 6 cards each" in answer.content
    await world.settle()
    assert "Deal 6 cards each" in house_field(world.board())
    rules = await world.run(world.bob, "rules")
    assert "House rules" in rules.content and "Draw up to 3 cards, then you may pass" in rules.content
    assert board.id == world.board().id  # the board was edited in place


async def test_the_host_sets_house_rules_by_command_with_autocomplete(world: World) -> None:
    await world.run(world.alice, "new", preset="switch")
    options = await world.fake.autocomplete(
        world.alice, world.channel, "eights house", "option", partial="part"
    )
    assert [c["value"] for c in options] == ["partnership"]
    values = await world.fake.autocomplete(
        world.alice, world.channel, "eights house", "value", partial="", option="partnership"
    )
    assert {c["value"] for c in values} == {"on", "off"}
    reply = await world.run(world.alice, "house", option="partnership", value="on")
    assert reply.ephemeral and "House rule changed: Partnership" in reply.content
    await world.settle()
    text = world.board().text()
    assert "Partnership" in text and "exactly 4 seats" in text
    # The public line says what changed, in words.
    assert any("House rule: Partnership" in t for t in world.public_texts())


async def test_an_impossible_combination_is_refused_privately_with_the_reason(world: World) -> None:
    await world.run(world.alice, "new", preset="classic")
    reply = await world.run(world.alice, "house", option="after_draw", value="draw-up-to")
    assert reply.ephemeral and "draw limit" in reply.content
    assert (await world.snapshot()).house_rules == ()
    reply = await world.run(world.alice, "house", option="hand_size", value="lots")
    assert reply.ephemeral and "whole number" in reply.content
    assert (await world.snapshot()).house_rules == ()


async def test_a_non_host_is_refused_privately(world: World) -> None:
    await world.run(world.alice, "new", preset="classic")
    await (await world.fake.click(world.bob, world.board(), label="Join")).callback()
    reply = await world.run(world.bob, "house", option="reshuffle", value="off")
    assert reply.ephemeral and "Only the host" in reply.content
    panel = await (await world.fake.click(world.bob, world.board(), label="House rules")).reply()
    assert panel.ephemeral and "Only the host" in panel.content and not panel.selects
    assert (await world.snapshot()).house_rules == ()


async def test_house_rules_change_only_before_the_first_deal(world: World) -> None:
    await world.run(world.alice, "new", preset="classic")
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    await world.run(world.alice, "start")
    await world.settle()
    reply = await world.run(world.alice, "house", option="reshuffle", value="off")
    assert reply.ephemeral and "before the first deal" in reply.content


async def test_house_rules_survive_a_restart(world: World) -> None:
    await world.run(world.alice, "new", preset="classic")
    await world.run(world.alice, "house", option="skip_ranks", value="J")
    await world.restart()
    snapshot = await world.snapshot()
    assert snapshot.house_rules == ("J skip the next player",)


async def test_a_partnership_match_of_two_people_and_two_cpus(world: World) -> None:
    world.service.seed_deals(3)
    await world.run(world.alice, "new", preset="classic", target=40)
    await world.run(world.alice, "house", option="partnership", value="on")
    # Seats: alice 1, CPU 2, bob 3, CPU 4: alice and bob are partners (seats 1 and 3).
    await world.run(world.alice, "cpu", level="normal")
    await world.settle()
    await (await world.fake.click(world.bob, world.board(), label="Join")).callback()
    await world.run(world.alice, "cpu", level="easy")
    await world.settle()
    snapshot = await world.snapshot()
    assert [s.user_id for s in snapshot.seats][0::2] == [world.alice.id, world.bob.id]
    hand = await world.run(world.alice, "start")
    assert "Your hand" in hand.content
    await world.settle()
    assert "alice" in world.board().text() and " & " in world.board().text()
    for _ in range(30):
        await world.play_round_by_buttons()
        await world.settle()
        table_id = await world.service.table_in_channel(world.channel.id)
        if table_id is None:
            break
        snapshot = await world.service.snapshot(table_id)
        totals = snapshot.totals
        assert totals[0] == totals[2] and totals[1] == totals[3]  # scored by side
        await (await world.fake.click(world.bob, world.board(), label="Next round")).reply()
        await world.settle()
    else:
        raise AssertionError("the match did not end")
    ranking = [
        m for m in world.fake.channel_messages(world.channel) if m.content.startswith("**Final ranking**")
    ]
    assert len(ranking) == 1
    lines = ranking[0].content.splitlines()[1:]
    assert len(lines) == 2 and any("**alice & bob**" in line for line in lines)
    # The leaderboard counts the match for both partners, won or lost alike.
    board = await world.run(world.carol, "leaderboard")
    text = board.text()
    assert f"<@{world.alice.id}>" in text and f"<@{world.bob.id}>" in text
    matches, best = {}, {}
    for person in (world.alice, world.bob):
        stats = await world.run(world.carol, "stats", member=person)
        fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
        matches[person.name] = fields["Matches"]
        best[person.name] = fields["Best finish"]
    # Partners win or lose together: the same line for both ("1 played · 1 won" or "1 played · 0 won").
    assert matches["alice"] == matches["bob"] and matches["alice"].startswith("1 played")
    # Places by side, as the final ranking says: the losing side is 2nd, never 3rd.
    won = matches["alice"].endswith(" 1 won")
    assert best == {"alice": "1st" if won else "2nd", "bob": "1st" if won else "2nd"}
    history = await world.run(world.carol, "history")
    assert "Partnership" in history.text()
    assert "3rd" not in history.text() and history.text().count("2nd") == 2


async def test_server_settings_hold_default_house_rules_for_new_tables(world: World) -> None:
    admin = world.fake.create_user("admin")
    world.fake.add_member(world.guild, admin, permissions=discord.Permissions(manage_guild=True).value)
    values = await world.fake.autocomplete(
        admin, world.channel, "eights settings", "house_value", partial="", house_option="draw_limit"
    )
    assert "3" in [c["value"] for c in values]
    refused = await world.run(admin, "settings", house_option="after_draw", house_value="draw-up-to")
    assert refused.ephemeral and "draw limit" in refused.content
    await world.run(admin, "settings", house_option="draw_limit", house_value="3")
    saved = await world.run(admin, "settings", house_option="after_draw", house_value="draw-up-to")
    assert "Draw up to 3 cards, then you may pass" in saved.text()
    await world.run(world.alice, "new")
    assert "Draw up to 3 cards, then you may pass" in house_field(world.board())
    cleared = await world.run(admin, "settings", clear_house_rules=True)
    assert "none: each preset as it is" in cleared.text()


def match_field(board: FakeMessage) -> str:
    fields = board.embeds[0].get("fields", [])
    return next((f["value"] for f in fields if f["name"] == "Match"), "")


@pytest.mark.parametrize(
    ("preset", "rules", "words"),
    [
        ("classic", (("match_end", "one-round"),), "one round; lowest score wins"),
        ("switch", (), "until a total reaches 250; highest total wins"),
    ],
)
async def test_the_boards_match_line_says_how_the_match_ends(
    world: World, preset: str, rules: tuple[tuple[str, str], ...], words: str
) -> None:
    await world.run(world.alice, "new", preset=preset)
    for option, value in rules:
        await world.run(world.alice, "house", option=option, value=value)
    await (await world.fake.click(world.bob, world.board(), label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    assert match_field(world.board()) == words


async def test_a_match_of_a_set_number_of_rounds_says_so_on_the_board_and_in_the_scores(world: World) -> None:
    await world.run(world.alice, "new", preset="classic")
    await world.run(world.alice, "house", option="rounds", value="2")
    await world.run(world.alice, "house", option="match_end", value="rounds")
    await (await world.fake.click(world.bob, world.board(), label="Join")).callback()
    await world.run(world.alice, "start")
    await world.settle()
    assert match_field(world.board()) == "2 rounds; lowest total wins"
    await world.play_round_by_buttons()
    await world.settle()
    assert (await world.snapshot()).phase == "between_rounds"
    assert match_field(world.board()) == "2 rounds; lowest total wins"
    scores = await world.run(world.alice, "scores")
    assert scores.content.endswith("Match: 2 rounds; lowest total wins.") and "passes" not in scores.content


async def test_a_form_opened_before_a_restart_is_answered_after_it(world: World) -> None:
    await world.run(world.alice, "new", preset="classic")
    panel = await (await world.fake.click(world.alice, world.board(), label="House rules")).reply()
    page = next(s for s in panel.selects if any(o["value"] == "hand_size" for o in s["options"]))
    shown = await (await world.fake.select(world.alice, panel, str(page["custom_id"]), ["hand_size"])).reply()
    opened = await world.fake.click(world.alice, shown, label="Type a value")
    assert await opened.callback() == 9 and opened.modal is not None
    await world.restart()
    answer = await (await world.fake.submit_modal(world.alice, opened, value="6")).reply(timeout=5)
    assert answer.ephemeral and "Deal 6 cards each" in answer.content
    await world.settle()
    assert "Deal 6 cards each" in house_field(world.board())
    # A bad value typed in the form gets the reason, and changes nothing.
    opened = await world.fake.click(world.alice, shown, label="Type a value")
    assert await opened.callback() == 9
    await world.restart()
    refused = await (await world.fake.submit_modal(world.alice, opened, value="lots")).reply(timeout=5)
    assert refused.ephemeral and "whole number" in refused.content
    assert (await world.snapshot()).house_rules == ("Deal 6 cards each",)
