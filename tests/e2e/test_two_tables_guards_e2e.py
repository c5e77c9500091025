"""Guards (these pass): one person at two tables, where the suite's several-tables tests do not look.

- /eights play's autocomplete reads the table of the channel it is asked in (a thread included), never the
  table where it is the person's turn: README "/eights play card [suit]: play a card" at "the table in this
  channel"; "A control acts only on the table of the channel it is in".
- Hand buttons of two tables, shown before a restart, act each on its own table after it: README "Buttons of
  a hand that did not change keep working, also after the bot restarts".
- The host of two tables removed from one by a manager stays host of the other: README "/eights kick member:
  ... a removed host is host no more" (of that table).

Kept because each reads per-person state through a different key (the channel for autocomplete, the custom
id and channel after a restart, the table's document for the host), which a refactor to per-user state
would break without any existing test noticing.
"""

from __future__ import annotations

import pytest

from tests.e2e.alice_at_two_tables import A_ALICE, A_OTHER, B_ALICE, B_OTHER, alice_at_two
from tests.e2e.classic_deals import stack_classic_deal
from tests.e2e.conftest import World
from tests.e2e.contexts import make_thread
from tests.e2e.several_tables import open_and_start, tables_named_in_versions

MANAGE_CHANNELS = 16


def button(message, suffix: str) -> str:  # type: ignore[no-untyped-def]
    return next(str(x["custom_id"]) for x in message.buttons if str(x["custom_id"]).endswith(suffix))


async def test_play_autocomplete_offers_the_channels_table_only(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice is to move at A (clubs) and at B (hearts): each channel's list offers that table's cards; with
    B's turn carol's, B's list is empty although it is alice's turn at A."""
    await alice_at_two(world, monkeypatch)
    in_b = await world.fake.autocomplete(world.alice, world.other_channel, "eights play", "card", "")
    in_a = await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", "")
    assert in_b and all(str(c["value"]).endswith("H") for c in in_b), in_b
    assert in_a and all(str(c["value"]).endswith("C") for c in in_a), in_a


async def test_play_autocomplete_in_a_thread_and_its_parent(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table in a channel (alice: clubs) and one in its thread (alice: hearts): the thread's list offers
    the thread's table."""
    thread = make_thread(world.fake, world.guild, world.channel, "side", type=11, owner=world.alice)
    stack_classic_deal(monkeypatch, [A_ALICE, A_OTHER], "KC")
    await open_and_start(world, world.channel, world.alice, world.bob, target=1000)
    stack_classic_deal(monkeypatch, [B_ALICE, B_OTHER], "KH")
    await open_and_start(world, thread, world.alice, world.bob, target=1000)
    in_t = await world.fake.autocomplete(world.alice, thread, "eights play", "card", "")
    in_p = await world.fake.autocomplete(world.alice, world.channel, "eights play", "card", "")
    assert in_t and all(str(c["value"]).endswith("H") for c in in_t), in_t
    assert in_p and all(str(c["value"]).endswith("C") for c in in_p), in_p


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_two_tables_hand_buttons_after_a_restart(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """alice's hand messages of A and B, shown before a restart, each play at its own table after it."""
    a, b = await alice_at_two(world, monkeypatch)
    hand_a = await world.run(world.alice, "hand", channel=world.channel)
    hand_b = await world.run(world.alice, "hand", channel=world.other_channel)
    await world.restart()
    await world.settle()
    await (await world.fake.click(world.alice, hand_b, button(hand_b, ":play:2H"))).reply()
    await world.settle()
    assert (await world.service.snapshot(b)).to_act == 1
    assert (await world.service.snapshot(a)).to_act == 0
    await (await world.fake.click(world.alice, hand_a, button(hand_a, ":play:2C"))).reply()
    await world.settle()
    assert (await world.service.snapshot(a)).to_act == 1
    assert tables_named_in_versions(hand_a) <= {a}
    assert tables_named_in_versions(hand_b) <= {b}


async def test_host_of_two_removed_from_one_stays_host_of_the_other(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice hosts A and B; bob (Manage Channels) removes her from A: she is host of B still, and plays
    there."""
    a, b = await alice_at_two(world, monkeypatch)
    role = world.fake.create_role(world.guild, "mods", permissions=MANAGE_CHANNELS)
    world.guild.members[world.bob.id].roles.append(role)
    await world.run(world.bob, "kick", channel=world.channel, member=world.alice)
    await world.settle()
    assert (await world.service.snapshot(a)).host_id != world.alice.id
    snap_b = await world.service.snapshot(b)
    assert snap_b.host_id == world.alice.id
    assert any(s.is_host and s.user_id == world.alice.id for s in snap_b.seats)
    hand = await world.run(world.alice, "hand", channel=world.other_channel)
    assert "Your hand" in hand.content, hand.content
