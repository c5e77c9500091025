"""The Dockerfile's properties, read from the file: there is no Docker engine where the tests run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.config import DEFAULT_DATABASE_URL, database_path, parse_env_file

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for kw, args in self.instructions if kw == keyword]


def parse_dockerfile(text: str) -> list[Stage]:
    """Instructions per stage, with continuation lines joined and comments dropped."""
    logical: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    stages: list[Stage] = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword, args = keyword.upper(), args.strip()
        if keyword == "FROM":
            match = re.fullmatch(r"(\S+)(?:\s+AS\s+(\S+))?", args, re.IGNORECASE)
            assert match, line
            stages.append(Stage(match.group(1), match.group(2)))
        else:
            assert stages, f"{keyword} before FROM"
            stages[-1].instructions.append((keyword, args))
    return stages


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    return parse_dockerfile((ROOT / "Dockerfile").read_text())


def test_multi_stage_on_python_3_11_slim(stages: list[Stage]) -> None:
    assert len(stages) >= 2
    assert all(stage.base == "python:3.11-slim" for stage in stages)
    build = stages[0]
    assert build.name is not None
    # The final stage takes the environment from the build stage instead of building anything itself.
    final = stages[-1]
    assert any(f"--from={build.name}" in args for args in final.all("COPY"))
    assert not any("pip install" in args for args in final.all("RUN"))


def dependency_install(stages: list[Stage]) -> str:
    (run,) = [args for kw, args in stages[0].instructions if kw == "RUN" and "pip install" in args]
    return run


def test_dependencies_are_installed_from_the_lock_in_their_own_layer_before_the_code(
    stages: list[Stage],
) -> None:
    build = stages[0].instructions
    copies = [(i, args) for i, (kw, args) in enumerate(build) if kw == "COPY"]
    installs = [i for i, (kw, args) in enumerate(build) if kw == "RUN" and "pip install" in args]
    assert installs, "no pip install in the build stage"
    first_install = installs[0]
    copied_before = [args for i, args in copies if i < first_install]
    # Only the dependency list and its lock: two builds of one commit install the same packages.
    assert copied_before == ["pyproject.toml uv.lock ./"], copied_before
    code_copies = [i for i, args in copies if args.startswith("bot/")]
    assert code_copies and min(code_copies) > first_install
    run = dependency_install(stages)
    # A lock that no longer matches pyproject.toml fails the build (--locked); every file is checked against
    # the lock's hashes; nothing is resolved again at build time.
    assert "uv export --locked" in run and "--no-dev" in run and "--no-emit-project" in run
    assert "pip install --require-hashes --no-deps -r requirements.txt" in run


def test_the_image_installs_the_projects_dependencies_pinned_by_the_lock(stages: list[Stage]) -> None:
    # Run the build stage's export on the real uv.lock (offline: --frozen reads the lock alone).
    command = re.search(r"(uv export .*?) --output-file", dependency_install(stages))
    assert command, dependency_install(stages)
    words = command.group(1).replace("--locked", "--frozen").split()
    uv = Path(sys.executable).with_name("uv")
    result = subprocess.run(
        [str(uv), *words[1:]], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    pins = dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==(\S+)", result.stdout, flags=re.M))
    assert result.stdout.count("--hash=sha256:") >= len(pins) > 0
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for dependency in project["dependencies"]:
        name = re.split(r"[<>=!~; \[]", dependency, maxsplit=1)[0].lower().replace(".", "-").replace("_", "-")
        assert name in pins, dependency
    for extra in project["optional-dependencies"].values():  # tests and tools stay out of the image
        for dependency in extra:
            name = re.split(r"[<>=!~; \[]", dependency, maxsplit=1)[0].lower().replace("_", "-")
            assert name not in pins, dependency


def test_the_lock_file_matches_pyproject() -> None:
    """What `uv lock --check` (in .ci/run) compares, offline: the requirements the lock was made from are
    pyproject.toml's, every extra included."""
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (entry,) = [package for package in lock["package"] if package["name"] == project["name"]]

    def normal(requirement: str) -> tuple[str, str]:
        match = re.fullmatch(r"([A-Za-z0-9._-]+)\s*(.*)", requirement)
        assert match, requirement
        name = re.sub(r"[._-]+", "-", match.group(1)).lower()
        return name, ",".join(sorted(match.group(2).replace(" ", "").split(",")))

    locked = {
        (item["name"], ",".join(sorted(item.get("specifier", "").split(","))), item.get("marker", ""))
        for item in entry["metadata"]["requires-dist"]
    }
    wanted = {(*normal(dep), "") for dep in project["dependencies"]}
    for extra, deps in project["optional-dependencies"].items():
        wanted |= {(*normal(dep), f"extra == '{extra}'") for dep in deps}
    assert locked == wanted, "uv.lock is out of date: run `uv lock` and commit uv.lock"


