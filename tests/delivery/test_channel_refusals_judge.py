"""Judging Discord's permission events against the channels that refused the bot
(``ChannelRefusals.judge``), and what the interactions' answers share of the record (``share``, ``shared``).

Discord bans an IP at 10,000 invalid requests (401, 403, 429) in 10 minutes: an event that leaves the bot's
permissions in a refused channel as they were must not try it again (each try is one more 403), and a channel
tried again without a change keeps its grown pause."""

from __future__ import annotations

from bot.delivery import channel_refusals
from bot.delivery.channel_refusals import REFUSED_FOR, REFUSED_MAX, ChannelRefusals
from tests.delivery.test_channel_refusals import MISSING_ACCESS

DENIED = ("view", False)
ALLOWED = ("view", True)


def test_an_event_that_changes_nothing_for_the_bot_does_not_try_the_channel_again() -> None:
    refusals = ChannelRefusals()
    refusals.note(1, 9, MISSING_ACCESS, 0.0)
    assert not refusals.judge(1, allowed=False, seen=DENIED)  # still shut out
    for _ in range(5):  # a role's colour, a topic ...: the same permissions
        assert not refusals.judge(1, allowed=False, seen=DENIED)
    assert refusals.refused(1, 1.0)
    assert refusals.judge(1, allowed=True, seen=ALLOWED)  # given back
    assert not refusals.refused(1, 1.0) and refusals.until(1) is None


def test_the_first_event_after_a_refusal_is_given_the_benefit_of_the_doubt_once() -> None:
    """The cache cannot tell every refusal (a private thread the bot is not in): where it says the bot may
    post, the first event tries the channel again; the next ones alike do not, however many."""
    refusals = ChannelRefusals()
    refusals.note(1, 9, MISSING_ACCESS, 0.0)
    assert refusals.judge(1, allowed=True, seen=ALLOWED)
    refusals.note(1, 9, MISSING_ACCESS, 1.0)  # refused again
    for _ in range(5):
        assert not refusals.judge(1, allowed=True, seen=ALLOWED)
    assert refusals.refused(1, 2.0)
    assert not refusals.judge(2, allowed=True, seen=ALLOWED)  # a channel that never refused: nothing to do


def test_a_channel_tried_again_without_a_change_keeps_its_grown_pause() -> None:
    refusals = ChannelRefusals()
    now = 0.0
    for _ in range(3):  # 60, 120, 240 s
        refusals.note(1, 9, MISSING_ACCESS, now)
        now = refusals.until(1) or now
    assert refusals.judge(1, allowed=True, seen=ALLOWED)  # the first event: tried again, pause kept
    refusals.note(1, 9, MISSING_ACCESS, now)
    assert refusals.until(1) == now + 8 * REFUSED_FOR
    # Its permissions seen to change (taken, then given back): refused again, it starts over.
    assert not refusals.judge(1, allowed=False, seen=DENIED)
    assert refusals.judge(1, allowed=True, seen=ALLOWED)
    refusals.note(1, 9, MISSING_ACCESS, now + 1)
    assert refusals.until(1) == now + 1 + REFUSED_FOR


def test_forgiving_a_channel_keeps_its_pause_and_a_server_starts_over() -> None:
    refusals = ChannelRefusals()
    refusals.note(1, 9, MISSING_ACCESS, 0.0)
    refusals.forgive(channel_id=1)
    assert not refusals.refused(1, 1.0) and refusals.channels(9) == [1]
    refusals.note(1, 9, MISSING_ACCESS, 1.0)
    assert refusals.until(1) == 1.0 + 2 * REFUSED_FOR
    refusals.forgive(guild_id=9)  # the bot added back to the server
    assert refusals.channels(9) == []
    refusals.pause(3, 9, 0.0)
    refusals.forgive(channel_id=3)
    refusals.pause(3, 9, 1.0)  # removed from the server again: left alone again
    assert refusals.refused(3, 2.0) and refusals.until(3) == 1.0 + REFUSED_MAX


class Client:
    """A bot, as far as the record is concerned."""


def test_the_record_is_shared_with_a_client_s_answers() -> None:
    client = Client()
    refusals = ChannelRefusals()
    assert channel_refusals.shared(client) is None
    channel_refusals.share(client, refusals, lambda: 5.0)
    record = channel_refusals.shared(client)
    assert record is not None and record.refusals is refusals and record.monotonic() == 5.0
    assert channel_refusals.shared(object()) is None  # not weakly referenceable: none
    assert refusals.code(1) is None
    refusals.note(1, 9, MISSING_ACCESS, 0.0)
    assert refusals.code(1) == 50001
