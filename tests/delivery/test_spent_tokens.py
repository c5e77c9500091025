"""bot.delivery.webhook_calls' spent tokens: a token Discord refused for good (401 50027) is
remembered in one place, so that no lane (hands, lines, board) uses it again; other failures are not; the
memory is bounded in size and in time."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.delivery import webhook_calls
from bot.delivery.carrier import BoardCarrier
from bot.delivery.hand_session import HandSession


def http_error(status: int, code: int) -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason="refused")
    return discord.HTTPException(response, {"code": code, "message": "refused"})  # type: ignore[arg-type]


def interaction(token: str) -> Any:
    return SimpleNamespace(token=token, id=1)


@pytest.fixture(autouse=True)
def empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webhook_calls, "_spent", type(webhook_calls._spent)())


def test_a_token_refused_for_good_is_spent_for_every_holder() -> None:
    one = interaction("tok-a")
    assert webhook_calls.note_refused(one, http_error(401, 50027))
    assert webhook_calls.is_spent(one)
    assert not HandSession(one, since=0.0).fresh(1.0)
    assert not BoardCarrier(one, since=0.0, message_id=5, original=True).fresh(1.0)
    assert not webhook_calls.is_spent(interaction("tok-b"))
    assert HandSession(interaction("tok-b"), since=0.0).fresh(1.0)


@pytest.mark.parametrize(
    ("status", "code"), [(429, 0), (500, 0), (403, 50001), (404, 10008), (400, 50035), (404, 10015)]
)
def test_other_failures_do_not_spend_the_token(status: int, code: int) -> None:
    """Nor does 404 10015 "Unknown Webhook": Discord answers it at times while the token still serves (an
    edit that overtook the interaction's first answer)."""
    one = interaction("tok-a")
    assert not webhook_calls.note_refused(one, http_error(status, code))
    assert not webhook_calls.note_refused(one, RuntimeError("boom"))
    assert not webhook_calls.is_spent(one)


def test_stand_ins_without_a_token_are_never_spent() -> None:
    assert not webhook_calls.note_refused(SimpleNamespace(), http_error(401, 50027))
    assert not webhook_calls.is_spent(None)


def test_the_memory_is_bounded_in_size_and_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webhook_calls, "SPENT_MAX", 3)
    now = [1000.0]
    monkeypatch.setattr(webhook_calls.time, "monotonic", lambda: now[0])
    for n in range(5):
        webhook_calls.note_refused(interaction(f"t{n}"), http_error(401, 50027))
    assert list(webhook_calls._spent) == ["t2", "t3", "t4"]
    now[0] += webhook_calls.SPENT_KEPT
    webhook_calls.note_refused(interaction("late"), http_error(401, 50027))
    assert list(webhook_calls._spent) == ["late"]
