"""compose.yaml (PostgreSQL and two shard processes), checked without Docker: its YAML and structure, and
each shard service's environment given to the real command line against the test PostgreSQL server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from bot.config import VARIABLES
from tests.test_cli import TOKEN, bot

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "compose-secret-1"


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def interpolate(value: str) -> str:
    """Compose's ${NAME:?message} with POSTGRES_PASSWORD set, as `docker compose` would from .env."""
    return re.sub(r"\$\{POSTGRES_PASSWORD(?::\?[^}]*)?\}", PASSWORD, value)


def shard_services(document: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {
        name: {key: interpolate(str(value)) for key, value in service["environment"].items()}
        for name, service in document["services"].items()
        if "SHARD_IDS" in service.get("environment", {})
    }


def test_compose_runs_postgres_and_one_process_per_shard() -> None:
    document = compose()
    postgres = document["services"]["postgres"]
    assert postgres["image"].startswith("postgres:") and "healthcheck" in postgres
    assert postgres["volumes"] == ["postgres-data:/var/lib/postgresql/data"]
    shards = shard_services(document)
    assert len(shards) == 2
    count = {env["SHARD_COUNT"] for env in shards.values()}
    assert count == {"2"}
    assert sorted(env["SHARD_IDS"] for env in shards.values()) == ["0", "1"]  # every shard, once
    for name, env in shards.items():
        service = document["services"][name]
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert service["env_file"] == ".env" and service["build"] == "."
        assert set(env) <= set(VARIABLES), name  # only settings the bot reads
        url = urlsplit(env["DATABASE_URL"])
        assert (url.scheme, url.hostname, url.port, url.path) == ("postgresql", "postgres", 5432, "/eights")
        assert url.username == postgres["environment"]["POSTGRES_USER"]
        assert url.path.lstrip("/") == postgres["environment"]["POSTGRES_DB"]


def test_each_shard_services_settings_pass_check_against_a_real_server(tmp_path: Path, pg_url: str) -> None:
    server = urlsplit(pg_url)
    for name, env in shard_services(compose()).items():
        # The same settings, pointed at the test server instead of the compose network's "postgres".
        url = urlsplit(env["DATABASE_URL"])
        assert url.password == PASSWORD
        here = url._replace(netloc=f"postgres:{PASSWORD}@{server.netloc.split('@')[-1]}", path=server.path)
        settings = {**env, "DATABASE_URL": here.geturl(), "DISCORD_TOKEN": TOKEN}
        checked = bot(tmp_path, "check", env=settings)
        assert checked.returncode == 0, (name, checked.stdout, checked.stderr)
        assert (
            f"shards: {env['SHARD_IDS']} of 2" in checked.stdout
            and "pool of 10 connections" in checked.stdout
        )
        assert PASSWORD not in checked.stdout + checked.stderr
        health = bot(tmp_path, "health", env=settings)
        assert health.returncode == 1 and f"(shard {env['SHARD_IDS']} of 2)" in health.stdout


def test_each_shard_keeps_its_data_in_a_named_volume_and_serves_its_metrics() -> None:
    document = compose()
    shards = shard_services(document)
    volumes, published = set(), set()
    for name, env in shards.items():
        service = document["services"][name]
        # /data holds the shard's art cache: a named volume of its own survives a new container.
        (volume,) = [v for v in service["volumes"] if v.endswith(":/data")]
        source = volume.split(":")[0]
        assert source in document["volumes"], volume
        volumes.add(source)
        # Metrics on the container's network, published to the host's loopback only.
        assert env["METRICS_ADDRESS"] == "0.0.0.0"
        (port,) = service["ports"]
        host, host_port, container_port = port.split(":")
        assert host == "127.0.0.1" and container_port == env["METRICS_PORT"], port
        published.add(host_port)
    assert len(volumes) == len(published) == len(shards)  # one volume and one host port per shard


def test_the_databases_healthcheck_probes_over_tcp() -> None:
    # On a fresh volume the postgres image first runs a server on its socket only: a probe of the socket would
    # pass before the shards can connect over the network.
    test = compose()["services"]["postgres"]["healthcheck"]["test"]
    assert "pg_isready" in test and "--host=127.0.0.1" in test


def test_uncommenting_the_proxy_as_told_leaves_one_global_rate() -> None:
    # "replace the next line with the two after it": the settings then hold DISCORD_GLOBAL_RATE once.
    lines = (ROOT / "compose.yaml").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == 'DISCORD_GLOBAL_RATE: "25"')
    assert "replace the next line with the two after it" in lines[at - 1]
    edited = [*lines[:at], *(line.replace("# ", "", 1) for line in lines[at + 1 : at + 3]), *lines[at + 3 :]]
    environment = yaml.safe_load("\n".join(edited))["x-bot-environment"]
    assert environment["DISCORD_GLOBAL_RATE"] == "proxy" and "DISCORD_API_BASE_URL" in environment


def test_ci_unsets_every_setting_the_bot_reads() -> None:
    # A developer's own settings must not leak into the tests CI runs.
    script = (ROOT / ".ci" / "run").read_text()
    unset = script[script.index("\nunset ") :].split("\n#", 1)[0]
    assert set(VARIABLES) <= set(unset.replace("\\", " ").split())
