"""Whom a turn line pings (``bot.delivery.feed.mentioning``): the people to move only, one or several (a
Crazier Eights team), as a line carries them and as the outbox stores them for a restart (JSON: a list)."""

from __future__ import annotations

import pytest

from bot.delivery.feed import mentioned_users, mentioning


@pytest.mark.parametrize(
    ("mention", "users"),
    [(7, [7]), ((7, 9), [7, 9]), ([7, 9], [7, 9]), (None, []), (True, []), ("7", []), ([7, "x", False], [7])],
)
def test_only_the_people_to_move_are_pinged(mention: object, users: list[int]) -> None:
    allowed = mentioning(mention)
    assert allowed.everyone is False and allowed.roles is False and allowed.replied_user is False
    assert [user.id for user in allowed.users] == users if users else allowed.users is False
    assert list(mentioned_users(mention)) == users
