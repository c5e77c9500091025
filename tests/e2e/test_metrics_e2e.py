"""The admins' /metrics endpoint on a running bot, scraped as Prometheus would while people play."""

from __future__ import annotations

import asyncio

import aiohttp

from tests.e2e.conftest import World
from tests.e2e.test_round import open_and_start
from tests.test_metrics import free_port, samples


async def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/metrics") as response,
    ):
        assert response.status == 200
        return samples(await response.text())


def total(got: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return sum(
        value
        for (sample, sample_labels), value in got.items()
        if sample == name and all((key, wanted) in sample_labels for key, wanted in labels.items())
    )


async def test_a_scrape_tells_interactions_requests_and_tables(world: World) -> None:
    port = free_port()
    world.config_changes = {"metrics_port": port, "metrics_address": "127.0.0.1"}
    await world.restart()
    await open_and_start(world)
    for _ in range(3):
        user = await world.human_to_act()
        assert user is not None
        await world.play_by_buttons(user)
    await world.settle()
    got = await scrape(port)
    assert total(got, "eights_interactions_total", type="command") >= 1  # /eights new
    assert total(got, "eights_interactions_total", type="component") >= 5  # join, start, moves
    answered = total(got, "eights_interaction_answer_seconds_count")
    assert answered >= 6
    assert total(got, "eights_interaction_answer_seconds_bucket", le="3.0") == answered  # all within 3 s
    # Callbacks, the players' hands and lines, and the board (the answer to /eights new, edited through its
    # token) go through exempt interaction routes: no globally limited edit.
    assert (
        total(
            got,
            "eights_discord_requests_total",
            limit="exempt",
            route="POST /interactions/{id}/{token}/callback",
        )
        >= 6
    )
    assert (
        total(got, "eights_discord_requests_total", limit="exempt", route="POST /webhooks/{id}/{token}") >= 1
    )
    assert (
        total(
            got,
            "eights_discord_requests_total",
            limit="exempt",
            route="PATCH /webhooks/{id}/{token}/messages/@original",
        )
        >= 1
    )
    assert (
        total(
            got, "eights_discord_requests_total", limit="global", route="PATCH /channels/{id}/messages/{id}"
        )
        == 0
    )
    assert total(got, "eights_discord_rate_limited_total") == 0
    assert total(got, "eights_discord_invalid_requests_10m") == 0
    assert total(got, "eights_open_tables") == 1
    assert total(got, "eights_public_backlog_tables") == 0
    assert total(got, "eights_board_delay_seconds_count") >= 1
    assert total(got, "eights_discord_budget_rate") == 50
    await world.run(world.alice, "end")
    await world.settle()
    # Scrapes close together share one exposition (at most a second old: bot/metrics.py), so the table's end
    # shows within a second.
    deadline = asyncio.get_running_loop().time() + 2.0
    while (tables := total(await scrape(port), "eights_open_tables")) != 0:
        assert asyncio.get_running_loop().time() < deadline, tables
        await asyncio.sleep(0.1)
