"""README, *Discord's rate limits*, "One budget": "A 429 is read, not retried blindly: ... a 429 without
Discord's `Via` header (an edge block) pauses everything."

An edge block (Cloudflare's 1015) is IP-wide: every request from the bot's IP, interaction callbacks and
webhooks included, is answered 429 without `Via` until it lifts, and each such answer is an invalid request
towards the hour-long ban (README: "bans the bot's IP for an hour after 10,000 invalid requests (401, 403,
429)"). So "pauses everything" covers the exempt requests too: a hand edit through an interaction's token,
sent during the pause, must wait for its end."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import yarl
from discord.http import Route

from bot.delivery.budget import GlobalBudget, classify
from tests.delivery.test_budget import APP, TOKEN, VirtualClock


async def test_a_429_without_via_pauses_exempt_requests_too() -> None:
    """After a 429 without `Via` with Retry-After 60, no request goes to Discord for 60 s, the exempt ones
    (an interaction's edit through its token) included: sent into the block, it would only meet another 429,
    counted towards the ban."""
    clock = VirtualClock()
    budget = GlobalBudget(50, application_id=lambda: APP, clock=clock, sleep=clock.sleep)
    budget.observe(classify("GET", "/users/@me", APP), 429, {"Retry-After": "60"}, None, 0.0)
    assert budget.paused_for == 60.0

    sent_at: list[float] = []

    async def handler(request: Any) -> Any:
        sent_at.append(clock.now)
        return SimpleNamespace(status=200, headers={}, release=lambda: None)

    url = yarl.URL(f"{Route.BASE}/webhooks/{APP}/{TOKEN}/messages/@original")
    request = SimpleNamespace(method="PATCH", url=url)
    info = budget.info_for("PATCH", url)
    assert info is not None and info.exempt
    await budget.middleware(request, handler)  # type: ignore[arg-type]
    assert sent_at and sent_at[0] >= 60.0, f"an exempt request went out {sent_at[0]} s into a 60 s edge block"
