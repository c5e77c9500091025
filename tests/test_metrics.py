"""bot.metrics: what the figures count, and the /metrics endpoint as Prometheus scrapes it."""

from __future__ import annotations

import socket

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.config import ConfigError
from bot.delivery.budget import GlobalBudget, classify
from bot.metrics import BotMetrics

TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OnNlY3JldC10b2tlbi12YWx1ZQ"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by name and labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_interactions_are_timed_from_arrival_to_the_answer_discord_accepted() -> None:
    clock = Clock()
    metrics = BotMetrics(clock)
    metrics.interaction_received(1, 3)
    metrics.interaction_received(2, 2)
    clock.now += 0.04
    metrics.interaction_answered(1)
    metrics.interaction_answered(1)  # a second answer of the same interaction is not timed again
    metrics.interaction_answered(99)  # unknown: not timed
    got = samples(metrics.scrape().decode())
    assert got[("eights_interactions_total", (("type", "component"),))] == 1
    assert got[("eights_interactions_total", (("type", "command"),))] == 1
    assert got[("eights_interaction_answer_seconds_count", ())] == 1
    assert got[("eights_interaction_answer_seconds_bucket", (("le", "0.05"),))] == 1
    assert got[("eights_interaction_answer_seconds_bucket", (("le", "0.025"),))] == 0


def test_requests_429s_and_invalid_requests_through_the_budget() -> None:
    clock = Clock()
    metrics = BotMetrics(clock)
    budget = GlobalBudget(50, observer=metrics, clock=clock, application_id=lambda: 5)
    metrics.watch_budget(budget)
    post = classify("POST", "/channels/1/messages", 5)
    callback = classify("POST", f"/interactions/8/{TOKEN}/callback", 5)
    budget.observe(post, 200, {}, None, 0.01)
    budget.observe(post, 429, {"Via": "1.1", "X-RateLimit-Scope": "user", "Retry-After": "1"}, None, 0.01)
    budget.observe(post, 429, {"Via": "1.1", "X-RateLimit-Scope": "global", "Retry-After": "1"}, None, 0.01)
    budget.observe(post, 403, {}, None, 0.01)
    budget.observe(callback, 204, {}, None, 0.002)
    text = metrics.scrape().decode()
    assert TOKEN not in text
    got = samples(text)
    route = ("route", "POST /channels/{id}/messages")
    assert got[("eights_discord_requests_total", (("limit", "global"), route, ("status", "2xx")))] == 1
    assert got[("eights_discord_requests_total", (("limit", "global"), route, ("status", "429")))] == 2
    assert got[("eights_discord_requests_total", (("limit", "global"), route, ("status", "4xx")))] == 1
    callback_route = ("route", "POST /interactions/{id}/{token}/callback")
    assert (
        got[("eights_discord_requests_total", (("limit", "exempt"), callback_route, ("status", "2xx")))] == 1
    )
    assert got[("eights_discord_rate_limited_total", (("scope", "user"),))] == 1
    assert got[("eights_discord_rate_limited_total", (("scope", "global"),))] == 1
    assert got[("eights_discord_rate_limited_total", (("scope", "shared"),))] == 0
    assert got[("eights_discord_invalid_requests_10m", ())] == 3
    assert got[("eights_discord_budget_rate", ())] == 40  # slowed by the global 429
    clock.now += 601
    assert samples(metrics.scrape().decode())[("eights_discord_invalid_requests_10m", ())] == 0


def test_a_proxy_paced_budget_shows_as_minus_one() -> None:
    metrics = BotMetrics()
    metrics.watch_budget(GlobalBudget(None))
    assert samples(metrics.scrape().decode())[("eights_discord_budget_rate", ())] == -1


async def test_the_endpoint_serves_the_registry_and_a_busy_port_is_refused() -> None:
    metrics = BotMetrics()
    metrics.watch_open_tables(lambda: 12)
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/metrics") as response,
        ):
            assert response.status == 200
            assert response.headers["Content-Type"].startswith("text/plain; version=")
            got = samples(await response.text())
        assert got[("eights_open_tables", ())] == 12
        other = BotMetrics()
        with pytest.raises(ConfigError) as refused:
            await other.start_server("127.0.0.1", port)  # taken
        assert refused.value.variable == "METRICS_PORT" and str(port) in str(refused.value)
        await other.stop_server()
    finally:
        await metrics.stop_server()
    with pytest.raises(aiohttp.ClientError):
        async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/metrics"):
            pass


@pytest.mark.parametrize(
    ("address", "reason"),
    [("192.0.2.1", "assign requested address"), ("metrics-host.invalid", "cannot be resolved")],
    ids=["not-this-machine", "no-such-name"],
)
async def test_an_address_that_cannot_be_listened_on_is_refused_naming_metrics_address(
    address: str, reason: str
) -> None:
    """An address of another machine (e.g. the Prometheus server's) or a name that does not resolve: the
    setting to fix is METRICS_ADDRESS, not the port, and the reason reads as the resolver's own words
    (getaddrinfo's error numbers are not errnos: os.strerror reads them "Unknown error -2")."""
    with pytest.raises(ConfigError) as refused:
        await BotMetrics().start_server(address, free_port())
    error = refused.value
    assert error.variable == "METRICS_ADDRESS", str(error)
    assert address in str(error) and reason in str(error), str(error)
    assert "Unknown error" not in str(error) and "port" not in str(error), str(error)


def test_failed_commits_are_counted() -> None:
    metrics = BotMetrics()
    assert samples(metrics.scrape().decode())[("eights_failed_commits_total", ())] == 0
    metrics.commit_failed()
    metrics.commit_failed()
    assert samples(metrics.scrape().decode())[("eights_failed_commits_total", ())] == 2
