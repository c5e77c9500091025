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


def test_dependencies_are_installed_in_their_own_layer_before_the_code(stages: list[Stage]) -> None:
    build = stages[0].instructions
    copies = [(i, args) for i, (kw, args) in enumerate(build) if kw == "COPY"]
    installs = [i for i, (kw, args) in enumerate(build) if kw == "RUN" and "pip install" in args]
    assert installs, "no pip install in the build stage"
    first_install = installs[0]
    copied_before = [args for i, args in copies if i < first_install]
    assert copied_before == ["pyproject.toml ./"], "only the dependency list may be copied before installing"
    code_copies = [i for i, args in copies if args.startswith("bot/")]
    assert code_copies and min(code_copies) > first_install


def test_the_dependency_list_the_image_installs_is_the_projects(stages: list[Stage]) -> None:
    # Run the build stage's extraction command on the real pyproject.toml.
    (run,) = [args for kw, args in stages[0].instructions if kw == "RUN" and "tomllib" in args]
    script = re.search(r'python -c "(.*?)"\s*>', run)
    assert script, run
    result = subprocess.run(
        [sys.executable, "-c", script.group(1)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert result.stdout.split() == expected
    assert any(dep.startswith("discord.py") for dep in expected) and any(
        d.startswith("aiosqlite") for d in expected
    )


def test_runs_as_a_non_root_user(stages: list[Stage]) -> None:
    users = stages[-1].all("USER")
    assert users, "the final stage sets no USER"
    assert users[-1] not in ("root", "0", "0:0")
    # The user is created in the image and owns the data folder.
    runs = " ".join(stages[-1].all("RUN"))
    assert "useradd" in runs and users[-1] in runs and "chown" in runs and "/data" in runs


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
