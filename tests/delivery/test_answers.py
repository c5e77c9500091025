"""bot.delivery.answers: what it keeps per interaction (lock, watch, answered) lives in its own map, keyed
by interaction id, and is gone once the handler is done; only the fact that it was answered is kept, in a
bounded list, for the publisher that follows the answer up."""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord

from bot.delivery import answers

_ids = itertools.count(1_000_000)


class Response:
    def __init__(self) -> None:
        self.done = False
        self.sent: list[str] = []

    def is_done(self) -> bool:
        return self.done

    async def send_message(self, content: str, **kwargs: Any) -> None:
        self.sent.append(content)
        self.done = True

    async def defer(self, **kwargs: Any) -> None:
        self.done = True


class Interaction:
    """What ``answers`` reads of a discord.Interaction (which takes no attributes of ours: it has slots)."""

    def __init__(self) -> None:
        self.id = next(_ids)
        self.response = Response()
        self.extras: dict[str, Any] = {}
        self.message = None


async def test_nothing_is_kept_on_the_interaction_or_after_it_is_done() -> None:
    before = answers.in_flight()
    done = []
    for n in range(50):
        interaction: Any = Interaction()
        answers.watch(interaction, update=False, after=60.0)
        if n % 2:
            await answers.answer_privately(interaction, "Done.")
        else:
            await answers.acknowledge(interaction)
        assert answers.in_flight() == before + 1
        answers.unwatch(interaction)
        done.append(interaction)
    assert answers.in_flight() == before
    assert all(interaction.extras == {} for interaction in done)
    # Answered before it was done: still known as answered, for the publisher's follow-ups.
    assert all(answers.is_answered(interaction) for interaction in done)
    assert answers.in_flight() == before


async def test_a_private_answer_longer_than_discord_takes_is_cut_not_lost() -> None:
    interaction: Any = Interaction()
    await answers.answer_privately(interaction, "x" * 2500)
    [sent] = interaction.response.sent
    assert len(sent) == answers.MAX_CONTENT and sent.endswith("…")
    short: Any = Interaction()
    await answers.answer_privately(short, "Done.")
    assert short.response.sent == ["Done."]


async def test_an_interaction_done_unanswered_stays_unanswered_and_leaves_nothing() -> None:
    before = answers.in_flight()
    interaction: Any = Interaction()
    answers.watch(interaction, update=True, after=60.0)
    answers.unwatch(interaction)
    assert not answers.is_answered(interaction)
    assert not answers.answered_event(interaction).is_set()
    assert answers.in_flight() == before and interaction.extras == {}


async def test_what_is_remembered_of_finished_interactions_is_bounded() -> None:
    for _ in range(answers.REMEMBER_DONE + 10):
        interaction: Any = Interaction()
        await answers.acknowledge(interaction)
        answers.unwatch(interaction)
    assert answers.remembered() == answers.REMEMBER_DONE


def created_ago(seconds: float) -> Any:
    """An interaction Discord created ``seconds`` ago (its id's time)."""
    interaction: Any = Interaction()
    interaction.id = discord.utils.time_snowflake(datetime.now(UTC) - timedelta(seconds=seconds))
    return interaction


async def test_the_watch_counts_from_the_interactions_creation_not_from_when_the_handler_began() -> None:
    # Reached the handler 1.8 s after Discord created it (a busy bot): 0.2 s are left before the deferral.
    late = created_ago(1.8)
    fresh = created_ago(0.05)
    answers.watch(late, update=True, after=2.0)
    answers.watch(fresh, update=True, after=2.0)
    await asyncio.sleep(0.6)
    assert late.response.done  # deferred in time
    assert not fresh.response.done  # still has its time
    # Past its deadline already: deferred at once (Discord may still take it when the clocks differ).
    later = created_ago(2.5)
    answers.watch(later, update=True, after=2.0)
    await asyncio.sleep(0.05)
    assert later.response.done
    for interaction in (late, fresh, later):
        answers.unwatch(interaction)


async def test_an_id_that_does_not_tell_a_recent_time_leaves_the_full_wait() -> None:
    # A clock far off (or a stand-in's id): the watch waits its whole delay, from now.
    stale = created_ago(3600)
    answers.watch(stale, update=True, after=0.3)
    await asyncio.sleep(0.1)
    assert not stale.response.done
    await asyncio.sleep(0.4)
    assert stale.response.done
    answers.unwatch(stale)


async def test_a_released_view_is_freed_without_waiting_for_the_cyclic_collector() -> None:
    """A view and its items refer to each other; released once sent, a hand's view is freed as soon as it is
    dropped (the cyclic collector's young passes were paced by these views under load)."""
    import gc
    import weakref

    from bot.ui.controls import hand_view, release
    from tests.ui.snapshots import hand

    def dropped(released: bool) -> weakref.ref[discord.ui.View]:
        view = hand_view(hand(["3C", "9C", "KD", "8S", "QS"], {"9C", "8S", "QS"}))
        assert view is not None and len(view.children) == 4
        if released:
            release(view)
        return weakref.ref(view)

    gc.collect()
    gc.disable()
    try:
        assert dropped(released=False)() is not None  # held by its own cycle until a collection
        assert dropped(released=True)() is None
    finally:
        gc.enable()
        gc.collect()


def test_a_sent_picture_file_is_freed_without_the_cyclic_collector() -> None:
    """discord.File puts its file's real ``close`` back into the file's attributes when done (a cycle that
    kept every picture sent, PNG and all, until a collection); the board's upload keeps it out of them, and
    still cannot be closed while sending."""
    import gc
    import weakref

    from bot.delivery.board import picture_file
    from bot.ui.art.board import BoardPicture

    upload = picture_file(BoardPicture(png=b"\x89PNG picture", alt_text="a table", key=("k",)))
    upload.fp.close()  # what aiohttp does once it has sent the body: discord.File's stub, a no-op ...
    assert not upload.fp.closed and upload.fp.read() == b"\x89PNG picture"
    upload.reset()  # ... so that a retry sends it again
    assert upload.fp.read() == b"\x89PNG picture"
    freed = weakref.ref(upload.fp)
    gc.collect()
    gc.disable()
    try:
        upload.close()  # discord.py, once the request is done: the real close given back (a file it did not
        assert "close" not in vars(upload.fp)  # open it leaves open)
        upload.fp.close()
        assert upload.fp.closed
        del upload
        assert freed() is None
    finally:
        gc.enable()


async def test_a_board_posted_as_an_answer_has_its_buttons_released_once_sent() -> None:
    """Routed by custom id, a sent view is not needed; left as sent (view <-> buttons), it waited for the
    cyclic collector."""
    from bot.ui.controls import board_view
    from tests.ui.snapshots import snapshot, to_act

    interaction: Any = Interaction()
    sent: list[dict[str, Any]] = []

    async def send_message(**kwargs: Any) -> SimpleNamespace:
        sent.append(kwargs)
        interaction.response.done = True
        return SimpleNamespace(message_id=42)

    interaction.response.send_message = send_message
    view = board_view(to_act(snapshot(), 0))
    assert view is not None and view.children
    assert await answers.answer_publicly(interaction, embed=discord.Embed(title="board"), view=view) == 42
    assert sent[0]["view"] is view
    assert view.is_finished() and not view.children
    answers.unwatch(interaction)
