"""A host of two tables removed from one of them by a manager is told so without naming who removed her.

README, /eights kick: "remove a player ... (host, or a manager: Manage Channels or the server's manager
role)", and "a removed host is host no more". The guide: every refusal is a clear short answer.

alice hosts A and B; bob, a manager, removes her from A. Her hand message of A, and /eights hand in A's
channel, then tell her "The host removed you from this table." — but she was that table's host: a manager
removed her. The text (bot/service/errors.py REMOVED) had named the host, whoever removed the player: it is
neutral now ("You were removed from this table.").
"""

from __future__ import annotations

import pytest

from tests.e2e.alice_at_two_tables import alice_at_two
from tests.e2e.conftest import World

MANAGE_CHANNELS = 16


@pytest.mark.parametrize("backend_url", ["sqlite"], indirect=True)
async def test_a_host_removed_by_a_manager_is_not_told_the_host_removed_them(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice (host of A and B) is removed from A by bob (Manage Channels): what she reads at A must not say
    that the host removed her."""
    await alice_at_two(world, monkeypatch)
    hand_a = await world.run(world.alice, "hand", channel=world.channel)
    role = world.fake.create_role(world.guild, "mods", permissions=MANAGE_CHANNELS)
    world.guild.members[world.bob.id].roles.append(role)
    kicked = await world.run(world.bob, "kick", channel=world.channel, member=world.alice)
    assert kicked.ephemeral, kicked.content
    await world.settle()
    typed = await world.run(world.alice, "hand", channel=world.channel)
    shown = [hand_a.content, typed.content]
    assert all("You were removed from this table." in text for text in shown), shown
    assert not any("The host removed you" in text for text in shown), (
        f"alice was the host of this table and a manager removed her, yet she reads {shown!r}"
    )