def test_the_image_reads_the_lock_with_the_uv_that_made_it(stages: list[Stage]) -> None:
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    (pinned,) = [dep for dep in dev if dep.startswith("uv")]
    assert re.fullmatch(r"uv==[\d.]+", pinned), pinned
    assert f'pip install "{pinned}"' in dependency_install(stages)


def test_runs_as_a_non_root_user(stages: list[Stage]) -> None:
    users = stages[-1].all("USER")
    assert users, "the final stage sets no USER"
    # Numeric, so that Kubernetes' runAsNonRoot can tell it is not root without reading /etc/passwd.
    assert users[-1] == "10001:10001"
    # The user is created in the image and owns the data folder.
    runs = " ".join(stages[-1].all("RUN"))
    assert "useradd --system --uid 10001" in runs and "--gid 10001" in runs
    assert "chown 10001:10001 /data" in runs


def test_data_volume_healthcheck_and_entrypoint(stages: list[Stage]) -> None:
    final = stages[-1]
    assert any("/data" in args for args in final.all("VOLUME"))
    (healthcheck,) = final.all("HEALTHCHECK")
    assert re.search(r'CMD \["python", "-m", "bot", "health"\]', healthcheck)
    (entrypoint,) = final.all("ENTRYPOINT")
    assert json.loads(entrypoint) == ["python", "-m", "bot"]
    # The database is in the volume, whether DATABASE_URL comes from the image or from an .env copied from
    # .env.example (relative to the working directory).
    env = " ".join(final.all("ENV"))
    assert "DATABASE_URL=sqlite:////data/" in env
    (volume,) = (json.loads(args)[0] for args in final.all("VOLUME"))
    workdir = Path(final.all("WORKDIR")[-1])
    example = parse_env_file((ROOT / ".env.example").read_text())["DATABASE_URL"]
    for url in (DEFAULT_DATABASE_URL, example):
        assert (workdir / database_path(url)).is_relative_to(volume), url


def test_the_code_and_migrations_sit_side_by_side(stages: list[Stage]) -> None:
    # The store finds migrations/ next to the bot package (bot/store/migrations.py -> ../../migrations).
    copies = stages[-1].all("COPY")
    targets = {args.split()[-1].rstrip("/") for args in copies}
    assert {"/app/bot", "/app/migrations"} <= targets
    assert "PYTHONPATH=/app" in " ".join(stages[-1].all("ENV"))
    assert (ROOT / "migrations").is_dir() and any((ROOT / "migrations").glob("0001_*.sql"))


def test_no_secret_is_baked_in(stages: list[Stage]) -> None:
    text = (ROOT / "Dockerfile").read_text()
    for stage in stages:
        for keyword in ("ENV", "ARG", "LABEL"):
            for args in stage.all(keyword):
                assert "TOKEN" not in args.upper() and "SECRET" not in args.upper(), args
        for args in stage.all("COPY") + stage.all("ADD"):
            assert ".env" not in args.split()[0] and not args.startswith(". "), args
    assert "DISCORD_TOKEN=" not in text


def test_dockerignore_keeps_secrets_and_local_data_out() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for entry in (".env", ".git", ".venv", "data", "*.sqlite3"):
        assert entry in ignored
